"""Anthropic Messages: system text pulled out of the array (seed 003), tool_use / tool_result
blocks, consecutive same-role turns merged."""

from __future__ import annotations

from typing import Any

from ..model import RenderedCase
from .common import (
    ANTHROPIC,
    ExportResult,
    ExportSettings,
    Notes,
    arguments_object,
    empty_object_schema,
    full_instructions,
    lint_name,
    safe_id,
    text_of,
)

SYSTEM_ROLES = frozenset({"system", "developer"})


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    resolved = settings.resolved(ANTHROPIC)
    notes = Notes()
    system_parts: list[str] = []
    request_system = full_instructions(settings.system_prompt, None, settings.user_instructions)
    if request_system:
        system_parts.append(request_system)

    turns: list[dict[str, Any]] = []
    turn_sources: list[int] = []  # index of the first message of each turn, for lints
    turn_role = None  # role of the last turn
    content: list[dict[str, Any]] = []  # blocks of the last turn
    last_kind = None  # "user", "assistant" or "tool": what made the last turn's latest blocks
    ids: dict[str, str] = {}  # original tool call id -> the id sent
    pending: dict[str, int] = {}  # tool_use ids awaiting a tool_result in the next user turn

    for index, message in enumerate(case.messages):
        if message.omitted is not None:
            continue
        role = message.role
        segments = message.segments
        text = segments[0].text if len(segments) == 1 else text_of(message)
        if role in SYSTEM_ROLES:
            if text:
                system_parts.append(text)
            notes.change(f"{role} message moved into the top-level system", index)
            continue
        if message.name is not None:
            notes.change(f"name {message.name!r} dropped: Anthropic messages have no name", index)

        if role == "assistant":
            if turn_role != "assistant" and pending:
                _lint_unanswered(pending, notes)
            blocks: list[dict[str, Any]] = []
            if text:
                blocks.append({"type": "text", "text": text})
            for position, call in enumerate(message.tool_calls):
                call_id = ids.get(call.id)
                if call_id is None:
                    call_id = safe_id(call.id, f"toolu_{index}_{position}")
                    if call_id != call.id:
                        notes.change(f"tool call id {call.id!r} sent as {call_id!r}", index)
                    ids[call.id] = call_id
                blocks.append({"type": "tool_use", "id": call_id, "name": call.name,
                               "input": arguments_object(call.arguments, call.name, index,
                                                         notes)})
                pending[call_id] = index
            kind = "assistant"
        elif role in ("tool", "function") and message.tool_call_id is not None:
            original = message.tool_call_id
            call_id = ids.get(original) or safe_id(original, f"toolu_{index}")
            if pending.pop(call_id, None) is None:
                notes.lint(f"tool result for {original!r} does not answer a tool_use of the "
                           "assistant turn right before it", index)
            blocks = [{"type": "tool_result", "tool_use_id": call_id,
                       "content": text}]
            kind = "tool"
        else:
            if role != "user":
                reason = ("a tool result without a tool_call_id" if role in ("tool", "function")
                          else f"role {role!r} is not an Anthropic role")
                notes.change(f"{reason}; sent as a user message", index)
            blocks = [{"type": "text", "text": text}] if text else []
            kind = "user"

        if not blocks:
            blocks = [{"type": "text", "text": ""}]
            notes.lint("empty message: Anthropic rejects empty content", index)

        role_sent = "assistant" if kind == "assistant" else "user"
        if role_sent == turn_role:
            if kind == "tool" and last_kind == "user":
                # tool_result blocks must open the user turn: put this one before the text.
                position = 0
                while position < len(content) and content[position]["type"] == "tool_result":
                    position += 1
                content.insert(position, blocks[0])
                notes.change("tool result placed before the user text of the same turn", index)
            else:
                if kind == last_kind and kind != "tool":
                    notes.change(f"merged into the previous {role_sent} turn", index)
                content.extend(blocks)
        else:
            content = blocks
            turn_role = role_sent
            turns.append({"role": role_sent, "content": content})
            turn_sources.append(index)
        last_kind = kind
    if pending:
        _lint_unanswered(pending, notes)

    if turns and turns[0]["role"] != "user":
        notes.lint("the first message must be a user message", turn_sources[0])
    if not turns:
        notes.lint("the request has no user or assistant messages")
    elif turns[-1]["role"] == "assistant":
        last = turns[-1]["content"][-1]
        if last["type"] == "text" and last["text"] != last["text"].rstrip():
            notes.lint("a final assistant message (prefill) cannot end with whitespace",
                       turn_sources[-1])

    payload: dict[str, Any] = {"model": resolved.model, "max_tokens": resolved.max_tokens}
    if system_parts:
        payload["system"] = "\n\n".join(system_parts)
    payload["messages"] = turns
    if case.tools:
        tools = []
        for tool in case.tools:
            lint_name(tool.name, "tool", notes)
            entry: dict[str, Any] = {"name": tool.name}
            if tool.description is not None:
                entry["description"] = tool.description
            schema = tool.parameters if tool.parameters is not None else empty_object_schema()
            if schema.get("type") != "object":
                notes.lint(f"tool {tool.name!r}: input_schema must be an object schema")
            entry["input_schema"] = schema
            tools.append(entry)
        payload["tools"] = tools
    if case.output_schema is not None:
        payload["output_config"] = {"format": {"type": "json_schema",
                                               "schema": case.output_schema.schema}}
    if resolved.temperature is not None:
        # The current Messages API (SDK request types included) has no sampling temperature.
        notes.change(f"temperature {resolved.temperature} left out: the Anthropic Messages API "
                     "no longer takes one")
    return ExportResult(ANTHROPIC, resolved.model, payload, notes.changes, notes.lints,
                        list(case.warnings), case.id)


def _lint_unanswered(pending: dict[str, int], notes: Notes) -> None:
    for call_id, index in pending.items():
        notes.lint(f"tool_use {call_id!r} has no tool_result in the user turn right after it",
                   index)
    pending.clear()
