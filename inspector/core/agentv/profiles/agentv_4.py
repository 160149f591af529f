"""agentv v3.9 and later, as agentv 4.42.4 sends it: no guidelines; every file is a `<file>` tag.

The steps follow agentv's own code (`packages/core/src/evaluation/...` at v4.42.4):
`formatting/prompt-builder.ts` buildPromptInputs decides between one flat question and a chat
prompt, `providers/llm-providers.ts` buildChatPrompt adds the system message, and pi-ai's context
keeps system text apart from the turns. Cases in `mode: conversation` are sent turn by turn by
`orchestrator.ts` runConversationMode; the page shows the first turn's request.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

import msgspec

from ...js import JS_WHITESPACE, js_json, js_trim
from ...model import Diagnostic, LineSpan, Message, OriginKind, RenderedCase
from ...yaml_lines import Node
from ..case_graders import grader_prompts
from ..conversation_graders import conversation_graders, turn_input
from ..graders import Skip
from ..pieces import Made, Piece, joined, segments, sep
from ..prepare import DEFAULT_SYSTEM_PROMPT, Context, resolve_reference
from ..schema import Block, CaseSpec, InputMessage, written_content


class Formatted(msgspec.Struct, gc=False):
    """One segment as formatSegment renders it, with its pieces for provenance. (A Struct: a C
    __init__, for one per content block of every test.)"""

    text: str | None  # None: formatSegment returns undefined (the segment adds nothing)
    pieces: list[Piece]
    visible: bool


def _format(block: Block, context: Context, warnings: list[Diagnostic]) -> Formatted:
    """segment-formatter.ts formatSegment and hasVisibleContent for one block."""
    if block.kind in ("text", "json"):
        # Only templated text has pieces: no comprehension (a call of its own) for the rest.
        pieces = (
            block.pieces
            and [piece for piece in block.pieces if piece.text]
            or [Piece(block.value, OriginKind.CASE_TEXT, block.path, block.text_line, block.end_line)]
        )
        return Formatted(block.value, pieces, bool(js_trim(block.value)))
    if block.kind == "file":
        found = resolve_reference(context, block.value)
        if found is None:
            warnings.append(
                Diagnostic(
                    f"File not found: {block.value} — agentv drops this block (looked in the eval "
                    f"file's folder and each parent up to the root; files outside the bundle are never "
                    f"read)",
                    block.path,
                    block.start_line,
                )
            )
            return Formatted(None, [], False)
        display, path, text = found
        if not text:
            return Formatted(None, [], False)
        via = LineSpan(block.path, block.start_line, block.end_line)
        body, first_line = _trimmed_file(context, path, text)
        pieces = [
            Piece(
                f'<file path="{display}">\n', OriginKind.MARKER, block.path, block.start_line, block.end_line
            ),
            Piece(body, OriginKind.FILE, path, first_line, via=via),
            Piece("\n</file>", OriginKind.MARKER, block.path, block.start_line, block.end_line),
        ]
        return Formatted(pieces[0].text + body + pieces[2].text, pieces, bool(body))
    if block.kind == "image":
        warnings.append(
            Diagnostic(
                "agentv 4 sends no image to a language model: formatSegment renders image blocks as nothing",
                block.path,
                block.start_line,
            )
        )
        return Formatted(None, [], False)
    warnings.append(
        Diagnostic(
            f"content block ({block.value}) is kept by agentv but renders as nothing",
            block.path,
            block.start_line,
        )
    )
    return Formatted(None, [], False)


def _trimmed_file(context: Context, path: str, text: str) -> tuple[str, int]:
    """A file's text as formatSegment sends it (trimmed) and the line it then starts on: a
    guideline or attachment shared by a thousand cases is trimmed once."""
    key = f"v4 trimmed\0{path}"
    found = context.cache.get(key)
    if found is None or found[0] is not text:
        body = js_trim(text)
        lead = len(text) - len(text.lstrip(JS_WHITESPACE)) if body != text else 0
        found = context.cache[key] = (text, body, 1 + text[:lead].count("\n"))
    return found[1], found[2]


def _strip_pieces(pieces: list[Piece]) -> list[Piece]:
    """JS trim() over a run of pieces, moving the first piece's line as text is cut."""
    result = list(pieces)
    while result and not js_trim(result[0].text):
        result.pop(0)
    if result:
        first = result[0]
        kept = first.text.lstrip(JS_WHITESPACE)
        line = first.first_line
        if line is not None:
            line += first.text[: len(first.text) - len(kept)].count("\n")
        result[0] = first.with_text(kept, line)
    while result and not js_trim(result[-1].text):
        result.pop()
    if result:
        result[-1] = result[-1].with_text(result[-1].text.rstrip(JS_WHITESPACE), result[-1].first_line)
    return result


def _span(message: InputMessage) -> LineSpan:
    return LineSpan(message.path, message.start_line, message.end_line)


def render(case: CaseSpec, context: Context) -> RenderedCase:
    warnings: list[Diagnostic] = list(case.warnings)
    result = RenderedCase(
        case.id,
        [],
        warnings,
        LineSpan(case.path, case.start_line, case.end_line),
        case.skipped,
        dict(case.metadata),
    )
    formatted = [[_format(block, context, warnings) for block in message.blocks] for message in case.messages]
    if case.turns:
        return _conversation_case(result, case, case.turns, context)

    visible = [any(item.visible for item in parts) for parts in formatted]
    has_text = [any(item.text for item in parts) for parts in formatted]
    role_markers = any(m.role in ("assistant", "tool") for m in case.messages) or sum(visible) > 1
    message_pieces = _message_joiner(formatted)
    made: Made = {}

    leading, system, system_span = _leading_system(case, message_pieces, has_text)
    if not role_markers:
        return _flat_case(result, case, context, formatted, (system, system_span), made)

    turns_out = [
        _chat_turn(case.messages[index], message_pieces(index), made)
        for index in range(leading, len(case.messages))
    ]
    result.messages += _chat_head(system, system_span, turns_out, made)
    result.messages.extend(turns_out)
    _drop_blank_assistant_turns(result)
    attach_graders(result, case, _marked_question(case, message_pieces, visible, has_text), context, made)
    return result


def _leading_system(
    case: CaseSpec, message_pieces: Callable[[int], list[Piece]], has_text: list[bool]
) -> tuple[int, list[Piece], LineSpan | None]:
    """How many messages lead as system messages, their text joined, and where they start."""
    leading = 0
    while leading < len(case.messages) and case.messages[leading].role == "system":
        leading += 1
    system = joined([message_pieces(i) for i in range(leading) if has_text[i]], "\n\n")
    return leading, system, _span(case.messages[0]) if leading else None


def _marked_question(
    case: CaseSpec, message_pieces: Callable[[int], list[Piece]], visible: list[bool], has_text: list[bool]
) -> list[Piece]:
    """prompt-builder.ts: the graders' question marks every message with content by its role."""
    marked = [
        [sep(f"@[{message.role[:1].upper()}{message.role[1:]}]:\n"), *message_pieces(index)]
        for index, message in enumerate(case.messages)
        if visible[index] and has_text[index]
    ]
    return joined(marked, "\n\n")


def _conversation_case(
    result: RenderedCase, case: CaseSpec, turns: list[Node], context: Context
) -> RenderedCase:
    """`mode: conversation`: the first turn's request, and every turn's graders."""
    initial = _conversation(result, case, turns, context)
    _drop_blank_assistant_turns(result)
    if case.grading is not None and not case.skipped:
        try:
            result.graders = conversation_graders(
                case, initial, turns, lambda raw: resolve_reference(context, raw), result.warnings
            )
        except Skip as skip:
            result.skipped = f"agentv skips this test: {skip}"
            result.warnings.append(Diagnostic(result.skipped, case.path, case.start_line))
    return result


def _message_joiner(formatted: list[list[Formatted]]) -> Callable[[int], list[Piece]]:
    """Message `index`'s text pieces, joined by newlines. The graders' question repeats the
    messages' pieces: each message is joined once, so each piece is made into one segment."""
    joined_pieces: list[list[Piece] | None] = [None] * len(formatted)

    def message_pieces(index: int) -> list[Piece]:
        found = joined_pieces[index]
        if found is None:
            found = joined_pieces[index] = joined(
                (item.pieces for item in formatted[index] if item.text), "\n"
            )
        return found

    return message_pieces


def _flat_case(
    result: RenderedCase,
    case: CaseSpec,
    context: Context,
    formatted: list[list[Formatted]],
    leading_system: tuple[list[Piece], LineSpan | None],
    made: Made,
) -> RenderedCase:
    """One flat question; the system message is the leading system text, trimmed, or the
    default."""
    system, system_span = leading_system
    parts = [_strip_pieces(item.pieces) for parts in formatted for item in parts if item.text]
    question = joined((p for p in parts if p), "\n\n")
    system = _strip_pieces(system)
    if not system:
        system = [Piece(DEFAULT_SYSTEM_PROMPT, OriginKind.DEFAULT_PROMPT)]
        system_span = None
    result.messages.append(Message("system", segments(system, made), span=system_span))
    shown = [
        message
        for message, parts in zip(case.messages, formatted, strict=True)
        if any(item.visible for item in parts)
    ]
    result.messages.append(
        Message("user", segments(question, made), span=_span(shown[0]) if len(shown) == 1 else None)
    )
    _note_dropped(result, case, formatted)
    attach_graders(result, case, question, context, made)
    return result


def _chat_head(
    system: list[Piece], system_span: LineSpan | None, turns: list[Message], made: Made
) -> list[Message]:
    """The system message (the default when none is written) and, when nothing else is sent,
    the empty question: an empty chat prompt is no chat prompt, so the provider sends that."""
    if system:
        return [Message("system", segments(system, made), span=system_span)]
    head = [Message("system", segments([Piece(DEFAULT_SYSTEM_PROMPT, OriginKind.DEFAULT_PROMPT)]))]
    if all(message.omitted for message in turns):
        head.append(Message("user", []))
    return head


def _chat_turn(message: InputMessage, pieces: list[Piece], made: Made) -> Message:
    """A message after the leading system ones: a later system or tool message is sent as the
    assistant's, marked with its role."""
    role = message.role
    if role in ("system", "tool"):
        marker = "@[System]:" if role == "system" else "@[Tool]:"
        role = "assistant"
        pieces = [sep(marker + ("\n" if pieces else "")), *pieces]
    if not pieces:
        return Message(
            message.role,
            [],
            span=_span(message),
            omitted="the message renders to nothing; agentv leaves it out",
        )
    return Message(role, segments(pieces, made), span=_span(message))


def attach_graders(
    result: RenderedCase, case: CaseSpec, question: list[Piece], context: Context, made: Made | None = None
) -> None:
    """The judge's prompts for a test agentv runs (agentv 3.8, 4 and 5; not in conversation
    mode), given the question (promptInputs.question) the graders read."""
    if case.grading is None or case.skipped or result.skipped:
        return
    try:
        result.graders = grader_prompts(
            case, question, lambda raw: resolve_reference(context, raw), result.warnings, made
        )
    except Skip as skip:
        result.skipped = f"agentv skips this test: {skip}"
        result.warnings.append(Diagnostic(result.skipped, case.path, case.start_line))


IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".bmp": "image/bmp",
}


def _processed_json(raw: object, context: Context) -> str | None:
    """JSON.stringify of the content as message-processor.ts left it: string items become text
    blocks, missing files vanish, images become data URLs. A file that was found carries its
    absolute path on agentv's machine, which the inspector cannot know: None."""
    import base64

    if isinstance(raw, dict):
        return js_json(raw, indent=None)
    if not isinstance(raw, list):
        return None
    items: list[object] = []
    for item in raw:
        if isinstance(item, str):
            if item:
                items.append({"type": "text", "value": item})
            continue
        if not isinstance(item, dict):
            continue
        kind, value = item.get("type"), item.get("value")
        if kind in ("file", "image"):
            if not isinstance(value, str) or not value:
                continue
            found = resolve_reference(context, value)
            if found is None:
                continue
            if kind == "file":
                return None
            media = IMAGE_TYPES.get(posixpath.splitext(found[1])[1].lower())
            if media is None:
                continue
            data = base64.b64encode(context.bundle.read(found[1]) or b"").decode()
            items.append({"type": "image", "media_type": media, "source": f"data:{media};base64,{data}"})
            continue
        items.append(item)
    return js_json(items, indent=None)


def _drop_blank_assistant_turns(result: RenderedCase) -> None:
    """pi-ai's OpenAI converter (convertMessages) skips an assistant message whose text is only
    white space: it has "no content and no tool calls"."""
    for message in result.messages:
        if message.role == "assistant" and message.omitted is None and not js_trim(message.content):
            message.omitted = "only white space: pi-ai, which agentv sends through, leaves it out"


def _note_dropped(result: RenderedCase, case: CaseSpec, formatted: list[list[Formatted]]) -> None:
    """In the flat form every message folds into one question; say which ones added nothing."""
    for message, parts in zip(case.messages, formatted, strict=True):
        if not any(item.text and js_trim(item.text) for item in parts):
            result.messages.append(
                Message(
                    message.role,
                    [],
                    span=_span(message),
                    omitted="the message renders to nothing; agentv leaves it out",
                )
            )


# agentv sends such a message, but as JSON holding its files' absolute paths on the machine that runs
# it; the inspector shows where it stands and leaves it out of the payload.
UNREPRODUCIBLE = (
    "agentv sends it as JSON with its files' absolute paths (conversation mode), which "
    "the inspector cannot know"
)


def _conversation(
    result: RenderedCase, case: CaseSpec, turns: list[Node], context: Context
) -> list[tuple[str, list[Piece] | None]]:
    """orchestrator.ts runConversationMode: the history is each input message's raw content (text as
    written, anything else as compact JSON), then the first turn's input as a user message; an
    optional window keeps the system messages and the last 2 x window_size others; pi-ai gathers
    the system messages into one system prompt. Returns the history before the first turn."""
    history = _history(result, case, context)
    initial = [(role, pieces) for role, pieces, _ in history]
    first = turns[0]
    history.append(("user", turn_input(first, case.path), None))

    window = case.metadata.get("window_size")
    outside = _outside_window(history, window)
    result.messages += _conversation_system(history)
    first_span = LineSpan(case.path, first.start_line, first.end_line)
    for entry in history:
        if entry[0] != "system":
            result.messages.append(
                _conversation_message(
                    entry, first_span, f"outside window_size {window}" if id(entry) in outside else None
                )
            )
    if len(turns) > 1:
        result.warnings.append(
            Diagnostic(
                f"conversation mode: this is the first of {len(turns)} requests; each later turn adds "
                f"the model's reply and that turn's input",
                case.path,
                first.start_line,
            )
        )
    return initial


# A message of the conversation's history: role, pieces (None: agentv sends JSON the inspector
# cannot reproduce) and the input message it came from (None for a turn's input).
_Entry = tuple[str, list[Piece] | None, InputMessage | None]


def _history(result: RenderedCase, case: CaseSpec, context: Context) -> list[_Entry]:
    """Each input message's raw content: text as written, anything else as compact JSON."""
    history: list[_Entry] = []
    for message in case.messages:
        raw = written_content(message)
        text = raw if isinstance(raw, str) else _processed_json(raw, context)
        if text is None:
            result.warnings.append(
                Diagnostic(
                    "in conversation mode agentv sends this message's content as JSON holding each "
                    "file's absolute path on its machine; the inspector cannot reproduce that, so the "
                    "message is left out",
                    message.path,
                    message.start_line,
                )
            )
            history.append((message.role, None, message))
            continue
        line = message.blocks[0].text_line if isinstance(raw, str) and message.blocks else message.start_line
        history.append(
            (message.role, [Piece(text, OriginKind.CASE_TEXT, message.path, line, message.end_line)], message)
        )
    return history


def _outside_window(history: list[_Entry], window: object) -> set[int]:
    """buildWindowedHistory: the ids of the messages a window_size leaves out (the system
    messages stay; of the others, the last 2 x window)."""
    if not isinstance(window, (int, float)) or isinstance(window, bool) or window < 1:
        return set()
    others = [entry for entry in history if entry[0] != "system"]
    keep = (
        {id(entry) for entry in others[int(-window * 2) :]}
        if int(window * 2)
        else {id(entry) for entry in others}
    )
    return {id(entry) for entry in others if id(entry) not in keep}


def _conversation_system(history: list[_Entry]) -> list[Message]:
    """pi-ai gathers the system messages into one system prompt (an empty one is not sent); one
    the inspector cannot reproduce leaves them all out."""
    systems = [entry for entry in history if entry[0] == "system"]
    if any(pieces is None for _, pieces, _ in systems):
        return [
            Message("system", [], span=_span(written), omitted=UNREPRODUCIBLE)
            for _, _, written in systems
            if written is not None
        ]
    if not systems:
        return [Message("system", segments([Piece(DEFAULT_SYSTEM_PROMPT, OriginKind.DEFAULT_PROMPT)]))]
    system = joined((pieces for _, pieces, _ in systems if pieces is not None), "\n\n")
    first_system = systems[0][2]
    if not "".join(piece.text for piece in system):
        return []
    return [
        Message("system", segments(system), span=_span(first_system) if first_system is not None else None)
    ]


def _conversation_message(entry: _Entry, first_span: LineSpan, outside: str | None) -> Message:
    """A message after the system prompt; a tool result goes as the assistant's, marked."""
    role, pieces, source = entry
    span = _span(source) if source is not None else first_span
    if outside is not None:
        return Message(role, segments(pieces or []), span=span, omitted=outside)
    if pieces is None:
        return Message(role, [], span=span, omitted=UNREPRODUCIBLE)
    if role == "tool":
        role, pieces = "assistant", [sep("@[Tool]: "), *pieces]
    return Message(role, segments(pieces), span=span)
