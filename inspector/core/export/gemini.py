"""Gemini generateContent (REST, camelCase): systemInstruction, user/model turns, functionCall and
functionResponse parts with the function name recovered from the call it answers."""

from __future__ import annotations

import json
import mimetypes
from typing import Any

from ..conversations.gemini import GENERATION
from ..model import Message, RenderedCase, Segment, ToolCall
from . import image_tokens, request
from .common import (
    GEMINI,
    ExportResult,
    ExportSettings,
    Lint,
    ResolvedDefaults,
    TurnExport,
    arguments_object,
    blocks,
    kept_options,
    media_what,
    parse_json,
)
from .request import put_field
from .spec import Batch, Billing, Http, PromptCache, Provider

DEFAULTS = ResolvedDefaults("gemini-2.5-flash")  # max tokens and temperature: the server's
SYSTEM_ROLES = frozenset({"system", "developer"})


class _Build(TurnExport):
    """One export's state while its messages become Gemini contents.

    The turn-order lints are decided when a content is closed (the next one starts, or the end):
    contents alternate model/user once merged, so counts about the last two contents are enough,
    and no bookkeeping object per content outlives its message. They go after the per-message
    lints, in content order."""

    __slots__ = (
        "names",
        "order_lints",
        "calls",
        "previous_calls",
        "responses",
        "response_index",
        "last_kind",
        "same_api",
        "system_blocks",
    )

    def __init__(self, settings: ExportSettings):
        super().__init__(settings, "parts")
        self.names: dict[str, str] = {}  # tool call id -> function name
        self.order_lints: list[Lint] = []
        self.calls = 0  # function calls in the last content (a model one)
        self.previous_calls = 0  # function calls in the model content before the last (a user one)
        self.responses = 0  # function responses in the last content (a user one)
        self.response_index = 0  # index of the first function-response message of the last content
        self.last_kind: str | None = None  # "model", "user" or "tool": the latest message's kind
        self.same_api = False  # whether the case is a Gemini request read back
        self.system_blocks: list[dict[str, Any]] | None = None  # system parts, when in blocks

    def open_user(self, parts: list[dict[str, Any]], index: int) -> None:
        """A new user content: the model content before it is closed."""
        if self.calls and len(self.turns.turns) == 1:
            _lint_first_calls(self.turns.first_source, self.order_lints)
        self.previous_calls = self.calls
        self.turns.add("user", parts, index)

    def close(self) -> None:
        if self.turns.role == "model":
            if self.calls and len(self.turns.turns) == 1:
                _lint_first_calls(self.turns.first_source, self.order_lints)
        elif self.responses and self.responses != self.previous_calls:
            _lint_responses(self.responses, self.previous_calls, self.response_index, self.order_lints)
        self.notes.lints += self.order_lints


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    build = _Build(settings)
    resolved = request.resolve(case, settings, PROVIDER, build.notes)
    build.same_api = case.metadata.get("format") == GEMINI
    _convert(build, case)
    build.close()
    if not build.turns.turns:
        build.notes.lint("the request has no contents")

    payload: dict[str, Any] = {"contents": build.turns.turns}
    # A Gemini request read back keeps the spelling it was sent with.
    system_key = (build.same_api and case.metadata.get("system_key")) or "systemInstruction"
    if build.system_blocks is not None:
        payload[system_key] = {"parts": build.system_blocks}
    elif build.system_parts:
        payload[system_key] = {"parts": [{"text": "\n\n".join(build.system_parts)}]}
    if build.same_api and "tools_sent" in case.metadata:
        payload["tools"] = case.metadata["tools_sent"]
    elif case.tools:
        # Function declarations first, then Gemini's own tools (googleSearch, ...) as they were.
        functions = _declarations(case, build)
        payload["tools"] = ([{"functionDeclarations": functions}] if functions else []) + [
            tool.raw for tool in case.tools if tool.raw is not None
        ]
    generation = _generation_config(case, resolved.max_tokens, resolved.temperature)
    if generation:
        payload["generationConfig"] = generation
    request.apply(case, PROVIDER, payload, build.notes)
    return ExportResult(
        GEMINI, resolved.model, payload, build.notes.changes, build.notes.lints, list(case.warnings), case.id
    )


def _convert(build: _Build, case: RenderedCase) -> None:
    """The messages into contents: each message by the one handler of its kind, which merges it
    into the content before when the roles meet."""
    # A Gemini request read back keeps its contents as they were, consecutive same-role ones too.
    starts = frozenset(case.metadata.get("content_starts", ())) if build.same_api else None
    for index, message in enumerate(case.messages):
        if message.omitted is not None:
            continue
        if starts is not None and index in starts:
            build.turns.role = None
        _message(build, message, index)


def _message(build: _Build, message: Message, index: int) -> None:
    """One message, by its kind: model text and calls, a function response, system text, or
    anything else as a user turn."""
    role = message.role
    text = "".join([segment.text for segment in message.segments])
    parts = None if message.blocks is None else blocks(message)
    if role == "assistant":
        _model(build, message, text, index, parts)
    elif role in ("tool", "function") and (message.tool_call_id is not None or message.name is not None):
        _function_response(build, message, text, index)
    elif role in SYSTEM_ROLES:
        _system(build, message, text, index, parts)
    else:
        _user(build, message, text, index, parts)


def _function_call(build: _Build, call: ToolCall, index: int) -> dict[str, Any]:
    """A tool call as a functionCall part (the name kept for the response that answers it)."""
    build.names[call.id] = call.name
    function_call: dict[str, Any] = {
        "name": call.name,
        "args": arguments_object(call.arguments, call.name, index, build.notes),
    }
    if call.options:
        function_call.update(
            kept_options(call.options, build.same_api, "a tool call", build.notes, index, "Gemini")
        )
    return {"functionCall": function_call}


def _system(build: _Build, message: Message, text: str, index: int, parts: list[Segment] | None) -> None:
    if parts is not None and build.system_blocks is None:
        build.system_blocks = [{"text": part} for part in build.system_parts]
    if build.system_blocks is not None:
        if parts is None:
            if text:
                build.system_blocks.append({"text": text})
        else:
            build.system_blocks += _parts(build, parts, index, system=True)
    if text:
        build.system_parts.append(text)
    if not (build.same_api and index == 0):
        build.notes.change(f"{message.role} message moved into systemInstruction", index)


def _parts(build: _Build, segments: list[Segment], index: int, system: bool = False) -> list[dict[str, Any]]:
    """Parts for text and media segments (systemInstruction takes text only)."""
    result: list[dict[str, Any]] = []
    for segment in segments:
        media = segment.media
        if media is None:
            part: dict[str, Any] = {"text": segment.text}
        elif system:
            build.notes.change(
                f"{media_what(media)} of a system message left out: systemInstruction takes text", index
            )
            continue
        elif media.data is not None:
            if media.media_type is None:
                build.notes.lint("inline data without a media type: Gemini needs mimeType", index)
            part = {"inlineData": {"mimeType": media.media_type or "", "data": media.data}}
        elif media.url is not None:
            file: dict[str, Any] = {"fileUri": media.url}
            # Gemini tells an image from a file by its type: take it from the URL when unsaid.
            media_type = media.media_type or mimetypes.guess_type(media.url)[0]
            if media_type is not None:
                file["mimeType"] = media_type
            else:
                build.notes.lint("a file URI without a media type: Gemini needs mimeType", index, "warning")
            part = {"fileData": file}
        else:
            build.notes.change(f"{media_what(media)} given by another provider's file id left out", index)
            continue
        if segment.options:
            part.update(kept_options(segment.options, build.same_api, "a part", build.notes, index, "Gemini"))
        result.append(part)
    return result


def _model(build: _Build, message: Message, text: str, index: int, parts_in: list[Segment] | None) -> None:
    if message.name is not None:
        build.notes.change(f"name {message.name!r} dropped: Gemini contents have no name", index)
    tool_calls = message.tool_calls
    if parts_in is not None:
        parts = _parts(build, parts_in, index)
        parts += [_function_call(build, call, index) for call in tool_calls]
        if not parts:
            parts = [{"text": ""}]
            build.notes.lint("empty message: Gemini rejects a turn without content", index)
    elif tool_calls:
        parts = [{"text": text}] if text else []
        parts += [_function_call(build, call, index) for call in tool_calls]
    elif text:
        parts = [{"text": text}]
    else:
        parts = [{"text": ""}]
        build.notes.lint("empty message: Gemini rejects a turn without content", index)
    if build.turns.role == "model":
        build.turns.add("model", parts, index)
        build.calls += len(tool_calls)
        build.notes.change("merged into the previous model turn", index)
    else:
        if build.responses and build.responses != build.previous_calls:
            _lint_responses(build.responses, build.previous_calls, build.response_index, build.order_lints)
        build.turns.add("model", parts, index)
        build.calls = len(tool_calls)
    build.last_kind = "model"


def _function_response(build: _Build, message: Message, text: str, index: int) -> None:
    call_id = message.tool_call_id
    found = build.names.get(call_id) if call_id is not None else None
    if found is None:
        found = message.name or ""
        build.notes.lint(
            f"function response {call_id!r} answers no earlier function call, "
            "so its name cannot be recovered",
            index,
        )
    response: dict[str, Any] = {"name": found, "response": _response_object(text)}
    if message.options:
        response.update(
            kept_options(message.options, build.same_api, "a tool result", build.notes, index, "Gemini")
        )
    part: dict[str, Any] = {"functionResponse": response}
    if build.turns.role == "user":
        build.turns.content.append(part)
        if not build.responses:
            build.response_index = index
        build.responses += 1
    else:
        build.open_user([part], index)
        build.responses = 1
        build.response_index = index
    build.last_kind = "tool"


def _user(build: _Build, message: Message, text: str, index: int, parts_in: list[Segment] | None) -> None:
    """A user turn, or anything else sent as one."""
    role = message.role
    if message.name is not None and role not in ("tool", "function"):
        build.notes.change(f"name {message.name!r} dropped: Gemini contents have no name", index)
    if role != "user":
        reason = (
            "a tool result without a tool_call_id"
            if role in ("tool", "function")
            else f"role {role!r} is not a Gemini role"
        )
        build.notes.change(f"{reason}; sent as a user turn", index)
    parts = [{"text": text}] if parts_in is None else _parts(build, parts_in, index)
    if not parts or (not text and all("text" in part for part in parts)):
        build.notes.lint("empty message: Gemini rejects a turn without content", index)
    if build.turns.role == "user":
        build.turns.content += parts
        if build.last_kind == "user":
            build.notes.change("merged into the previous user turn", index)
    else:
        build.open_user(parts, index)
        build.responses = 0
    build.last_kind = "user"


def _declarations(case: RenderedCase, build: _Build) -> list[dict[str, Any]]:
    declarations = []
    for tool in case.tools:
        if tool.raw is not None:
            continue
        declaration: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            declaration["description"] = tool.description
        if tool.parameters is not None:
            declaration["parametersJsonSchema"] = tool.parameters
        if tool.options:
            declaration.update(
                kept_options(tool.options, build.same_api, f"tool {tool.name!r}", build.notes, None, "Gemini")
            )
        declarations.append(declaration)
    return declarations


def _generation_config(case: RenderedCase, max_tokens: Any, temperature: Any) -> dict[str, Any]:
    generation: dict[str, Any] = {}
    if max_tokens is not None:
        generation["maxOutputTokens"] = max_tokens
    if temperature is not None:
        generation["temperature"] = temperature
    if case.output_schema is not None:
        generation["responseMimeType"] = "application/json"
        generation["responseJsonSchema"] = case.output_schema.schema
    return generation


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
    order_lints.append(Lint("a function-call turn must follow a user or function-response turn", first_index))


def _lint_responses(
    responses: int, previous_calls: int, response_index: int, order_lints: list[Lint]
) -> None:
    if previous_calls == 0:
        order_lints.append(Lint("a function-response turn must follow a function-call turn", response_index))
    elif responses != previous_calls:
        order_lints.append(
            Lint(
                f"the function-response turn has {responses} responses for {previous_calls} function calls",
                response_index,
            )
        )


# One API version for every form: the Python SDK's own default is v1, the TypeScript SDK's v1beta,
# and v1beta is the one that takes parametersJsonSchema and responseJsonSchema.
API_VERSION = "v1beta"
ENDPOINT = "https://generativelanguage.googleapis.com/" + API_VERSION + "/models/{model}:generateContent"


def _python(result: ExportResult, literal: str, head: str) -> str:
    # The SDK takes systemInstruction, tools and generationConfig's keys flat in its `config`.
    return (
        f"{head}import json\nimport os\n\nfrom google import genai\n\n"
        'client = genai.Client(api_key=os.environ["GEMINI_API_KEY"],\n'
        f'                      http_options={{"api_version": "{API_VERSION}"}})\n'
        f"payload = json.loads({literal})\n"
        "config = {key: payload[key] for key in ('systemInstruction', 'tools') "
        "if key in payload}\n"
        "config.update(payload.get('generationConfig', {}))\n"
        "response = client.models.generate_content(\n"
        f"    model={result.model!r}, contents=payload['contents'], config=config or None)\n"
        "print(response.text)\n"
    )


def _typescript(result: ExportResult, literal: str, head: str) -> str:
    return (
        f'{head}import {{ GoogleGenAI }} from "@google/genai";\n\n'
        "const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY, "
        f'apiVersion: "{API_VERSION}" }});\n'
        f"const payload = JSON.parse({literal});\n"
        "const config = { ...(payload.generationConfig ?? {}) };\n"
        "if (payload.systemInstruction) config.systemInstruction = "
        "payload.systemInstruction;\n"
        "if (payload.tools) config.tools = payload.tools;\n"
        "const response = await ai.models.generateContent({\n"
        f"  model: {json.dumps(result.model)}, contents: payload.contents, config,\n"
        "});\n"
        "console.log(response.text);\n"
    )


# Implicit caching (Gemini 2.5 and newer) reuses any shared prefix past the model's minimum; the
# table was last updated 2026-10-13 (2.5 Flash rose from 1,024 to 2,048 then).
CACHE = PromptCache(
    mode="automatic",
    system_first=True,
    minimums=(
        (r"gemini-2\.5-(flash|pro)(-preview[-\w]*|-\d{3})?$", 2048),
        (r"gemini-3(\.\d+)?-(flash|pro)", 4096),
    ),
    fallback_minimum=4096,
    source="https://ai.google.dev/gemini-api/docs/caching#implicit-caching (minimum input tokens per model)",
)

# -- a request's common fields (export/request.py) the way this API spells them; returns the
# names it has no field for

GEMINI_LEVELS = ("low", "medium", "high")


def _write_fields(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    generation: dict[str, Any] = payload.get("generationConfig", {})
    by_name = {name: key for key, name in GENERATION.items()}
    for name, value in common.items():
        if name in by_name:
            generation.setdefault(by_name[name], value)
        elif name == "effort" and value in GEMINI_LEVELS:
            generation.setdefault("thinkingConfig", {"thinkingLevel": value.upper()})
        elif name == "effort":
            missing.append(name)
        elif name == "tool_choice":
            calling = (
                {"mode": "ANY", "allowedFunctionNames": [value["name"]]}
                if isinstance(value, dict)
                else {"mode": {"auto": "AUTO", "required": "ANY", "none": "NONE"}.get(value, "AUTO")}
            )
            put_field(payload, "toolConfig", {"functionCallingConfig": calling})
        else:
            missing.append(name)
    if generation:
        payload["generationConfig"] = generation
    return missing


PROVIDER = Provider(
    id=GEMINI,
    label="Gemini",
    defaults=DEFAULTS,
    export=export,
    encoding="o200k_base",
    exact_tokens=False,  # no local Gemini tokenizer: an estimate
    batch=Batch(
        "key",
        lambda case_id, fallback: case_id or fallback,
        lambda custom_id, payload: {"key": custom_id, "request": payload},
    ),
    http=Http(lambda model: ENDPOINT.format(model=model), ("x-goog-api-key: $GEMINI_API_KEY",)),
    python=_python,
    typescript=_typescript,
    # The oldest releases the real-client check passes with (tests/oracle/min_sdk_versions.py):
    # google-genai 1.48 prints a deprecation warning under pydantic 2.14; @google/genai 1.0 sends
    # another body (1.10 is the oldest release tried that passes).
    sdks=("google-genai>=1.49 (PyPI)", "@google/genai>=1.10 (npm)"),
    image_tokens=image_tokens.gemini,
    billing=Billing("google", CACHE),
    write_fields=_write_fields,
)
