"""agentv 5 run bundles (`.agentv/results/<run>/`, as v5.3.1-next.1's run-artifacts.ts writes
them): `index.jsonl`, one row per test with `transcript_path` (`<result_dir>/sample-1/
transcript.json`), `answer_path` (`.../outputs/answer.md`) and `eval_path`, which agentv 5 points
at the generated single-test bundle (`<result_dir>/test/EVAL.yaml`, files under `test/files/`); the
project's own eval file is `projection_identity.dimensions.eval_path`. agentv 5 keeps no judge
request (its #1500, #1673) and no input.md: the transcript (`schema_version`
agentv.normalized_transcript.v1) holds `turns` of `type` system, user or assistant with `content`
blocks (`{type: text, text}`, tool uses, images), the test's input followed by the candidate's
output; the output is the trailing assistant turns."""

from __future__ import annotations

import json
from typing import Any

from inspector.core.runs.agentv4 import judges, read_rows
from inspector.core.runs.model import RecordedCase, Run, RunError, RunFiles, SentMessage, text_of

TRANSCRIPT_SCHEMA = "agentv.normalized_transcript.v1"


def is_agentv5_row(row: Any) -> bool:
    if not isinstance(row, dict) or "test_id" not in row:
        return False
    return str(row.get("transcript_path", "")).endswith("transcript.json") or str(
        row.get("eval_path", "")
    ).endswith("test/EVAL.yaml")


def _text(blocks: Any) -> str:
    if isinstance(blocks, str):
        return blocks
    parts = []
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def transcript_input(transcript: Any) -> list[SentMessage]:
    """The turns before the candidate's trailing assistant turns: what the candidate was sent."""
    turns = transcript.get("turns") if isinstance(transcript, dict) else None
    messages = [
        SentMessage(str(turn.get("type")), _text(turn.get("content")))
        for turn in turns or []
        if isinstance(turn, dict)
    ]
    while messages and messages[-1].role == "assistant":
        messages.pop()
    return messages


def _project_eval_path(row: dict[str, Any], summary_paths: dict[str, str]) -> str | None:
    """summary.json's `cases[].eval_path` (relative to the project), else the projection
    identity's when it is relative."""
    if str(row["test_id"]) in summary_paths:
        return summary_paths[str(row["test_id"])]
    identity = row.get("projection_identity")
    dimensions = identity.get("dimensions") if isinstance(identity, dict) else None
    path = dimensions.get("eval_path") if isinstance(dimensions, dict) else None
    return path if isinstance(path, str) and not path.startswith("/") else None


def _summary(files: RunFiles) -> dict[str, Any]:
    try:
        summary = json.loads(text_of(files, "summary.json") or "{}")
    except ValueError:
        return {}
    return summary if isinstance(summary, dict) else {}


def index_path(files: RunFiles) -> str | None:
    """Where the run's index is: summary.json's `index_path` (`.internal/index.jsonl` at
    v5.3.1-next.1), else index.jsonl."""
    named = _summary(files).get("index_path")
    for path in (named, ".internal/index.jsonl", "index.jsonl"):
        if isinstance(path, str) and files.read(path) is not None:
            return path
    return None


def case_of(row: dict[str, Any], files: RunFiles, summary_paths: dict[str, str]) -> RecordedCase:
    bundle_eval = row.get("eval_path") if str(row.get("eval_path", "")).endswith("test/EVAL.yaml") else None
    case = RecordedCase(
        str(row["test_id"]),
        _project_eval_path(row, summary_paths),
        judges=judges(row.get("scores")),
        bundle_eval_path=bundle_eval,
        error=row.get("error") if row.get("execution_status") not in (None, "ok") else None,
    )
    transcript_path = row.get("transcript_path")
    text = text_of(files, transcript_path) if isinstance(transcript_path, str) else None
    if text is not None:
        try:
            transcript = json.loads(text)
        except ValueError as error:
            raise RunError(f"{transcript_path}: not JSON ({error})") from None
        case.messages, case.source = transcript_input(transcript), transcript_path
        case.without_default_prompt = True
    answer_path = row.get("answer_path") or row.get("output_path")
    if isinstance(answer_path, str):
        case.answer = text_of(files, answer_path)
    return case


def read_agentv5(files: RunFiles, index_path: str) -> Run:
    rows = [row for row in read_rows(text_of(files, index_path) or "", index_path) if is_agentv5_row(row)]
    if not rows:
        raise RunError(f"{index_path}: no agentv 5 results in it")
    summary_paths = {
        str(item.get("test_id")): item["eval_path"]
        for item in _summary(files).get("cases") or []
        if isinstance(item, dict) and isinstance(item.get("eval_path"), str)
    }
    return Run(
        "agentv",
        "5",
        "agentv-5",
        [case_of(row, files, summary_paths) for row in rows],
        version_note="agentv 5 records no version; the layout is agentv 5's (v5.3.1-next.1)",
    )
