"""View models for the pages: everything a template shows, prepared in Python so templates only loop
and print. Nothing here touches the request; views pass in what they parsed."""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from inspector.core import highlight
from inspector.core.decks.gambit_core_files import is_installed_path
from inspector.core.model import (
    Diagnostic,
    LineSpan,
    Media,
    Message,
    OriginKind,
    RenderedCase,
    Segment,
)
from inspector.core.tokens import TOKENS_PER_REPLY, CaseTokens, case_tokens, message_token_counts

# ---------------------------------------------------------------------------------------------
# Case ids in URLs
#
# Case ids may hold any character, including "/" and "..". WSGI decodes %2F before routing, so a
# percent-encoded slash would still split the path; instead anything outside a small safe set is
# written as ~XX per UTF-8 byte. Common ids (letters, digits, dashes) stay readable.

_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
_PLAIN_ID = re.compile(r"[A-Za-z0-9_.-]+")
_ESCAPE = re.compile(r"~([0-9A-F]{2})")


def encode_case_id(case_id: str) -> str:
    if _PLAIN_ID.fullmatch(case_id) and case_id.strip("."):
        return case_id  # most ids: nothing to escape (a character loop cost 8 µs per link)
    if case_id and set(case_id) == {"."}:
        # "." and ".." are path segments a browser would collapse.
        return "".join("~2E" for _ in case_id)
    if not case_id:
        return "~"
    out = []
    for char in case_id:
        if char in _SAFE:
            out.append(char)
        else:
            out.extend(f"~{byte:02X}" for byte in char.encode("utf-8"))
    return "".join(out)


def decode_case_id(value: str) -> str | None:
    """The case id an encoded URL segment stands for, or None when the segment is malformed."""
    if value == "~":
        return ""
    data = bytearray()
    # Split keeps the captured hex digits at odd positions; literal text sits at even ones.
    for position, part in enumerate(_ESCAPE.split(value)):
        if position % 2:
            data.append(int(part, 16))
        elif "~" in part:
            return None
        else:
            data.extend(part.encode("utf-8", errors="surrogatepass"))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


_CASE_ID_SLOT = "CaseIdSlot0"


@lru_cache(maxsize=256)
def _case_url_around(bundle_id: str, document: str) -> tuple[str, str]:
    url = reverse("case", kwargs={"bundle_id": bundle_id, "document": document,
                                  "case_id": _CASE_ID_SLOT})
    before, _, after = url.rpartition(_CASE_ID_SLOT)
    return before, after


def case_url(bundle_id: str, document: str, case_id: str, query: str = "") -> str:
    # reverse() once per file: a page of thousands of case links spent most of its time in it. The
    # id needs no quote() as reverse() does: encoded, it holds only letters, digits and -_.~, which
    # quote() leaves alone.
    before, after = _case_url_around(bundle_id, document)
    url = before + encode_case_id(case_id) + after
    return f"{url}?{query}" if query else url


def source_url(bundle_id: str, path: str, start: int | None = None, end: int | None = None) -> str:
    url = reverse("source", kwargs={"bundle_id": bundle_id, "path": path})
    if start:
        url += "?" + urlencode({"hl": f"{start}-{end or start}"})
    return url


def parse_line_range(value: str | None) -> tuple[int, int] | None:
    """"3-7" or "5" as an inclusive line range; anything else is ignored rather than refused, since a
    wrong highlight is harmless."""
    if not value:
        return None
    match = re.fullmatch(r"(\d{1,7})(?:-(\d{1,7}))?", value.strip())
    if not match:
        return None
    start = int(match.group(1))
    end = int(match.group(2) or start)
    if start < 1 or end < start:
        return None
    return start, end


# ---------------------------------------------------------------------------------------------
# Source files


@dataclass(frozen=True)
class SourceLine:
    number: int
    html: SafeString


# Texts this short are highlighted in the web process: the worst lexer known (reStructuredText's,
# quadratic) takes a few milliseconds on them, less than the trip to the bounded worker.
_IN_PROCESS_CHARS = 4_000
# Texts longer than this are shown plain without trying: no lexer finishes them within the
# highlighting deadline (a 2.5 MB one-line YAML flow list took 3.1 s of CPU in the YAML lexer).
_HIGHLIGHT_LIMIT = 1_000_000
# Highlighting is also kept per worker for the files people re-open while clicking around; large
# texts are not, so that copy stays a few tens of megabytes per worker at most.
_CACHED_HIGHLIGHT_CHARS = 500_000


def highlight_lines(path: str, text: str) -> tuple[SourceLine, ...]:
    if len(text) > _CACHED_HIGHLIGHT_CHARS:
        return _highlight_lines(path, text)
    return _highlight_lines_cached(path, text)


@lru_cache(maxsize=64)
def _highlight_lines_cached(path: str, text: str) -> tuple[SourceLine, ...]:
    return _highlight_lines(path, text)


def _highlight_lines(path: str, text: str) -> tuple[SourceLine, ...]:
    """The file as numbered lines of highlighted HTML (core.highlight), made once per content and
    lexer (kept in the render cache for every worker) in the bounded worker; plain, escaped lines
    in the same layout when that is refused or runs past HIGHLIGHT_SECONDS."""
    return tuple(SourceLine(number, mark_safe(html)) for number, html in enumerate(_html_lines(path, text), start=1))


def _html_lines(path: str, text: str) -> tuple[str, ...]:
    from django.conf import settings

    from inspector import cache as render_cache
    from inspector.core import bounded
    from inspector.core.model import InputError

    if len(text) > _HIGHLIGHT_LIMIT:
        return highlight.plain_lines(text)
    if len(text) <= _IN_PROCESS_CHARS or settings.RENDER_IN_PROCESS:
        return highlight.html_lines(path, text)
    lexer = highlight.lexer_for(path).name
    key = render_cache.key("highlight", lexer, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    kept = render_cache.get(key)
    if kept is not None:
        return kept
    from inspector import services

    try:
        lines = bounded.pool(services.render_policy().limits).call(
            highlight.html_lines, path, text, path=path, seconds=settings.HIGHLIGHT_SECONDS)
    except bounded.Busy:
        return highlight.plain_lines(text)  # busy now (or this request's budget spent): not kept
    except (InputError, bounded.WorkerError):
        lines = highlight.plain_lines(text)
        render_cache.put(key, lines, services.ERROR_TIMEOUT)  # refused: kept like a render's refusal
        return lines
    render_cache.put(key, lines)
    return lines


# How far above a window the lexer may start, looking for a line that opens at column 0.
_WINDOW_LEAD = 200


def highlight_window(path: str, text: str, first: int, last: int) -> tuple[SourceLine, ...]:
    """Lines first..last highlighted without lexing the whole file (a 10,000-line file took half a
    second a view): the lexer starts at the nearest line above that begins at column 0, where a
    YAML, TOML or Markdown lexer has no state to carry over. A colour that still comes out wrong
    is harmless; the text and the line numbers are exact."""
    all_lines = text.split("\n")
    start = first
    for number in range(first, max(1, first - _WINDOW_LEAD) - 1, -1):
        candidate = all_lines[number - 1]
        if candidate and not candidate[0].isspace():
            start = number
            break
    chunk = "\n".join(all_lines[start - 1:last]) + "\n"
    lines = highlight_lines(path, chunk)
    return tuple(SourceLine(line.number + start - 1, line.html)
                 for line in lines[first - start:last - start + 1])


def highlight_block(path: str, text: str) -> SafeString:
    """The text highlighted as one block for a <pre>, its lines exactly as in `text`: what is shown
    is what Copy puts on the clipboard and Download saves."""
    # highlight_lines gives an empty line a "\n" so a line's <div> keeps its height; in a block
    # that would double every blank line.
    lines = highlight_lines(path, text)
    return mark_safe("\n".join("" if line.html == "\n" else line.html for line in lines))


# Past this many lines the pane shows a window around the highlight, so a case page of a
# thousand-case file stays small; the full file is one link away.
WINDOW_LINES = 1500
WINDOW_CONTEXT = 300


@dataclass
class SourcePane:
    bundle_id: str
    path: str
    lines: tuple[SourceLine, ...]
    highlight: tuple[int, int] | None
    text: str
    problem: str | None = None
    total_lines: int = 0
    full_url: str | None = None  # set when only a window of the file is shown

    @classmethod
    def build(cls, bundle_id: str, path: str, text: str, highlight: tuple[int, int] | None,
              problem: str | None = None, whole: bool = False) -> SourcePane:
        total = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if highlight and total:
            # A parser's end-of-file error names the line after the last one: show the last.
            highlight = (min(highlight[0], total), min(highlight[1], total))
        full_url = None
        if total > WINDOW_LINES and not whole:
            if highlight:
                first = max(1, highlight[0] - WINDOW_CONTEXT)
                # A case longer than the window (one conversation of 10,000 messages) shows its
                # start; the whole file is one link away.
                last = min(total, highlight[1] + WINDOW_CONTEXT, first + WINDOW_LINES - 1)
            else:
                first, last = 1, WINDOW_LINES
            lines = highlight_window(path, text, first, last)
            url = reverse("source", kwargs={"bundle_id": bundle_id, "path": path})
            params = {"all": "1"}
            if highlight:
                params["hl"] = f"{highlight[0]}-{highlight[1]}"
            full_url = f"{url}?{urlencode(params)}"
        else:
            lines = highlight_lines(path, text)
            total = len(lines)
        return cls(bundle_id, path, lines, highlight, text, problem, total_lines=total, full_url=full_url)

    @property
    def first_line(self) -> int:
        return self.lines[0].number if self.lines else 0

    @property
    def last_line(self) -> int:
        return self.lines[-1].number if self.lines else 0

    @property
    def highlight_start(self) -> int | None:
        return self.highlight[0] if self.highlight else None

    @property
    def highlight_end(self) -> int | None:
        return self.highlight[1] if self.highlight else None


# ---------------------------------------------------------------------------------------------
# File tree


@dataclass(frozen=True)
class TreeRow:
    name: str
    path: str
    depth: int
    is_folder: bool
    is_document: bool
    url: str = ""
    role: str = ""  # on the case page: what the file is to the case shown ("this case", "guideline", ...)


def document_anchor(path: str) -> str:
    return "doc-" + re.sub(r"[^A-Za-z0-9_-]", "-", path)


def file_tree(bundle_id: str, paths: list[str], documents: tuple[str, ...]) -> list[TreeRow]:
    rows: list[TreeRow] = []
    seen_folders: set[str] = set()
    document_set = set(documents)
    for path in sorted(paths, key=lambda p: (posixpath.dirname(p).split("/"), p)):
        parts = path.split("/")
        for depth in range(len(parts) - 1):
            folder = "/".join(parts[:depth + 1])
            if folder not in seen_folders:
                seen_folders.add(folder)
                rows.append(TreeRow(parts[depth] + "/", folder, depth, True, False))
        is_document = path in document_set
        url = "#" + document_anchor(path) if is_document else source_url(bundle_id, path)
        rows.append(TreeRow(parts[-1], path, len(parts) - 1, False, is_document, url))
    return rows


FILE_ROLES = {OriginKind.GUIDELINE: "guideline", OriginKind.FILE: "attached", OriginKind.DECK: "deck"}


# Past this, the case page's Files panel lists the files the case uses and its own folder's, and
# links the bundle page for the rest: every case page of a 2,000-file bundle carried them all.
FILES_PANEL_LIMIT = 150


@dataclass(frozen=True)
class CaseFiles:
    rows: list[TreeRow]
    total: int  # files in the bundle
    hidden: int  # left out of the rows (see FILES_PANEL_LIMIT)


def case_files(bundle_id: str, paths: list[str], documents: tuple[str, ...], case: RenderedCase,
               source_path: str, case_source_url: str) -> CaseFiles:
    """The bundle's file tree beside a case: every file opens in the source pane (the case's own
    file at the case's lines), and the files the case's messages draw on say what they are to it."""
    roles: dict[str, str] = {}
    for message in case.messages:
        for segment in message.segments:
            origin = segment.origin
            if origin.path and origin.kind in FILE_ROLES:
                roles.setdefault(origin.path, FILE_ROLES[origin.kind])
    roles[source_path] = "this case"
    shown = paths
    if len(paths) > FILES_PANEL_LIMIT:
        folder = posixpath.dirname(source_path)
        neighbours = sorted(path for path in paths if posixpath.dirname(path) == folder)
        shown = sorted({path for path in paths if path in roles} | set(neighbours[:FILES_PANEL_LIMIT]))
    rows = []
    for row in file_tree(bundle_id, shown, documents):
        if row.is_folder:
            rows.append(row)
            continue
        url = case_source_url if row.path == source_path else source_url(bundle_id, row.path)
        rows.append(replace(row, url=url, role=roles.get(row.path, "")))
    return CaseFiles(rows, len(paths), len(paths) - len(shown))


# ---------------------------------------------------------------------------------------------
# Messages

ORIGIN_LABELS = {
    "case": "Case text",
    "guideline": "Guideline file",
    "file": "Embedded file",
    "marker": "Marker",
    "default": "Default system prompt",
    "separator": "Header / separator",
    "deck": "Deck text",
}


@dataclass(frozen=True)
class MediaView:
    """An image or file in a message: a thumbnail only from its own data (a data URL), a remote
    URL only as a link (the page never loads it: the server fetches nothing, the CSP allows no
    remote images)."""

    kind: str  # "image" or "file"
    label: str
    thumbnail: str | None = None
    link: str | None = None


@dataclass
class SegmentView:
    text: str
    kind: str
    title: str
    path: str | None
    start: int | None
    end: int | None
    url: str | None  # the source pane showing where the text came from
    via: LineSpan | None = None  # the file reference that pulled the text in
    media: MediaView | None = None
    thinking: ThinkingView | None = None


@dataclass(frozen=True)
class ThinkingView:
    """The model's earlier reasoning in a request (Anthropic thinking, Converse reasoningContent):
    sent back to its own API beside the text, never part of it; redacted reasoning is encrypted,
    so only its size shows."""

    label: str  # "thinking" or "redacted thinking"
    text: str


def thinking_view(raw: dict) -> ThinkingView | None:
    """What a raw block holds of the model's reasoning, or None when it is another kind."""
    kind = raw.get("type")
    if kind == "thinking":
        return ThinkingView("thinking", str(raw.get("thinking", "")))
    if kind == "redacted_thinking":
        return ThinkingView("redacted thinking", _encrypted(raw.get("data")))
    reasoning = raw.get("reasoningContent")
    if not isinstance(reasoning, dict):
        return None
    text = reasoning.get("reasoningText")
    if isinstance(text, dict):
        return ThinkingView("thinking", str(text.get("text", "")))
    return ThinkingView("redacted thinking", _encrypted(reasoning.get("redactedContent")))


def _encrypted(data) -> str:
    size = len(data) * 3 // 4 if isinstance(data, str) else 0
    return f"(encrypted by the provider: {size:,} bytes)"


def media_view(media: Media) -> MediaView:
    what = media.media_type or media.kind
    if media.data is not None:
        size = len(media.data) * 3 // 4
        label = f"{media.filename or media.kind} ({what}, {size:,} bytes)"
        thumbnail = media.data_url if media.kind == "image" and (
            media.media_type or "").startswith("image/") else None
        return MediaView(media.kind, label, thumbnail=thumbnail)
    if media.url is not None:
        web = media.url.startswith(("http://", "https://"))
        return MediaView(media.kind, f"{media.kind}: {media.url}",
                         link=media.url if web else None)
    return MediaView(media.kind, f"{media.kind}: file id {media.file_id or '?'}")


# Past either of these a message card is collapsed to its first lines.
LONG_MESSAGE_CHARS = 2_500
LONG_MESSAGE_LINES = 40


@dataclass
class ToolCallView:
    id: str
    name: str
    arguments: str


@dataclass
class MessageCard:
    index: int
    role: str
    name: str | None
    segments: list[SegmentView]
    tool_calls: list[ToolCallView]
    tool_call_id: str | None
    omitted: str | None
    tokens: int
    chars: int
    warnings: list[str] = field(default_factory=list)
    lints: list[str] = field(default_factory=list)
    span_path: str | None = None
    span_start: int | None = None
    span_end: int | None = None
    anchor_prefix: str = "m"  # grader messages have their own numbering
    lines: int = 0

    @property
    def collapsed(self) -> bool:
        """A long message shows its start, with a control (CSS only) to show all of it."""
        return self.chars > LONG_MESSAGE_CHARS or self.lines > LONG_MESSAGE_LINES

    @property
    def anchor(self) -> str:
        return f"{self.anchor_prefix}{self.index}"

    @property
    def role_class(self) -> str:
        known = ("system", "developer", "user", "assistant", "tool")
        return self.role if self.role in known else "other"


def _segment_view(bundle_id: str, segment: Segment) -> SegmentView:
    origin = segment.origin
    kind = str(origin.kind)
    label = ORIGIN_LABELS.get(kind, kind)
    where = ""
    if origin.path:
        where = origin.path
        if origin.start_line:
            where += f":{origin.start_line}"
            if origin.end_line and origin.end_line != origin.start_line:
                where += f"-{origin.end_line}"
    thinking = thinking_view(segment.raw) if segment.raw is not None else None
    if thinking is not None:
        kind, label = "thinking", THINKING_LABEL
    title = f"{label}: {where}" if where else label
    # An installed gambit-core's snippet is a file of the server's, not of the bundle: no link.
    url = (source_url(bundle_id, origin.path, origin.start_line, origin.end_line)
           if origin.path and not is_installed_path(origin.path) else None)
    return SegmentView(segment.text, kind, title, origin.path, origin.start_line, origin.end_line, url,
                       origin.via, media_view(segment.media) if segment.media else None, thinking)


# Shown beside the text, as the request carries it: not part of the message's text or its count.
THINKING_LABEL = ("Thinking: the model's earlier reasoning, sent back to the API it came from and "
                  "left out (named in Changes) for another")


def _belongs(diagnostic: Diagnostic, message: Message) -> bool:
    span = message.span
    if span is None or diagnostic.line is None:
        return False
    if diagnostic.path and diagnostic.path != span.path:
        return False
    return span.start_line <= diagnostic.line <= span.end_line


@dataclass
class GraderView:
    name: str
    cards: list[MessageCard]
    tokens_label: str
    note: str | None = None  # a script grader: what it runs instead of asking a model
    where: str | None = None  # where the grader is written, as file:line
    where_url: str | None = None
    script_url: str | None = None


@dataclass
class CaseView:
    id: str
    cards: list[MessageCard]
    case_warnings: list[str]
    skipped: str | None
    total_tokens: int
    tokens_label: str
    tokens_exact: bool
    sent_count: int
    omitted_count: int
    budget: int | None
    tools: list[str]
    metadata: list[tuple[str, str]]
    graders: list[GraderView] = field(default_factory=list)
    message_total: int = 0
    more_from: int | None = None  # the index the next chunk of cards starts at, if any
    tokenizer: str = ""  # the encoding the counts come from, named beside them
    legend: list[tuple[str, str]] = field(default_factory=list)  # the origin kinds this case uses
    tool_specs: list[ToolView] = field(default_factory=list)
    output_schema: ToolView | None = None


@dataclass
class ToolView:
    """A tool, or the response format, as the case sends it: its schema as indented JSON."""

    name: str
    description: str | None
    schema: str
    strict: bool | None


def _tool_views(case: RenderedCase) -> tuple[list[ToolView], ToolView | None]:
    def pretty(value) -> str:
        return json.dumps(value, ensure_ascii=False, indent=2, default=str) if value is not None else ""

    tools = [ToolView(tool.name, tool.description, pretty(tool.parameters), tool.strict)
             for tool in case.tools]
    schema = case.output_schema
    output = ToolView(schema.name, None, pretty(schema.schema), schema.strict) if schema else None
    return tools, output


def _legend(case: RenderedCase) -> list[tuple[str, str]]:
    """The origin kinds the case's messages (and its graders' prompts) use, in the legend's order."""
    used = {str(segment.origin.kind) for message in case.messages for segment in message.segments}
    used.update(str(segment.origin.kind) for grader in case.graders for message in grader.messages
                for segment in message.segments)
    legend = [(kind, label) for kind, label in ORIGIN_LABELS.items() if kind in used]
    if any(segment.raw is not None and thinking_view(segment.raw) is not None
           for message in case.messages for segment in message.segments):
        legend.append(("thinking", "Thinking (not in the text)"))
    return legend


def tokenizer_label(counts: CaseTokens) -> str:
    if counts.exact:
        return f"counted with {counts.encoding}"
    return f"estimated with {counts.encoding}: this provider publishes no local tokenizer"


# A long conversation's page carries its first messages; the rest load in chunks as the reader
# scrolls to them (10,000 messages were 16 MB of HTML).
FIRST_MESSAGES = 100
MESSAGE_CHUNK = 200


def _cards(bundle_id: str, case: RenderedCase, counts: CaseTokens, anchor_prefix: str = "m",
           start: int = 0, stop: int | None = None) -> list[MessageCard]:
    """A card per message of start..stop, its segments titled with their origins and token counts."""
    stop = len(case.messages) if stop is None else min(stop, len(case.messages))
    cards = []
    for index in range(start, stop):
        message = case.messages[index]
        segment_views = [_segment_view(bundle_id, s) for s in message.segments]
        for view, tokens in zip(segment_views, counts.segments[index], strict=True):
            view.title += f" · {tokens:,} tok"
        cards.append(MessageCard(
            index=index,
            role=message.role,
            name=message.name,
            segments=segment_views,
            tool_calls=[ToolCallView(call.id, call.name, call.arguments) for call in message.tool_calls],
            tool_call_id=message.tool_call_id,
            omitted=message.omitted,
            tokens=counts.messages[index],
            chars=len(message.content),
            lines=message.content.count("\n") + 1,
            span_path=message.span.path if message.span else None,
            span_start=message.span.start_line if message.span else None,
            span_end=message.span.end_line if message.span else None,
            anchor_prefix=anchor_prefix,
        ))
    return cards


def _grader_views(bundle_id: str, case: RenderedCase, provider: str) -> list[GraderView]:
    views = []
    for position, grader in enumerate(case.graders):
        written = grader.span
        where = where_url = None
        if written is not None:
            where = f"{written.path}:{written.start_line}"
            where_url = source_url(bundle_id, written.path, written.start_line, written.end_line)
        script_url = source_url(bundle_id, grader.script) if grader.script else None
        if not grader.messages:
            views.append(GraderView(grader.name, [], "", grader.note, where, where_url,
                                    script_url))
            continue
        prompt = RenderedCase(grader.name, grader.messages)
        counts = case_tokens(prompt, provider=provider)
        views.append(GraderView(grader.name, _cards(bundle_id, prompt, counts, f"g{position}-m"),
                                counts.label(counts.sent_total), None, where, where_url))
    return views


def case_view(bundle_id: str, case: RenderedCase, provider: str, budget: int | None,
              window: tuple[int, int] | None = None) -> CaseView:
    """The case's view model; with `window` (start, stop), cards for those messages only."""
    counts = case_tokens(case, provider=provider)
    start, stop = window if window is not None else (0, len(case.messages))
    stop = min(stop, len(case.messages))
    cards = _cards(bundle_id, case, counts, start=start, stop=stop)
    case_warnings = []
    for diagnostic in case.warnings:
        if case.skipped and case.skipped in diagnostic.message:
            continue  # the skip notice says it once, above the messages
        owner = next((index for index, message in enumerate(case.messages)
                      if _belongs(diagnostic, message)), None)
        if owner is None:
            case_warnings.append(diagnostic.located())
        elif start <= owner < stop:
            cards[owner - start].warnings.append(diagnostic.located())
    metadata = [(key, _short(value)) for key, value in case.metadata.items() if value not in (None, "", [], {})]
    tool_specs, output_schema = _tool_views(case)
    return CaseView(
        id=case.id,
        cards=cards,
        case_warnings=case_warnings,
        skipped=case.skipped,
        total_tokens=counts.sent_total,
        tokens_label=counts.label(counts.sent_total),
        tokens_exact=counts.exact,
        sent_count=len(case.sent_messages),
        omitted_count=len(case.omitted_messages),
        budget=budget,
        tools=[tool.name for tool in case.tools],
        metadata=metadata,
        graders=_grader_views(bundle_id, case, provider) if start == 0 else [],
        message_total=len(case.messages),
        more_from=stop if stop < len(case.messages) else None,
        tokenizer=tokenizer_label(counts),
        legend=_legend(case),
        tool_specs=tool_specs,
        output_schema=output_schema,
    )


def _short(value, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


# ---------------------------------------------------------------------------------------------
# Bundle page


@dataclass
class CaseRow:
    id: str
    url: str
    messages: int
    omitted: int
    warnings: int
    skipped: str | None
    search: str  # lower-cased id and message text for the filter box
    tokens: int = 0


@dataclass
class DocumentSection:
    path: str
    kind: str
    cases: list[CaseRow]
    error: str | None
    warnings: list[str]
    # Converted forms of the file offered for download, as (file name, url).
    conversions: list[tuple[str, str]] = field(default_factory=list)
    profile: str | None = None  # agentv files: the profile that rendered them
    profile_reason: str | None = None
    anchor: str = ""  # the section's id on the bundle page
    batch_url: str = ""  # the file's batch JSONL with the page's settings
    # Paging: the rows shown are matching[first - 1:last]; links to the neighbouring pages.
    total: int = 0
    matching: int = 0
    first: int = 0
    last: int = 0
    previous_url: str | None = None
    next_url: str | None = None
    sort: str = ""  # "" (file order) or a key of ROW_SORTS
    sort_urls: dict[str, str] = field(default_factory=dict)

    @property
    def paged(self) -> bool:
        return self.previous_url is not None or self.next_url is not None


SEARCH_CHARS_PER_CASE = 4000


@dataclass(frozen=True)
class RowSummary:
    """A bundle-page row without its link: what the outline of a document keeps per case."""

    id: str
    messages: int
    omitted: int
    warnings: int
    skipped: str | None
    search: str  # lower-cased id and message text, for the filter
    tokens: int = 0  # the sent messages in o200k_base, every provider's encoding (exact or estimate)

    @classmethod
    def of(cls, case: RenderedCase, tokens: int) -> RowSummary:
        text = " ".join(message.content for message in case.messages)[:SEARCH_CHARS_PER_CASE]
        return cls(case.id, len(case.sent_messages), len(case.omitted_messages), len(case.warnings),
                   case.skipped, f"{case.id} {text}".lower(), tokens)

    def matches(self, words: list[str]) -> bool:
        return all(word in self.search for word in words)


def row_summaries(cases: list[RenderedCase]) -> tuple[RowSummary, ...]:
    """Every case's row, the sent messages of all of them counted in one batch: a call per case
    made a 14,000-case file's outline take seconds instead of a fraction of one."""
    sent = [case.sent_messages for case in cases]
    counts = iter(message_token_counts([message for messages in sent for message in messages]))
    return tuple(RowSummary.of(case, sum(next(counts) for _ in messages) + TOKENS_PER_REPLY)
                 for case, messages in zip(cases, sent, strict=True))


# The bundle table's sorts (largest first), over every row of a document, not one page of it.
ROW_SORTS = {
    "tokens": lambda row: -row.tokens,
    "warnings": lambda row: -row.warnings,
}


def case_row(bundle_id: str, document: str, row: RowSummary, query: str) -> CaseRow:
    return CaseRow(id=row.id, url=case_url(bundle_id, document, row.id, query), messages=row.messages,
                   omitted=row.omitted, warnings=row.warnings, skipped=row.skipped, search=row.search,
                   tokens=row.tokens)


def file_stem(name: str) -> str:
    """A download file name's stem from a path, title or id: safe characters only, never empty."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:80] or "download"
