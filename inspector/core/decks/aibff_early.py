"""A grader deck's case as aibff's calibrate sent it before deck.ts (profiles `aibff-2025-06` and
`aibff-2025-07`): `apps/aibff/commands/render.ts`'s own `renderDeck` of bolt-foundry/bolt-foundry
7f538110 (2025-06-27) and b9ebc31f (2025-07-14), which 1f2cdcfe replaced with deck.ts on
2025-07-19. docs/aibff-grader-decks.md says why neither is the default.

What both do, unlike August (aibff_request): `processMarkdownIncludes` keeps `.toml` embeds and
inlines markdown embeds where they stand; then every remaining `![..](..)` embed is deleted and
the whole trimmed, blank lines kept as they are. The contexts are read with a TOML parser
(@std/toml): questions are TOML strings, decoded, from every TOML file the text embeds, included
files' too; an empty question is not asked.

June: only `.deck.md` embeds are inlined, as written (front matter and all), other files dropped
unread; calibrate's context for a sample is `userMessage` and `assistantResponse`, its last user
and assistant messages (a sample without both is left out), every value written with String().

July: every `.md` embed is inlined without its TOML front matter, other files read and dropped,
and the deck's own front matter removed; the context is `fullConversation` (the sample's message
tables), a value that is an object or an array written with JSON.stringify, anything else with
String(); tools are `[[tools]]` of `type = "function"` in any `+++` block of the deck or its
included files, in OpenAI's shape."""

from __future__ import annotations

import posixpath
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from ..bundle import Bundle, join
from ..js import js_json, js_string
from ..model import (
    Diagnostic,
    InputError,
    LineSpan,
    Message,
    Origin,
    OriginKind,
    RenderedCase,
    Segment,
    ToolSpec,
)
from ..plain import json_safe
from ..safe_parse import LimitExceeded, check_toml
from .aibff_request import late_super_table
from .gambit_load import Piece, trim
from .gambit_text import EXTRACT, embeds
from .samples import Sample, SampleFile


@dataclass(frozen=True, slots=True)
class Era:
    profile: str
    name: str
    inlines_every_md: bool  # July; June inlines .deck.md files only, front matter and all
    json_values: bool  # July writes objects and arrays as JSON, June everything with String()
    june_context: bool  # userMessage and assistantResponse instead of fullConversation
    next_change: str


JUNE = Era(
    "aibff-2025-06",
    "aibff as of June 2025 (bolt-foundry/bolt-foundry 7f538110: calibrate.ts, render.ts renderDeck)",
    inlines_every_md=False,
    json_values=False,
    june_context=True,
    next_change="From 2025-07-10 (8035b926) calibrate passed the "
    "sample's messages as fullConversation instead (profile aibff-2025-07)",
)
JULY = Era(
    "aibff-2025-07",
    "aibff as of July 2025 (bolt-foundry/bolt-foundry b9ebc31f: "
    "calibrate.ts, render.ts renderDeck before deck.ts)",
    inlines_every_md=True,
    json_values=True,
    june_context=False,
    next_change="From 2025-07-19 aibff wrote "
    "values with String() instead (profile aibff-2025-08, the default)",
)
ERAS = {era.profile: era for era in (JUNE, JULY)}
_ANY_EMBED = re.compile(r"!\[.*?\]\(.*?\)")  # renderDeck's last pass; `.` stops at line ends
_TOML_BLOCK = re.compile(r"\+\+\+\n([\s\S]*?)\n\+\+\+")
MAX_FILES = 1000
MAX_CHARS = 10 * 1024 * 1024
MAX_DEPTH = 32


@dataclass(slots=True)
class _Context:
    name: str
    question: str
    path: str
    line: int | None


def june_turns(sample: Sample) -> dict[str, tuple[Any, str | None, int | None, int | None]]:
    """June's extractSamplesFromMarkdown: the sample's last user and last assistant message (a
    sample lacking either is left out: {}), with the lines of their content."""
    found: dict[str, Any] = {}
    for message in sample.messages:
        key = {"user": "userMessage", "assistant": "assistantResponse"}.get(message.role)
        if key is not None:
            found[key] = message
    if not all(
        found.get(key) is not None and found[key].content for key in ("userMessage", "assistantResponse")
    ):
        return {}
    return {
        key: (message.content, None, *(message.content_span or message.span or (None, None)))
        for key, message in found.items()
    }


@dataclass(slots=True)
class EarlyRequest:
    era: Era
    deck: str
    system: list[Piece]
    contexts: list[_Context]
    tools: list[ToolSpec]
    defaults: dict[str, tuple[Any, str, int | None]] = field(default_factory=dict)

    def keeps(self, sample: Sample) -> bool:
        return not self.era.june_context or bool(june_turns(sample))

    def _values(
        self, sample: Sample, sample_file: SampleFile
    ) -> dict[str, tuple[Any, str, int | None, int | None]]:
        values = {name: (value, path, line, line) for name, (value, path, line) in self.defaults.items()}
        if self.era.june_context:
            for key, (value, _, first, last) in june_turns(sample).items():
                values[key] = (value, sample_file.path, first, last)
        elif not (self.defaults.get("fullConversation") or (None,))[0]:
            # calibrate passes the sample's message tables as TOML gave them, every key kept.
            raw = (sample_file.data.get("samples") or {}).get(sample.id) or {}
            first, last = sample.span or (None, None)
            values["fullConversation"] = (raw.get("messages", []), sample_file.path, first, last)
        return values

    def apply(self, case: RenderedCase, sample: Sample, sample_file: SampleFile) -> None:
        values = self._values(sample, sample_file)
        messages = [
            Message(
                "system",
                [
                    Segment(
                        piece.text, Origin(OriginKind.DECK, piece.path, piece.first_line, piece.last_line)
                    )
                    for piece in self.system
                ],
            )
        ]
        sent = []
        for context in self.contexts:
            if context.name not in values or not context.question:
                continue
            value, path, line, end = values[context.name]
            sent.append(context.name)
            messages.append(
                Message(
                    "assistant",
                    [
                        Segment(
                            context.question,
                            Origin(OriginKind.DECK, context.path, context.line, context.line),
                        )
                    ],
                )
            )
            text = (
                js_json(value, indent=None)
                if self.era.json_values and isinstance(value, (dict, list))
                else js_string(value)
            )
            messages.append(
                Message(
                    "user",
                    [Segment(text, Origin(OriginKind.CASE_TEXT, path, line, end))],
                    span=LineSpan(path, line, end or line) if line else None,
                )
            )
        case.messages = messages
        case.tools = list(self.tools)
        case.metadata["aibff"] = {"era": self.era.name, "contexts_sent": sent}
        case.warnings.append(
            Diagnostic(
                f"shown as {self.era.name} sent it (profile {self.era.profile}): the deck's text, "
                "then each declared context that has a value as a question and its value; "
                f"{self._what(sent)}. {self.era.next_change}",
                self.deck,
            )
        )

    def _what(self, sent: list[str]) -> str:
        if self.era.june_context:
            given = [name for name in ("userMessage", "assistantResponse") if name in sent]
            return (
                f"the sample went as its last user message and last assistant response ({', '.join(given)})"
                if given
                else "the sample went as userMessage and assistantResponse contexts the deck does "
                "not declare, so aibff sent the grader none of it"
            )
        return (
            "the sample's messages went as the fullConversation context, written as JSON"
            if "fullConversation" in sent
            else "the sample's messages were passed as a fullConversation context the deck does "
            "not declare, so aibff sent the grader none of them"
        )


class _Includes:
    """render.ts's processMarkdownIncludes, each stretch of text kept with its file and line."""

    def __init__(self, bundle: Bundle, era: Era):
        self.bundle = bundle
        self.era = era
        self.toml_refs: list[tuple[str, str, int]] = []  # (path, embedding file, line)
        self.tools: list[ToolSpec] = []
        self.files = 0
        self.chars = 0

    def read(self, path: str | None, target: str, where: str, line: int) -> str:
        decoded = None if path is None else self.bundle.text(path)
        if decoded is None:
            raise _Refused(f"File not found: {path or target}", where, line)
        self.files += 1
        self.chars += len(decoded.text)
        if self.files > MAX_FILES or self.chars > MAX_CHARS:
            raise LimitExceeded(
                f"the deck's embeds bring in more than {MAX_FILES} files or "
                f"{MAX_CHARS // 2**20} MB (an embed bomb?)",
                where,
                line,
            )
        return decoded.text

    def expand(self, path: str, raw: str, start: int, depth: int) -> list[Piece]:
        if depth > MAX_DEPTH:
            raise LimitExceeded(f"embeds nested more than {MAX_DEPTH} deep", path)
        lines = _line_finder(raw)
        pieces: list[Piece] = []
        cursor = start
        for embed in embeds(raw, start, len(raw)):
            line = lines(embed.start)
            if embed.start > cursor:
                pieces.append(Piece(raw[cursor : embed.start], path, lines(cursor)))
            cursor = embed.end
            target = embed.target
            if target.endswith(".toml"):
                self.toml_refs.append((join(posixpath.dirname(path), target) or target, path, line))
                pieces.append(Piece(raw[embed.start : embed.end], path, line))
                continue
            resolved = join(posixpath.dirname(path), target)
            if not self.era.inlines_every_md:
                if target.endswith(".deck.md"):  # June reads nothing else
                    text = self.read(resolved, target, path, line)
                    pieces.extend(self.expand(resolved or target, text, 0, depth + 1))
                continue
            text = self.read(resolved, target, path, line)
            self.tools.extend(_tools(text, resolved or target))
            if not target.endswith(".md") or resolved is None:
                continue
            pieces.extend(self.expand(resolved, text, _body_start(text), depth + 1))
        if len(raw) > cursor:
            pieces.append(Piece(raw[cursor:], path, lines(cursor)))
        return pieces


class _Refused(Exception):
    def __init__(self, message: str, path: str, line: int | None):
        super().__init__(message)
        self.path, self.line = path, line


def _body_start(text: str) -> int:
    """Where @std/front-matter's extractToml finds the body (0: no TOML front matter)."""
    match = EXTRACT["toml"].match(text)
    if match is None:
        return 0
    return match.start("body") if match.group("body") is not None else len(text)


def _line_finder(text: str):
    def line(offset: int) -> int:
        return text.count("\n", 0, offset) + 1

    return line


def _tools(markdown: str, path: str) -> list[ToolSpec]:
    """extractToolsFromMarkdown: `[[tools]]` of type "function" in any `+++` block that parses."""
    found = []
    for block in _TOML_BLOCK.finditer(markdown):
        try:
            check_toml(block[1], path)
            data = json_safe(tomllib.loads(block[1]))
        except (tomllib.TOMLDecodeError, InputError):
            continue
        for tool in data.get("tools") if isinstance(data.get("tools"), list) else []:
            function = tool.get("function") if isinstance(tool, dict) else None
            if tool.get("type") == "function" and isinstance(function, dict):
                found.append(
                    ToolSpec(
                        str(function.get("name")),
                        function.get("description"),
                        function.get("parameters") or {"type": "object", "properties": {}},
                    )
                )
    return found


def _remove(pieces: list[Piece], spans: list[tuple[int, int]]) -> list[Piece]:
    """The pieces without the given character spans of their joined text."""
    result: list[Piece] = []
    offset = 0
    for piece in pieces:
        start, end = offset, offset + len(piece.text)
        offset = end
        cursor = start
        for cut_start, cut_end in spans:
            if cut_end <= cursor or cut_start >= end:
                continue
            if cut_start > cursor:
                kept = piece.text[cursor - start : cut_start - start]
                result.append(
                    Piece(kept, piece.path, piece.first_line + piece.text[: cursor - start].count("\n"))
                )
            cursor = max(cursor, min(cut_end, end))
        if cursor < end:
            result.append(
                Piece(
                    piece.text[cursor - start :],
                    piece.path,
                    piece.first_line + piece.text[: cursor - start].count("\n"),
                )
            )
    return result


def early_request(
    era: Era, bundle: Bundle, deck: str, text: str, top_samples: dict[str, SampleFile]
) -> EarlyRequest | tuple[str, str, int | None]:
    """The request, or what calibrate stopped on: (message, file, line)."""
    includes = _Includes(bundle, era)
    try:
        pieces = includes.expand(deck, text, 0, 0)
    except _Refused as refused:
        return str(refused), refused.path, refused.line
    pieces = _prompt_pieces(pieces, era)
    contexts: dict[str, _Context] = {}
    for path, where, line in includes.toml_refs:
        stopped = _read_contexts(bundle, path, contexts)
        if stopped is not None:
            return stopped, where, line
    tools = [*_tools(text, deck), *includes.tools] if era.inlines_every_md else []
    names = [tool.name for tool in tools]
    duplicate = next((name for name in names if names.count(name) > 1), None)
    if duplicate is not None:
        return f"Tool name collision: '{duplicate}' is defined multiple times", deck, None
    request = EarlyRequest(era, deck, pieces, list(contexts.values()), tools)
    _set_defaults(request, top_samples)
    return request


def _prompt_pieces(pieces: list[Piece], era: Era) -> list[Piece]:
    """The expanded text without the deck's front matter (in the eras that inline every .md)
    and without its embeds, trimmed."""
    joined = "".join(piece.text for piece in pieces)
    body = _body_start(joined) if era.inlines_every_md else 0
    if body:
        pieces = _remove(pieces, [(0, body)])
        joined = joined[body:]
    return trim(_remove(pieces, [m.span() for m in _ANY_EMBED.finditer(joined)]))


def _read_contexts(bundle: Bundle, path: str, contexts: dict[str, _Context]) -> str | None:
    """The [contexts.*] of an embedded TOML file into `contexts`; what calibrate stops on, if
    anything. A redefinition replaces the definition and keeps the first one's place."""
    decoded = bundle.text(path)
    if decoded is None:
        return f"File not found: {path}"
    data = _toml_data(decoded.text, path)
    if isinstance(data, str):
        return data
    declared = data.get("contexts")
    for name, definition in declared.items() if isinstance(declared, dict) else ():
        if not isinstance(definition, dict):
            continue
        question = definition.get("assistantQuestion")
        if not isinstance(question, str):
            return f"Context variable '{name}' in file {path} is missing required 'assistantQuestion' field"
        contexts[name] = _Context(name, question, path, _context_line(decoded.text, name))
    return None


def _toml_data(text: str, path: str) -> dict[str, Any] | str:
    """The file's table as @std/toml 1.0.8 reads it, or calibrate's message for a file it
    refuses."""
    late = late_super_table(text)
    try:
        check_toml(text, path)
        data = json_safe(tomllib.loads(text))
        if late is not None:
            raise tomllib.TOMLDecodeError(
                f"the [{late[0]}] table (line {late[1]}) comes after "
                "an array of tables inside it, which @std/toml "
                "1.0.8 refuses"
            )
    except tomllib.TOMLDecodeError as error:
        return f"Invalid TOML in file {path}: {error}"
    return data


def _set_defaults(request: EarlyRequest, top_samples: dict[str, SampleFile]) -> None:
    """calibrate's defaults: the TOML the deck itself embeds, a later definition replacing one."""
    for sample_file in top_samples.values():
        for name, definition in sample_file.contexts.items():
            request.defaults.pop(name, None)
            if "default" in definition:
                span = sample_file.context_spans.get(name)
                request.defaults[name] = (definition["default"], sample_file.path, span[0] if span else None)


def _context_line(text: str, name: str) -> int | None:
    pattern = re.compile(
        rf"^[ \t]*\[[ \t]*contexts[ \t]*\.[ \t]*\"?{re.escape(name)}\"?[ \t]*\]", re.MULTILINE
    )
    found = pattern.search(text)
    return None if found is None else text.count("\n", 0, found.start()) + 1
