"""OpenAI Chat Completions: system messages stay in place (seed 003), a request-level system prompt
comes first, tool calls and tool messages as OpenAI defines them."""

from __future__ import annotations

from typing import Any

from ..model import RenderedCase
from .common import (
    OPENAI_CHAT,
    ExportResult,
    ExportSettings,
    Notes,
    ResolvedDefaults,
    full_instructions,
    lint_name,
    openai_json_schema,
    sent,
)
from .templates import openai_provider

# gpt-4.1-mini and gpt-4o are listed as deprecated in the SDK; max tokens and temperature: the
# server's defaults.
DEFAULTS = ResolvedDefaults("gpt-5.4-mini")
PASS_THROUGH_ROLES = frozenset({"system", "developer", "user"})


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    resolved = settings.resolved(DEFAULTS)
    notes = Notes()
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
            entry: dict[str, Any] = {"role": "assistant", "content": message.content}
            if message.name is not None:
                entry["name"] = message.name
            if message.tool_calls:
                if not entry["content"]:
                    entry["content"] = None
                calls = []
                for call in message.tool_calls:
                    calls.append({"id": call.id, "type": "function",
                                  "function": {"name": call.name, "arguments": call.arguments}})
                    pending[call.id] = index
                entry["tool_calls"] = calls
            elif not entry["content"]:
                notes.lint("an assistant message without tool calls needs content", index,
                           "warning")
            messages.append(entry)
        elif role in ("tool", "function") and message.tool_call_id is not None:
            if role == "function":
                notes.change("role 'function' sent as a 'tool' message", index)
            if pending.pop(message.tool_call_id, None) is None:
                notes.lint(f"tool message answers {message.tool_call_id!r}, which no preceding "
                           "assistant message called", index)
            messages.append({"role": "tool", "tool_call_id": message.tool_call_id,
                             "content": message.content})
        else:
            _lint_unanswered(pending, notes)
            if role not in PASS_THROUGH_ROLES:
                reason = ("a tool result without a tool_call_id" if role in ("tool", "function")
                          else f"role {role!r} is not an OpenAI chat role")
                notes.change(f"{reason}; sent as a user message", index)
                role = "user"
            entry = {"role": role, "content": message.content}
            if message.name is not None:
                entry["name"] = message.name
            messages.append(entry)
    _lint_unanswered(pending, notes)
    if not messages:
        notes.lint("the request has no messages")

    payload: dict[str, Any] = {"model": resolved.model, "messages": messages}
    if case.tools:
        payload["tools"] = _tools(case, notes)
    if case.output_schema is not None:
        payload["response_format"] = {"type": "json_schema",
                                      "json_schema": openai_json_schema(case, notes)}
    if resolved.max_tokens is not None:
        payload["max_completion_tokens"] = resolved.max_tokens
    if resolved.temperature is not None:
        payload["temperature"] = resolved.temperature
    return ExportResult(OPENAI_CHAT, resolved.model, payload, notes.changes, notes.lints,
                        list(case.warnings), case.id)


def _tools(case: RenderedCase, notes: Notes) -> list[dict[str, Any]]:
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
        tools.append({"type": "function", "function": function})
    return tools


def _lint_unanswered(pending: dict[str, int], notes: Notes) -> None:
    """Tool calls still unanswered when a non-tool message arrives: the API rejects the request."""
    for call_id, index in pending.items():
        notes.lint(f"tool call {call_id!r} is not answered by a tool message right after it", index)
    pending.clear()


PROVIDER = openai_provider(OPENAI_CHAT, "OpenAI Chat", DEFAULTS, export, "/v1/chat/completions", "chat.completions.create")
