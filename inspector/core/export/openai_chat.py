"""OpenAI Chat Completions: system messages stay in place (seed 003), a request-level system prompt
comes first, tool calls and tool messages as OpenAI defines them."""

from __future__ import annotations

from typing import Any

from ..conversations.openai_chat import SAME_NAME_FIELDS
from ..model import Media, Message, RenderedCase
from . import request
from .common import (
    OPENAI_CHAT,
    ExportResult,
    ExportSettings,
    Notes,
    ResolvedDefaults,
    blocks,
    full_instructions,
    kept_options,
    lint_name,
    media_url,
    media_what,
    openai_json_schema,
    sent,
)
from .request import put_field
from .templates import openai_provider

# gpt-4.1-mini and gpt-4o are listed as deprecated in the SDK; max tokens and temperature: the
# server's defaults.
DEFAULTS = ResolvedDefaults("gpt-5.4-mini")
PASS_THROUGH_ROLES = frozenset({"system", "developer", "user"})
LABEL = "OpenAI Chat"


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    notes = Notes()
    resolved = request.resolve(case, settings, PROVIDER, notes)
    messages = _messages(case, settings, notes)
    payload: dict[str, Any] = {"model": resolved.model, "messages": messages}
    if case.tools:
        payload["tools"] = _tools(case, notes)
    if case.output_schema is not None:
        payload["response_format"] = {"type": "json_schema", "json_schema": openai_json_schema(case, notes)}
    if resolved.max_tokens is not None:
        payload["max_completion_tokens"] = resolved.max_tokens
    if resolved.temperature is not None:
        payload["temperature"] = resolved.temperature
    if case.metadata.get("format") == OPENAI_CHAT:
        _older_spelling(request.source(case)[1], payload)
    request.apply(case, PROVIDER, payload, notes)
    return ExportResult(
        OPENAI_CHAT, resolved.model, payload, notes.changes, notes.lints, list(case.warnings), case.id
    )


def _older_spelling(request: dict[str, Any], payload: dict[str, Any]) -> None:
    """An OpenAI Chat request that said max_tokens, exported to itself, keeps that spelling."""
    if (
        "max_tokens" in request
        and "max_completion_tokens" in payload
        and payload["max_completion_tokens"] == request["max_tokens"]
    ):
        payload["max_tokens"] = payload.pop("max_completion_tokens")


def _messages(case: RenderedCase, settings: ExportSettings, notes: Notes) -> list[dict[str, Any]]:
    same_api = case.metadata.get("format") == OPENAI_CHAT
    messages: list[dict[str, Any]] = []
    request_system = full_instructions(settings.system_prompt, None, settings.user_instructions)
    if request_system:
        messages.append({"role": "system", "content": request_system})
    # tool_call_id -> index of the assistant message that made the call, until a tool message answers
    pending: dict[str, int] = {}
    for index, message in sent(case):
        role = message.role
        if role == "assistant":
            _lint_unanswered(pending, notes)
            entry = _assistant(message, pending, same_api, notes, index)
        elif role in ("tool", "function") and message.tool_call_id is not None:
            entry = _tool_result(message, pending, same_api, notes, index)
        else:
            _lint_unanswered(pending, notes)
            entry = _other(message, same_api, notes, index)
        if message.options is not None:
            entry.update(kept_options(message.options, same_api, "the message", notes, index, LABEL))
        messages.append(entry)
    _lint_unanswered(pending, notes)
    if not messages:
        notes.lint("the request has no messages")
    return messages


def _assistant(
    message: Message, pending: dict[str, int], same_api: bool, notes: Notes, index: int
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "role": "assistant",
        "content": _content(message, "assistant", same_api, notes, index),
    }
    if message.name is not None:
        entry["name"] = message.name
    if message.tool_calls:
        if not entry["content"] and message.blocks is None:
            entry["content"] = None
        calls = []
        for call in message.tool_calls:
            calls.append(
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
            )
            pending[call.id] = index
        entry["tool_calls"] = calls
    elif not entry["content"]:
        notes.lint("an assistant message without tool calls needs content", index, "warning")
    return entry


def _tool_result(
    message: Message, pending: dict[str, int], same_api: bool, notes: Notes, index: int
) -> dict[str, Any]:
    assert message.tool_call_id is not None
    if message.role == "function":
        notes.change("role 'function' sent as a 'tool' message", index)
    if pending.pop(message.tool_call_id, None) is None:
        notes.lint(
            f"tool message answers {message.tool_call_id!r}, which no preceding assistant message called",
            index,
        )
    return {
        "role": "tool",
        "tool_call_id": message.tool_call_id,
        "content": _content(message, "tool", same_api, notes, index),
    }


def _other(message: Message, same_api: bool, notes: Notes, index: int) -> dict[str, Any]:
    """System, developer and user messages as they are; any other role as a user message."""
    role = message.role
    if role not in PASS_THROUGH_ROLES:
        reason = (
            "a tool result without a tool_call_id"
            if role in ("tool", "function")
            else f"role {role!r} is not an OpenAI chat role"
        )
        notes.change(f"{reason}; sent as a user message", index)
        role = "user"
    entry = {"role": role, "content": _content(message, role, same_api, notes, index)}
    if message.name is not None:
        entry["name"] = message.name
    return entry


def _content(message: Message, role: str, same_api: bool, notes: Notes, index: int) -> Any:
    """A string, or a list of content parts when the message has blocks."""
    parts = blocks(message)
    if parts is None:
        return message.content
    content: list[dict[str, Any]] = []
    for segment in parts:
        if segment.media is None:
            part: dict[str, Any] = {"type": "text", "text": segment.text}
        elif role != "user":
            notes.change(
                f"{media_what(segment.media)} left out: OpenAI Chat takes images and "
                f"files only in user messages",
                index,
            )
            continue
        else:
            found = _media_part(segment.media, notes, index)
            if found is None:
                continue
            part = found
        part.update(kept_options(segment.options, same_api, "a content part", notes, index, LABEL))
        content.append(part)
    return content


def _media_part(media: Media, notes: Notes, index: int) -> dict[str, Any] | None:
    if media.kind == "image":
        url = media_url(media)
        if url is None:
            notes.change(
                "an image given by file id or file URI left out: OpenAI Chat takes images by URL", index
            )
            return None
        image: dict[str, Any] = {"url": url}
        if media.detail is not None:
            image["detail"] = media.detail
        return {"type": "image_url", "image_url": image}
    file: dict[str, Any] = {}
    if media.data is not None:
        file["file_data"] = media.data_url if media.media_type else media.data
    if media.file_id is not None:
        file["file_id"] = media.file_id
    if not file:
        notes.change("a file given by URL left out: OpenAI Chat takes files as data or file ids", index)
        return None
    if media.filename is not None:
        file["filename"] = media.filename
    return {"type": "file", "file": file}


def _tools(case: RenderedCase, notes: Notes) -> list[dict[str, Any]]:
    same_api = case.metadata.get("format") == OPENAI_CHAT
    tools = []
    for tool in case.tools:
        lint_name(tool.name, "tool", notes)
        function: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            function["description"] = tool.description
        if tool.parameters is not None:
            function["parameters"] = tool.parameters
        if tool.strict is not None:
            function["strict"] = tool.strict
        entry = {"type": "function", "function": function}
        entry.update(kept_options(tool.options, same_api, f"tool {tool.name!r}", notes, None, LABEL))
        tools.append(entry)
    return tools


def _lint_unanswered(pending: dict[str, int], notes: Notes) -> None:
    """Tool calls still unanswered when a non-tool message arrives: the API rejects the request."""
    for call_id, index in pending.items():
        notes.lint(f"tool call {call_id!r} is not answered by a tool message right after it", index)
    pending.clear()


# -- a request's common fields (export/request.py) the way this API spells them; returns the
# names it has no field for


def _write_fields(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    for name, value in common.items():
        if name in ("max_tokens", "temperature"):
            continue  # the exporter wrote them
        if name == "stop":
            put_field(payload, "stop", value)
        elif name == "effort":
            put_field(payload, "reasoning_effort", value)
        elif name == "tool_choice":
            put_field(
                payload,
                "tool_choice",
                value
                if isinstance(value, str)
                else {"type": "function", "function": {"name": value["name"]}},
            )
        elif name in SAME_NAME_FIELDS:
            put_field(payload, name, value)
        else:
            missing.append(name)
    return missing


PROVIDER = openai_provider(
    OPENAI_CHAT,
    "OpenAI Chat",
    DEFAULTS,
    export,
    "/v1/chat/completions",
    "chat.completions.create",
    ("max_completion_tokens", "max_tokens", "temperature"),
    _write_fields,
)
