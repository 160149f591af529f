"""OpenAI Responses: `instructions` as seed 002 builds them, `input` items, flat strict tools."""

from __future__ import annotations

from typing import Any

from ..model import RenderedCase
from .common import (
    OPENAI_RESPONSES,
    ExportResult,
    ExportSettings,
    Notes,
    ResolvedDefaults,
    empty_object_schema,
    full_instructions,
    lint_name,
    openai_json_schema,
    sent,
)
from .templates import openai_provider

# gpt-4.1-mini and gpt-4o are listed as deprecated in the SDK; max tokens and temperature: the
# server's defaults.
DEFAULTS = ResolvedDefaults("gpt-5.4-mini")
INPUT_TEXT_ROLES = frozenset({"system", "developer", "user"})


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    resolved = settings.resolved(DEFAULTS)
    notes = Notes()
    messages = sent(case)
    override = None
    if (case.metadata.get("instructions_message") is True and messages
            and messages[0][0] == 0):
        # The source request had `instructions`; the loader showed them as the first message.
        override = messages[0][1].content
        messages = messages[1:]
    instructions = full_instructions(settings.system_prompt, override, settings.user_instructions)

    items: list[dict[str, Any]] = []
    pending: dict[str, int] = {}
    for index, message in messages:
        role = message.role
        if message.name is not None:
            notes.change(f"name {message.name!r} dropped: Responses input items have no name",
                         index)
        if role == "assistant":
            _lint_unanswered(pending, notes)
            if message.content or not message.tool_calls:
                items.append({"type": "message", "role": "assistant",
                              "content": message.content})
            for call in message.tool_calls:
                items.append({"type": "function_call", "call_id": call.id, "name": call.name,
                              "arguments": call.arguments})
                pending[call.id] = index
        elif role in ("tool", "function") and message.tool_call_id is not None:
            if role == "function":
                notes.change("role 'function' sent as a function_call_output item", index)
            if pending.pop(message.tool_call_id, None) is None:
                notes.lint(f"function_call_output for {message.tool_call_id!r} has no preceding "
                           "function_call", index)
            items.append({"type": "function_call_output", "call_id": message.tool_call_id,
                          "output": message.content})
        else:
            _lint_unanswered(pending, notes)
            if role not in INPUT_TEXT_ROLES:
                reason = ("a tool result without a tool_call_id" if role in ("tool", "function")
                          else f"role {role!r} is not a Responses role")
                notes.change(f"{reason}; sent as a user message", index)
                role = "user"
            items.append({"type": "message", "role": role,
                          "content": [{"type": "input_text", "text": message.content}]})
    _lint_unanswered(pending, notes)
    if not items:
        notes.lint("the request has no input items")

    payload: dict[str, Any] = {"model": resolved.model}
    if instructions is not None:
        payload["instructions"] = instructions
    payload["input"] = items
    if case.tools:
        payload["tools"] = _tools(case, notes)
    if case.output_schema is not None:
        payload["text"] = {"format": {"type": "json_schema", **openai_json_schema(case, notes)}}
    if resolved.max_tokens is not None:
        payload["max_output_tokens"] = resolved.max_tokens
    if resolved.temperature is not None:
        payload["temperature"] = resolved.temperature
    return ExportResult(OPENAI_RESPONSES, resolved.model, payload, notes.changes, notes.lints,
                        list(case.warnings), case.id)


def _tools(case: RenderedCase, notes: Notes) -> list[dict[str, Any]]:
    tools = []
    for tool in case.tools:
        lint_name(tool.name, "tool", notes)
        entry: dict[str, Any] = {"type": "function", "name": tool.name}
        if tool.description is not None:
            entry["description"] = tool.description
        entry["parameters"] = (tool.parameters if tool.parameters is not None
                               else empty_object_schema())
        # Left out, `strict` is taken as true and the schema rewritten: always say it.
        entry["strict"] = bool(tool.strict)
        tools.append(entry)
    return tools


def _lint_unanswered(pending: dict[str, int], notes: Notes) -> None:
    for call_id, index in pending.items():
        notes.lint(f"function_call {call_id!r} has no function_call_output after it", index)
    pending.clear()


PROVIDER = openai_provider(OPENAI_RESPONSES, "OpenAI Responses", DEFAULTS, export, "/v1/responses", "responses.create")
