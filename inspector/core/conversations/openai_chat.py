"""OpenAI Chat Completions request bodies."""

from __future__ import annotations

from typing import Any

from ..model import Message, Origin, RenderedCase, Segment, ToolCall
from . import media
from .builder import Builder
from .spec import RequestFormat, openai_tool_choice, role_messages, take

TEXT_PARTS = ("text", "input_text", "output_text")
MODELLED = frozenset({"messages", "tools", "system"})
MESSAGE_KEYS = frozenset({"role", "content", "name", "tool_call_id", "tool_calls"})


def openai_chat(b: Builder, case_id: str, data: dict) -> RenderedCase:
    messages = []
    if data.get("system"):
        # Read as OpenAI Chat by choice, a body with Anthropic's top-level `system` keeps it.
        b.warn("`system` is not an OpenAI Chat field; shown as the first system message", ("system",))
        messages.append(
            Message("system", b.parts(data["system"], ("system",), ("text",)), span=b.span(("system",)))
        )
    # A body given as dicts has no lines: all its text shares one origin and no message has a
    # span, so neither is looked up per message (most of a large request's reading cost).
    lineless = None if b.spans else b.origin(())
    for index, item in enumerate(b.messages(data)):
        messages.append(_message(b, item, ("messages", index), lineless))
    response_format = data.get("response_format")
    schema = response_format.get("json_schema") if isinstance(response_format, dict) else None
    structured = (
        isinstance(response_format, dict)
        and response_format.get("type") == "json_schema"
        and isinstance(schema, dict)
    )
    case = b.case(case_id, messages, data, MODELLED | {"response_format"} if structured else MODELLED)
    case.tools = b.tools(data.get("tools"), ("tools",))
    if structured:
        assert isinstance(schema, dict)
        case.output_schema = b.output_schema("output", schema, ("response_format", "json_schema"))
    return case


def _message(b: Builder, item: dict, where: tuple, lineless: Origin | None) -> Message:
    content = item.get("content")
    if type(content) is str:
        segments = [Segment(content, lineless or b.origin(where + ("content",)))] if content else []
        shape: bool | None = False
    else:
        segments = b.parts(content, where + ("content",), TEXT_PARTS, media.openai_chat)
        shape = b.shape(content)
    name, call_id = item.get("name"), item.get("tool_call_id")
    # An id or name that is no string is its JSON text (warned): ids are matched, hashed and
    # cleaned as strings.
    if not (name is None or type(name) is str):
        name = b.text(name, where + ("name",), "`name`")
    if not (call_id is None or type(call_id) is str):
        call_id = b.text(call_id, where + ("tool_call_id",), "`tool_call_id`")
    message = Message(
        item["role"],
        segments,
        name=name,
        tool_call_id=call_id,
        span=None if lineless else b.span(where),
        blocks=shape,
        options=None if MESSAGE_KEYS.issuperset(item) else b.options(item, MESSAGE_KEYS),
    )
    tool_calls = item.get("tool_calls")
    if isinstance(tool_calls, list):
        _tool_calls(b, message, tool_calls, where, lineless)
    elif tool_calls:
        b.warn("`tool_calls` must be a list; ignored", where + ("tool_calls",))
    return message


def _tool_calls(b: Builder, message: Message, calls: list, where: tuple, lineless: Origin | None) -> None:
    for call_index, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            b.warn("a tool call without `function` is ignored", where + ("tool_calls", call_index))
            continue
        call_id, name, arguments = call.get("id", ""), function.get("name", ""), function.get("arguments")
        if type(call_id) is not str:  # the same text a tool_call_id naming it is read as
            call_id = b.text(call_id, where + ("tool_calls", call_index, "id"), "a tool call id")
        message.tool_calls.append(
            ToolCall(  # id, name, arguments, origin
                call_id,
                name if type(name) is str else str(name),
                arguments if type(arguments) is str else b.arguments(arguments),
                lineless or b.origin(where + ("tool_calls", call_index)),
            )
        )


# Request fields whose neutral name is OpenAI Chat's own: read and written back under that name.
SAME_NAME_FIELDS = (
    "top_p",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "parallel_tool_calls",
    "n",
    "metadata",
    "user",
)


def read_fields(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    take(request, "max_completion_tokens", "max_tokens", common, consumed)
    take(request, "max_tokens", "max_tokens", common, consumed)
    for key in ("temperature", *SAME_NAME_FIELDS):
        take(request, key, key, common, consumed)
    take(request, "reasoning_effort", "effort", common, consumed)
    stop = request.get("stop")
    if stop is not None:
        common["stop"] = list(stop) if isinstance(stop, list) else [stop]
        consumed.add("stop")
    choice = openai_tool_choice(request.get("tool_choice"))
    if choice is not None:
        common["tool_choice"] = choice
        consumed.add("tool_choice")


FORMAT: RequestFormat = RequestFormat(
    "openai-chat",
    "OpenAI Chat",
    # Any list of role messages: the shapes more specific than Chat's are detected first.
    matches=lambda data: role_messages(data) is not None,
    read=lambda b, case_id, data, _options: openai_chat(b, case_id, data),
    read_fields=read_fields,
    family="openai",
    detect_rank=30,
)
