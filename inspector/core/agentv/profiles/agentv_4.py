"""agentv v3.9 and later: no guidelines; every file is inlined in its own message as a `<file>` tag.

With one turn the system message is the case's system text (else the default prompt) and the user
message is the rest, parts trimmed and joined by blank lines; a case with only system text sends it
as the question too. Assistant/tool messages or several user turns keep every message.
"""

from __future__ import annotations

from ...model import Diagnostic, LineSpan, Message, OriginKind, RenderedCase
from ..pieces import Piece, joined, segments, sep, strip
from ..prepare import DEFAULT_SYSTEM_PROMPT, Context, Part, Prepared, prepare
from ..schema import CaseSpec
from .agentv_3_8 import file_tag


def _part(part: Part) -> list[Piece]:
    if part.kind == "file":
        assert part.file is not None
        return file_tag(part, part.file.display)
    return [part.text_piece()]


def render(case: CaseSpec, context: Context) -> RenderedCase:
    warnings: list[Diagnostic] = list(case.warnings)
    prepared = prepare(case, context, warnings, guidelines=False)
    result = RenderedCase(case.id, [], warnings, LineSpan(case.path, case.start_line, case.end_line),
                          case.skipped, dict(case.metadata))
    for item in prepared:
        if item.message.problem:
            result.warnings.append(Diagnostic(item.message.problem, item.message.path,
                                              item.message.start_line))
    sendable = [item for item in prepared if not item.message.problem]
    systems = [item for item in sendable if item.message.role == "system" and item.parts]
    others = [item for item in sendable if item.message.role != "system" and item.parts]
    multi_turn = (any(item.message.role in ("assistant", "tool") for item in others)
                  or len(others) > 1)
    system_text = joined((joined((_part(p) for p in item.parts), "\n") for item in systems), "\n\n")
    system_span = systems[0].span if systems else None
    if not system_text:
        system_text = [Piece(DEFAULT_SYSTEM_PROMPT, OriginKind.DEFAULT_PROMPT)]
    result.messages.append(Message("system", segments(system_text), span=system_span))

    if multi_turn:
        for item in others:
            role, pieces = item.message.role, joined((_part(p) for p in item.parts), "\n")
            if role == "tool":
                role, pieces = "assistant", [sep("@[Tool]:\n"), *pieces]
            result.messages.append(Message(role, segments(pieces), span=item.span))
    else:
        source: list[Prepared] = others or systems
        parts = [strip(_part(part)) for item in source for part in item.parts]
        span = source[0].span if len(source) == 1 else None
        result.messages.append(Message("user", segments(joined((p for p in parts if p), "\n\n")),
                                       span=span))
    for item in prepared:
        if item.message.problem:
            result.messages.append(Message(item.message.role, segments(
                joined((_part(p) for p in item.parts), "\n")), span=item.span,
                omitted=item.message.problem))
        elif not item.parts:
            result.messages.append(Message(item.message.role, [], span=item.span,
                                           omitted="the message has no content"))
    return result
