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
from .spec import RequestFormat, role_messages, take

MODELLED = frozenset({"messages", "system", "tools"})
# output_config's `format` is the case's output schema; its other keys stay request fields.
NESTED = {"output_config": frozenset({"format"})}


def anthropic(b: Builder, case_id: str, data: dict) -> RenderedCase:
    messages: list[Message] = []
    system = data.get("system")
    if system:
        segments = b.parts(system, ("system",), ("text",))
        messages.append(
            Message("system", segments, span=b.span(("system",)), blocks=isinstance(system, list))
        )
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
        return [
            Message(
                role,
                b.parts(content, where + ("content",), ("text",)),
                span=b.span(where),
                blocks=b.shape(content),
                options=extra,
            )
        ]
    results: list[Message] = []
    segments: list[Segment] = []
    calls: list[ToolCall] = []
    for index, block in enumerate(content):
        block_where = where + ("content", index)
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_use":
            calls.append(
                ToolCall(
                    id=str(block.get("id", "")),
                    name=str(block.get("name", "")),
                    arguments=b.arguments(block.get("input")),
                    origin=b.origin(block_where),
                    options=b.options(block, {"type", "id", "name", "input"}),
                )
            )
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
        messages.append(
            Message(role, segments, tool_calls=calls, span=b.span(where), blocks=True, options=extra)
        )
    return messages


def _tool_result(b: Builder, block: dict[str, Any], where: tuple) -> Message:
    content = block.get("content")
    result = Message(
        "tool",
        b.parts(content, where + ("content",), ("text",), media.anthropic),
        tool_call_id=str(block.get("tool_use_id", "")),
        span=b.span(where),
        blocks=b.shape(content),
        options=b.options(block, {"type", "tool_use_id", "content"}),
    )
    if block.get("is_error"):
        b.warn(f"tool result {result.tool_call_id} is marked is_error", where)
    return result


ANTHROPIC_CHOICES = {"auto": "auto", "any": "required", "none": "none"}


def read_fields(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    take(request, "max_tokens", "max_tokens", common, consumed)
    take(request, "stop_sequences", "stop", common, consumed)
    metadata = request.get("metadata")
    if isinstance(metadata, dict) and set(metadata) == {"user_id"} and metadata["user_id"]:
        common["user"] = metadata["user_id"]
        consumed.add("metadata")
    output = request.get("output_config")
    if isinstance(output, dict) and set(output) == {"effort"} and output["effort"]:
        common["effort"] = output["effort"]
        consumed.add("output_config")
    choice = request.get("tool_choice")
    if isinstance(choice, dict):
        kind = choice.get("type")
        if isinstance(kind, str) and kind in ANTHROPIC_CHOICES:
            common["tool_choice"] = ANTHROPIC_CHOICES[kind]
        elif kind == "tool" and isinstance(choice.get("name"), str):
            common["tool_choice"] = {"name": choice["name"]}
        if "disable_parallel_tool_use" in choice:
            common["parallel_tool_calls"] = not choice["disable_parallel_tool_use"]
        if set(choice) <= {"type", "name", "disable_parallel_tool_use"}:
            consumed.add("tool_choice")


BLOCK_TYPES = {"tool_use", "tool_result", "thinking", "redacted_thinking", "document"}


def matches(data: dict) -> bool:
    """Role messages with Anthropic's marks: a top-level `system` (OpenAI Chat has none, so it
    decides even beside system-role messages: seed 003's ModelRequest shape), tools with an
    `input_schema`, or content blocks only Anthropic has (or with a `source`)."""
    messages = role_messages(data)
    if messages is None:
        return False
    if "system" in data:
        return True
    tools = data.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(block, dict)
            and (block.get("type") in BLOCK_TYPES or isinstance(block.get("source"), dict))
            for block in content
        ):
            return True
    return False


FORMAT: RequestFormat = RequestFormat(
    "anthropic",
    "Anthropic",
    matches=matches,
    read=lambda b, case_id, data, _options: anthropic(b, case_id, data),
    read_fields=read_fields,
    detect_rank=20,
)  # after Converse, whose bodies have a top-level system too
