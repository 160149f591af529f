"""Inspect AI logs: a `.eval` (a zip: `header.json`, one `samples/<id>_epoch_<n>.json` per sample)
or a `.json` log (the header's fields and `samples`). Each sample's `events` hold its model calls:
a `model` event's `input` (the messages sent), or, in logs that pool them, `input_refs` (ranges,
end exclusive, into the sample's `events_data.messages`); texts logged once are
`attachment://<hash>` references into the sample's `attachments`. Calls inside a `scorer` span are
the judges'; the first call elsewhere is the candidate's, and the sample's `output` its answer.
Inspect AI's `.eval` members are compressed with zstd since 0.3.1xx: Python 3.11's zipfile reads
them once `zipfile_zstd` (installed with inspect_ai) is imported."""

from __future__ import annotations

import json
import re
import zipfile
from typing import Any

from inspector.core.runs.model import (
    OneFile,
    RecordedCase,
    RecordedJudge,
    Run,
    RunError,
    RunFiles,
    SentMessage,
    ZipFiles,
)

_ATTACHMENT = re.compile(r"attachment://([0-9a-f]{32})")
_SAMPLE = re.compile(r"samples/(.+)_epoch_(\d+)\.json")
ZSTD = 93  # the zip compression method number of Zstandard


def is_log_name(path: str) -> bool:
    return "/" not in path and (path.endswith(".eval") or path.endswith(".json"))


def is_inspect_log(files: RunFiles, path: str) -> bool:
    if path.endswith(".eval"):
        return True
    head = (files.read(path) or b"")[:4096].decode("utf-8", "replace")
    return '"eval"' in head and '"version"' in head


def _resolved(value: Any, attachments: dict[str, str]) -> Any:
    if isinstance(value, str):
        return _ATTACHMENT.sub(lambda match: attachments.get(match.group(1), match.group(0)), value)
    if isinstance(value, list):
        return [_resolved(item, attachments) for item in value]
    if isinstance(value, dict):
        return {key: _resolved(item, attachments) for key, item in value.items()}
    return value


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, dict) and part.get("type") == "reasoning":
                continue  # the model's own thinking, not sent text
            elif isinstance(part, dict):
                parts.append(f"[{part.get('type')}]")
        return "\n".join(parts)
    return ""


def _event_input(event: dict[str, Any], pool: list[Any]) -> list[SentMessage]:
    messages = event.get("input") or []
    if not messages and event.get("input_refs"):
        messages = [message for start, end in event["input_refs"] for message in pool[start:end]]
    return [
        SentMessage(str(message.get("role")), _text(message.get("content")))
        for message in messages
        if isinstance(message, dict)
    ]


def _call_request(event: dict[str, Any], pool: list[Any]) -> dict[str, Any] | None:
    """The raw request of a model call where the log kept it, its pooled messages put back
    (`call_refs` ranges into `events_data.calls`, under `call_key`)."""
    call = event.get("call")
    if not isinstance(call, dict) or not isinstance(call.get("request"), dict):
        return None
    request = dict(call["request"])
    if call.get("call_refs"):
        request[call.get("call_key") or "messages"] = [
            message for start, end in call["call_refs"] for message in pool[start:end]
        ]
    return request


def _scorer_spans(events: list[dict[str, Any]]) -> dict[str, str]:
    """span id -> scorer name, for every span opened inside a scorer's."""
    scorers: dict[str, str] = {}
    for event in events:
        if event.get("event") != "span_begin":
            continue
        if event.get("type") == "scorer":
            scorers[event["id"]] = str(event.get("name"))
        elif event.get("parent_id") in scorers:
            scorers[event["id"]] = scorers[event["parent_id"]]
    return scorers


def _add_calls(case: RecordedCase, sample: dict[str, Any]) -> None:
    """The sample's model calls: the judges' (inside a scorer's span), then the candidate's first
    call's messages and every candidate call's logged request."""
    events = sample.get("events") or []
    pooled = sample.get("events_data") or {}
    pool, calls = pooled.get("messages") or [], pooled.get("calls") or []
    scorers = _scorer_spans(events)
    for event in events:
        if event.get("event") != "model":
            continue
        messages = _event_input(event, pool)
        scorer = scorers.get(event.get("span_id", ""))
        if scorer is not None:
            case.judges.append(RecordedJudge(scorer, messages))
            continue
        if case.messages is None:
            case.messages = messages
        request = _call_request(event, calls)
        if request is not None:
            case.requests.append(request)


def case_of(sample: dict[str, Any], epochs: int) -> RecordedCase:
    sample = _resolved(sample, sample.get("attachments") or {})
    case_id = str(sample.get("id"))
    if epochs > 1:
        case_id += f"#epoch{sample.get('epoch')}"
    case = RecordedCase(case_id, source=f"samples/{sample.get('id')}_epoch_{sample.get('epoch')}.json")
    _add_calls(case, sample)
    output = sample.get("output") or {}
    if isinstance(output.get("completion"), str):
        case.answer = output["completion"]
    if sample.get("error"):
        case.error = str((sample["error"] or {}).get("message"))
    return case


def _member(archive: zipfile.ZipFile, name: str) -> bytes:
    if archive.getinfo(name).compress_type == ZSTD:
        try:
            import zipfile_zstd  # noqa: F401
        except ImportError:
            raise RunError(
                "this Inspect log is compressed with zstd: install zipfile-zstd "
                "(it comes with inspect_ai) to read it"
            ) from None
    return archive.read(name)


def _eval_log(data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    archive = ZipFiles(data).archive
    names = archive.namelist()
    header = (
        json.loads(_member(archive, "header.json"))
        if "header.json" in names
        else json.loads(_member(archive, "_journal/start.json"))
    )
    samples = [json.loads(_member(archive, name)) for name in sorted(names) if _SAMPLE.fullmatch(name)]
    return header, samples


def read_log(name: str, data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if name.endswith(".eval"):
        return _eval_log(data)
    try:
        log = json.loads(data)
    except ValueError as error:
        raise RunError(f"{name}: not JSON ({error})") from None
    return log, list(log.get("samples") or [])


def read_inspect(files: RunFiles, paths: list[str]) -> Run:
    """Every log named (a folder of logs: each sample of each, in file order)."""
    cases: list[RecordedCase] = []
    versions: set[str] = set()
    notes: list[str] = []
    for path in paths:
        data = files.read(path)
        if data is None:
            continue
        header, samples = read_log(path, data)
        evaluation = header.get("eval") or {}
        versions.add(str((evaluation.get("packages") or {}).get("inspect_ai", "")))
        notes.append(f"{path}: task {evaluation.get('task')} on {evaluation.get('model')}")
        epochs = int(((evaluation.get("config") or {}).get("epochs")) or 1)
        cases.extend(case_of(sample, epochs) for sample in samples)
    versions.discard("")
    return Run("inspect_ai", ", ".join(sorted(versions)) or None, None, cases, notes=notes)


def read_inspect_file(name: str, data: bytes) -> Run:
    return read_inspect(OneFile(name, data), [name])
