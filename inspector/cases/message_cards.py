"""A case as its page shows it: the messages as cards (segments, media, thinking, tool calls), the
graders, the tools and the legend, prepared in Python so templates only loop and print. Nothing here
touches the request; views pass in what they parsed."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from inspector.cases.addresses import source_url
from inspector.core.decks.gambit_core_files import is_installed_path
from inspector.core.model import Diagnostic, LineSpan, Media, Message, RenderedCase, Segment
from inspector.core.tokens import CaseTokens, case_tokens

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
    # The text is its file's lines start..end verbatim: a line of it is that line of the file (the
    # same check that splits it line by line in the API's and CLI's answers).
    by_line: bool = False


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
        thumbnail = (
            media.data_url
            if media.kind == "image" and (media.media_type or "").startswith("image/")
            else None
        )
        return MediaView(media.kind, label, thumbnail=thumbnail)
    if media.url is not None:
        web = media.url.startswith(("http://", "https://"))
        return MediaView(media.kind, f"{media.kind}: {media.url}", link=media.url if web else None)
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
    url = (
        source_url(bundle_id, origin.path, origin.start_line, origin.end_line)
        if origin.path and not is_installed_path(origin.path)
        else None
    )
    return SegmentView(
        segment.text,
        kind,
        title,
        origin.path,
        origin.start_line,
        origin.end_line,
        url,
        origin.via,
        media_view(segment.media) if segment.media else None,
        thinking,
    )


# Shown beside the text, as the request carries it: not part of the message's text or its count.
THINKING_LABEL = (
    "Thinking: the model's earlier reasoning, sent back to the API it came from and "
    "left out (named in Changes) for another"
)


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
    judge: str | None = None  # the provider agentv asks, when the file names it


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

    tools = [
        ToolView(tool.name, tool.description, pretty(tool.parameters), tool.strict) for tool in case.tools
    ]
    schema = case.output_schema
    output = ToolView(schema.name, None, pretty(schema.schema), schema.strict) if schema else None
    return tools, output


def _legend(case: RenderedCase) -> list[tuple[str, str]]:
    """The origin kinds the case's messages (and its graders' prompts) use, in the legend's order."""
    used = {str(segment.origin.kind) for message in case.messages for segment in message.segments}
    used.update(
        str(segment.origin.kind)
        for grader in case.graders
        for message in grader.messages
        for segment in message.segments
    )
    legend = [(kind, label) for kind, label in ORIGIN_LABELS.items() if kind in used]
    if any(
        segment.raw is not None and thinking_view(segment.raw) is not None
        for message in case.messages
        for segment in message.segments
    ):
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


def _cards(
    bundle_id: str,
    case: RenderedCase,
    counts: CaseTokens,
    anchor_prefix: str = "m",
    start: int = 0,
    stop: int | None = None,
) -> list[MessageCard]:
    """A card per message of start..stop, its segments titled with their origins and token counts."""
    stop = len(case.messages) if stop is None else min(stop, len(case.messages))
    cards = []
    for index in range(start, stop):
        message = case.messages[index]
        segment_views = [_segment_view(bundle_id, s) for s in message.segments]
        for view, tokens in zip(segment_views, counts.segments[index], strict=True):
            view.title += f" · {tokens:,} tok"
        cards.append(
            MessageCard(
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
            )
        )
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
            views.append(
                GraderView(grader.name, [], "", grader.note, where, where_url, script_url, grader.judge)
            )
            continue
        prompt = RenderedCase(grader.name, grader.messages)
        counts = case_tokens(prompt, provider=provider)
        views.append(
            GraderView(
                grader.name,
                _cards(bundle_id, prompt, counts, f"g{position}-m"),
                counts.label(counts.sent_total),
                grader.note,
                where,
                where_url,
                judge=grader.judge,
            )
        )
    return views


def case_view(
    bundle_id: str,
    case: RenderedCase,
    provider: str,
    budget: int | None,
    window: tuple[int, int] | None = None,
) -> CaseView:
    """The case's view model; with `window` (start, stop), cards for those messages only."""
    counts = case_tokens(case, provider=provider)
    start, stop = window if window is not None else (0, len(case.messages))
    stop = min(stop, len(case.messages))
    cards = _cards(bundle_id, case, counts, start=start, stop=stop)
    case_warnings = []
    for diagnostic in case.warnings:
        if case.skipped and case.skipped in diagnostic.message:
            continue  # the skip notice says it once, above the messages
        owner = next(
            (index for index, message in enumerate(case.messages) if _belongs(diagnostic, message)), None
        )
        if owner is None:
            case_warnings.append(diagnostic.located())
        elif start <= owner < stop:
            cards[owner - start].warnings.append(diagnostic.located())
    metadata = [
        (key, _short(value)) for key, value in case.metadata.items() if value not in (None, "", [], {})
    ]
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
