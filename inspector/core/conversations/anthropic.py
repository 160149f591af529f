"""Anthropic Messages request bodies: system apart, content blocks, tool_use and tool_result."""

from __future__ import annotations

from ..model import (
    Message,
    Origin,
    OriginKind,
    OutputSchema,
    RenderedCase,
    Segment,
    ToolCall,
)
from .builder import Builder


def anthropic(b: Builder, case_id: str, data: dict) -> RenderedCase:
    messages: list[Message] = []
    system = data.get("system")
    if system:
        segments = b.parts(system, ("system",), ("text",))
        messages.append(Message("system", segments, span=b.span(("system",))))
    for where, item in b.message_items(data):
        messages.extend(_anthropic_message(b, item, where))
    case = b.case(case_id, messages, data)
    case.tools = b.tools(data.get("tools"), ("tools",))
    output_format = (data.get("output_config") or {}).get("format") if isinstance(
        data.get("output_config"), dict) else None
    if isinstance(output_format, dict) and isinstance(output_format.get("schema"), dict):
        case.output_schema = OutputSchema(name="output", schema=output_format["schema"])
    return case

def _anthropic_message(b: Builder, item: dict, where: tuple) -> list[Message]:
    role, content = item["role"], item.get("content")
    if not isinstance(content, list):
        return [Message(role, b.parts(content, where + ("content",), ("text",)),
                        span=b.span(where))]
    results: list[Message] = []
    segments: list[Segment] = []
    calls: list[ToolCall] = []
    for index, block in enumerate(content):
        block_where = where + ("content", index)
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_use":
            calls.append(ToolCall(id=str(block.get("id", "")), name=str(block.get("name", "")),
                                  arguments=b.arguments(block.get("input")),
                                  origin=b.origin(block_where)))
        elif kind == "tool_result":
            result = Message("tool", b.parts(block.get("content"), block_where + ("content",),
                                                 ("text",)),
                             tool_call_id=str(block.get("tool_use_id", "")),
                             span=b.span(block_where))
            if block.get("is_error"):
                b.warn(f"tool result {result.tool_call_id} is marked is_error", block_where)
            results.append(result)
        elif kind in ("thinking", "redacted_thinking"):
            b.warn(f"a {kind} block is not shown", block_where)
        else:
            if segments:
                segments.append(Segment("\n", Origin(OriginKind.SEPARATOR)))
            if kind == "text":
                segments.append(Segment(b.text(block.get("text"), block_where, "text"),
                                        b.origin(block_where + ("text",))))
            else:
                label = kind or "block"
                b.warn(f"a {label} content block is not text; shown as a marker",
                           block_where)
                segments.append(Segment(f"<{label}>",
                                        b.origin(block_where, OriginKind.MARKER)))
    messages = list(results)
    if segments or calls or not results:
        messages.append(Message(role, segments, tool_calls=calls, span=b.span(where)))
    return messages
