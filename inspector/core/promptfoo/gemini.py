"""The Gemini request promptfoo's google provider sends (AIStudioChatProvider.callGemini and the
helpers in src/providers/google/util.ts): contents coerced from the chat messages, the system
instruction (the config's, then the prompt's system messages), tools and tool config as promptfoo
converts them, generation config, safety settings, service tier and passthrough. Gemini on Vertex
AI (VertexChatProvider.callGeminiApi) is the same body but for a few spellings (`vertex`):
`systemInstruction` and `serviceTier` in camelCase, the tier as SERVICE_TIER_*, `context` and
`examples` in the generation config, Model Armor templates, a response schema given as JSON text
parsed and rendered again.

Two steps: `prepare_config` does what needs the evaluation (its vars rendered into the
config's templates, `file://` references read); `gemini_body` is the rest, on a config that
needs neither (a judge's config is given as it is written: promptfoo renders no vars there).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from ..agentv.nunjucks import ENVIRONMENT
from ..js import js_value
from ..model import InputError

FILE_PREFIX = "file://"
# Flash models whose sampling parameters promptfoo removes (removeDeprecatedGeminiGenerationParams).
GEMINI_FLASH = ("gemini-3.8-flash", "gemini-3.7-flash", "gemini-3.6-flash", "gemini-3.5-flash-lite")
GEMINI_FLASH_NAMES = ("gemini-flash-latest", "gemini-flash-lite-latest")
# Of those, the ones that take a thinking level and refuse a thinking budget.
THINKING_LEVEL_ONLY = ("gemini-3.8-flash", "gemini-3.7-flash")
# The config keys each API's generationConfig starts from (before config.generationConfig).
GENERATION = ("temperature", "topP", "topK", "stopSequences", "maxOutputTokens")
VERTEX_GENERATION = ("context", "examples", "stopSequences", "temperature", "maxOutputTokens", "topP", "topK")
GEMINI_SAMPLING = (
    "temperature",
    "topP",
    "top_p",
    "topK",
    "top_k",
    "candidateCount",
    "candidate_count",
    "presencePenalty",
    "presence_penalty",
    "frequencyPenalty",
    "frequency_penalty",
)
# A line that is all base64 (or a data URL) may be a media var promptfoo turns into inlineData.
BASE64_LINE = re.compile(r"^(?:data:[^,]*;base64,)?[A-Za-z0-9+/]{20,}={0,2}$")
# The keys a prompt sets to replace the provider's whole tool choice (mergeGoogleCompletionOptions).
TOOL_CHOICE_KEYS = ("tool_choice", "toolConfig", "tool_config")
TOOL_MODES = ("MODE_UNSPECIFIED", "AUTO", "VALIDATED", "ANY", "NONE")
# The JSON schema keys a Gemini function declaration keeps (sanitizeSchemaForGemini).
DECLARATION_SCHEMA_KEYS = (
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "propertyOrdering",
    "items",
)
DECLARATION_TYPES = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
    "null": "STRING",
}
# The keys of an OpenAI function's parameters that transformTools drops for Google.
OPENAI_SCHEMA_DROPPED = ("additionalProperties", "$schema", "default", "$id", "$ref")
CODE_FILE = re.compile(r"\.(?:py|js|cjs|mjs|ts|cts|mts|jsx|tsx)$")

Reader = Callable[[str], Any]  # a `file://` reference's content: parsed JSON or YAML, else text


# ---- what needs the evaluation: vars and files -------------------------------------------------


def prepare_config(
    config: dict[str, Any], variables: dict[str, Any], read: Reader, vertex: bool = False
) -> dict[str, Any]:
    """The config with its templates rendered with the evaluation's vars and its `file://`
    references read, as callGemini (callGeminiApi on Vertex) does before building the body."""
    config = prepare_instruction(config, variables, read)
    if config.get("tools") is not None:
        config["tools"] = load_tools(config["tools"], variables, read)
    if config.get("responseSchema"):
        schema = _render_object(config["responseSchema"], variables)
        schema = read(schema) if _is_file(schema) else schema
        if vertex and isinstance(schema, str):
            try:
                schema = json.loads(schema)
            except ValueError as error:
                raise InputError(f"promptfoo fails this: invalid JSON in responseSchema ({error})") from None
        config["responseSchema"] = _render_object(schema, variables) if vertex else schema
    return config


def prepare_instruction(config: dict[str, Any], variables: dict[str, Any], read: Reader) -> dict[str, Any]:
    """The config with its systemInstruction loaded and rendered (parseConfigSystemInstruction,
    which Claude on Vertex uses too)."""
    config = dict(config)
    instruction = config.get("systemInstruction")
    if instruction:
        config["systemInstruction"] = _system_instruction(instruction, variables, read)
    return config


def load_response_format(value: Any, variables: dict[str, Any], read: Reader) -> Any:
    """maybeLoadResponseFormatFromExternalFile, which OpenAI's `response_format` and Anthropic's
    `output_format` go through (here beside renderVarsInObject and the file reader it shares with
    Gemini's config): the vars rendered, a `file://` read, and a JSON schema's own `schema`
    (top-level or under `json_schema`) rendered and read in turn."""
    if value is None:
        return value
    loaded = _load_reference(_render_object(value, variables), read)
    if not isinstance(loaded, dict) or loaded.get("type") != "json_schema":
        return loaded
    inner = loaded.get("json_schema")
    nested = loaded.get("schema") or (inner.get("schema") if isinstance(inner, dict) else None)
    if not _js_truthy(nested):
        return loaded
    schema = _load_reference(_render_object(nested, variables), read)
    if "schema" in loaded:
        return {**loaded, "schema": schema}
    if isinstance(inner, dict) and "schema" in inner:
        return {**loaded, "json_schema": {**inner, "schema": schema}}
    return loaded


def _load_reference(value: Any, read: Reader) -> Any:
    """maybeLoadFromExternalFile: a `file://` string read (JSON and YAML parsed), anything else
    as it is."""
    return read(value) if _is_file(value) else value


def merge_prompt_config(base: dict[str, Any], prompt_config: dict[str, Any]) -> dict[str, Any]:
    """mergeGoogleCompletionOptions: the prompt's config over the provider's, where a prompt that
    sets tool_choice, toolConfig or tool_config replaces all three (the provider's
    non-function tool config kept when the prompt gives only tool_choice, and the provider's
    passthrough losing its own tool config)."""
    merged = {**base, **prompt_config}
    tool_keys = [key for key in TOOL_CHOICE_KEYS if key in prompt_config]
    if not tool_keys:
        return merged
    # The prompt's tool keys go last, in this order, as promptfoo's spread of its merge writes them.
    for key in TOOL_CHOICE_KEYS:
        merged.pop(key, None)
    merged.update({key: prompt_config[key] for key in tool_keys})
    kept = _non_function_tool_config(base)
    if tool_keys == ["tool_choice"] and kept:
        merged["toolConfig"] = kept
    if "passthrough" not in prompt_config and _js_truthy(base.get("passthrough")):
        merged["passthrough"] = _passthrough_without_function_calling(base["passthrough"])
    return merged


def _non_function_tool_config(config: dict[str, Any]) -> dict[str, Any]:
    """The config's tool config but its functionCallingConfig: what a prompt's tool_choice leaves."""
    explicit = _explicit_tool_config(config) or {}
    return {key: value for key, value in explicit.items() if key != "functionCallingConfig"}


def _passthrough_without_function_calling(passthrough: Any) -> dict[str, Any]:
    """The provider's passthrough under a prompt that sets its own tool choice: its tool config
    (either spelling) kept as toolConfig without the functionCallingConfig."""
    passthrough = dict(passthrough) if isinstance(passthrough, dict) else {}
    kept = _non_function_tool_config(passthrough)
    passthrough.pop("toolConfig", None)
    passthrough.pop("tool_config", None)
    if kept:
        passthrough["toolConfig"] = kept
    return passthrough


def _system_instruction(instruction: Any, variables: dict[str, Any], read: Reader) -> dict[str, Any]:
    """parseConfigSystemInstruction: a string is loaded (loadFile: vars rendered, a file read,
    JSON parsed), text becomes one part; then every part's text is rendered with the vars."""
    if isinstance(instruction, str):
        instruction = _load_file(_render_object(instruction, variables), read)
    instruction = (
        {"parts": [{"text": instruction}]} if isinstance(instruction, str) else copy.deepcopy(instruction)
    )
    parts = instruction.get("parts") if isinstance(instruction, dict) else None
    if not isinstance(parts, list):
        raise InputError("promptfoo fails a Gemini `systemInstruction` that has no `parts` list")
    for part in parts:
        if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]:
            part["text"] = _render(part["text"], variables)
    return instruction


def _load_file(value: Any, read: Reader) -> Any:
    """loadFile: a `file://` value read; text that is JSON parsed, an array of tools normalised."""
    loaded = read(value) if _is_file(value) else value
    if isinstance(loaded, str):
        try:
            loaded = json.loads(loaded)
        except ValueError:
            return loaded
    return normalize_tools(loaded) if isinstance(loaded, list) else loaded


def load_tools(tools: Any, variables: dict[str, Any], read: Reader, api: str = "Gemini") -> Any:
    """maybeLoadToolsFromExternalFile, which Gemini and Bedrock Converse call alike: the vars
    rendered into the tools, then a `file://` of JSON or YAML tools read, a list's items each
    (flattened when each is a list)."""
    return _load_tools(_render_object(tools, variables), read, api)


def _load_tools(tools: Any, read: Reader, api: str = "Gemini") -> Any:
    if isinstance(tools, list):
        loaded = [_load_tools(item, read, api) for item in tools]
        if loaded and all(isinstance(item, list) for item in loaded):
            return [tool for item in loaded for tool in item]
        return loaded
    if not isinstance(tools, str):
        return tools
    if _is_file(tools) and CODE_FILE.search(tools[len(FILE_PREFIX) :].split(":")[0]):
        raise InputError(
            f"{api} tools from code ({tools}) are made by running it, which the inspector does not"
        )
    from_file = read(tools) if _is_file(tools) else tools
    if isinstance(from_file, str):
        raise InputError(f"promptfoo fails {api} `tools` that are text, not an array or object of tools")
    return from_file


def _is_file(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(FILE_PREFIX)


def _render(template: str, variables: dict[str, Any]) -> str:
    return ENVIRONMENT.from_string(template).render(js_value(variables))


def _render_object(value: Any, variables: dict[str, Any]) -> Any:
    """renderVarsInObject: every string rendered with the vars."""
    if isinstance(value, str):
        return _render(value, variables)
    if isinstance(value, list):
        return [_render_object(item, variables) for item in value]
    if isinstance(value, dict):
        return {key: _render_object(item, variables) for key, item in value.items()}
    return value


# ---- the body -------------------------------------------------------------------------------


class Passthrough(NamedTuple):
    """config.passthrough as callGemini reads it: the fields sent as written over the body, and
    the service tier and tools it takes out to merge with the config's own."""

    fields: dict[str, Any]
    service_tier: Any
    tools: Any


def gemini_body(model: str, messages: Any, config: dict[str, Any], vertex: bool = False) -> dict[str, Any]:
    """callGemini's body. `config` is the provider's and prompt's config, prepared
    (prepare_config) for a candidate, as written for a judge."""
    _refuse_unread_files(config)
    contents, message_system = _contents(messages)
    system = _system_instruction_with_messages(config.get("systemInstruction"), message_system)
    tool_config = _tool_config(config)
    tools_disabled = ((tool_config or {}).get("functionCallingConfig") or {}).get("mode") == "NONE"
    tools = _configured_tools(config.get("tools"))
    if tools_disabled:
        tools = _without_function_declarations(tools)
    passthrough = _passthrough(config)
    tools = [*tools, *_passthrough_tools(passthrough.tools, tools_disabled)]
    body: dict[str, Any] = {"contents": contents, "generationConfig": _generation_config(config, vertex)}
    safety_settings = _safety_settings(config.get("safetySettings"))
    if safety_settings is not None:
        body["safetySettings"] = safety_settings
    # Each field is sent only when promptfoo's body has it (a truthy value), in promptfoo's order.
    optional_fields = {
        "toolConfig": tool_config,
        "tools": tools,
        "systemInstruction" if vertex else "system_instruction": system,
        "serviceTier" if vertex else "service_tier": _service_tier(vertex, passthrough.service_tier),
    }
    body.update({key: value for key, value in optional_fields.items() if value})
    body.update(passthrough.fields)
    if vertex:
        body.update(_model_armor(config.get("modelArmor")))
    body["generationConfig"] = _with_response_schema(
        _without_deprecated(model, body["generationConfig"]), config.get("responseSchema")
    )
    return body


def _refuse_unread_files(config: dict[str, Any]) -> None:
    """A judge's config is not prepared: a `file://` left in it is one the inspector did not read."""
    for key in ("systemInstruction", "tools", "responseSchema"):
        value = config.get(key)
        if _is_file(value) or (key == "tools" and isinstance(value, list) and any(map(_is_file, value))):
            raise InputError(f"the judge's Gemini `{key}` is a file the inspector does not read for a judge")


def _system_instruction_with_messages(
    instruction: Any, message_system: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The config's system instruction, the prompt's system messages appended as parts."""
    system = config_instruction(instruction)
    if not message_system:
        return system
    return {"parts": [*(system["parts"] if system is not None else []), *message_system]}


def _passthrough(config: dict[str, Any]) -> Passthrough:
    """config.passthrough without the keys callGemini reads itself: its service tier (either
    spelling, over the config's service_tier), its tools, its tool config (in _tool_config)."""
    fields = dict(config["passthrough"]) if isinstance(config.get("passthrough"), dict) else {}
    snake_tier = fields.pop("service_tier", None)
    camel_tier = fields.pop("serviceTier", None)
    tools = fields.pop("tools", None)
    fields.pop("toolConfig", None)
    fields.pop("tool_config", None)
    tier = next((tier for tier in (snake_tier, camel_tier) if tier is not None), config.get("service_tier"))
    return Passthrough(fields, tier, tools)


def _passthrough_tools(tools: Any, tools_disabled: bool) -> list[Any]:
    """The passthrough's tools, added after the config's: one tool or a list."""
    if tools is None:
        return []
    if tools_disabled:
        return _without_function_declarations(tools)
    return tools if isinstance(tools, list) else [tools]


def _generation_config(config: dict[str, Any], vertex: bool) -> dict[str, Any]:
    """The config's sampling keys this API reads, then config.generationConfig over them."""
    generation = {key: config[key] for key in (VERTEX_GENERATION if vertex else GENERATION) if key in config}
    if isinstance(config.get("generationConfig"), dict):
        generation.update(config["generationConfig"])
    return generation


def _safety_settings(settings: Any) -> list[dict[str, Any]] | None:
    """None when promptfoo sends no safetySettings (an empty list is sent: JavaScript's [] is truthy)."""
    if not (_js_truthy(settings) and isinstance(settings, list)):
        return None
    return [_safety_setting(item) for item in settings]


def _model_armor(armor: Any) -> dict[str, Any]:
    """Vertex's Model Armor templates, as the body's model_armor_config (absent without one)."""
    armor = armor if isinstance(armor, dict) else {}
    names = {
        "prompt_template_name": armor.get("promptTemplate"),
        "response_template_name": armor.get("responseTemplate"),
    }
    present = {name: template for name, template in names.items() if template}
    return {"model_armor_config": present} if present else {}


def _with_response_schema(generation: Any, schema: Any) -> Any:
    """config.responseSchema as the generation config's response_schema, with JSON output."""
    if not schema:
        return generation
    if not isinstance(generation, dict):
        raise InputError("promptfoo fails a `responseSchema` with a generationConfig that is not an object")
    if generation.get("response_schema"):
        raise InputError("`responseSchema` provided but `generationConfig.response_schema` already set")
    return {**generation, "response_schema": schema, "response_mime_type": "application/json"}


def config_instruction(instruction: Any) -> dict[str, Any] | None:
    """A judge's (or a prepared) systemInstruction: text that is JSON is parsed (loadFile), text
    is one part; nothing rendered (promptfoo gives a judge no vars)."""
    if not instruction:
        return None
    if isinstance(instruction, str):
        loaded = _load_file(instruction, _no_files)
        instruction = {"parts": [{"text": loaded}]} if isinstance(loaded, str) else loaded
    if not (isinstance(instruction, dict) and isinstance(instruction.get("parts"), list)):
        raise InputError("promptfoo fails a Gemini `systemInstruction` that has no `parts` list")
    return instruction


def _no_files(reference: str) -> Any:
    raise InputError(f"{reference} is not read here")


def _service_tier(vertex: bool, tier: Any) -> Any:
    """normalizeGoogleServiceTier: AI Studio takes the lower-case name, Vertex SERVICE_TIER_*."""
    if not isinstance(tier, str):
        return None
    normalized = re.sub(r"^service_tier_", "", tier.lower())
    if normalized not in ("standard", "priority", "flex"):
        return tier
    return f"SERVICE_TIER_{normalized.upper()}" if vertex else normalized


def _safety_setting(item: Any) -> dict[str, Any]:
    item = item if isinstance(item, dict) else {}
    setting = {"category": item["category"]} if item.get("category") is not None else {}
    return {**setting, "threshold": item.get("threshold") or item.get("probability") or ""}


def _without_deprecated(model: str, generation: Any) -> Any:
    """removeDeprecatedGeminiGenerationParams."""
    if not (model.startswith(GEMINI_FLASH) or model in GEMINI_FLASH_NAMES) or not isinstance(
        generation, dict
    ):
        return generation
    kept = {key: value for key, value in generation.items() if key not in GEMINI_SAMPLING}
    if model.startswith(THINKING_LEVEL_ONLY) or model == "gemini-flash-latest":
        for thinking in (kept.get("thinkingConfig"), kept.get("thinking_config")):
            thinking = thinking if isinstance(thinking, dict) else {}
            if "thinkingBudget" in thinking or "thinking_budget" in thinking:
                raise InputError(f"promptfoo fails this: {model} does not support thinkingBudget")
            level = thinking.get("thinkingLevel", thinking.get("thinking_level"))
            if isinstance(level, str) and level.upper() == "MINIMAL":
                raise InputError(f"promptfoo fails this: {model} does not support MINIMAL thinking")
    return kept


def _js_truthy(value: Any) -> bool:
    return value is not None and value is not False and value != 0 and value != ""


# ---- contents ----


def _contents(messages: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """maybeCoerceToGeminiFormat of promptfoo's chat messages: `assistant` is `model`, system
    messages are gathered into the system instruction (a prompt of only system messages is sent
    as one user content)."""
    if not (
        isinstance(messages, list)
        and messages
        and all(isinstance(item, dict) and isinstance(item.get("content"), str) for item in messages)
    ):
        raise InputError("the inspector builds Gemini contents from chat messages with text content only")
    contents: list[dict[str, Any]] = []
    system: list[dict[str, Any]] = []
    for item in messages:
        role = "model" if item.get("role") == "assistant" else item.get("role")
        if any(BASE64_LINE.match(line.strip()) for line in item["content"].split("\n")):
            raise InputError(
                "a line of base64 in a Gemini prompt may be sent as media by promptfoo; not built"
            )
        if role == "system":
            system.append({"text": item["content"]})
        elif role in ("user", "model", None):
            contents.append({**({"role": role} if role else {}), "parts": [{"text": item["content"]}]})
        else:
            raise InputError(f"promptfoo sends a Gemini content of role {role!r}, which Gemini refuses")
    if not contents:
        return [{"role": "user", "parts": system}], []
    return contents, system


# ---- tools and tool config ----


def _configured_tools(tools: Any) -> list[Any]:
    """getAllTools without MCP: an OpenAI-style list converted (transformTools), a single
    object made a list, every tool normalised (normalizeTools)."""
    if isinstance(tools, list):
        return normalize_tools(_openai_tools_to_google(tools) if _openai_tools(tools) else tools)
    return normalize_tools([tools]) if _js_truthy(tools) else []


def _openai_tools(tools: list[Any]) -> bool:
    first = tools[0] if tools else None
    return (
        isinstance(first, dict)
        and first.get("type") == "function"
        and isinstance(first.get("function"), dict)
        and isinstance(first["function"].get("name"), str)
    )


def _openai_tools_to_google(tools: list[Any]) -> list[dict[str, Any]]:
    declarations = []
    for tool in tools:
        function = tool.get("function") or {}
        declaration = {"name": function.get("name")}
        if _js_truthy(function.get("description")):
            declaration["description"] = function["description"]
        if _js_truthy(function.get("parameters")) and isinstance(function["parameters"], dict):
            declaration["parameters"] = _sanitize_openai_schema(function["parameters"])
        declarations.append(declaration)
    return [{"functionDeclarations": declarations}]


def _sanitize_openai_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """sanitizeSchemaForGoogle: upper-case types, JSON-schema-only keys dropped."""
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key in OPENAI_SCHEMA_DROPPED:
            continue
        if key == "type" and isinstance(value, str):
            result[key] = value.upper()
        elif key == "properties" and isinstance(value, dict):
            result[key] = {
                name: _sanitize_openai_schema(item) if isinstance(item, dict) else item
                for name, item in value.items()
            }
        elif key == "items" and isinstance(value, dict):
            result[key] = _sanitize_openai_schema(value)
        else:
            result[key] = value
    return result


def normalize_tools(tools: list[Any]) -> list[Any]:
    """normalizeTools: snake_case tool keys given their camelCase names (function_declarations
    merged into functionDeclarations), each declaration's parameters sanitised for Gemini."""
    normalized = []
    for tool in tools:
        if not isinstance(tool, dict):
            normalized.append(tool)
            continue
        item = dict(tool)
        if _js_truthy(item.get("function_declarations")):
            names = {declaration.get("name") for declaration in item.get("functionDeclarations") or []}
            item["functionDeclarations"] = [
                *(item.get("functionDeclarations") or []),
                *(d for d in item["function_declarations"] if d.get("name") not in names),
            ]
        item.pop("function_declarations", None)
        for snake, camel in (
            ("google_search", "googleSearch"),
            ("code_execution", "codeExecution"),
            ("google_search_retrieval", "googleSearchRetrieval"),
        ):
            if _js_truthy(tool.get(snake)) and not _js_truthy(item.get(camel)):
                item[camel] = tool[snake]
        if _js_truthy(item.get("functionDeclarations")):
            item["functionDeclarations"] = [_declaration(d) for d in item["functionDeclarations"]]
        normalized.append(item)
    return normalized


def _declaration(declaration: Any) -> Any:
    if not isinstance(declaration, dict):
        return declaration
    # promptfoo writes `parameters: undefined` for a declaration without them: JSON leaves it out.
    result = {key: value for key, value in declaration.items() if key != "parameters"}
    if _js_truthy(declaration.get("parameters")):
        result["parameters"] = sanitize_schema(declaration["parameters"])
    return result


def sanitize_schema(schema: Any) -> Any:
    """sanitizeSchemaForGemini."""
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in DECLARATION_SCHEMA_KEYS:
            continue
        if key == "type" and isinstance(value, str):
            result[key] = DECLARATION_TYPES.get(value.lower(), value.upper())
        elif key == "properties" and isinstance(value, dict):
            result[key] = {
                name: sanitize_schema(item) if isinstance(item, dict) else item
                for name, item in value.items()
            }
        elif key == "items" and isinstance(value, dict):
            result[key] = sanitize_schema(value)
        else:
            result[key] = value
    return result


def _without_function_declarations(tools: Any) -> list[Any]:
    """removeGoogleFunctionDeclarations: with function calling off, a tool that is only
    function declarations is dropped, the others lose them."""
    kept = []
    for tool in tools if isinstance(tools, list) else [tools]:
        if not isinstance(tool, dict):
            continue
        rest = {
            key: value
            for key, value in tool.items()
            if key not in ("functionDeclarations", "function_declarations")
        }
        if (tool.get("functionDeclarations") or tool.get("function_declarations")) and not rest:
            continue
        kept.append(rest)
    return kept


def _tool_config(config: dict[str, Any]) -> dict[str, Any] | None:
    """resolveGoogleToolConfig: tool_choice (OpenAI's, converted), then toolConfig or tool_config,
    then the passthrough's, merged (their functionCallingConfig merged too)."""
    choice = _tool_choice(config.get("tool_choice"))
    passthrough = config["passthrough"] if isinstance(config.get("passthrough"), dict) else {}
    configs = [
        choice if isinstance(choice, dict) else None,
        _explicit_tool_config(config),
        _explicit_tool_config(passthrough),
    ]
    merged: dict[str, Any] = {}
    calling: dict[str, Any] = {}
    for item in configs:
        if item:
            merged.update(item)
            if isinstance(item.get("functionCallingConfig"), dict):
                calling.update(item["functionCallingConfig"])
    if calling:
        merged["functionCallingConfig"] = calling
    return merged or None


def _tool_choice(choice: Any) -> Any:
    """transformToolChoice to Google: OpenAI's choices converted, any other as written."""
    if isinstance(choice, str) and choice in ("auto", "none", "required"):
        mode = {"auto": "AUTO", "none": "NONE", "required": "ANY"}[choice]
        return {"functionCallingConfig": {"mode": mode}}
    if (
        isinstance(choice, dict)
        and choice.get("type") == "function"
        and isinstance(choice.get("function"), dict)
        and isinstance(choice["function"].get("name"), str)
    ):
        return {
            "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [choice["function"]["name"]]}
        }
    return choice


def _explicit_tool_config(config: dict[str, Any]) -> dict[str, Any] | None:
    if _js_truthy(config.get("toolConfig")):
        return _camel_tool_config(config["toolConfig"])
    if _js_truthy(config.get("tool_config")):
        return _snake_tool_config(config["tool_config"])
    return None


def _tool_mode(mode: Any) -> str | None:
    return mode.upper() if isinstance(mode, str) and mode.upper() in TOOL_MODES else None


def _camel_tool_config(config: Any) -> dict[str, Any] | None:
    if not isinstance(config, dict):
        return None
    result = {key: value for key, value in config.items() if key != "functionCallingConfig"}
    raw = config.get("functionCallingConfig")
    if raw and isinstance(raw, dict):
        calling = {key: value for key, value in raw.items() if key not in ("mode", "allowedFunctionNames")}
        mode = _tool_mode(raw.get("mode"))
        if mode:
            calling["mode"] = mode
        if raw.get("allowedFunctionNames"):
            calling["allowedFunctionNames"] = raw["allowedFunctionNames"]
        if calling:
            result["functionCallingConfig"] = calling
    return result or None


def _snake_tool_config(config: Any) -> dict[str, Any] | None:
    if not isinstance(config, dict):
        return None
    result: dict[str, Any] = {}
    retrieval = config.get("retrieval_config")
    if _js_truthy(retrieval):
        retrieval = retrieval if isinstance(retrieval, dict) else {}
        result["retrievalConfig"] = {
            **({"latLng": retrieval["lat_lng"]} if _js_truthy(retrieval.get("lat_lng")) else {}),
            **(
                {"languageCode": retrieval["language_code"]}
                if _js_truthy(retrieval.get("language_code"))
                else {}
            ),
        }
    if "include_server_side_tool_invocations" in config:
        result["includeServerSideToolInvocations"] = config["include_server_side_tool_invocations"]
    raw = config.get("function_calling_config")
    if raw and isinstance(raw, dict):
        calling: dict[str, Any] = {}
        mode = _tool_mode(raw.get("mode"))
        if mode:
            calling["mode"] = mode
        if raw.get("allowed_function_names"):
            calling["allowedFunctionNames"] = raw["allowed_function_names"]
        if "stream_function_call_arguments" in raw:
            calling["streamFunctionCallArguments"] = raw["stream_function_call_arguments"]
        if calling:
            result["functionCallingConfig"] = calling
    return result or None
