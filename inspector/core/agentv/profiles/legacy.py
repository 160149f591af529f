"""The guideline-era agentv prompt (v0.5.3 to v3.8): shared by the agentv-0.10 and agentv-3.8 profiles.

Guideline files leave their message and form a block in the system message. A case is sent as one
user turn (every part trimmed, joined by blank lines) unless it has assistant/tool messages or more
than one message with visible content; then each message is kept, its parts joined by newlines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...model import Diagnostic, LineSpan, Message, OriginKind, RenderedCase
from ..pieces import Piece, joined, segments, sep, strip
from ..prepare import DEFAULT_SYSTEM_PROMPT, Context, Part, Prepared, prepare
from ..schema import CaseSpec

GUIDELINE_HEADER = "[[ ## Guidelines ## ]]\n\n"
ONLY_GUIDELINES = "only guideline files; their content moved to the system message"


@dataclass(frozen=True, slots=True)
class Style:
    guideline: Callable[[Part], list[Piece]]
    file: Callable[[Part], list[Piece]]
    tool_as_assistant: bool  # v0.14.2+: "@[Tool]:" in an assistant message, else role function
    suite_files_are_guidelines: bool  # v2.15.0+
    drop_slash_files_in_multi_turn: bool  # a v0.10 bug kept for fidelity


def _part_pieces(part: Part, style: Style) -> list[Piece]:
    if part.kind == "file":
        return style.file(part)
    if part.kind == "image":
        return [part.text_piece()]
    return [part.text_piece()]


def render(case: CaseSpec, context: Context, style: Style) -> RenderedCase:
    warnings: list[Diagnostic] = list(case.warnings)
    prepared = prepare(case, context, warnings, guidelines=True,
                       suite_files_are_guidelines=style.suite_files_are_guidelines)
    guideline_parts = [part for item in prepared for part in item.parts if part.kind == "guideline"]
    guideline_block = joined((style.guideline(part) for part in guideline_parts), "\n\n")
    for item in prepared:
        for part in item.parts:
            if part.kind == "image":
                warnings.append(Diagnostic("image blocks are not supported by this agentv "
                                           "release; the reference is sent as text",
                                           part.block.path, part.block.start_line))
    multi_turn = (any(item.message.role in ("assistant", "tool") for item in prepared)
                  or sum(1 for item in prepared if item.visible) > 1)
    result = RenderedCase(case.id, [], warnings, LineSpan(case.path, case.start_line, case.end_line),
                          case.skipped, dict(case.metadata))
    result.metadata["guideline_paths"] = [part.file.path for part in guideline_parts if part.file]
    if multi_turn:
        _multi_turn(result, prepared, guideline_block, style)
    else:
        _single_turn(result, prepared, guideline_block, style)
    return result


def _system_with_guidelines(base: list[Piece], guideline_block: list[Piece]) -> list[Piece]:
    if not guideline_block:
        return base
    return [*base, sep("\n\n" + GUIDELINE_HEADER), *guideline_block]


def _single_turn(result: RenderedCase, prepared: list[Prepared], guideline_block: list[Piece],
                 style: Style) -> None:
    system = _system_with_guidelines([Piece(DEFAULT_SYSTEM_PROMPT, OriginKind.DEFAULT_PROMPT)],
                                     guideline_block)
    result.messages.append(Message("system", segments(system)))
    parts = []
    for item in prepared:
        for part in item.parts:
            if part.kind == "guideline":
                continue
            pieces = strip(_part_pieces(part, style))
            if pieces:
                parts.append(pieces)
    visible = [item for item in prepared if item.visible]
    span = visible[0].span if len(visible) == 1 else None
    result.messages.append(Message("user", segments(joined(parts, "\n\n")), span=span))
    for item in prepared:
        if not item.visible:
            result.messages.append(Message(item.message.role, _marker_only(item), span=item.span,
                                           omitted=ONLY_GUIDELINES))


def _marker_only(item: Prepared) -> list:
    return segments(joined(([part.marker(f"<Attached: {part.block.value}>")] for part in item.parts), "\n"))


def _multi_turn(result: RenderedCase, prepared: list[Prepared], guideline_block: list[Piece],
                style: Style) -> None:
    def content(item: Prepared) -> list[Piece]:
        parts = []
        for part in item.parts:
            if part.kind == "guideline":
                continue
            if (style.drop_slash_files_in_multi_turn and part.kind == "file"
                    and part.block.value.strip().startswith("/")):
                result.warnings.append(Diagnostic(
                    f"agentv 0.10 drops {part.block.value!r} from multi-turn prompts (a file "
                    f"referenced with a leading / vanishes)", part.block.path,
                    part.block.start_line))
                continue
            parts.append(_part_pieces(part, style))
        return joined(parts, "\n")

    index = 0
    leading: list[list[Piece]] = []
    leading_span = None
    while index < len(prepared) and prepared[index].message.role == "system":
        item = prepared[index]
        if leading_span is None:
            leading_span = item.span
        if item.visible:
            leading.append(content(item))
        index += 1
    system_parts: list[list[Piece]] = []
    if guideline_block:
        system_parts.append([sep(GUIDELINE_HEADER), *guideline_block])
    system_parts.extend(leading)
    if not leading:
        system_parts.insert(0, [Piece(DEFAULT_SYSTEM_PROMPT, OriginKind.DEFAULT_PROMPT)])
    result.messages.append(Message("system", segments(joined(system_parts, "\n\n")),
                                   span=leading_span))
    for item in prepared[index:]:
        role = item.message.role
        pieces = content(item)
        name = None
        if role == "system":
            role, pieces = "assistant", [sep("@[System]:\n"), *pieces]
        elif role == "tool":
            if style.tool_as_assistant:
                role, pieces = "assistant", [sep("@[Tool]:\n"), *pieces]
            else:
                role, name = "function", "tool"
        omitted = None
        if not item.visible:
            omitted = ONLY_GUIDELINES if item.parts else "the message has no content"
        elif item.message.problem:
            omitted = item.message.problem
        if omitted:
            pieces = pieces or [part.marker(f"<Attached: {part.block.value}>") for part in item.parts]
        result.messages.append(Message(role, segments(pieces), name=name, span=item.span,
                                       omitted=omitted))
