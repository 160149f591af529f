"""Gemini generateContent (REST, camelCase): systemInstruction, user/model turns, functionCall and
functionResponse parts with the function name recovered from the call it answers."""

from __future__ import annotations

import json
from typing import Any

from ..model import RenderedCase
from .common import (
    GEMINI,
    JSON_FAILURES,
    ExportResult,
    ExportSettings,
    Lint,
    Notes,
    ResolvedDefaults,
    arguments_object,
    full_instructions,
    parse_json,
    scan_json,
)
from .spec import Batch, Http, Provider

DEFAULTS = ResolvedDefaults("gemini-2.5-flash")  # max tokens and temperature: the server's
SYSTEM_ROLES = frozenset({"system", "developer"})


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    resolved = settings.resolved(DEFAULTS)
    notes = Notes()
    change = notes.change
    system_parts: list[str] = []
    request_system = full_instructions(settings.system_prompt, None, settings.user_instructions)
    if request_system:
        system_parts.append(request_system)

    contents: list[dict[str, Any]] = []
    add_content = contents.append
    names: dict[str, str] = {}  # tool call id -> function name
    scan = scan_json
    # The turn-order lints, decided when a content is closed (the next one starts, or the end):
    # contents alternate model/user once merged, so ints about the last two contents are enough,
    # and no bookkeeping object per content outlives its message (fewer collector passes on long
    # conversations). They go after the per-message lints, in content order.
    order_lints: list[Lint] = []
    calls = 0  # function calls in the last content (a model one)
    previous_calls = 0  # function calls in the model content before the last (a user one)
    responses = 0  # function responses in the last content (a user one)
    response_index = 0  # index of the first function-response message of the last content
    first_index = 0  # index of the first message of the first content
    last_role = None  # role of the last content
    last_kind = None  # "model", "user" or "tool": what the latest message was
    parts_of_last: list[dict[str, Any]] = []
    # One branch per kind of message, each building its part and merging it into the last content
    # or opening a new one: the common path makes no call and no temporary list.
    for index, message in enumerate(case.messages):
        if message.omitted is not None:
            continue
        role = message.role
        segments = message.segments
        text = segments[0].text if len(segments) == 1 else "".join([s.text for s in segments])

        if role == "assistant":
            if message.name is not None:
                change(f"name {message.name!r} dropped: Gemini contents have no name", index)
            tool_calls = message.tool_calls
            if tool_calls:
                parts: list[dict[str, Any]] = [{"text": text}] if text else []
                for call in tool_calls:
                    name = call.name
                    names[call.id] = name
                    raw = call.arguments
                    try:
                        args, end = scan(raw, 0)
                        if end != len(raw) or type(args) is not dict:
                            args = arguments_object(raw, name, index, notes)
                    except JSON_FAILURES:
                        args = arguments_object(raw, name, index, notes)
                    parts.append({"functionCall": {"name": name, "args": args}})
            elif text:
                parts = [{"text": text}]
            else:
                parts = [{"text": ""}]
                notes.lint("empty message: Gemini rejects a turn without content", index)
            if last_role == "model":
                parts_of_last += parts
                calls += len(tool_calls)
                change("merged into the previous model turn", index)
            else:
                if responses and responses != previous_calls:
                    _lint_responses(responses, previous_calls, response_index, order_lints)
                parts_of_last = parts
                add_content({"role": "model", "parts": parts})
                if last_role is None:
                    first_index = index
                last_role = "model"
                calls = len(tool_calls)
            last_kind = "model"
            continue

        if role in ("tool", "function") and (message.tool_call_id is not None
                                              or message.name is not None):
            call_id = message.tool_call_id
            found = names.get(call_id) if call_id is not None else None
            if found is None:
                found = message.name or ""
                notes.lint(f"function response {call_id!r} answers no earlier function call, "
                           "so its name cannot be recovered", index)
            # _response_object's common cases inlined: a compact JSON object, or plain text.
            response = None
            first = text[:1]
            if first == "{":
                try:
                    value, end = scan(text, 0)
                    if end == len(text) and type(value) is dict:
                        response = value
                except JSON_FAILURES:
                    pass
            if response is None:
                response = (_response_object(text) if first == "{" or first.isspace()
                            else {"output": text})
            part: dict[str, Any] = {"functionResponse": {"name": found, "response": response}}
            if last_role == "user":
                parts_of_last.append(part)
                if not responses:
                    response_index = index
                responses += 1
            else:
                if calls and len(contents) == 1:
                    _lint_first_calls(first_index, order_lints)
                previous_calls = calls
                parts_of_last = [part]
                add_content({"role": "user", "parts": parts_of_last})
                if last_role is None:
                    first_index = index
                last_role = "user"
                responses = 1
                response_index = index
            last_kind = "tool"
            continue

        if role in SYSTEM_ROLES:
            if text:
                system_parts.append(text)
            change(f"{role} message moved into systemInstruction", index)
            continue

        # A user turn, or anything else sent as one.
        if message.name is not None and role not in ("tool", "function"):
            change(f"name {message.name!r} dropped: Gemini contents have no name", index)
        if role != "user":
            reason = ("a tool result without a tool_call_id" if role in ("tool", "function")
                      else f"role {role!r} is not a Gemini role")
            change(f"{reason}; sent as a user turn", index)
        if not text:
            notes.lint("empty message: Gemini rejects a turn without content", index)
        part = {"text": text}
        if last_role == "user":
            parts_of_last.append(part)
            if last_kind == "user":
                change("merged into the previous user turn", index)
        else:
            if calls and len(contents) == 1:
                _lint_first_calls(first_index, order_lints)
            previous_calls = calls
            parts_of_last = [part]
            add_content({"role": "user", "parts": parts_of_last})
            if last_role is None:
                first_index = index
            last_role = "user"
            responses = 0
        last_kind = "user"

    if last_role == "model":
        if calls and len(contents) == 1:
            _lint_first_calls(first_index, order_lints)
    elif responses and responses != previous_calls:
        _lint_responses(responses, previous_calls, response_index, order_lints)
    notes.lints += order_lints
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


def _lint_first_calls(first_index: int, order_lints: list[Lint]) -> None:
    """Gemini's turn rules: a function-call turn follows a user or function-response turn, and a
    function-response turn follows a function-call turn with as many parts as calls. Turns
    alternate once merged, so only the first content can break the first rule (checked when it is
    closed, while it is still the only one)."""
    order_lints.append(Lint("a function-call turn must follow a user or function-response turn",
                            first_index))


def _lint_responses(responses: int, previous_calls: int, response_index: int,
                    order_lints: list[Lint]) -> None:
    if previous_calls == 0:
        order_lints.append(Lint("a function-response turn must follow a function-call turn",
                                response_index))
    elif responses != previous_calls:
        order_lints.append(Lint(f"the function-response turn has {responses} responses for "
                                f"{previous_calls} function calls", response_index))


ENDPOINT = "https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent"


def _python(result: ExportResult, literal: str, head: str) -> str:
    # The SDK takes systemInstruction, tools and generationConfig's keys flat in its `config`.
    return (f"{head}import json\n\nfrom google import genai\n\n"
            "client = genai.Client()  # reads GEMINI_API_KEY\n"
            f"payload = json.loads({literal})\n"
            "config = {key: payload[key] for key in ('systemInstruction', 'tools') "
            "if key in payload}\n"
            "config.update(payload.get('generationConfig', {}))\n"
            "response = client.models.generate_content(\n"
            f"    model={result.model!r}, contents=payload['contents'], config=config or None)\n"
            "print(response.text)\n")


def _typescript(result: ExportResult, literal: str, head: str) -> str:
    return (f'{head}import {{ GoogleGenAI }} from "@google/genai";\n\n'
            "const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY });\n"
            f"const payload = JSON.parse({literal});\n"
            "const config = { ...(payload.generationConfig ?? {}) };\n"
            "if (payload.systemInstruction) config.systemInstruction = "
            "payload.systemInstruction;\n"
            "if (payload.tools) config.tools = payload.tools;\n"
            "const response = await ai.models.generateContent({\n"
            f"  model: {json.dumps(result.model)}, contents: payload.contents, config,\n"
            "});\n"
            "console.log(response.text);\n")


PROVIDER = Provider(
    id=GEMINI, label="Gemini", defaults=DEFAULTS, export=export,
    encoding="o200k_base", exact_tokens=False,  # no local Gemini tokenizer: an estimate
    batch=Batch("key", lambda case_id, fallback: case_id or fallback,
                lambda custom_id, payload: {"key": custom_id, "request": payload}),
    http=Http(lambda model: ENDPOINT.format(model=model), ("x-goog-api-key: $GEMINI_API_KEY",)),
    python=_python, typescript=_typescript,
    sdks=("google-genai>=3.4 (PyPI)", "@google/genai (npm)"),
)
