"""Samples and contexts from a TOML sample deck, validated as seed 004 says, with their lines."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from ..model import Diagnostic, InputError
from ..plain import json_safe
from ..safe_parse import check_toml
from .locate import LocateError, TomlLines

# Seed 004's validateSample messages, word for word.
NO_MESSAGES_ARRAY = "Sample must have messages array"
EMPTY_MESSAGES = "Messages array cannot be empty"
NO_ROLE = "Each message must have a role string"
NO_CONTENT = "Each message must have a content string"

LEGACY_KEYS = ("userMessage", "assistantResponse")
NOT_METADATA = {"messages", *LEGACY_KEYS}

_TOML_ERROR_AT = re.compile(r"^(?P<message>.*) \(at line (?P<line>\d+), column (?P<column>\d+)\)$", re.DOTALL)
_TOML_ERROR_END = re.compile(r"^(?P<message>.*) \(at end of document\)$", re.DOTALL)


@dataclass(slots=True)
class SampleMessage:
    role: str
    content: str
    span: tuple[int, int] | None  # lines of the whole message
    content_span: tuple[int, int] | None  # lines of the content string


@dataclass(slots=True)
class Sample:
    id: str
    messages: list[SampleMessage]
    metadata: dict[str, Any]
    span: tuple[int, int] | None
    legacy: bool = False


@dataclass(slots=True)
class SampleFile:
    path: str
    samples: list[Sample] = field(default_factory=list)
    contexts: dict[str, dict[str, Any]] = field(default_factory=dict)
    context_spans: dict[str, tuple[int, int] | None] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def parse_toml(text: str, path: str) -> dict[str, Any]:
    """tomllib's result, or an InputError naming the line and column."""
    check_toml(text, path)
    try:
        return json_safe(tomllib.loads(text))
    except tomllib.TOMLDecodeError as error:
        raw = str(error)
        match = _TOML_ERROR_AT.match(raw)
        if match:
            raise InputError(
                f"invalid TOML: {match['message']}", path, int(match["line"]), int(match["column"])
            ) from None
        match = _TOML_ERROR_END.match(raw)
        if match:
            last_line = text.count("\n") + 1
            raise InputError(f"invalid TOML: {match['message']} (at end of file)", path, last_line) from None
        raise InputError(f"invalid TOML: {raw}", path) from None


def load_sample_file(text: str, path: str) -> SampleFile:
    data = parse_toml(text, path)
    result = SampleFile(path=path, data=data)
    try:
        lines: TomlLines | None = TomlLines(text)
    except LocateError as error:  # pragma: no cover - tomllib accepted the text, so the scan should
        lines = None
        result.diagnostics.append(Diagnostic(f"line numbers unavailable: {error}", path))

    contexts = data.get("contexts")
    if isinstance(contexts, dict):
        for name, definition in contexts.items():
            if isinstance(definition, dict):
                result.contexts[name] = definition
                result.context_spans[name] = _covering(lines, ("contexts", name))

    samples = data.get("samples")
    if samples is None:
        return result
    entries = _sample_entries(samples)
    if entries is None:
        result.diagnostics.append(
            Diagnostic(
                "`samples` must be an array of tables ([[samples]]) or tables ([samples.<id>])",
                path,
                (_span(lines, ("samples",)) or (None,))[0],
            )
        )
        return result
    for sample_id, key_path, item in entries:
        sample = _sample(sample_id, key_path, item, lines, path, result.diagnostics)
        if sample is not None:
            result.samples.append(sample)
    return result


def _span(lines: TomlLines | None, key_path: tuple) -> tuple[int, int] | None:
    return None if lines is None else lines.span(key_path)


def _covering(lines: TomlLines | None, key_path: tuple) -> tuple[int, int] | None:
    return None if lines is None else lines.covering_span(key_path)


def _sample_entries(samples: Any) -> list[tuple[str, tuple, Any]] | None:
    """(id, key path, table) per sample, of [[samples]] or [samples.<id>]; None for neither."""
    if isinstance(samples, list):
        return [
            (_list_sample_id(item, index), ("samples", index), item) for index, item in enumerate(samples)
        ]
    if isinstance(samples, dict):
        return [(str(name), ("samples", name), item) for name, item in samples.items()]
    return None


def _sample(
    sample_id: str,
    key_path: tuple,
    item: Any,
    lines: TomlLines | None,
    path: str,
    diagnostics: list[Diagnostic],
) -> Sample | None:
    """One sample, or None (with the reason in `diagnostics`) when seed 004 skips it."""
    sample_span = _covering(lines, key_path)
    first_line = sample_span[0] if sample_span else None
    if not isinstance(item, dict):
        diagnostics.append(Diagnostic(f"sample {sample_id!r} skipped: it must be a table", path, first_line))
        return None
    legacy = "messages" not in item and any(key in item for key in LEGACY_KEYS)
    raw_messages, message_paths, content_paths = _written_messages(item, key_path, legacy)
    problem = _validate(raw_messages, legacy)
    if problem is not None:
        field_name, index, message = problem
        if index is None:
            where = _span(lines, key_path + ("messages",)) or sample_span
        else:
            where = (
                _span(lines, content_paths[index])
                if field_name.endswith("content")
                else _span(lines, message_paths[index] + ("role",))
            ) or _span(lines, message_paths[index])
        diagnostics.append(
            Diagnostic(
                f"sample {sample_id!r} skipped: {field_name}: {message}",
                path,
                where[0] if where else first_line,
            )
        )
        return None
    messages = [
        SampleMessage(
            message["role"],
            message["content"],
            _span(lines, message_path) or _covering(lines, message_path),
            _span(lines, content_path),
        )
        for message, message_path, content_path in zip(
            raw_messages, message_paths, content_paths, strict=True
        )
    ]
    metadata = {key: value for key, value in item.items() if key not in NOT_METADATA}
    return Sample(sample_id, messages, metadata, sample_span, legacy)


def _written_messages(
    item: dict[str, Any], key_path: tuple, legacy: bool
) -> tuple[Any, list[tuple], list[tuple]]:
    """The sample's messages as written, each one's key path and its content's (a legacy
    sample's userMessage and assistantResponse are both)."""
    if legacy:
        raw_messages: Any = [
            {"role": role, "content": item[key]}
            for key, role in (("userMessage", "user"), ("assistantResponse", "assistant"))
            if key in item
        ]
        message_paths: list[tuple] = [key_path + (key,) for key in LEGACY_KEYS if key in item]
        return raw_messages, message_paths, message_paths
    raw_messages = item.get("messages")
    count = len(raw_messages) if isinstance(raw_messages, list) else 0
    message_paths = [key_path + ("messages", index) for index in range(count)]
    return raw_messages, message_paths, [message + ("content",) for message in message_paths]


def _list_sample_id(item: Any, index: int) -> str:
    if isinstance(item, dict):
        for key in ("id", "name"):
            if isinstance(item.get(key), str) and item[key]:
                return item[key]
    return f"sample-{index + 1}"


def _validate(messages: Any, legacy: bool) -> tuple[str, int | None, str] | None:
    """(field, message index, seed 004 message) for the first problem, or None."""
    if not isinstance(messages, list):
        return "messages", None, NO_MESSAGES_ARRAY
    if not messages:
        return "messages", None, EMPTY_MESSAGES
    for index, message in enumerate(messages):
        where = LEGACY_KEYS[index] if legacy else f"messages[{index}]"
        if not isinstance(message, dict):
            return where, index, NO_ROLE
        role, content = message.get("role"), message.get("content")
        if not isinstance(role, str) or not role:
            return (where if legacy else f"{where}.role"), index, NO_ROLE
        if not isinstance(content, str) or not content:
            return (where if legacy else f"{where}.content"), index, NO_CONTENT
    return None


# -- converting a legacy deck to the messages form ----------------------------------------------


def converted_toml(sample_file: SampleFile) -> str:
    """The whole deck rewritten with every sample in the messages form seed 004 asks for."""
    data = sample_file.data
    out: list[str] = [
        f"# Converted from {sample_file.path}: userMessage/assistantResponse samples "
        "rewritten as messages arrays."
    ]
    for key, value in data.items():
        if key not in ("samples",) and not isinstance(value, dict):
            out.append(f"{_key(key)} = {_value(value)}")
    for key, value in data.items():
        if key != "samples" and isinstance(value, dict):
            _emit_table(out, (key,), value)
    samples = data.get("samples")
    if isinstance(samples, list):
        for item in samples:
            out += ["", "[[samples]]"]
            for name, value in _as_messages(item).items():
                out.append(f"{_key(name)} = {_value(value)}")
    elif isinstance(samples, dict):
        for sample_id, item in samples.items():
            _emit_sample_table(out, sample_id, _as_messages(item))
    return "\n".join(out).lstrip("\n") + "\n"


def _emit_sample_table(out: list[str], sample_id: str, item: Any) -> None:
    """[samples.<id>], then each message as its own [[samples.<id>.messages]] table."""
    out += ["", f"[samples.{_key(sample_id)}]"]
    for name, value in item.items():
        if name != "messages":
            out.append(f"{_key(name)} = {_value(value)}")
    for message in item.get("messages") or []:
        out += ["", f"[[samples.{_key(sample_id)}.messages]]"]
        for name, value in message.items():
            out.append(f"{_key(name)} = {_value(value, multiline=True)}")


def _as_messages(item: Any) -> Any:
    if not isinstance(item, dict) or "messages" in item or not any(k in item for k in LEGACY_KEYS):
        return item
    messages = [
        {"role": role, "content": item[key]}
        for key, role in (("userMessage", "user"), ("assistantResponse", "assistant"))
        if key in item
    ]
    rest = {key: value for key, value in item.items() if key not in LEGACY_KEYS}
    return {"messages": messages, **rest}


def _emit_table(out: list[str], path: tuple[str, ...], table: dict[str, Any]) -> None:
    nested = []
    if not table or any(not isinstance(value, dict) for value in table.values()):
        out += ["", "[" + ".".join(_key(part) for part in path) + "]"]
    for key, value in table.items():
        if isinstance(value, dict):
            nested.append((key, value))
        else:
            out.append(f"{_key(key)} = {_value(value)}")
    for key, value in nested:
        _emit_table(out, path + (key,), value)


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def _value(value: Any, multiline: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        literal_ok = (
            multiline
            and "\n" in value
            and "'''" not in value
            and not value.endswith("'")
            and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", value)
        )
        if literal_ok:
            return "'''\n" + value + "'''"
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    # Dates and times: TOML's own text form is their isoformat.
    return value.isoformat()
