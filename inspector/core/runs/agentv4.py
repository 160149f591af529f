"""agentv 4 runs: the run folder agentv 4.42 writes (`agentv eval run -o DIR`: index.jsonl, and per
test `input.md`, `outputs/answer.md`, `task/EVAL.yaml`) or a results JSONL (one result per line).
Each row names its test (`test_id`), its eval file (`projection_identity.dimensions.eval_path`,
relative to the project), and keeps each grader's judge prompt in `scores[].input` or
`scores[].raw_request` (`{systemPrompt, userPrompt}`), composites' inner graders in `scores[].scores`.
`input.md` is the test's input messages as agentv formats them (`@[role]:` then the content, the
messages joined by a blank line), without the default system prompt agentv adds to the request."""

from __future__ import annotations

import json
import re
from typing import Any

from inspector.core.runs.model import (
    RecordedCase,
    RecordedJudge,
    Run,
    RunError,
    RunFiles,
    SentMessage,
    text_of,
)

ROLES = ("system", "user", "assistant", "tool", "developer")
_ROLE_MARK = re.compile(r"(?:^|\n\n)@\[(" + "|".join(ROLES) + r")\]:\n")
RUN_SHAPE_VERSION = "4.42"


def is_agentv4_row(row: Any) -> bool:
    """agentv 4's rows: no transcript, or 4.42's outputs/transcript.jsonl (agentv 5 writes
    transcript.json)."""
    if not isinstance(row, dict) or "test_id" not in row:
        return False
    return str(row.get("transcript_path") or ".jsonl").endswith(".jsonl")


def input_messages(markdown: str) -> list[SentMessage]:
    """input.md back into messages: agentv writes `@[role]:\\n<content>` joined by blank lines."""
    marks = list(_ROLE_MARK.finditer(markdown))
    messages = []
    for number, mark in enumerate(marks):
        end = marks[number + 1].start() if number + 1 < len(marks) else len(markdown)
        messages.append(SentMessage(mark.group(1), markdown[mark.end() : end]))
    return messages


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(
            part.get("text") or part.get("value") or "" for part in content if isinstance(part, dict)
        )
    return "" if content is None else json.dumps(content)


def _message_list(items: Any) -> list[SentMessage]:
    return [
        SentMessage(str(item.get("role")), _text(item.get("content")))
        for item in items
        if isinstance(item, dict)
    ]


def judge_messages(request: Any) -> list[SentMessage] | None:
    """The messages of a kept judge request: {systemPrompt, userPrompt} or {messages: [...]}."""
    if not isinstance(request, dict):
        return None
    if isinstance(request.get("messages"), list):
        return _message_list(request["messages"])
    if not isinstance(request.get("userPrompt"), str):
        return None
    system = request.get("systemPrompt")
    messages = [SentMessage("system", system)] if isinstance(system, str) and system else []
    return messages + [SentMessage("user", request["userPrompt"])]


def judges(scores: Any) -> list[RecordedJudge]:
    """Each grader's kept judge request, composites' inner graders in order after their own."""
    found: list[RecordedJudge] = []
    for score in scores if isinstance(scores, list) else []:
        if not isinstance(score, dict):
            continue
        messages = judge_messages(score.get("raw_request")) or judge_messages(score.get("input"))
        if messages:
            found.append(RecordedJudge(str(score.get("name") or score.get("type") or "grader"), messages))
        found.extend(judges(score.get("scores")))
    return found


def _eval_path(row: dict[str, Any]) -> str | None:
    identity = row.get("projection_identity")
    dimensions = identity.get("dimensions") if isinstance(identity, dict) else None
    if isinstance(dimensions, dict) and isinstance(dimensions.get("eval_path"), str):
        return dimensions["eval_path"]
    for key in ("eval_path", "evalPath", "eval_file"):
        if isinstance(row.get(key), str) and not row.get("task_dir"):
            return row[key]
    return None


def case_of(row: dict[str, Any], files: RunFiles) -> RecordedCase:
    bundle_eval = row.get("eval_path") if row.get("task_dir") else None
    case = RecordedCase(
        str(row["test_id"]),
        _eval_path(row),
        judges=judges(row.get("scores")),
        bundle_eval_path=bundle_eval if isinstance(bundle_eval, str) else None,
        error=row.get("error") if row.get("execution_status") not in (None, "ok") else None,
    )
    input_path = row.get("input_path")
    markdown = text_of(files, input_path) if isinstance(input_path, str) else None
    if markdown is not None:
        case.messages, case.source, case.without_default_prompt = input_messages(markdown), input_path, True
    elif isinstance(row.get("input"), list):
        case.messages, case.source, case.without_default_prompt = _message_list(row["input"]), "input", True
    answer_path = row.get("answer_path") or row.get("output_path")
    if isinstance(answer_path, str):
        case.answer = text_of(files, answer_path)
    elif isinstance(row.get("output"), list) and row["output"]:
        case.answer = _text(row["output"][-1].get("content"))
    return case


def read_rows(text: str, where: str) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError as error:
            raise RunError(f"{where} line {number}: not JSON ({error})") from None
    return rows


def read_agentv4(files: RunFiles, results_path: str) -> Run:
    text = text_of(files, results_path) or ""
    rows = [row for row in read_rows(text, results_path) if is_agentv4_row(row)]
    if not rows:
        raise RunError(f"{results_path}: no agentv results in it")
    return Run(
        "agentv",
        RUN_SHAPE_VERSION,
        "agentv-4",
        [case_of(row, files) for row in rows],
        version_note="agentv 4 records no version; the layout is agentv 4.42's",
    )
