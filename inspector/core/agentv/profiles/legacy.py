"""The guideline-era agentv prompt (v0.5.3 to v3.8): shared by the agentv-0.10 and agentv-3.8 profiles.

Followed step by step from the tags' own code (docs/agentv-releases.md; checked against it by
tests/core/test_agentv_legacy_goldens.py):

- Loading (`isTestMessage`): a message whose content is not a string or a list of mappings is
  dropped (3.8 also takes an object, sent as JSON, and a message with only `tool_calls`). Inside a
  list only `text` and `file` blocks with string values count; a file with an empty value is
  skipped. A file whose resolved path matches `guideline_patterns` (micromatch) leaves its message
  for the guideline block; under 3.8 every file of the suite-level `input` does.
- Prompt building sees each message again from what was written: a file whose *written* value
  matches a pattern is only a reference (`<Attached: value>` in leading system messages, nothing
  elsewhere), and a file is found again by its written value, so one written with a leading `/` or
  `\\` is missing here. Blank text does not count.
- A case is sent as one user turn (every part trimmed, empties dropped, joined by blank lines)
  unless it has assistant/tool messages or more than one message with visible content (non-blank
  text, a non-blank file). Then leading system messages merge after the guideline block, each
  other message keeps its non-blank parts joined by newlines, and a message left with nothing is
  not sent (a later system message always keeps its `@[System]:`, under 3.8 a tool message its
  `@[Tool]:`). The provider adds the default system prompt only when no system message is left.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from msgspec import structs

from ...model import Diagnostic, LineSpan, Message, OriginKind, RenderedCase
from ..files import FromConfig, micromatch, release_config_patterns
from ..pieces import Piece, joined, segments, sep, strip
from ..prepare import DEFAULT_SYSTEM_PROMPT, Context, Part, Prepared, prepare
from ..schema import Block, CaseSpec, InputMessage, written_content

GUIDELINE_HEADER = "[[ ## Guidelines ## ]]\n\n"
ONLY_GUIDELINES = "only guideline files; their content moved to the system message"
NOTHING_TO_SEND = "nothing to send (blank text, empty or missing files); agentv drops it"
CODE_BLOCK = re.compile(r"```[\s\S]*?```")


@dataclass(frozen=True, slots=True)
class Style:
    release: str  # as named in diagnostics, e.g. "agentv 0.10.1"
    guideline: Callable[[Part], list[Piece]]  # one entry of the guideline block
    file: Callable[[Part, str], list[Piece]]  # a file under a name; [] when agentv shows nothing
    tool_as_assistant: bool  # v0.14.2+: "@[Tool]:" in an assistant message, else role function
    suite_files_are_guidelines: bool  # v2.15.0+
    repeat_code_blocks: bool  # up to v2.0.2: fenced blocks appended again in single-turn
    attach_pattern_files: bool  # 3.8 single-turn: <Attached: path> for a file whose path matches
    object_content: bool  # 3.8: object content (sent as JSON), content-less tool_calls messages
    config_needs_schema: bool  # 0.10: a config without `$schema: agentv-config-v2` is ignored
    skips_without_input: bool  # 3.8: a test with no valid input message is skipped
    # 3.8: the judge's prompts, given the question its graders read (promptInputs.question)
    judge: Callable[[RenderedCase, CaseSpec, list[Piece], Context], None] = lambda *_: None


@dataclass(slots=True)
class _Seg:
    kind: str  # "text", "ref" (a file whose written value matches a pattern) or "file"
    part: Part


def _patterns(context: Context, style: Style) -> tuple[str, ...]:
    if not isinstance(context.patterns, FromConfig):
        return tuple(context.patterns)  # set by the user: used as given
    patterns, _ = release_config_patterns(
        context.bundle,
        context.eval_path,
        require_schema=style.config_needs_schema,
        check_version_keys=not style.config_needs_schema,
    )
    return patterns


def _reader_made_block(item: Any) -> bool:
    """Whether schema._Reader._block turned this list item into a block (to pair them up)."""
    if isinstance(item, str):
        return True
    if not isinstance(item, dict) or item.get("type") not in ("text", "file", "image"):
        return False
    value = item.get("value")
    if isinstance(value, (str, int, float)):
        return True
    return item.get("type") == "text" and isinstance(value, (dict, list))


def _load(
    message: InputMessage, style: Style, warnings: list[Diagnostic]
) -> tuple[InputMessage | None, str | None]:
    """The message as agentv loads it, or None and why `isTestMessage` drops it."""
    if message.problem:
        return None, message.problem
    raw = written_content(message)
    if isinstance(raw, str):
        return message, None
    calls = style.object_content and bool(message.tool_calls)
    if isinstance(raw, list) and (calls or all(isinstance(item, dict) for item in raw)):
        return structs.replace(message, blocks=_kept_blocks(message, raw, style, warnings)), None
    if style.object_content and isinstance(raw, dict):
        return structs.replace(message, blocks=[_json_block(message, raw)]), None
    if calls:
        return structs.replace(message, blocks=[]), None
    return None, _drop_reason(raw)


def _kept_blocks(message: InputMessage, raw: list, style: Style, warnings: list[Diagnostic]) -> list[Block]:
    """The blocks of a content list agentv keeps: text and file blocks with a string value."""
    made = [item for item in raw if _reader_made_block(item)]
    extra = max(len(message.blocks) - len(made), 0)  # input_files the reader put first
    kept = list(message.blocks[:extra])
    for item, block in zip(made, message.blocks[extra:], strict=False):
        if (
            isinstance(item, dict)
            and item.get("type") in ("text", "file")
            and isinstance(item.get("value"), str)
        ):
            kept.append(block)
        elif isinstance(item, dict):
            what = (
                "image blocks"
                if item.get("type") == "image"
                else f"a {item.get('type')} block whose value is not a string"
            )
            warnings.append(
                Diagnostic(
                    f"{style.release} ignores {what}; nothing of it is sent", block.path, block.start_line
                )
            )
    return kept


def _json_block(message: InputMessage, raw: dict) -> Block:
    """An object content, as the pretty JSON agentv sends, where the content was written."""
    text = json.dumps(raw, indent=2, ensure_ascii=False)
    first = message.blocks[0] if message.blocks else None
    if first:
        return Block("json", text, first.path, first.start_line, first.end_line, first.start_line)
    return Block("json", text, message.path, message.start_line, message.end_line, message.start_line)


def _drop_reason(raw: object) -> str:
    if raw is None:
        return "the message has no content"
    if isinstance(raw, list):
        return "its content list holds something other than {type, value} mappings"
    if isinstance(raw, dict):
        return "its content is an object"
    return f"its content is a {type(raw).__name__}, not text or a list of blocks"


def render(case: CaseSpec, context: Context, style: Style) -> RenderedCase:
    warnings: list[Diagnostic] = list(case.warnings)
    patterns = _patterns(context, style)
    entries = _loaded_entries(case, style, warnings)
    loaded = [message for message, reason in entries if reason is None]
    prepared = prepare(
        replace(case, messages=loaded), context, warnings, guidelines=False, exact_references=True
    )
    _mark_guidelines(prepared, patterns, style)
    guideline_parts = [part for item in prepared for part in item.parts if part.kind == "guideline"]
    guideline_block = _guideline_block(guideline_parts, style)
    files_by_display = _files_by_display(prepared)
    segs = [_segments(item, patterns, files_by_display) for item in prepared]
    visible = [any(_shows_something(seg) for seg in item_segs) for item_segs in segs]
    # Several messages with something to show, or any reply, make a chat prompt.
    multi_turn = any(item.message.role in ("assistant", "tool") for item in prepared) or sum(visible) > 1

    result = RenderedCase(
        case.id,
        [],
        warnings,
        LineSpan(case.path, case.start_line, case.end_line),
        case.skipped,
        dict(case.metadata),
    )
    result.metadata["guideline_paths"] = _paths(guideline_parts)
    if style.skips_without_input and not case.skipped:
        _skip_without_input(result, case, loaded, style)
    by_message = {
        id(item.message): (item, item_segs, seen)
        for item, item_segs, seen in zip(prepared, segs, visible, strict=True)
    }
    if multi_turn:
        _multi_turn(result, entries, by_message, guideline_block, style)
        question = _role_marked_question(entries, by_message, style)
    else:
        question = _single_turn(result, entries, prepared, by_message, guideline_block, patterns, style)
    style.judge(result, case, question, context)
    return result


def _role_marked_question(
    entries: list[tuple[InputMessage, str | None]], by_message: dict, style: Style
) -> list[Piece]:
    """prompt-builder.ts buildPromptInputs' question when it builds a chat prompt: each message
    with something to show as `@[Role]:` and its parts joined by newlines, messages by a blank
    line (what the graders read; the chat prompt is what the model gets)."""
    parts: list[list[Piece]] = []
    for message, reason in entries:
        if reason is not None:
            continue
        _, item_segs, seen = by_message[id(message)]
        formatted = [pieces for pieces in (_format(seg, style) for seg in item_segs) if pieces]
        if seen and formatted:
            label = message.role[:1].upper() + message.role[1:]
            parts.append([sep(f"@[{label}]:\n"), *joined(formatted, "\n")])
    return joined(parts, "\n\n")


def _loaded_entries(
    case: CaseSpec, style: Style, warnings: list[Diagnostic]
) -> list[tuple[InputMessage, str | None]]:
    """Every message as agentv loads it, with the reason when it drops it."""
    entries: list[tuple[InputMessage, str | None]] = []
    for message in case.messages:
        kept, reason = _load(message, style, warnings)
        if kept is None:
            warnings.append(
                Diagnostic(
                    f"{style.release} drops this message when loading: {reason}",
                    message.path,
                    message.start_line,
                )
            )
            entries.append((message, reason))
        else:
            entries.append((kept, None))
    return entries


def _mark_guidelines(prepared: list[Prepared], patterns: tuple[str, ...], style: Style) -> None:
    """Files matching the guideline patterns (and, in some releases, the suite's files) are
    guidelines."""
    for item in prepared:
        for part in item.parts:
            if (
                part.kind == "file"
                and part.file is not None
                and (
                    (style.suite_files_are_guidelines and item.message.suite)
                    or micromatch(part.file.path, patterns)
                )
            ):
                part.kind = "guideline"


def _guideline_block(parts: list[Part], style: Style) -> list[Piece]:
    return joined((style.guideline(part) for part in parts), "\n\n")


def _paths(parts: list[Part]) -> list[str]:
    return [part.file.path for part in parts if part.file]


def _files_by_display(prepared: list[Prepared]) -> dict[str, Part]:
    return {
        part.file.display: part
        for item in prepared
        for part in item.parts
        if part.kind == "file" and part.file is not None
    }


def _skip_without_input(
    result: RenderedCase, case: CaseSpec, loaded: list[InputMessage], style: Style
) -> None:
    """A case none of whose own input messages loaded is skipped (the suite's do not count)."""
    if any(not message.suite for message in loaded):
        return
    result.skipped = "none of the case's input messages is valid"
    result.warnings.append(
        Diagnostic(
            f"{style.release} skips this case (none of its input "
            f"messages is valid): Skipping incomplete test",
            case.path,
            case.start_line,
        )
    )


def _shows_something(seg: _Seg) -> bool:
    return seg.kind == "text" or (
        seg.kind == "file" and seg.part.file is not None and bool(seg.part.file.text.strip())
    )


def _segments(item: Prepared, patterns: tuple[str, ...], files_by_display: dict[str, Part]) -> list[_Seg]:
    """agentv's segmentsByMessage: what prompt building sees of one message."""
    own = {id(part.block): part for part in item.parts}
    result = []
    for block in item.message.blocks:
        if block.kind in ("text", "json"):
            if block.value.strip():
                result.append(_Seg("text", own[id(block)]))
            continue
        value = block.value
        if block.kind != "file" or not value:
            continue
        if patterns and micromatch(value, patterns):
            result.append(_Seg("ref", own.get(id(block)) or Part("guideline", block)))
            continue
        found = _file_seg(own.get(id(block)), value, files_by_display)
        if found is not None:
            result.append(found)
    return result


def _file_seg(part: Part | None, value: str, files_by_display: dict[str, Part]) -> _Seg | None:
    """A file block that is no guideline reference: agentv finds its file again by the value
    as written."""
    if part is not None and part.kind == "file" and part.file is not None and part.file.display == value:
        return _Seg("file", part)
    if value in files_by_display:
        return _Seg("file", files_by_display[value])
    if part is not None and part.kind == "file":
        return _Seg("lost", part)  # the leading-separator bug: found, then lost
    return None


def _format(seg: _Seg, style: Style) -> list[Piece]:
    if seg.kind == "text":
        return [seg.part.text_piece()]
    if seg.kind == "ref":
        return [seg.part.marker(f"<Attached: {seg.part.block.value}>")]
    if seg.kind == "file":
        return style.file(seg.part, seg.part.block.value if seg.part.file is None else seg.part.file.display)
    return []


def _system_with_guidelines(base: list[Piece], guideline_block: list[Piece]) -> list[Piece]:
    if not guideline_block:
        return base
    return [*base, sep("\n\n" + GUIDELINE_HEADER), *guideline_block]


def _single_turn(
    result: RenderedCase,
    entries: list[tuple[InputMessage, str | None]],
    prepared: list[Prepared],
    by_message: dict,
    guideline_block: list[Piece],
    patterns: tuple[str, ...],
    style: Style,
) -> list[Piece]:
    """The case as one user turn; returns the question it sends."""
    system = _system_with_guidelines(
        [Piece(DEFAULT_SYSTEM_PROMPT, OriginKind.DEFAULT_PROMPT)], guideline_block
    )
    result.messages.append(Message("system", segments(system)))
    kept = [
        pieces for pieces in (strip(part) for part in _question_parts(prepared, patterns, style)) if pieces
    ]
    shown = [item for item in prepared if by_message[id(item.message)][2]]
    span = shown[0].span if len(shown) == 1 else None
    question = joined(kept, "\n\n")
    result.messages.append(Message("user", segments(question), span=span))
    for message, reason in entries:
        if reason is not None:
            result.messages.append(_dropped(message, reason))
            continue
        item, _, seen = by_message[id(message)]
        if not seen:
            result.messages.append(_unsent(message, item))
    return question


def _question_parts(prepared: list[Prepared], patterns: tuple[str, ...], style: Style) -> list[list[Piece]]:
    """Every text and file of every message, in order, then the repeated code fences."""
    parts: list[list[Piece]] = []
    fences: list[list[Piece]] = []
    for item in prepared:
        own = {id(part.block): part for part in item.parts}
        for block in item.message.blocks:
            part = own.get(id(block))
            if part is None or part.kind == "guideline":
                continue
            if part.kind == "text":
                parts.append([part.text_piece()])
                if style.repeat_code_blocks and block.kind == "text":
                    fences += _code_fences(block)
            elif part.file is not None:
                parts.append(_single_turn_file(part, part.file.display, patterns, style))
    if fences:
        parts.append(joined(fences, "\n"))
    return parts


def _code_fences(block: Block) -> list[list[Piece]]:
    """The text's fenced code blocks, which some releases repeat after the question."""
    fences = []
    for match in CODE_BLOCK.finditer(block.value):
        line = block.text_line + block.value.count("\n", 0, match.start())
        fences.append([Piece(match.group(), OriginKind.CASE_TEXT, block.path, line, block.end_line)])
    return fences


def _single_turn_file(part: Part, display: str, patterns: tuple[str, ...], style: Style) -> list[Piece]:
    """A file in the question: its text, or only a reference when the release attaches files
    matching the guideline patterns instead."""
    if style.attach_pattern_files and patterns and micromatch(display, patterns):
        return [part.marker(f"<Attached: {display}>")]
    return style.file(part, display)


def _unsent(message: InputMessage, item: Prepared) -> Message:
    """A message with nothing of its own in the question: shown where it stands, not sent."""
    markers = [
        part.marker(f"<Attached: {part.block.value}>") for part in item.parts if part.kind == "guideline"
    ]
    return Message(
        message.role,
        segments(joined(([m] for m in markers), "\n")),
        span=item.span,
        omitted=ONLY_GUIDELINES if markers else NOTHING_TO_SEND,
    )


def _dropped(message: InputMessage, reason: str) -> Message:
    pieces = [
        Piece(block.value, OriginKind.CASE_TEXT, block.path, block.text_line, block.end_line)
        for block in message.blocks
    ]
    return Message(
        message.role if message.role != "unknown" else "user",
        segments(joined(([piece] for piece in pieces), "\n")),
        span=LineSpan(message.path, message.start_line, message.end_line),
        omitted=f"agentv drops it when loading: {reason}",
    )


def _multi_turn(
    result: RenderedCase,
    entries: list[tuple[InputMessage, str | None]],
    by_message: dict,
    guideline_block: list[Piece],
    style: Style,
) -> None:
    def lost(seg: _Seg) -> None:
        result.warnings.append(
            Diagnostic(
                f"{style.release} leaves {seg.part.block.value!r} out of multi-turn prompts: it finds "
                f"the file again by the value as written, and a leading / or \\ was dropped when it "
                f"was loaded",
                seg.part.block.path,
                seg.part.block.start_line,
            )
        )

    system_parts: list[list[Piece]] = []
    if guideline_block:
        system_parts.append([sep(GUIDELINE_HEADER), *guideline_block])
    leading_span = None
    later: list[Message] = []
    notes: list[Message] = []
    in_leading = True
    for message, reason in entries:
        if reason is not None:
            (notes if in_leading else later).append(_dropped(message, reason))
            continue
        item, item_segs, _ = by_message[id(message)]
        for seg in item_segs:
            if seg.kind == "lost":
                lost(seg)
        if in_leading and message.role == "system":
            leading_span = leading_span or item.span
            formatted = [pieces for pieces in (_format(seg, style) for seg in item_segs) if pieces]
            if formatted:
                system_parts.append(joined(formatted, "\n"))
            else:
                notes.append(Message("system", [], span=item.span, omitted=NOTHING_TO_SEND))
            continue
        in_leading = False
        later.append(_later_turn(message, item, item_segs, style))
    result.messages += _multi_turn_head(system_parts, leading_span, later)
    result.messages.extend(notes)
    result.messages.extend(later)


def _later_turn(message: InputMessage, item: Prepared, item_segs: list[_Seg], style: Style) -> Message:
    """A message after the leading system ones: a system (and in some releases a tool) message
    is sent as the assistant's, marked with its role; one left with only guideline references
    is shown but not sent."""
    role, name = message.role, None
    formatted = [
        pieces for pieces in (_format(seg, style) for seg in item_segs if seg.kind != "ref") if pieces
    ]
    if role == "system":
        role, formatted = "assistant", [[sep("@[System]:")], *formatted]
    elif role == "tool":
        if style.tool_as_assistant:
            role, formatted = "assistant", [[sep("@[Tool]:")], *formatted]
        else:
            role, name = "function", "tool"
    if formatted:
        return Message(role, segments(joined(formatted, "\n")), name=name, span=item.span)
    refs = _reference_markers(item, item_segs)
    return Message(
        message.role,
        segments(joined(([ref] for ref in refs), "\n")),
        span=item.span,
        omitted=ONLY_GUIDELINES if refs else NOTHING_TO_SEND,
    )


def _reference_markers(item: Prepared, item_segs: list[_Seg]) -> list[Piece]:
    """`<Attached: path>` for each guideline of the message: those it references first."""
    shown = {id(seg.part.block) for seg in item_segs if seg.kind == "ref"}
    others = [
        part.marker(f"<Attached: {part.block.value}>")
        for part in item.parts
        if part.kind == "guideline" and id(part.block) not in shown
    ]
    return [
        seg.part.marker(f"<Attached: {seg.part.block.value}>") for seg in item_segs if seg.kind == "ref"
    ] + others


def _multi_turn_head(
    system_parts: list[list[Piece]], leading_span: LineSpan | None, later: list[Message]
) -> list[Message]:
    """The system message; agentv's provider adds its default prompt when the chat prompt has
    no system message, and with no message left at all sends it and an empty question."""
    if system_parts:
        return [Message("system", segments(joined(system_parts, "\n\n")), span=leading_span)]
    head = [
        Message(
            "system", segments([Piece(DEFAULT_SYSTEM_PROMPT, OriginKind.DEFAULT_PROMPT)]), span=leading_span
        )
    ]
    if not any(message.omitted is None for message in later):
        head.append(Message("user", []))
    return head
