"""What every provider exporter shares: settings, the result with its changes and lints, and the
small conversions (argument parsing, id sanitising) the exporters agree on."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from ..model import Diagnostic, Media, Message, OriginKind, RenderedCase, Segment

# Provider ids, for the exporters' own use; the list of providers is `registry.PROVIDERS`.
OPENAI_CHAT = "openai-chat"
OPENAI_RESPONSES = "openai-responses"
ANTHROPIC = "anthropic"
GEMINI = "gemini"
BEDROCK_CONVERSE = "bedrock-converse"


# A JSON number as the user or the request gave it. Not `float`: compiled (speedups.py), code that
# narrows a `float` holds it as a C double, and a temperature of 0 would be sent and named as 0.0.
Number = int | float


# The settings, results, changes and lints stay Python classes when this module is compiled
# (speedups.py): other code pickles them, copies them with dataclasses.replace and reads their
# fields as they were given.
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class ResolvedDefaults:
    """What a request gets when the user sets nothing (each provider module declares its own)."""

    model: str
    max_tokens: int | None = None
    temperature: Number | None = None


# Anthropic tool_use ids, OpenAI/Anthropic tool and schema names, Anthropic batch custom ids.
SAFE_ID = re.compile(r"[^a-zA-Z0-9_-]")
SAFE_ID_FULL = re.compile(r"[a-zA-Z0-9_-]+")
MAX_NAME = 64


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class ExportSettings:
    model: str | None = None
    max_tokens: int | None = None
    temperature: Number | None = None
    # A request-level system prompt (seed 003's `request.system`): first, before the case's own.
    system_prompt: str | None = None
    # Seed 002's user_instructions: appended to the Responses `instructions` (and, for the other
    # providers, to the request-level system text).
    user_instructions: str | None = None

    def resolved(self, defaults: ResolvedDefaults) -> ResolvedSettings:
        return ResolvedSettings(
            model=self.model or defaults.model,
            max_tokens=self.max_tokens if self.max_tokens is not None else defaults.max_tokens,
            temperature=(self.temperature if self.temperature is not None else defaults.temperature),
        )


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class ResolvedSettings:
    model: str
    # The user's settings are numbers; a raw request's own values come as it gave them (a string,
    # a list), sent on and linted where the provider's rules are known, never trusted as numbers.
    max_tokens: Any
    temperature: Any


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Change:
    """Something the exporter did to fit the provider: moved, merged, renamed, mapped."""

    message: str
    message_index: int | None = None  # index into case.messages (omitted ones included)

    def as_dict(self) -> dict[str, Any]:
        return {"message": self.message, "message_index": self.message_index}


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Lint:
    """Something the provider would reject (or silently alter) that the SDK types do not catch."""

    message: str
    message_index: int | None = None
    severity: str = "error"  # "error": the API rejects it; "warning": it works but not as written

    def as_dict(self) -> dict[str, Any]:
        return {"message": self.message, "message_index": self.message_index, "severity": self.severity}


@mypyc_attr(native_class=False)
@dataclass(slots=True)
class ExportResult:
    provider: str
    model: str
    payload: dict[str, Any]
    changes: list[Change] = field(default_factory=list)
    lints: list[Lint] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    case_id: str | None = None

    def as_contract(self, case_id: str) -> dict[str, Any]:
        from ..serialize import diagnostic

        return {
            "id": case_id,
            "payload": self.payload,
            "changes": [change.as_dict() for change in self.changes],
            "lints": [lint.as_dict() for lint in self.lints],
            "warnings": [diagnostic(item) for item in self.warnings],
        }


class Notes:
    """Collects an export's changes and lints while the payload is built."""

    __slots__ = ("changes", "lints")

    def __init__(self) -> None:
        self.changes: list[Change] = []
        self.lints: list[Lint] = []

    def change(self, message: str, index: int | None = None) -> None:
        self.changes.append(Change(message, index))

    def lint(self, message: str, index: int | None = None, severity: str = "error") -> None:
        self.lints.append(Lint(message, index, severity))


class Turns:
    """Turns as providers that alternate roles take them (Anthropic, Gemini): blocks of a message
    join the last turn when it has the same role, else open a new one."""

    __slots__ = ("turns", "role", "content", "first_source", "last_source", "key")

    def __init__(self, key: str):
        self.key = key  # "content" (Anthropic) or "parts" (Gemini)
        self.turns: list[dict[str, Any]] = []
        self.role: str | None = None  # the last turn's role
        self.content: list[dict[str, Any]] = []  # the last turn's blocks
        self.first_source = 0  # index in case.messages of the message opening the first turn
        self.last_source = 0  # ... and the last turn

    def add(self, role: str, blocks: list[dict[str, Any]], index: int) -> bool:
        """Add `blocks` as `role`; True when they joined the previous turn."""
        if self.role == role:
            self.content += blocks
            return True
        self.content = blocks
        self.role = role
        if not self.turns:
            self.first_source = index
        self.turns.append({"role": role, self.key: blocks})
        self.last_source = index
        return False


# Compiled (speedups.py), it is still the base of exporters that are not.
@mypyc_attr(allow_interpreted_subclasses=True)
class TurnExport:
    """What an export into alternating turns keeps while it runs: its notes, the text bound for
    the provider's top-level system field (the request's own first), and the turns."""

    __slots__ = ("notes", "system_parts", "turns")

    def __init__(self, settings: ExportSettings, key: str):
        self.notes = Notes()
        self.system_parts: list[str] = []
        if settings.system_prompt or settings.user_instructions:  # usually neither: no call
            request_system = full_instructions(settings.system_prompt, None, settings.user_instructions)
            if request_system:
                self.system_parts.append(request_system)
        self.turns = Turns(key)


def openai_json_schema(case: RenderedCase, notes: Notes) -> dict[str, Any]:
    """The JSON-schema output format both OpenAI APIs take (Chat nests it, Responses spreads it):
    a name OpenAI accepts, the schema, and `strict` when set."""
    schema = case.output_schema
    assert schema is not None
    name = safe_id(schema.name, "output")
    if name != schema.name:
        notes.change(f"output schema name {schema.name!r} sent as {name!r}")
    json_schema: dict[str, Any] = {"name": name, "schema": schema.schema}
    if schema.description is not None:
        json_schema["description"] = schema.description
    if schema.strict is not None:
        json_schema["strict"] = schema.strict
    return json_schema


def sent(case: RenderedCase) -> list[tuple[int, Message]]:
    """The messages a request carries, each with its index in case.messages."""
    return [(index, message) for index, message in enumerate(case.messages) if message.omitted is None]


_raw_decode = json.JSONDecoder().raw_decode


def parse_json(raw: str) -> tuple[Any, bool]:
    """A JSON document and whether it was valid. raw_decode skips json.loads' two whitespace
    regex matches, which dominate for short documents; padded documents take the slow path."""
    try:
        value, end = _raw_decode(raw)
        if end == len(raw):
            return value, True
    except ValueError:
        pass
    try:
        return json.loads(raw), True
    except ValueError:
        return raw, False


def parse_arguments(raw: str) -> tuple[Any, bool]:
    """The tool-call arguments as a value, and whether they were valid JSON."""
    if not raw or raw.isspace():
        return {}, True
    return parse_json(raw)


def arguments_object(raw: str, call_name: str, index: int, notes: Notes) -> dict[str, Any]:
    """Tool-call arguments as the JSON object Anthropic's `input` and Gemini's `args` require."""
    try:
        value, end = _raw_decode(raw)
        if end == len(raw) and type(value) is dict:
            return value
    except ValueError:
        pass
    value, valid = parse_arguments(raw)
    if isinstance(value, dict):
        return value
    what = "are not valid JSON" if not valid else "are not a JSON object"
    notes.change(
        f'the arguments of tool call {call_name!r} {what}; sent wrapped as {{"arguments": ...}}', index
    )
    return {"arguments": value}


def safe_id(raw: str, fallback: str) -> str:
    """An id in [a-zA-Z0-9_-], at most 64 characters (Anthropic ids, custom ids)."""
    # String methods first: on the hot path this is twice as fast as the regex.
    if 0 < len(raw) <= MAX_NAME and raw.isascii() and raw.replace("_", "a").replace("-", "a").isalnum():
        return raw
    cleaned = SAFE_ID.sub("_", raw)[:MAX_NAME]
    return cleaned or fallback


def lint_name(name: str, what: str, notes: Notes, index: int | None = None) -> None:
    if not SAFE_ID_FULL.fullmatch(name) or len(name) > MAX_NAME:
        notes.lint(
            f"{what} name {name!r} must match [a-zA-Z0-9_-] and be at most {MAX_NAME} characters", index
        )


def full_instructions(
    base_instructions: str | None,
    base_instructions_override: str | None = None,
    user_instructions: str | None = None,
) -> str | None:
    """Seed 002's get_full_instructions: the override if set, else the base, then the user's."""
    base = base_instructions_override if base_instructions_override is not None else base_instructions
    sections = [text for text in (base, user_instructions) if text]
    return "\n\n".join(sections) if sections else None


def empty_object_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


# -- content blocks: text and media ------------------------------------------------------------


def blocks(message: Message) -> list[Segment] | None:
    """The segments a message is sent as, one block each, when it goes as a list: the source gave
    blocks, or its text holds media (text runs between them joined). None: send message.content as
    one string. Loaders that put media in a message set Message.blocks, so the common case costs one
    attribute test."""
    if message.blocks is None:
        return None
    segments = message.segments
    if message.blocks:
        return [segment for segment in segments if segment.origin.kind is not OriginKind.SEPARATOR]
    if not any(segment.media is not None for segment in segments):
        return None
    return _text_runs_between_media(segments)


def _text_runs_between_media(segments: list[Segment]) -> list[Segment]:
    """Each media segment as it is, and the text between them joined into one segment."""
    result: list[Segment] = []
    run: list[Segment] = []
    last = len(segments) - 1
    for position, segment in enumerate(segments):
        if segment.media is None:
            # A join the renderer put next to an image is no text of its own.
            if segment.origin.kind is OriginKind.SEPARATOR and (
                (position > 0 and segments[position - 1].media is not None)
                or (position < last and segments[position + 1].media is not None)
            ):
                continue
            run.append(segment)
            continue
        if run:
            result.append(Segment("".join(s.text for s in run), run[0].origin))
            run = []
        result.append(segment)
    if run:
        result.append(Segment("".join(s.text for s in run), run[0].origin))
    return result


def kept_options(
    options: dict[str, Any] | None, same_api: bool, what: str, notes: Notes, index: int | None, label: str
) -> dict[str, Any]:
    """A source block's other keys: sent back to its own API, named in Changes for another."""
    if not options:
        return {}
    if same_api:
        return options
    notes.change(f"{', '.join(sorted(options))} of {what} left out: {label} has no such field", index)
    return {}


def media_what(media: Media) -> str:
    return "an image" if media.kind == "image" else "a file"


def media_url(media: Media) -> str | None:
    """The media as a URL: its own http(s) URL or a data URL (None for a file id or a provider's
    file URI)."""
    if media.url is not None:
        return media.url if media.url.startswith(("http://", "https://", "data:")) else None
    return media.data_url
