"""The `spec` profile: seed 000 as decided in the reference ("The seed's spec", decisions 1-6).

Guideline files leave their message for a `[[ ## Guidelines ## ]]` block after the system text;
where one stood the message keeps `<Attached: path>`. Blocks of a message are joined by newlines,
other files are inlined as `=== path ===`. A message left with only guideline files is shown but not
sent. Leading system messages merge; a later system message stays where it is.
"""

from __future__ import annotations

from ...model import Diagnostic, LineSpan, Message, OriginKind, RenderedCase
from ..pieces import Piece, joined, rstrip_newlines, segments, sep, with_media
from ..prepare import Context, Part, Prepared, prepare, tool_calls
from ..schema import CaseSpec

GUIDELINE_HEADER = "[[ ## Guidelines ## ]]\n\n"
ONLY_GUIDELINES = "only guideline files; their content moved to the system message"


def _file_text(part: Part) -> Piece:
    return rstrip_newlines(part.file_piece())


def _part(part: Part) -> list[Piece]:
    if part.kind == "guideline":
        return [part.marker(f"<Attached: {part.block.value}>")]
    if part.kind == "file":
        return [sep(f"=== {part.block.value} ===\n"), _file_text(part)]
    if part.media is not None:
        return [part.media_piece()]
    return [part.text_piece()]


def render(case: CaseSpec, context: Context) -> RenderedCase:
    warnings: list[Diagnostic] = list(case.warnings)
    prepared = prepare(case, context, warnings, guidelines=True)
    result = RenderedCase(
        case.id,
        [],
        warnings,
        LineSpan(case.path, case.start_line, case.end_line),
        case.skipped,
        dict(case.metadata),
    )
    guidelines = [part for item in prepared for part in item.parts if part.kind == "guideline"]
    result.metadata["guideline_paths"] = [part.file.path for part in guidelines if part.file]
    leading = 0
    while leading < len(prepared) and prepared[leading].message.role == "system":
        leading += 1
    system = _system_message(prepared[:leading], context, _guideline_block(guidelines))
    if system is not None:
        result.messages.append(system)
    result.messages += [_later_message(item) for item in prepared[leading:]]
    return result


def _guideline_block(guidelines: list[Part]) -> list[Piece]:
    """The guideline files' text; several are each headed by their path."""
    if len(guidelines) == 1:
        return [_file_text(guidelines[0])]
    return joined(([sep(f"=== {part.block.value} ===\n"), _file_text(part)] for part in guidelines), "\n\n")


def _system_message(leading: list[Prepared], context: Context, block: list[Piece]) -> Message | None:
    """The leading system messages merged (else the configured default), then the guidelines."""
    texts = [
        text
        for text in (
            joined((_part(p) for p in item.parts if p.kind != "guideline"), "\n") for item in leading
        )
        if text
    ]
    system = joined(texts, "\n\n")
    if not system and context.system_prompt:
        system = [Piece(context.system_prompt, OriginKind.DEFAULT_PROMPT)]
    if block:
        system = [*system, sep(("\n\n" if system else "") + GUIDELINE_HEADER), *block]
    if not system:
        return None
    system_segments = segments(system)
    return Message(
        "system",
        system_segments,
        span=leading[0].span if leading else None,
        blocks=with_media(system_segments),
    )


def _later_message(item: Prepared) -> Message:
    """A message after the leading system ones, in its place; one left with nothing to send is
    shown but not sent."""
    message = item.message
    omitted = message.problem
    if omitted is None and not item.parts:
        omitted = "the message has no content"
    elif omitted is None and not item.visible:
        omitted = ONLY_GUIDELINES
    if message.role == "system":
        parts = [p for p in item.parts if p.kind != "guideline"]
        if omitted is None and not parts:
            omitted = ONLY_GUIDELINES
        pieces = joined((_part(p) for p in parts), "\n")
    else:
        pieces = joined((_part(p) for p in item.parts), "\n")
    content = segments(pieces)
    return Message(
        message.role,
        content,
        name=message.name,
        tool_calls=tool_calls(message),
        tool_call_id=message.tool_call_id,
        span=item.span,
        omitted=omitted,
        blocks=with_media(content),
    )
