"""Anthropic Messages request bodies: system apart, content blocks, tool_use and tool_result."""

from __future__ import annotations

from typing import Any

from ..model import (
    Message,
    OriginKind,
    OutputSchema,
    RenderedCase,
    Segment,
    ToolCall,
)
from . import media
from .builder import Builder

MODELLED = frozenset({"messages", "system", "tools"})
# output_config's `format` is the case's output schema; its other keys stay request fields.
NESTED = {"output_config": frozenset({"format"})}


def anthropic(b: Builder, case_id: str, data: dict) -> RenderedCase:
    messages: list[Message] = []
    system = data.get("system")
    if system:
        segments = b.parts(system, ("system",), ("text",))
        messages.append(Message("system", segments, span=b.span(("system",)),
                                blocks=isinstance(system, list)))
    for where, item in b.message_items(data):
        messages.extend(_anthropic_message(b, item, where))
    output_config = data.get("output_config")
    output_format = output_config.get("format") if isinstance(output_config, dict) else None
    structured = isinstance(output_format, dict) and isinstance(output_format.get("schema"), dict)
    case = b.case(case_id, messages, data, MODELLED, NESTED if structured else None)
    case.tools = b.tools(data.get("tools"), ("tools",))
    if system:
        case.metadata["system_message"] = True
    if structured:
        assert isinstance(output_format, dict)
        case.output_schema = OutputSchema(name="output", schema=output_format["schema"])
    return case


def _anthropic_message(b: Builder, item: dict, where: tuple) -> list[Message]:
    role, content = item["role"], item.get("content")
    extra = b.options(item, {"role", "content"})
    if not isinstance(content, list):
        return [Message(role, b.parts(content, where + ("content",), ("text",)),
                        span=b.span(where), blocks=b.shape(content),
                        options=extra)]
    results: list[Message] = []
    segments: list[Segment] = []
    calls: list[ToolCall] = []
    for index, block in enumerate(content):
        block_where = where + ("content", index)
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_use":
            calls.append(ToolCall(id=str(block.get("id", "")), name=str(block.get("name", "")),
                                  arguments=b.arguments(block.get("input")),
                                  origin=b.origin(block_where),
                                  options=b.options(block, {"type", "id", "name", "input"})))
        elif kind == "tool_result":
            results.append(_tool_result(b, block, block_where))
        elif kind in ("thinking", "redacted_thinking"):
            # Kept whole for Anthropic; no text, so it joins nothing (the page shows it apart).
            segments.append(Segment("", b.origin(block_where, OriginKind.MARKER), raw=block))
        else:
            if any(segment.raw is None for segment in segments):
                segments.append(b.separator())
            segments.append(b.part(block, block_where, ("text",), media.anthropic))
    messages = list(results)
    if segments or calls or not results:
        messages.append(Message(role, segments, tool_calls=calls, span=b.span(where),
                                blocks=True, options=extra))
    return messages


def _tool_result(b: Builder, block: dict[str, Any], where: tuple) -> Message:
    content = block.get("content")
    result = Message("tool", b.parts(content, where + ("content",), ("text",), media.anthropic),
                     tool_call_id=str(block.get("tool_use_id", "")), span=b.span(where),
                     blocks=b.shape(content),
                     options=b.options(block, {"type", "tool_use_id", "content"}))
    if block.get("is_error"):
        b.warn(f"tool result {result.tool_call_id} is marked is_error", where)
    return result
