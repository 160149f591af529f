"""OpenAI Chat Completions request bodies."""

from __future__ import annotations

from ..model import (
    Message,
    OutputSchema,
    RenderedCase,
    ToolCall,
)
from .builder import Builder


def openai_chat(b: Builder, case_id: str, data: dict) -> RenderedCase:
    messages = []
    if data.get("system"):
        # Read as OpenAI Chat by choice, a body with Anthropic's top-level `system` keeps it.
        b.warn("`system` is not an OpenAI Chat field; shown as the first system message",
               ("system",))
        messages.append(Message("system", b.parts(data["system"], ("system",), ("text",)),
                                span=b.span(("system",))))
    for where, item in b.message_items(data):
        message = Message(role=item["role"],
                          segments=b.parts(item.get("content"), where + ("content",),
                                           ("text", "input_text", "output_text")),
                          name=item.get("name"), tool_call_id=item.get("tool_call_id"),
                          span=b.span(where))
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
    case = b.case(case_id, messages, data)
    case.tools = b.tools(data.get("tools"), ("tools",))
    response_format = data.get("response_format")
    if isinstance(response_format, dict):
        schema = response_format.get("json_schema")
        if response_format.get("type") == "json_schema" and isinstance(schema, dict):
            case.output_schema = OutputSchema(name=str(schema.get("name", "output")),
                                              schema=schema.get("schema") or {},
                                              strict=schema.get("strict"))
        else:
            case.metadata["response_format"] = response_format
    return case
