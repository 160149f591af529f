"""OpenAI Responses request bodies and the Codex `Prompt` (seed 002)."""

from __future__ import annotations

from typing import Any

from ..model import (
    InputError,
    LineSpan,
    Message,
    Origin,
    OriginKind,
    OutputSchema,
    RenderedCase,
    Segment,
    ToolCall,
)
from ..options import RenderOptions
from . import media
from .builder import Builder
from .codex import ModelFamily, Prompt, get_formatted_input, get_full_instructions
from .spec import RequestFormat, openai_tool_choice, take

MODELLED = frozenset(
    {"input", "instructions", "base_instructions_override", "user_instructions", "output_schema", "tools"}
)
TEXT_PARTS = ("input_text", "output_text", "text")


def responses(b: Builder, case_id: str, data: dict, options: RenderOptions) -> RenderedCase:
    raw_input = data.get("input", [])
    items = (
        [{"type": "message", "role": "user", "content": raw_input}]
        if isinstance(raw_input, str)
        else raw_input
    )
    if not isinstance(items, list):
        raise InputError("`input` must be a string or a list of items", b.path, b.line(("input",)))
    key = "base_instructions_override" if "base_instructions_override" in data else "instructions"
    instructions, user_instructions = data.get(key), data.get("user_instructions")
    prompt = Prompt(
        input=items,
        tools=data.get("tools") or [],
        base_instructions_override=b.optional_text(instructions, (key,), f"`{key}`"),
        user_instructions=b.optional_text(user_instructions, ("user_instructions",), "`user_instructions`"),
        output_schema=data.get("output_schema"),
    )
    messages: list[Message] = []
    instructions = _instructions(b, prompt, data, options)
    if instructions is not None:
        messages.append(instructions)
    string_input = isinstance(raw_input, str)
    untyped = _items(b, prompt, string_input, messages)
    text_format = (data.get("text") or {}).get("format") if isinstance(data.get("text"), dict) else None
    structured = isinstance(text_format, dict) and text_format.get("type") == "json_schema"
    case = b.case(case_id, messages, data, MODELLED, {"text": frozenset({"format"})} if structured else None)
    if instructions is not None:
        case.metadata["instructions_message"] = True
    if string_input:
        case.metadata["string_input"] = True  # written back as a string to the Responses API
    if untyped:
        case.metadata["untyped_items"] = untyped  # and these without a "type" key
    case.tools = b.tools(prompt.tools, ("tools",))
    case.output_schema = _output_schema(b, text_format if structured else None, prompt)
    return case


def _items(b: Builder, prompt: Prompt, string_input: bool, messages: list[Message]) -> list[int]:
    """The input items into `messages`; the indexes of the messages written as {role, content}
    without "type": "message"."""
    untyped: list[int] = []
    for index, item in enumerate(get_formatted_input(prompt)):
        where = ("input",) if string_input else ("input", index)
        before = len(messages)
        _responses_item(b, item, where, messages)
        if not string_input and isinstance(item, dict) and "type" not in item and len(messages) == before + 1:
            untyped.append(before)
    return untyped


def _output_schema(b: Builder, text_format: dict | None, prompt: Prompt) -> OutputSchema | None:
    """`text.format`'s JSON schema, else Codex's output_schema."""
    if text_format is not None:
        return b.output_schema("output", text_format, ("text", "format"))
    if isinstance(prompt.output_schema, dict):
        return OutputSchema(name="output_schema", schema=prompt.output_schema, strict=True)
    return None


def _instructions(b: Builder, prompt: Prompt, data: dict, options: RenderOptions) -> Message | None:
    family = ModelFamily(family=str(data.get("model", "")), base_instructions=options.system_prompt or "")
    full = get_full_instructions(prompt, family)
    if not full:
        return None
    segments: list[Segment] = []
    if prompt.base_instructions_override is not None:
        key = "base_instructions_override" if "base_instructions_override" in data else "instructions"
        if prompt.base_instructions_override:
            segments.append(Segment(prompt.base_instructions_override, b.origin((key,))))
    elif family.base_instructions:
        segments.append(Segment(family.base_instructions, Origin(OriginKind.DEFAULT_PROMPT)))
    if prompt.user_instructions:
        if segments:
            segments.append(Segment("\n", Origin(OriginKind.SEPARATOR)))
        segments.append(Segment(prompt.user_instructions, b.origin(("user_instructions",))))
    return Message(
        "system",
        segments,
        span=b.span(("instructions",))
        or b.span(("base_instructions_override",))
        or b.span(("user_instructions",)),
    )


def _responses_item(b: Builder, item: Any, where: tuple, messages: list[Message]) -> None:
    if not isinstance(item, dict):
        raise InputError("each input item must be an object", b.path, b.line(where))
    kind = item.get("type", "message" if "role" in item else None)
    if kind == "message":
        messages.append(_input_message(b, item, where))
    elif kind == "function_call":
        _function_call(b, item, where, messages)
    elif kind == "function_call_output":
        messages.append(_function_call_output(b, item, where))
    else:
        b.warn(f"a {kind or 'typeless'} input item is not shown", where)


def _input_message(b: Builder, item: dict, where: tuple) -> Message:
    role = item.get("role")
    if not isinstance(role, str):
        raise InputError("an input message needs a string `role`", b.path, b.line(where))
    content = item.get("content")
    content_where = where if isinstance(content, str) and where == ("input",) else where + ("content",)
    return Message(
        role,
        b.parts(content, content_where, TEXT_PARTS, media.openai_responses),
        span=b.span(where),
        blocks=b.shape(content),
        options=b.options(item, {"type", "role", "content"}),
    )


def _function_call(b: Builder, item: dict, where: tuple, messages: list[Message]) -> None:
    call = ToolCall(
        id=str(item.get("call_id", item.get("id", ""))),
        name=str(item.get("name", "")),
        arguments=b.arguments(item.get("arguments")),
        origin=b.origin(where),
        options=b.options(item, {"type", "call_id", "name", "arguments"}),
    )
    previous = messages[-1] if messages else None
    # Consecutive calls are one assistant turn, as Chat Completions needs them.
    if previous is not None and previous.role == "assistant" and previous.omitted is None:
        previous.tool_calls.append(call)
        span = b.span(where)
        if previous.span and span:
            previous.span = LineSpan(b.path, previous.span.start_line, span.end_line)
    else:
        messages.append(Message("assistant", [], tool_calls=[call], span=b.span(where)))


def _function_call_output(b: Builder, item: dict, where: tuple) -> Message:
    output = item.get("output")
    if isinstance(output, list):
        segments = b.parts(output, where + ("output",), ("input_text", "output_text"), media.openai_responses)
    else:
        segments = [Segment(b.text(output, where + ("output",), "output"), b.origin(where + ("output",)))]
        segments = [s for s in segments if s.text]
    return Message(
        "tool",
        segments,
        tool_call_id=str(item.get("call_id", "")),
        span=b.span(where),
        blocks=b.shape(output),
        options=b.options(item, {"type", "call_id", "output"}),
    )


def read_fields(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    take(request, "max_output_tokens", "max_tokens", common, consumed)
    for key in ("temperature", "top_p", "parallel_tool_calls", "metadata", "user"):
        take(request, key, key, common, consumed)
    reasoning = request.get("reasoning")
    if isinstance(reasoning, dict) and set(reasoning) <= {"effort"} and reasoning.get("effort"):
        common["effort"] = reasoning["effort"]
        consumed.add("reasoning")
    choice = openai_tool_choice(request.get("tool_choice"))
    if choice is not None:
        common["tool_choice"] = choice
        consumed.add("tool_choice")


CODEX_KEYS = frozenset({"base_instructions_override", "user_instructions", "output_schema"})


def matches(data: dict) -> bool:
    """`input` as a list of items (with instructions, tools or Codex's keys when it is empty), or
    as a string beside a model, instructions or Codex's keys."""
    items = data.get("input")
    if isinstance(items, list) and all(
        isinstance(item, dict) and ("type" in item or "role" in item) for item in items
    ):
        return bool(items or CODEX_KEYS & data.keys() or {"instructions", "tools"} & data.keys())
    return isinstance(items, str) and bool(
        {"model", "instructions"} & data.keys() or CODEX_KEYS & data.keys()
    )


FORMAT: RequestFormat = RequestFormat(
    "openai-responses",
    "OpenAI Responses",
    matches=matches,
    read=responses,
    read_fields=read_fields,
    family="openai",
    detect_rank=50,
)
