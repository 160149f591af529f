"""The neutral conversation model every loader produces and every view and exporter consumes.

A rendered message is a sequence of segments; each segment knows where its text came from, so the
web page can highlight it and the exporters can stay format-agnostic. Joining a message's segments
gives its content byte for byte: nothing is added between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from operator import attrgetter
from typing import Any, TypeVar

import msgspec

_Class = TypeVar("_Class", bound=type)


def _pickled_as_arguments(cls: _Class) -> _Class:
    """Pickle a slotted dataclass as its constructor's arguments. The default for slots looks up
    the class's fields for every object, both ways: a 10 MB upload's renders spent over a second
    crossing the worker's pipe and going into the cache."""
    values = attrgetter(*(item.name for item in fields(cls)))

    def __reduce__(self: Any) -> tuple[type, tuple]:  # noqa: N807 - pickle's hook
        return type(self), values(self)

    cls.__reduce__ = __reduce__  # type: ignore[assignment]
    return cls


# The classes every loader builds once per value (origins, spans, segments, tool calls, messages)
# are msgspec Structs, not dataclasses: their __init__ runs in C. A frozen dataclass sets each field
# through object.__setattr__, about 9,000 instructions a Segment against 1,600 (a Message: 3,800
# against 1,900), and building these objects was most of reading a request (issue 15). They keep
# the dataclasses' behaviour: positional and keyword construction, equality by field, frozen ones
# immutable and hashable, pickled as their constructor's arguments (msgspec's own __reduce__).
# The frozen ones are also left out of the garbage collector (gc=False): they can be in no cycle
# (what they hold is text, other frozen values and the source's own JSON), and a request of 10,000
# messages holds tens of thousands of them for every collection to walk.


class OriginKind(StrEnum):
    CASE_TEXT = "case"  # text written in the eval case / sample itself
    GUIDELINE = "guideline"  # content of a guideline file
    FILE = "file"  # content of an embedded (non-guideline) file
    MARKER = "marker"  # attachment marker standing where a file was, e.g. <Attached: x>
    DEFAULT_PROMPT = "default"  # a default or configured system prompt
    SEPARATOR = "separator"  # headers, role markers and joins the renderer adds
    DECK = "deck"  # grader deck text (markdown)


class Origin(msgspec.Struct, frozen=True, gc=False):
    kind: OriginKind
    path: str | None = None  # bundle-relative posix path of the file the text came from
    start_line: int | None = None  # 1-based, inclusive
    end_line: int | None = None
    # For text pulled in from another file: the lines of the reference that pulled it in (a
    # `type: file` block), so clicking that line can show everything it produced.
    via: LineSpan | None = None


class Media(msgspec.Struct, frozen=True, gc=False):
    """An image or a file a message carries as content, not as text. Exactly one of `data`
    (base64), `url` (http(s), or a provider's file URI) and `file_id` says where it is."""

    kind: str  # "image" or "file"
    media_type: str | None = None  # image/png, application/pdf, ...
    data: str | None = None
    url: str | None = None
    file_id: str | None = None
    filename: str | None = None
    detail: str | None = None  # OpenAI's image detail (low, high, auto)

    @property
    def data_url(self) -> str | None:
        if self.data is None:
            return None
        return f"data:{self.media_type or 'application/octet-stream'};base64,{self.data}"


class Segment(msgspec.Struct, frozen=True, gc=False):
    text: str
    origin: Origin
    # A media segment has no text (joining a message's segments stays its text) and holds the
    # image or file itself.
    media: Media | None = None
    # Keys of the source request's content block the model has no place for (Anthropic's
    # `cache_control`, ...): sent again to the same API, named in Changes for another. Left out
    # of equality and the hash (see __eq__).
    options: dict[str, Any] | None = None
    # A block of the source API the neutral model has no place for, sent back as it was to that
    # API. Without text (Anthropic's thinking and redacted_thinking, Converse's reasoningContent)
    # it is left out for another API; with text (Converse's `json` tool-result content, as JSON
    # text) it goes there as that text. Either way it is named in Changes. Left out of equality.
    raw: dict[str, Any] | None = None

    # msgspec compares and hashes every field; options and raw are annotations of the text, not
    # part of it (and dicts, which cannot be hashed), as they were with compare=False.
    def __eq__(self, other: object) -> bool:
        if type(other) is not Segment:
            return NotImplemented
        return self.text == other.text and self.origin == other.origin and self.media == other.media

    def __hash__(self) -> int:
        return hash((self.text, self.origin, self.media))


class LineSpan(msgspec.Struct, frozen=True, gc=False):
    path: str
    start_line: int  # 1-based, inclusive
    end_line: int


class ToolCall(msgspec.Struct):
    id: str
    name: str
    arguments: str  # a JSON document as a string, as OpenAI sends it
    origin: Origin | None = None
    options: dict[str, Any] | None = None  # the source block's other keys (see Segment.options)


class Message(msgspec.Struct):
    role: str  # system, developer, user, assistant, tool (loaders may pass others through)
    segments: list[Segment] = msgspec.field(default_factory=list)
    name: str | None = None
    tool_calls: list[ToolCall] = msgspec.field(default_factory=list)
    tool_call_id: str | None = None
    span: LineSpan | None = None
    # Set when the message is shown but not sent: why it was left out.
    omitted: str | None = None
    # Whether the source request gave the content as a list of blocks (True: each segment that is
    # not a separator is one block; separators only join them for display) or as one string
    # (False). None: the loader does not say, each exporter sends its usual form.
    blocks: bool | None = None
    options: dict[str, Any] | None = None  # the source message's other keys (see Segment.options)

    @property
    def content(self) -> str:
        return "".join(segment.text for segment in self.segments)


@_pickled_as_arguments
@dataclass(frozen=True, slots=True)
class Diagnostic:
    message: str
    path: str | None = None
    line: int | None = None
    column: int | None = None
    severity: str = "warning"  # "warning" or "error"
    # Where the mistake likely starts when the tool noticed it lines later (an unclosed quote).
    likely_start: int | None = None

    def located(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}" if where else self.message


@_pickled_as_arguments
@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None  # JSON schema
    strict: bool | None = None
    options: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    # A provider's own tool that is no function (Anthropic's server tools, OpenAI's built-in
    # tools, Gemini's googleSearch): the source entry, sent back as it was to that API, left out
    # (and named in Changes) for another.
    raw: dict[str, Any] | None = field(default=None, compare=False, hash=False)


@_pickled_as_arguments
@dataclass(frozen=True, slots=True)
class OutputSchema:
    name: str
    schema: dict[str, Any]
    strict: bool | None = None
    description: str | None = None


@_pickled_as_arguments
@dataclass(slots=True)
class GraderPrompt:
    """The messages an LLM grader of the case sends to the judge model; the candidate's answer,
    unknown before a run, is a MARKER segment holding CANDIDATE_PLACEHOLDER (or another
    placeholder: what only the run knows). A grader that asks no model (a script) has no messages
    and a `note` saying what it runs instead."""

    name: str
    messages: list[Message]
    note: str | None = None
    span: LineSpan | None = None  # where the grader is written
    script: str | None = None  # the bundle path of the script a script grader runs, when found
    judge: str | None = None  # the provider agentv asks, when the file names it (agentv's main)


CANDIDATE_PLACEHOLDER = "⟨the candidate's answer⟩"
# What only a run knows, shown where agentv puts it: every placeholder starts and ends alike.
PLACEHOLDER_START, PLACEHOLDER_END = "⟨", "⟩"


@_pickled_as_arguments
@dataclass(slots=True)
class RenderedCase:
    id: str
    messages: list[Message]  # in order, omitted ones included (flagged by Message.omitted)
    warnings: list[Diagnostic] = field(default_factory=list)
    span: LineSpan | None = None
    # Set when the source tool would skip this case; the inspector still shows it.
    skipped: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)  # outcome, expected, score, tags, ...
    tools: list[ToolSpec] = field(default_factory=list)
    output_schema: OutputSchema | None = None
    graders: list[GraderPrompt] = field(default_factory=list)  # agentv's LLM graders, in run order

    @property
    def sent_messages(self) -> list[Message]:
        return [message for message in self.messages if message.omitted is None]

    @property
    def omitted_messages(self) -> list[Message]:
        return [message for message in self.messages if message.omitted is not None]


@_pickled_as_arguments
@dataclass(slots=True)
class RenderedDocument:
    path: str
    kind: str  # "agentv", "deck", "conversation"
    cases: list[RenderedCase]
    warnings: list[Diagnostic] = field(default_factory=list)  # file-level
    # Extra files the user may want to download, e.g. a legacy deck converted to messages form.
    conversions: dict[str, str] = field(default_factory=dict)
    # agentv files: the profile that rendered them and, when "auto" chose it, why.
    profile: str | None = None
    profile_reason: str | None = None


def distinct_ids(ids: list[str]) -> list[str]:
    """The second and later of ids written alike as `<id>#2`, `#3`, ... (skipping ids the file
    already uses): the one rule pages, the API and batch files name duplicate cases by."""
    taken = set(ids)
    seen: dict[str, int] = {}
    result = []
    for case_id in ids:
        count = seen.get(case_id, 0) + 1
        seen[case_id] = count
        if count == 1:
            result.append(case_id)
            continue
        number = count
        while f"{case_id}#{number}" in taken:
            number += 1
        taken.add(f"{case_id}#{number}")
        result.append(f"{case_id}#{number}")
    return result


class InputError(Exception):
    """The input cannot be used at all (invalid syntax, wrong types, no cases)."""

    def __init__(
        self,
        message: str,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        likely_start: int | None = None,
    ):
        super().__init__(message)
        self.diagnostic = Diagnostic(message, path, line, column, severity="error", likely_start=likely_start)

    def __str__(self) -> str:
        return self.diagnostic.located()
