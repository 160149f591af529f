"""Gemini generateContent (REST, camelCase): systemInstruction, user/model turns, functionCall and
functionResponse parts with the function name recovered from the call it answers."""

from __future__ import annotations

from typing import Any

from ..model import RenderedCase
from .common import (
    GEMINI,
    ExportResult,
    ExportSettings,
    Notes,
    arguments_object,
    full_instructions,
    parse_json,
    text_of,
)

SYSTEM_ROLES = frozenset({"system", "developer"})


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    resolved = settings.resolved(GEMINI)
    notes = Notes()
    system_parts: list[str] = []
    request_system = full_instructions(settings.system_prompt, None, settings.user_instructions)
    if request_system:
        system_parts.append(request_system)

    contents: list[dict[str, Any]] = []
    # Per content: [index of its first message, function calls in it, function responses in it,
    # index of its first function-response message] -- for the turn-order lints.
    shape: list[list[int]] = []
    names: dict[str, str] = {}  # tool call id -> function name
    last_kind = None
    last_role = None
    parts_of_last: list[dict[str, Any]] = []
    for index, message in enumerate(case.messages):
        if message.omitted is not None:
            continue
        role = message.role
        segments = message.segments
        text = segments[0].text if len(segments) == 1 else text_of(message)
        if role in SYSTEM_ROLES:
            if text:
                system_parts.append(text)
            notes.change(f"{role} message moved into systemInstruction", index)
            continue
        if message.name is not None and role not in ("tool", "function"):
            notes.change(f"name {message.name!r} dropped: Gemini contents have no name", index)

        calls = responses = 0
        if role == "assistant":
            parts: list[dict[str, Any]] = []
            if text:
                parts.append({"text": text})
            for call in message.tool_calls:
                names[call.id] = call.name
                parts.append({"functionCall": {
                    "name": call.name,
                    "args": arguments_object(call.arguments, call.name, index, notes)}})
            calls = len(message.tool_calls)
            kind = "model"
            turn_role = "model"
        elif role in ("tool", "function") and (message.tool_call_id is not None
                                                or message.name is not None):
            name = names.get(message.tool_call_id) if message.tool_call_id is not None else None
            if name is None:
                name = message.name or ""
                notes.lint(f"function response {message.tool_call_id!r} answers no earlier "
                           "function call, so its name cannot be recovered", index)
            parts = [{"functionResponse": {"name": name,
                                           "response": _response_object(text)}}]
            responses = 1
            kind = "tool"
            turn_role = "user"
        else:
            if role != "user":
                reason = ("a tool result without a tool_call_id" if role in ("tool", "function")
                          else f"role {role!r} is not a Gemini role")
                notes.change(f"{reason}; sent as a user turn", index)
            parts = [{"text": text}] if text else []
            kind = "user"
            turn_role = "user"

        if not parts:
            parts = [{"text": ""}]
            notes.lint("empty message: Gemini rejects a turn without content", index)

        if turn_role == last_role:
            parts_of_last.extend(parts)
            if calls or responses:
                counts = shape[-1]
                counts[1] += calls
                if responses and not counts[2]:
                    counts[3] = index
                counts[2] += responses
            if kind == last_kind and kind != "tool":
                notes.change(f"merged into the previous {turn_role} turn", index)
        else:
            parts_of_last = parts
            last_role = turn_role
            contents.append({"role": turn_role, "parts": parts})
            shape.append([index, calls, responses, index])
        last_kind = kind

    _lint_turn_order(shape, notes)
    if not contents:
        notes.lint("the request has no contents")

    payload: dict[str, Any] = {"contents": contents}
    if system_parts:
        payload["systemInstruction"] = {"parts": [{"text": "\n\n".join(system_parts)}]}
    if case.tools:
        declarations = []
        for tool in case.tools:
            declaration: dict[str, Any] = {"name": tool.name}
            if tool.description is not None:
                declaration["description"] = tool.description
            if tool.parameters is not None:
                declaration["parametersJsonSchema"] = tool.parameters
            declarations.append(declaration)
        payload["tools"] = [{"functionDeclarations": declarations}]
    generation: dict[str, Any] = {}
    if resolved.max_tokens is not None:
        generation["maxOutputTokens"] = resolved.max_tokens
    if resolved.temperature is not None:
        generation["temperature"] = resolved.temperature
    if case.output_schema is not None:
        generation["responseMimeType"] = "application/json"
        generation["responseJsonSchema"] = case.output_schema.schema
    if generation:
        payload["generationConfig"] = generation
    return ExportResult(GEMINI, resolved.model, payload, notes.changes, notes.lints,
                        list(case.warnings), case.id)


def _response_object(content: str) -> dict[str, Any]:
    """A function result as the object Gemini requires: JSON objects as they are, else wrapped."""
    if content[:1] == "{" or content.lstrip()[:1] == "{":
        value, valid = parse_json(content)
        if valid and isinstance(value, dict):
            return value
    return {"output": content}


def _lint_turn_order(shape: list[list[int]], notes: Notes) -> None:
    """Gemini's turn rules: a function-call turn follows a user or function-response turn, and a
    function-response turn follows a function-call turn with as many parts as calls. Turns
    alternate once merged, so the turn before a model turn is always a user one."""
    for position, (index, calls, responses, response_index) in enumerate(shape):
        if calls and position == 0:
            notes.lint("a function-call turn must follow a user or function-response turn", index)
        if responses:
            previous_calls = shape[position - 1][1] if position else 0
            if previous_calls == 0:
                notes.lint("a function-response turn must follow a function-call turn",
                           response_index)
            elif responses != previous_calls:
                notes.lint(f"the function-response turn has {responses} responses for "
                           f"{previous_calls} function calls", response_index)
