"""The providers of a promptfoo config and the request body each sends (promptfoo's
OpenAiChatCompletionProvider.getOpenAiBody, OpenAiResponsesProvider.getOpenAiBody,
AnthropicMessagesProvider.callApi and AIStudioChatProvider.callGemini), from its `config` keys
that shape the request.

Only what the body is made of is read: keys that are the provider's address or secrets (apiKey,
apiBaseUrl, apiHost, headers) are not part of it. A provider promptfoo reaches by running code or
through an API the inspector does not model is named, and its evaluations are not rendered.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import InputError
from ..yaml_lines import Node
from . import bedrock, claude_models, vertex
from .anthropic import anthropic_messages
from .gemini import config_instruction, gemini_body
from .source import Source

OPENAI_CHAT = "openai-chat"
OPENAI_RESPONSES = "openai-responses"
ANTHROPIC = "anthropic"
GEMINI = "gemini"
# Gemini on Vertex AI (vertex:<model>): VertexChatProvider.callGeminiApi, a Gemini body spelled
# a little differently.
VERTEX_GEMINI = "vertex-gemini"
GEMINI_APIS = (GEMINI, VERTEX_GEMINI)
# Claude, Llama and PaLM on Vertex AI (VertexChatProvider.callClaudeApi, callLlamaApi,
# callPalm2Api): an Anthropic Messages body, an OpenAI Chat body and PaLM's `:predict` body
# (vertex.py).
VERTEX_CLAUDE = "vertex-claude"
VERTEX_LLAMA = "vertex-llama"
VERTEX_PALM = "vertex-palm"
BEDROCK_CONVERSE = "bedrock-converse"
# promptfoo's echo provider: sends nothing and answers with the rendered prompt.
ECHO = "echo"
BEDROCK_INVOKE = "bedrock-invoke"
# openai:<kind>:<model> ids whose API is not a chat or responses request.
OPENAI_OTHER = (
    "assistant",
    "embedding",
    "embeddings",
    "completion",
    "image",
    "realtime",
    "moderation",
    "transcription",
    "video",
    "agents",
    "chatkit",
    "codex-sdk",
    "codex",
)
ANTHROPIC_DEFAULT_MAX_TOKENS = 1024
# google:<model> models AIStudioChatProvider sends to generateContent (the others go to the
# retired generateMessage API).
GEMINI_MODEL_PREFIXES = ("gemini", "gemma", "codegemma", "paligemma")
# Config keys that shape a Gemini request in ways the inspector does not build: named, not
# guessed (`assistant` turns sent as they are, tools from an MCP server).
GEMINI_NOT_BUILT = ("useAssistantRole", "mcp")
VERTEX_NOT_BUILT = GEMINI_NOT_BUILT
# Config keys that shape a Bedrock Converse request in ways the inspector does not build.
CONVERSE_NOT_BUILT = (
    "functionToolCallbacks",
    "additionalModelResponseFieldPaths",
    "guardrailIdentifier",
    "serviceTier",
    "mcp",
)
# Bedrock models promptfoo sends to another API whatever the id says (getBedrockTextRoute).
BEDROCK_OTHER_ROUTE = re.compile(r"^(?:openai\.(?!gpt-oss)|xai\.grok-)|anthropic\.claude-mythos-5$")
# The Grok inference profiles Bedrock serves itself; promptfoo refuses other prefixed Grok ids.
BEDROCK_GROK_PROFILES = ("us.xai.grok-4.6", "global.xai.grok-4.6")
# bedrock:<kind>:... providers that are not InvokeModel (Mantle, Responses, Messages, media,
# agents, embeddings, knowledge bases).
BEDROCK_OTHER_KINDS = (
    "messages",
    "responses",
    "mantle",
    "nova-sonic",
    "video",
    "agents",
    "embeddings",
    "embedding",
    "kb",
    "knowledge-base",
)


@dataclass
class Provider:
    id: str
    label: str | None
    config: dict[str, Any]
    prompts: list[str] | None  # the prompt labels this provider runs (providers[].prompts)
    line: int
    api: str | None = None  # openai-chat, openai-responses, anthropic; None: not rendered
    model: str = ""
    unsupported: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """getProviderIdentifier: the label when there is one."""
        return self.label or self.id


def read_providers(source: Source, node: Node | None) -> list[Provider]:
    if node is None:
        raise InputError("promptfoo needs `providers`", source.path, 1)
    value = node.value
    if isinstance(value, str):
        return [_canonical(_provider(value, None, {}, None, node.start_line))]
    if not isinstance(value, list):
        raise InputError("`providers` must be a provider id or a list", source.path, node.start_line)
    # combineConfigs: a provider written twice (the same string, or the same object as JSON) is
    # one provider.
    providers = []
    seen: set[str] = set()
    for item in value:
        plain = item.plain()
        key = plain if isinstance(plain, str) else json.dumps(plain, separators=(",", ":"))
        if key not in seen:
            seen.add(key)
            providers.append(_entry(source, item))
    return providers


def _entry(source: Source, item: Node) -> Provider:
    plain = item.plain()
    if isinstance(plain, str):
        return _canonical(_provider(plain, None, {}, None, item.start_line))
    if not isinstance(plain, dict):
        raise InputError("a provider is an id or an object", source.path, item.start_line)
    if isinstance(plain.get("id"), str):
        return _provider(
            plain["id"], plain.get("label"), plain.get("config") or {}, plain.get("prompts"), item.start_line
        )
    if len(plain) == 1:
        original, options = next(iter(plain.items()))
        options = options if isinstance(options, dict) else {}
        provider = _provider(
            options.get("id") or original,
            options.get("label"),
            options.get("config") or {},
            options.get("prompts"),
            item.start_line,
        )
        return provider if options.get("id") else _canonical(provider)
    raise InputError("a provider object needs an `id`", source.path, item.start_line)


def _provider(provider_id: str, label: Any, config: dict[str, Any], prompts: Any, line: int) -> Provider:
    provider = Provider(
        provider_id,
        label if isinstance(label, str) else None,
        config,
        prompts if isinstance(prompts, list) else None,
        line,
    )
    api, model = api_of(provider_id)
    provider.unsupported = _why_not_built(provider_id, api, model, config)
    if provider.unsupported is None:
        provider.api, provider.model = api, model
    return provider


def _why_not_built(provider_id: str, api: str | None, model: str, config: dict[str, Any]) -> str | None:
    """Why the inspector does not build this provider's request (the first reason that holds), or
    None when it does."""
    if api is None:
        return _not_a_built_provider(provider_id)
    not_built = [key for key in _NOT_BUILT.get(api, ()) if key in config]
    if not_built:
        return (
            f"the inspector does not build a {_API_NAMES.get(api, api)} request with "
            f"{', '.join(not_built)} in its config"
        )
    if api in GEMINI_APIS and "-tts" in model:
        return f"{model} is a speech model, whose request the inspector does not build"
    if api == BEDROCK_INVOKE:
        return bedrock.not_invoked(model, config)
    return None


def _not_a_built_provider(provider_id: str) -> str:
    if provider_id.startswith("vertex:"):
        return (
            f"provider {provider_id!r} is not one whose request the inspector builds: on Vertex, "
            f"Gemini, Claude, Llama and PaLM models are (live, video and embedding models are not)"
        )
    return (
        f"provider {provider_id!r} is not one whose request the inspector "
        f"builds (OpenAI Chat and Responses, Anthropic Messages, Gemini, Bedrock Converse and InvokeModel)"
    )


def provider_from(provider_id: str, config: dict[str, Any]) -> Provider:
    """A provider written elsewhere than `providers` (a judge's), with why it is not built."""
    return _provider(provider_id, None, config, None, 0)


def _canonical(provider: Provider) -> Provider:
    """A provider named only by a string answers promptfoo's `id()` with its class's own form
    (`openai:chat:gpt-4o` is `openai:gpt-4o`); an `id` written in an object is kept as written."""
    if provider.api in (OPENAI_CHAT, OPENAI_RESPONSES):
        provider.id = f"openai:{provider.model}"
    elif provider.api == ANTHROPIC:
        provider.id = f"anthropic:{provider.model}"
    elif provider.api == BEDROCK_INVOKE:
        provider.id = f"bedrock:{provider.model}"
    elif provider.api in (VERTEX_GEMINI, VERTEX_CLAUDE, VERTEX_LLAMA, VERTEX_PALM):
        provider.id = f"vertex:{provider.model}"  # `vertex:chat:<model>` too (VertexChatProvider.id)
    return provider


def api_of(provider_id: str) -> tuple[str | None, str]:
    """The API a provider id sends its request to and the model it names, read by the id's first
    part as promptfoo's provider registry reads it; (None, "") when the inspector does not build
    that request."""
    if provider_id == ECHO:
        return ECHO, ""
    parts = provider_id.split(":")
    read = _API_BY_FIRST_PART.get(parts[0])
    return read(parts) if read is not None and len(parts) >= 2 else (None, "")


# openai:<kind>:<model> ids that name their API.
_OPENAI_KINDS = {"chat": OPENAI_CHAT, "responses": OPENAI_RESPONSES}


def _openai_api(parts: list[str]) -> tuple[str | None, str]:
    """openai:chat:<model> and openai:responses:<model> (gpt-4.1-mini when none is named), and
    openai:<model>, Chat or Responses by the model."""
    if parts[1] in _OPENAI_KINDS:
        return _OPENAI_KINDS[parts[1]], ":".join(parts[2:]) or "gpt-4.1-mini"
    if parts[1] in OPENAI_OTHER:
        return None, ""
    model = ":".join(parts[1:])
    return (OPENAI_RESPONSES if _responses_by_default(parts[1]) else OPENAI_CHAT), model


def _anthropic_api(parts: list[str]) -> tuple[str | None, str]:
    """anthropic:messages:<model>; Anthropic's other kinds are not built."""
    if len(parts) >= 3 and parts[1] == "messages":
        return ANTHROPIC, ":".join(parts[2:])
    return None, ""


def _google_api(parts: list[str]) -> tuple[str | None, str]:
    return (GEMINI, parts[1]) if _gemini_model(parts) else (None, "")


def _bedrock_api(parts: list[str]) -> tuple[str | None, str]:
    """bedrock:converse:<model> is Converse; the other `bedrock:` ids are InvokeModel's, or
    another Bedrock API's (not built)."""
    if parts[1] == "converse" and len(parts) >= 3:
        model = ":".join(parts[2:])
        return (None, "") if _bedrock_elsewhere(model) else (BEDROCK_CONVERSE, model)
    invoked = _bedrock_invoke_model(parts)
    return (None, "") if invoked is None else (BEDROCK_INVOKE, invoked)


def _responses_by_default(model: str) -> bool:
    """shouldDefaultToOpenAiResponses: `openai:<model>` is a Responses provider from GPT-5.6 on."""
    if re.match(r"^gpt-35(?:-|$)", model):
        return False
    version = re.match(r"^gpt-(\d+)(?:\.(\d+))?(?:-|$)", model)
    if version is None:
        return False
    major, minor = int(version.group(1)), int(version.group(2) or 0)
    return major > 5 or (major == 5 and minor >= 6)


def _vertex_api(parts: list[str]) -> tuple[str | None, str]:
    """vertex:<model> and vertex:chat:<model> as promptfoo's google family reads them: by the
    model's name, Claude (callClaudeApi), Gemini (callGeminiApi), Llama (callLlamaApi), and any
    other name PaLM (callPalm2Api)."""
    if parts[1] in ("live", "video", "embedding", "embeddings"):
        return None, ""
    model = ":".join(parts[2:] if parts[1] == "chat" else parts[1:])
    if "claude" in model:
        return VERTEX_CLAUDE, model
    if "gemini" in model:
        return (None, "") if "omni" in model else (VERTEX_GEMINI, model)
    return (VERTEX_LLAMA, model) if "llama" in model else (VERTEX_PALM, model)


def _bedrock_invoke_model(parts: list[str]) -> str | None:
    """The model a `bedrock:` id sends to InvokeModel (awsProviderFactories): `bedrock:<model>`
    and `bedrock:completion:<model>`; None for Bedrock's other APIs."""
    kind, rest = parts[1], ":".join(parts[2:])
    if kind in BEDROCK_OTHER_KINDS or any(
        name in kind or name in rest for name in ("luma.ray", "amazon.nova-reel", "amazon.nova-sonic")
    ):
        return None
    model = rest if kind == "completion" else ":".join(parts[1:])
    return None if not model or _bedrock_elsewhere(model) else model


def _bedrock_elsewhere(model: str) -> bool:
    """A model promptfoo sends to Bedrock's Responses or Messages API, or refuses."""
    return bool(BEDROCK_OTHER_ROUTE.search(model)) or (
        ".xai." in model and model not in BEDROCK_GROK_PROFILES
    )


def _gemini_model(parts: list[str]) -> bool:
    """google:<model> as promptfoo's google factory reads it: AIStudioChatProvider, not its
    image or interactions providers."""
    return (
        parts[0] == "google"
        and len(parts) == 2
        and parts[1].startswith(GEMINI_MODEL_PREFIXES)
        and "-image" not in parts[1]
        and "omni" not in parts[1]
    )


# The reader of each provider family's ids, by the id's first part.
_API_BY_FIRST_PART: dict[str, Callable[[list[str]], tuple[str | None, str]]] = {
    "openai": _openai_api,
    "anthropic": _anthropic_api,
    "google": _google_api,
    "vertex": _vertex_api,
    "bedrock": _bedrock_api,
}


# ---- OpenAI ---------------------------------------------------------------------------------


def _openai_model_kind(model: str) -> tuple[bool, bool]:
    """(a reasoning model, a GPT-5 model) as promptfoo's OpenAI providers decide."""
    model = re.sub(r"(^|/)ft:", r"\1", model)
    gpt5 = model.startswith("gpt-5") or "/gpt-5" in model
    astra = bool(re.search(r"(?:^|[/-])gpt-6-astra(?:-|$)", model))
    reasoning = (
        model.startswith(("o1", "o3", "o4"))
        or any(f"/{kind}" in model for kind in ("o1", "o3", "o4"))
        or bool(re.search(r"(^|/)gpt-daybreak-(?:blue|red)-latest$", model))
        or gpt5
        or astra
    )
    return reasoning, gpt5


def openai_chat_body(model: str, messages: Any, config: dict[str, Any]) -> dict[str, Any]:
    reasoning, gpt5 = _openai_model_kind(model)
    body: dict[str, Any] = {"model": model, "messages": messages}
    if config.get("seed") is not None:
        body["seed"] = config["seed"]
    if not (reasoning or gpt5):
        body["max_tokens"] = _given(config, "max_tokens", 1024)
    if reasoning and config.get("max_completion_tokens") is not None:
        body["max_completion_tokens"] = config["max_completion_tokens"]
    if reasoning and config.get("reasoning_effort"):
        body["reasoning_effort"] = config["reasoning_effort"]
    if not reasoning:
        body["temperature"] = _given(config, "temperature", 0)
    _chat_extras(body, config)
    return body


def _chat_extras(body: dict[str, Any], config: dict[str, Any]) -> None:
    """The rest of getOpenAiBody's fields, in its order."""
    _given_keys(body, config, ("top_p", "presence_penalty", "frequency_penalty"))
    _truthy(
        body,
        config,
        ("functions", "function_call", "tools", "tool_choice", "tool_resources", "response_format", "stop"),
    )
    _given_keys(body, config, ("prompt_cache_key", "prompt_cache_options", "prompt_cache_retention"))
    if isinstance(config.get("passthrough"), dict):
        body.update(config["passthrough"])
    _truthy(body, config, ("service_tier", "user", "metadata"))
    _given_keys(body, config, ("store",))
    if not body.get("tools"):
        body.pop("tools", None)


def _given_keys(body: dict[str, Any], config: dict[str, Any], keys: tuple[str, ...]) -> None:
    for key in keys:
        if config.get(key) is not None:
            body[key] = config[key]


def _given(config: dict[str, Any], key: str, default: Any) -> Any:
    value = config.get(key)
    return default if value is None else value


def _truthy(body: dict[str, Any], config: dict[str, Any], keys: tuple[str, ...]) -> None:
    for key in keys:
        if config.get(key):
            body[key] = config[key]


def openai_responses_body(model: str, prompt_text: str, config: dict[str, Any]) -> dict[str, Any]:
    """OpenAiResponsesProvider.getOpenAiBody: a prompt that is a JSON array is the input items,
    any other is the input string (a `- role:` prompt is not read as chat here)."""
    reasoning, gpt5 = _openai_model_kind(model)
    try:
        parsed = json.loads(prompt_text)
    except ValueError:
        parsed = None
    body: dict[str, Any] = {"model": model, "input": parsed if isinstance(parsed, list) else prompt_text}
    max_tokens = config.get("max_output_tokens")
    if max_tokens is not None or not reasoning:
        body["max_output_tokens"] = 1024 if max_tokens is None else max_tokens
    effort = _reasoning_effort(config) if reasoning else None
    if effort:
        body["reasoning"] = {"effort": effort}
    if not reasoning:
        body["temperature"] = _given(config, "temperature", 0)
    _truthy(body, config, ("instructions",))
    if (not effort or effort == "none") and config.get("top_p") is not None:
        body["top_p"] = config["top_p"]
    body["text"] = _text_format(config.get("response_format"), gpt5, config.get("verbosity"))
    _responses_extras(body, config)
    if reasoning and isinstance(config.get("reasoning"), dict):
        body["reasoning"] = {**body.get("reasoning", {}), **config["reasoning"]}
    return body


def _reasoning_effort(config: dict[str, Any]) -> Any:
    reasoning = config.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, dict) else None
    return effort or config.get("reasoning_effort")


def _responses_extras(body: dict[str, Any], config: dict[str, Any]) -> None:
    tools = config.get("tools")
    if isinstance(tools, list):
        body["tools"] = [_responses_tool(tool) for tool in tools]
    choice = config.get("tool_choice")
    if (
        isinstance(choice, dict)
        and choice.get("type") == "function"
        and isinstance(choice.get("function"), dict)
        and choice["function"].get("name")
    ):
        choice = {"type": "function", "name": choice["function"]["name"]}
    if choice:
        body["tool_choice"] = choice
    _truthy(
        body,
        config,
        ("max_tool_calls", "previous_response_id", "truncation", "metadata", "user", "service_tier"),
    )
    for key in ("parallel_tool_calls", "store"):
        if key in config:
            body[key] = bool(config[key])
    if isinstance(config.get("passthrough"), dict):
        body.update(config["passthrough"])


def _responses_tool(tool: Any) -> Any:
    """A chat-style function tool flattened to the Responses shape."""
    if not (
        isinstance(tool, dict) and tool.get("type") == "function" and isinstance(tool.get("function"), dict)
    ):
        return tool
    return {**{key: value for key, value in tool.items() if key != "function"}, **tool["function"]}


def _text_format(response_format: Any, gpt5: bool, verbosity: Any) -> dict[str, Any]:
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind == "json_object":
        text: dict[str, Any] = {"format": {"type": "json_object"}}
    elif kind == "json_schema":
        schema = response_format.get("schema") or (response_format.get("json_schema") or {}).get("schema")
        name = (
            (response_format.get("json_schema") or {}).get("name")
            or response_format.get("name")
            or "response_schema"
        )
        text = {"format": {"type": "json_schema", "name": name, "schema": schema, "strict": True}}
    else:
        text = {"format": {"type": "text"}}
    if gpt5 and verbosity:
        text["verbosity"] = verbosity
    return text


# ---- Anthropic ------------------------------------------------------------------------------


def anthropic_body(
    model: str, rendered_text: str, config: dict[str, Any], env: dict[str, Any]
) -> dict[str, Any]:
    """AnthropicMessagesProvider.callApi: parseMessages of the rendered prompt; sampling, thinking,
    a forced tool choice and the default max_tokens as promptfoo's table of Claude models says."""
    system, messages = anthropic_messages(rendered_text)
    rules = claude_models.rules_of(model, claude_models.anthropic_guesses(config, env))
    requested = config.get("thinking")
    if requested is None:
        requested = claude_models.thinking_in_prompt(rendered_text)
    thinking = claude_models.thinking_of(rules, requested, config.get("effort"))
    default_max = 2 * ANTHROPIC_DEFAULT_MAX_TOKENS if thinking.spends_tokens else ANTHROPIC_DEFAULT_MAX_TOKENS
    body: dict[str, Any] = {"model": model}
    if system:
        body["system"] = system
    body["max_tokens"] = claude_models.max_tokens_above_budget(
        _given(config, "max_tokens", default_max), thinking.sent
    )
    body["messages"] = messages
    body["stream"] = bool(config.get("stream", False))
    body.update(_anthropic_sampling(config, rules, thinking.on))
    _truthy(body, config, ("cache_control", "service_tier", "stop_sequences", "metadata", "tools"))
    tool_choice = config.get("tool_choice")
    if tool_choice and not (_forced(tool_choice) and (rules.forced_tool_choice_refused or thinking.budgeted)):
        body["tool_choice"] = tool_choice
    if _js_truthy(thinking.sent):
        body["thinking"] = thinking.sent
    body.update(_output_config(config))
    if isinstance(config.get("extra_body"), dict):
        body.update(config["extra_body"])
    return body


def _anthropic_sampling(
    config: dict[str, Any], rules: claude_models.ClaudeRules, thinking_on: bool
) -> dict[str, Any]:
    """temperature, top_p and top_k: none for the models that drop them; with thinking on, no
    temperature nor top_k, and top_p held in [0.95, 1]; temperature and top_p together are
    refused by Anthropic, so promptfoo keeps top_p."""
    if rules.sampling_deprecated:
        return {}
    sampling: dict[str, Any] = {}
    top_p = config.get("top_p")
    if top_p is not None and thinking_on and isinstance(top_p, (int, float)):
        top_p = max(0.95, min(1, top_p))
    if top_p is None and not thinking_on:
        sampling["temperature"] = _given(config, "temperature", 0)
    if top_p is not None:
        sampling["top_p"] = top_p
    if config.get("top_k") is not None and not thinking_on:
        sampling["top_k"] = config["top_k"]
    return sampling


def _forced(tool_choice: Any) -> bool:
    return isinstance(tool_choice, dict) and tool_choice.get("type") in ("any", "tool")


def _output_config(config: dict[str, Any]) -> dict[str, Any]:
    """`output_config`: the response format and the effort, when either is given."""
    output_format, effort = config.get("output_format"), config.get("effort")
    if output_format and not isinstance(output_format, dict):
        raise InputError("the inspector reads `output_format` written in the config, not from a file")
    if not (output_format or effort):
        return {}
    return {
        "output_config": {
            **({"format": output_format} if output_format else {}),
            **({"effort": effort} if effort else {}),
        }
    }


# ---- Bedrock Converse (bedrock:converse:) ---------------------------------------------------


def converse_body(
    model: str, rendered_text: str, config: dict[str, Any], env: dict[str, Any]
) -> dict[str, Any]:
    """AwsBedrockConverseProvider.callApiInternal: parseConverseMessages of the rendered prompt,
    buildInferenceConfig (no defaults: what the config or its `env` gives; Nova 2 reasoning drops
    the sampling, and at high effort the max tokens) and buildAdditionalModelRequestFields
    (`additionalModelRequestFields`, with `thinking` and `reasoningConfig` added; the later Claude
    models' as promptfoo's table says). The model id is in the URL."""
    rules = claude_models.rules_of(model)
    system, messages = converse_messages(rendered_text)
    body: dict[str, Any] = {"messages": messages}
    if system:
        body["system"] = system
    inference = _converse_inference(config, bedrock.Env(env), rules.sampling_deprecated)
    if inference:
        body["inferenceConfig"] = inference
    tool_config = converse_tool_config(config, rules)
    if tool_config:
        body["toolConfig"] = tool_config
    fields = _additional_fields(config, rules)
    if fields:
        body["additionalModelRequestFields"] = fields
    performance = config.get("performanceConfig")
    if _js_truthy(performance):
        if not isinstance(performance, dict):
            raise InputError("`performanceConfig` must be a mapping")
        latency = performance.get("latency")  # buildPerformanceConfig: the latency only
        body["performanceConfig"] = {} if latency is None else {"latency": latency}
    return body


def converse_tool_config(config: dict[str, Any], rules: claude_models.ClaudeRules) -> dict[str, Any] | None:
    """buildToolConfig (the tools already rendered and loaded): none when the tool choice is
    `none` or there are no tools; the always-adaptive Claude models drop a forced choice."""
    choice = _first_given(config, "tool_choice", "toolChoice")
    tools = config.get("tools")
    if choice == "none" or not _js_truthy(tools) or (isinstance(tools, list) and not tools):
        return None
    if not isinstance(tools, list):
        raise InputError("promptfoo fails Bedrock Converse `tools` that are not a list of tools")
    tool_choice = _converse_tool_choice(choice) if _js_truthy(choice) else None
    if rules.always_adaptive and tool_choice and ("any" in tool_choice or "tool" in tool_choice):
        tool_choice = None
    return {"tools": _converse_tools(tools), **({"toolChoice": tool_choice} if tool_choice else {})}


def _converse_tools(tools: list[Any]) -> list[dict[str, Any]]:
    """convertToolsToConverseFormat: a list whose first tool is OpenAI's is converted as OpenAI's
    throughout; otherwise each tool by its own form (Converse, OpenAI, `parameters`, Anthropic)."""
    if _openai_tool(tools[0]):
        return [_openai_converse_tool(tool) for tool in tools]
    return [_converse_tool(tool) for tool in tools]


def _openai_tool(tool: Any) -> bool:
    function = tool.get("function") if isinstance(tool, dict) else None
    return (
        isinstance(function, dict)
        and tool.get("type") == "function"
        and isinstance(function.get("name"), str)
    )


def _openai_converse_tool(tool: Any) -> dict[str, Any]:
    """openaiToolsToBedrock: a missing description left out, missing parameters an empty object."""
    if not _openai_tool(tool):
        raise InputError(f"promptfoo fails this Bedrock Converse tool among OpenAI tools: {_shown(tool)}")
    function = tool["function"]
    parameters = function.get("parameters")
    spec = {
        "name": function["name"],
        **({"description": function["description"]} if _js_truthy(function.get("description")) else {}),
        "inputSchema": {
            "json": parameters if _js_truthy(parameters) else {"type": "object", "properties": {}}
        },
    }
    return {"toolSpec": spec}


def _converse_tool(tool: Any) -> dict[str, Any]:
    if not isinstance(tool, dict):
        raise InputError(f"promptfoo fails this Bedrock Converse tool: {_shown(tool)}")
    if _js_truthy(tool.get("toolSpec")):
        return {"toolSpec": tool["toolSpec"]}
    function = tool.get("function")
    if tool.get("type") == "function" and _js_truthy(function):
        if not isinstance(function, dict):
            raise InputError(f"promptfoo fails this Bedrock Converse tool: {_shown(tool)}")
        return _tool_spec(function.get("name"), function.get("description"), function.get("parameters"), {})
    if not _js_truthy(tool.get("name")):
        raise InputError(f"promptfoo fails this Bedrock Converse tool (no name): {_shown(tool)}")
    if "parameters" in tool and "input_schema" not in tool:
        return _tool_spec(
            tool["name"], tool.get("description"), tool["parameters"], {"type": "object", "properties": {}}
        )
    return _tool_spec(tool["name"], tool.get("description"), tool.get("input_schema"), {})


def _tool_spec(name: Any, description: Any, schema: Any, empty_schema: dict[str, Any]) -> dict[str, Any]:
    """A toolSpec as promptfoo writes it; an undefined name or description is left out when sent."""
    spec = {
        "name": name,
        "description": description,
        "inputSchema": {"json": schema if _js_truthy(schema) else empty_schema},
    }
    return {"toolSpec": {key: value for key, value in spec.items() if value is not None}}


def _converse_tool_choice(choice: Any) -> dict[str, Any]:
    """convertToolChoiceToConverseFormat: OpenAI's choices, `any`, a named `{tool: {name}}`;
    anything else is `auto`."""
    if choice == "required" or choice == "any":
        return {"any": {}}
    for named in (
        _openai_tool(choice) and choice["function"],
        isinstance(choice, dict) and choice.get("tool"),
    ):
        if isinstance(named, dict) and isinstance(named.get("name"), str):
            return {"tool": {"name": named["name"]}}
    return {"auto": {}}


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _converse_inference(
    config: dict[str, Any], env: bedrock.Env, sampling_deprecated: bool
) -> dict[str, Any]:
    reasoning = config.get("reasoningConfig")
    enabled = isinstance(reasoning, dict) and reasoning.get("type") == "enabled"
    high = isinstance(reasoning, dict) and reasoning.get("maxReasoningEffort") == "high"
    given = (
        (
            "maxTokens",
            _first_given(config, "maxTokens", "max_tokens"),
            env.int("AWS_BEDROCK_MAX_TOKENS"),
            high,
        ),
        ("temperature", config.get("temperature"), env.float("AWS_BEDROCK_TEMPERATURE"), False),
        ("topP", _first_given(config, "topP", "top_p"), env.float("AWS_BEDROCK_TOP_P"), False),
    )
    inference: dict[str, Any] = {}
    for key, value, from_env, dropped_at_high in given:
        if value is None and from_env is not bedrock.MISSING:
            value = from_env
        sampling = key != "maxTokens"
        dropped = (enabled or sampling_deprecated) if sampling else (enabled and dropped_at_high)
        if value is not None and not dropped:
            inference[key] = value
    stop = config.get("stopSequences") if _js_truthy(config.get("stopSequences")) else config.get("stop")
    if not _js_truthy(stop):
        stop = _env_stop(env)
    if _js_truthy(stop):
        inference["stopSequences"] = stop
    return inference


def _env_stop(env: bedrock.Env) -> Any:
    """AWS_BEDROCK_STOP as JSON; Converse ignores it when it is not."""
    text = env.string("AWS_BEDROCK_STOP")
    if text is bedrock.MISSING or not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _additional_fields(config: dict[str, Any], rules: claude_models.ClaudeRules) -> dict[str, Any]:
    """buildAdditionalModelRequestFields: for the Claude models that drop their sampling, the
    sampling written there is removed and thinking normalized (with the effort written there);
    `thinking` in the config is normalized with no effort."""
    given = config.get("additionalModelRequestFields")
    if given is not None and not isinstance(given, dict):
        raise InputError("`additionalModelRequestFields` must be a mapping")
    fields = dict(given or {})
    if rules.sampling_deprecated:
        for key in ("temperature", "top_p", "top_k"):
            fields.pop(key, None)
        output = fields.get("output_config")
        effort = output.get("effort") if isinstance(output, dict) else None
        thinking = claude_models.normalized_thinking(rules, fields.get("thinking"), effort)
        if thinking is None:
            fields.pop("thinking", None)
        else:
            fields["thinking"] = thinking
    if _js_truthy(config.get("thinking")):
        thinking = claude_models.normalized_thinking(rules, config["thinking"], None)
        if thinking is not None:
            fields["thinking"] = thinking
    if _js_truthy(config.get("reasoningConfig")):
        fields["reasoningConfig"] = config["reasoningConfig"]
    return fields


def _first_given(config: dict[str, Any], *keys: str) -> Any:
    return next((config[key] for key in keys if config.get(key) is not None), None)


def _js_truthy(value: Any) -> bool:
    """JavaScript's truth: an empty list or object is true."""
    return value is not None and value is not False and value != 0 and value != ""


def converse_messages(text: str) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """parseConverseMessages: a JSON chat array (text content only here), else `system:`,
    `user:` and `assistant:` lines (any case); lines that continue a turn are kept as written."""
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, list):
        return _converse_chat(parsed)
    system = None
    messages: list[dict[str, Any]] = []
    role: str | None = None
    content: list[str] = []
    for line in text.split("\n"):
        trimmed = line.strip()
        prefix = next(
            (name for name in ("system", "user", "assistant") if trimmed.lower().startswith(f"{name}:")), None
        )
        if prefix is None:
            role = role or "user"
            content.append(line)
            continue
        if role and content:
            messages.append({"role": role, "content": [{"text": "\n".join(content)}]})
        content = []
        rest = trimmed[len(prefix) + 1 :].strip()
        if prefix == "system":
            system, role = [{"text": rest}], None
        else:
            role = prefix
            content = [rest] if rest else []
    if role and content:
        messages.append({"role": role, "content": [{"text": "\n".join(content)}]})
    if not messages:
        messages.append({"role": "user", "content": [{"text": text}]})
    return system, messages


def _converse_chat(parsed: list[Any]) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    system: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    for item in parsed:
        role = item.get("role") if isinstance(item, dict) else None
        content = item.get("content") if isinstance(item, dict) else None
        if role == "system":
            text = (
                content
                if isinstance(content, str)
                else json.dumps(content, separators=(",", ":"), ensure_ascii=False)
            )
            system.append({"text": text})
        elif role in ("user", "assistant"):
            if not isinstance(content, str):
                raise InputError(
                    "the inspector builds Bedrock Converse content from text messages only "
                    "(promptfoo converts content blocks itself)"
                )
            messages.append({"role": role, "content": [{"text": content}]})
    return system or None, messages


_NOT_BUILT = {
    GEMINI: GEMINI_NOT_BUILT,
    VERTEX_GEMINI: VERTEX_NOT_BUILT,
    VERTEX_CLAUDE: vertex.CLAUDE_NOT_BUILT,
    BEDROCK_CONVERSE: CONVERSE_NOT_BUILT,
}
_API_NAMES = {
    GEMINI: "Gemini",
    VERTEX_GEMINI: "Vertex Gemini",
    VERTEX_CLAUDE: "Claude on Vertex",
    BEDROCK_CONVERSE: "Bedrock Converse",
}


def body_for(
    provider_api: str,
    model: str,
    rendered_messages: Any,
    rendered_text: str,
    config: dict[str, Any],
    env: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The body `provider_api` sends; `env` is the config's `env`, where promptfoo reads the
    Bedrock defaults (AWS_BEDROCK_MAX_TOKENS, ...)."""
    if provider_api == OPENAI_CHAT:
        return openai_chat_body(model, rendered_messages, config)
    if provider_api == OPENAI_RESPONSES:
        return openai_responses_body(model, rendered_text, config)
    if provider_api in GEMINI_APIS:
        return gemini_body(model, rendered_messages, config, vertex=provider_api == VERTEX_GEMINI)
    if provider_api == VERTEX_CLAUDE:
        prompt_text = vertex.claude_prompt_text(rendered_text, rendered_messages)
        instruction = config_instruction(config.get("systemInstruction"))
        parsed = anthropic_messages(prompt_text)
        return vertex.claude_body(model, parsed, prompt_text, config, instruction, env or {})
    if provider_api == VERTEX_LLAMA:
        return vertex.llama_body(model, rendered_messages, config)
    if provider_api == VERTEX_PALM:
        return vertex.palm_body(rendered_text, config)
    if provider_api == BEDROCK_CONVERSE:
        return converse_body(model, rendered_text, config, env or {})
    if provider_api == BEDROCK_INVOKE:
        return bedrock.invoke_body(model, rendered_text, config, env or {})
    return anthropic_body(model, rendered_text, config, env or {})
