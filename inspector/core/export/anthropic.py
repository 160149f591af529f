"""Anthropic Messages: system text pulled out of the array (seed 003), tool_use / tool_result
blocks, consecutive same-role turns merged."""

from __future__ import annotations

from typing import Any

from ..model import RenderedCase
from .common import (
    ANTHROPIC,
    JSON_FAILURES,
    MAX_NAME,
    SAFE_ID_FULL,
    ExportResult,
    ExportSettings,
    Notes,
    ResolvedDefaults,
    arguments_object,
    empty_object_schema,
    full_instructions,
    lint_name,
    safe_id,
    scan_json,
)
from .spec import Batch, Http, Provider
from .templates import sdk_python, sdk_typescript

# Anthropic requires max_tokens, so a request gets one; temperature is the server's default.
DEFAULTS = ResolvedDefaults("claude-sonnet-4-5", max_tokens=1024)
SYSTEM_ROLES = frozenset({"system", "developer"})


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    resolved = settings.resolved(DEFAULTS)
    notes = Notes()
    change = notes.change
    system_parts: list[str] = []
    request_system = full_instructions(settings.system_prompt, None, settings.user_instructions)
    if request_system:
        system_parts.append(request_system)

    turns: list[dict[str, Any]] = []
    add_turn = turns.append
    first_source = last_source = 0  # index of the first message of the first / last turn
    turn_role = None  # role of the last turn
    content: list[dict[str, Any]] = []  # blocks of the last turn
    last_kind = None  # "user", "assistant" or "tool": what made the last turn's latest blocks
    ids: dict[str, str] = {}  # original tool call id -> the id sent
    pending: dict[str, int] = {}  # tool_use ids awaiting a tool_result in the next user turn
    scan = scan_json
    # One branch per kind of message, each building its blocks and merging them into the last
    # turn or opening a new one: the common path makes no call and no temporary list.
    for index, message in enumerate(case.messages):
        if message.omitted is not None:
            continue
        role = message.role
        segments = message.segments
        text = segments[0].text if len(segments) == 1 else "".join([s.text for s in segments])
        if role == "assistant":
            if message.name is not None:
                change(f"name {message.name!r} dropped: Anthropic messages have no name", index)
            if turn_role != "assistant" and pending:
                _lint_unanswered(pending, notes)
            tool_calls = message.tool_calls
            if tool_calls:
                blocks = [{"type": "text", "text": text}] if text else []
                for position, call in enumerate(tool_calls):
                    raw_id = call.id
                    call_id = ids.get(raw_id)
                    if call_id is None:
                        # safe_id's test inlined (the fallback id is only formatted when needed),
                        # with ASCII identifiers, a subset of the allowed ids, as the cheap case.
                        if len(raw_id) <= MAX_NAME and (
                                (raw_id.isascii() and raw_id.isidentifier())
                                or SAFE_ID_FULL.fullmatch(raw_id)):
                            call_id = raw_id
                        else:
                            call_id = safe_id(raw_id, f"toolu_{index}_{position}")
                            change(f"tool call id {raw_id!r} sent as {call_id!r}", index)
                        ids[raw_id] = call_id
                    raw = call.arguments
                    try:
                        arguments, end = scan(raw, 0)
                        if end != len(raw) or type(arguments) is not dict:
                            arguments = arguments_object(raw, call.name, index, notes)
                    except JSON_FAILURES:
                        arguments = arguments_object(raw, call.name, index, notes)
                    blocks.append({"type": "tool_use", "id": call_id, "name": call.name,
                                   "input": arguments})
                    pending[call_id] = index
            elif text:
                blocks = [{"type": "text", "text": text}]
            else:
                blocks = [{"type": "text", "text": ""}]
                notes.lint("empty message: Anthropic rejects empty content", index)
            if turn_role == "assistant":
                content += blocks
                change("merged into the previous assistant turn", index)
            else:
                content = blocks
                turn_role = "assistant"
                if not turns:
                    first_source = index
                add_turn({"role": "assistant", "content": content})
                last_source = index
            last_kind = "assistant"
            continue

        original = message.tool_call_id
        if original is not None and (role == "tool" or role == "function"):
            if message.name is not None:
                change(f"name {message.name!r} dropped: Anthropic messages have no name", index)
            call_id = ids.get(original) or safe_id(original, f"toolu_{index}")
            if pending.pop(call_id, None) is None:
                notes.lint(f"tool result for {original!r} does not answer a tool_use of the "
                           "assistant turn right before it", index)
            block = {"type": "tool_result", "tool_use_id": call_id, "content": text}
            if turn_role != "user":
                content = [block]
                turn_role = "user"
                if not turns:
                    first_source = index
                add_turn({"role": "user", "content": content})
                last_source = index
            elif last_kind == "user":
                # tool_result blocks must open the user turn: put this one before the text.
                position = 0
                while position < len(content) and content[position]["type"] == "tool_result":
                    position += 1
                content.insert(position, block)
                change("tool result placed before the user text of the same turn", index)
            else:
                content.append(block)
            last_kind = "tool"
            continue

        if role in SYSTEM_ROLES:
            if text:
                system_parts.append(text)
            change(f"{role} message moved into the top-level system", index)
            continue
        # A user message, or anything else sent as one.
        if message.name is not None:
            change(f"name {message.name!r} dropped: Anthropic messages have no name", index)
        if role != "user":
            reason = ("a tool result without a tool_call_id" if role in ("tool", "function")
                      else f"role {role!r} is not an Anthropic role")
            change(f"{reason}; sent as a user message", index)
        if not text:
            notes.lint("empty message: Anthropic rejects empty content", index)
        block = {"type": "text", "text": text}
        if turn_role != "user":
            content = [block]
            turn_role = "user"
            if not turns:
                first_source = index
            add_turn({"role": "user", "content": content})
            last_source = index
        else:
            content.append(block)
            if last_kind == "user":
                change("merged into the previous user turn", index)
        last_kind = "user"
    if pending:
        _lint_unanswered(pending, notes)

    if turns and turns[0]["role"] != "user":
        notes.lint("the first message must be a user message", first_source)
    if not turns:
        notes.lint("the request has no user or assistant messages")
    elif turns[-1]["role"] == "assistant":
        last = turns[-1]["content"][-1]
        if last["type"] == "text" and last["text"] != last["text"].rstrip():
            notes.lint("a final assistant message (prefill) cannot end with whitespace",
                       last_source)

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


def _batch_id(case_id: str, fallback: str) -> str:
    """Message Batches custom ids: ^[a-zA-Z0-9_-]{1,64}$."""
    return safe_id(case_id, fallback)


PROVIDER = Provider(
    id=ANTHROPIC, label="Anthropic", defaults=DEFAULTS, export=export,
    encoding="o200k_base", exact_tokens=False,  # no local Claude tokenizer: an estimate
    batch=Batch("custom_id", _batch_id,
                lambda custom_id, payload: {"custom_id": custom_id, "params": payload},
                max_id_length=64),
    http=Http(lambda model: "https://api.anthropic.com/v1/messages",
              ("x-api-key: $ANTHROPIC_API_KEY", "anthropic-version: 2023-06-01")),
    python=lambda result, literal, head: sdk_python(
        head, "import anthropic\n\nclient = anthropic.Anthropic()  # reads ANTHROPIC_API_KEY\n",
        literal, "client.messages.create(**payload)"),
    typescript=lambda result, literal, head: sdk_typescript(
        head, 'import Anthropic from "@anthropic-ai/sdk";\n\n'
        "const client = new Anthropic(); // reads ANTHROPIC_API_KEY\n",
        literal, "client.messages.create(payload)"),
    sdks=("anthropic>=2.12 (PyPI)", "@anthropic-ai/sdk (npm)"),
)
