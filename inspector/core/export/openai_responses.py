"""OpenAI Responses: `instructions` as seed 002 builds them, `input` items, flat strict tools."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import Message, RenderedCase, Segment
from . import request
from .common import (
    OPENAI_RESPONSES,
    ExportResult,
    ExportSettings,
    Notes,
    ResolvedDefaults,
    blocks,
    empty_object_schema,
    full_instructions,
    kept_options,
    lint_name,
    media_url,
    openai_json_schema,
    sent,
)
from .request import put_field
from .templates import openai_provider

# gpt-4.1-mini and gpt-4o are listed as deprecated in the SDK; max tokens and temperature: the
# server's defaults.
DEFAULTS = ResolvedDefaults("gpt-5.4-mini")
INPUT_TEXT_ROLES = frozenset({"system", "developer", "user"})
LABEL = "OpenAI Responses"


@dataclass
class _Input:
    """The input items being built, with what every message's handler needs to add one."""

    same_api: bool
    notes: Notes
    untyped: frozenset[int]
    items: list[dict[str, Any]] = field(default_factory=list)
    # call_id -> index of the message that made the call, until an output answers it
    pending: dict[str, int] = field(default_factory=dict)

    def add(self, item: dict[str, Any], message: Message, index: int) -> None:
        if self.same_api and index in self.untyped and item.get("type") == "message":
            del item["type"]  # the source wrote this message as {role, content}: the same request
        if message.options is not None:
            item.update(
                kept_options(message.options, self.same_api, "the input item", self.notes, index, LABEL)
            )
        self.items.append(item)

    def lint_unanswered(self) -> None:
        for call_id, index in self.pending.items():
            self.notes.lint(f"function_call {call_id!r} has no function_call_output after it", index)
        self.pending.clear()


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    notes = Notes()
    resolved = request.resolve(case, settings, PROVIDER, notes)
    same_api = case.metadata.get("format") == OPENAI_RESPONSES
    messages = sent(case)
    override = None
    if case.metadata.get("instructions_message") is True and messages and messages[0][0] == 0:
        # The source request had `instructions`; the loader showed them as the first message.
        override = messages[0][1].content
        messages = messages[1:]
    instructions = full_instructions(settings.system_prompt, override, settings.user_instructions)
    untyped = frozenset(case.metadata.get("untyped_items", ())) if same_api else frozenset()
    built = _Input(same_api, notes, untyped)
    for index, message in messages:
        _item(built, message, index)
    built.lint_unanswered()
    if not built.items:
        notes.lint("the request has no input items")

    payload: dict[str, Any] = {"model": resolved.model}
    if instructions is not None:
        payload["instructions"] = instructions
    payload["input"] = _written_input(built.items, case, same_api)
    if case.tools:
        payload["tools"] = _tools(case, notes)
    if case.output_schema is not None:
        payload["text"] = {"format": {"type": "json_schema", **openai_json_schema(case, notes)}}
    if resolved.max_tokens is not None:
        payload["max_output_tokens"] = resolved.max_tokens
    if resolved.temperature is not None:
        payload["temperature"] = resolved.temperature
    request.apply(case, PROVIDER, payload, notes)
    return ExportResult(
        OPENAI_RESPONSES, resolved.model, payload, notes.changes, notes.lints, list(case.warnings), case.id
    )


def _item(built: _Input, message: Message, index: int) -> None:
    role = message.role
    if message.name is not None:
        built.notes.change(f"name {message.name!r} dropped: Responses input items have no name", index)
    if role == "assistant":
        built.lint_unanswered()
        _assistant(built, message, index)
    elif role in ("tool", "function") and message.tool_call_id is not None:
        _tool_output(built, message, message.tool_call_id, index)
    else:
        built.lint_unanswered()
        _input_message(built, message, index)


def _assistant(built: _Input, message: Message, index: int) -> None:
    if message.content or not message.tool_calls:
        built.add(
            {"type": "message", "role": "assistant", "content": _assistant_text(message, built.notes, index)},
            message,
            index,
        )
    for call in message.tool_calls:
        item = {"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments}
        item.update(kept_options(call.options, built.same_api, "a function call", built.notes, index, LABEL))
        built.items.append(item)
        built.pending[call.id] = index


def _tool_output(built: _Input, message: Message, call_id: str, index: int) -> None:
    if message.role == "function":
        built.notes.change("role 'function' sent as a function_call_output item", index)
    if built.pending.pop(call_id, None) is None:
        built.notes.lint(f"function_call_output for {call_id!r} has no preceding function_call", index)
    parts = blocks(message)
    output = message.content if parts is None else _parts(parts, built.same_api, built.notes, index)
    built.add({"type": "function_call_output", "call_id": call_id, "output": output}, message, index)


def _input_message(built: _Input, message: Message, index: int) -> None:
    """System, developer and user messages as input messages; any other role as a user one."""
    role = message.role
    if role not in INPUT_TEXT_ROLES:
        reason = (
            "a tool result without a tool_call_id"
            if role in ("tool", "function")
            else f"role {role!r} is not a Responses role"
        )
        built.notes.change(f"{reason}; sent as a user message", index)
        role = "user"
    parts = blocks(message)
    if parts is not None:
        content: Any = _parts(parts, built.same_api, built.notes, index)
    elif message.blocks is False:
        content = message.content
    else:
        content = [{"type": "input_text", "text": message.content}]
    built.add({"type": "message", "role": role, "content": content}, message, index)


def _written_input(items: list[dict[str, Any]], case: RenderedCase, same_api: bool) -> Any:
    """`input: "text"` is the same request as one user message holding the text: back to the
    Responses API it goes as it was written."""
    if same_api and case.metadata.get("string_input") and len(items) == 1:
        only = items[0]
        if (
            set(only) <= {"type", "role", "content"}
            and only.get("role") == "user"
            and isinstance(only.get("content"), str)
        ):
            return only["content"]
    return items


def _assistant_text(message: Message, notes: Notes, index: int) -> str:
    """Assistant history goes as string content (payloads.md); its media cannot come along."""
    if message.blocks is not None and any(s.media is not None for s in message.segments):
        notes.change(
            "an image or file of an assistant message left out: Responses takes them only in input messages",
            index,
        )
    return message.content


def _parts(parts: list[Segment], same_api: bool, notes: Notes, index: int) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    for segment in parts:
        media = segment.media
        if media is None:
            part: dict[str, Any] = {"type": "input_text", "text": segment.text}
        elif media.kind == "image":
            part = {"type": "input_image", "detail": media.detail or "auto"}
            url = media_url(media)
            if url is not None:
                part["image_url"] = url
            elif media.file_id is not None:
                part["file_id"] = media.file_id
            else:
                notes.change("an image given by a provider's file URI left out", index)
                continue
        else:
            part = {"type": "input_file"}
            if media.data is not None:
                part["file_data"] = media.data_url if media.media_type else media.data
            elif media.url is not None and media.url.startswith(("http://", "https://")):
                part["file_url"] = media.url
            elif media.file_id is not None:
                part["file_id"] = media.file_id
            else:
                notes.change("a file given by a provider's file URI left out", index)
                continue
            if media.filename is not None:
                part["filename"] = media.filename
        part.update(kept_options(segment.options, same_api, "a content part", notes, index, LABEL))
        content.append(part)
    return content


def _tools(case: RenderedCase, notes: Notes) -> list[dict[str, Any]]:
    same_api = case.metadata.get("format") == OPENAI_RESPONSES
    tools = []
    for tool in case.tools:
        if tool.raw is not None:  # a built-in tool of a Responses request read back
            tools.append(tool.raw)
            continue
        lint_name(tool.name, "tool", notes)
        entry: dict[str, Any] = {"type": "function", "name": tool.name}
        if tool.description is not None:
            entry["description"] = tool.description
        entry["parameters"] = tool.parameters if tool.parameters is not None else empty_object_schema()
        # Left out, `strict` is taken as true and the schema rewritten: always say it.
        entry["strict"] = bool(tool.strict)
        entry.update(kept_options(tool.options, same_api, f"tool {tool.name!r}", notes, None, LABEL))
        tools.append(entry)
    return tools


# -- a request's common fields (export/request.py) the way this API spells them; returns the
# names it has no field for


def _write_fields(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    for name, value in common.items():
        if name in ("max_tokens", "temperature"):
            continue
        if name == "effort":
            put_field(payload, "reasoning", {"effort": value})
        elif name == "tool_choice":
            put_field(
                payload,
                "tool_choice",
                value if isinstance(value, str) else {"type": "function", "name": value["name"]},
            )
        elif name in ("top_p", "parallel_tool_calls", "metadata", "user"):
            put_field(payload, name, value)
        else:
            missing.append(name)
    return missing


PROVIDER = openai_provider(
    OPENAI_RESPONSES,
    "OpenAI Responses",
    DEFAULTS,
    export,
    "/v1/responses",
    "responses.create",
    ("max_output_tokens", "temperature"),
    _write_fields,
)
