"""OpenAI Chat Completions request bodies."""

from __future__ import annotations

from ..model import (
    Message,
    OutputSchema,
    RenderedCase,
    ToolCall,
)
from . import media
from .builder import Builder

TEXT_PARTS = ("text", "input_text", "output_text")
MODELLED = frozenset({"messages", "tools", "system"})


def openai_chat(b: Builder, case_id: str, data: dict) -> RenderedCase:
    messages = []
    if data.get("system"):
        # Read as OpenAI Chat by choice, a body with Anthropic's top-level `system` keeps it.
        b.warn("`system` is not an OpenAI Chat field; shown as the first system message",
               ("system",))
        messages.append(Message("system", b.parts(data["system"], ("system",), ("text",)),
                                span=b.span(("system",))))
    for where, item in b.message_items(data):
        content = item.get("content")
        message = Message(role=item["role"],
                          segments=b.parts(content, where + ("content",), TEXT_PARTS,
                                           media.openai_chat),
                          name=item.get("name"), tool_call_id=item.get("tool_call_id"),
                          span=b.span(where), blocks=b.shape(content))
        message.options = b.options(item, {"role", "content", "name", "tool_call_id",
                                           "tool_calls"})
        for call_index, call in enumerate(item.get("tool_calls") or []):
            call_where = where + ("tool_calls", call_index)
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                b.warn("a tool call without `function` is ignored", call_where)
                continue
            message.tool_calls.append(ToolCall(
                id=str(call.get("id", "")), name=str(function.get("name", "")),
                arguments=b.arguments(function.get("arguments")),
                origin=b.origin(call_where)))
        messages.append(message)
    response_format = data.get("response_format")
    schema = response_format.get("json_schema") if isinstance(response_format, dict) else None
    structured = isinstance(response_format, dict) and response_format.get(
        "type") == "json_schema" and isinstance(schema, dict)
    case = b.case(case_id, messages, data,
                  MODELLED | {"response_format"} if structured else MODELLED)
    case.tools = b.tools(data.get("tools"), ("tools",))
    if structured:
        assert isinstance(schema, dict)
        case.output_schema = OutputSchema(name=str(schema.get("name", "output")),
                                          schema=schema.get("schema") or {},
                                          strict=schema.get("strict"),
                                          description=schema.get("description"))
    return case

