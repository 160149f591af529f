"""The bodies promptfoo's Vertex provider sends to the models on Vertex AI that are not Gemini
(VertexChatProvider.callClaudeApi, callLlamaApi and callPalm2Api; Gemini on Vertex is gemini.py's).

Claude on Vertex is Anthropic's Messages body with `anthropic_version` in place of the model (the
model is in the URL), the system prompt from the prompt and from the config's `systemInstruction`,
and Vertex's own defaults (512 max tokens, sampling only as given). Llama on Vertex is an OpenAI
Chat body sent to Vertex's OpenAI-compatible endpoint, with Llama Guard's settings. PaLM (any
other model's name, `chat-bison`) is Vertex's `:predict` body: `instances` of PaLM's chat messages
(`author`, `content`) and `parameters` taken from the config as written.
"""

from __future__ import annotations

import json
from typing import Any

from ..js import js_truthy
from ..model import InputError
from . import claude_models
from .render import parse_chat_prompt

CLAUDE_MAX_TOKENS = 512
LLAMA_MAX_TOKENS = 1024
LLAMA_REGION = "us-central1"
# Claude on Vertex keys the inspector does not build (none left: thinking and effort are built
# as promptfoo's table of Claude models says).
CLAUDE_NOT_BUILT: tuple[str, ...] = ()


def _js_or(config: dict[str, Any], *keys: str) -> tuple[bool, Any]:
    """JavaScript's `a || b`: the first truthy value, else the last; (False, None) when that
    last is absent (undefined, which JSON leaves out)."""
    for key in keys[:-1]:
        if config.get(key):
            return True, config[key]
    return (keys[-1] in config), config.get(keys[-1])


def claude_body(
    model: str,
    model_messages: tuple[list[dict[str, Any]] | None, list[dict[str, Any]]],
    prompt_text: str,
    config: dict[str, Any],
    instruction: dict[str, Any] | None,
    env: dict[str, Any],
) -> dict[str, Any]:
    """callClaudeApi: `model_messages` is parseMessages' system and messages of `prompt_text`
    (where a `thinking` may be written), `instruction` is the config's systemInstruction, prepared
    (its parts' text rendered with the vars); its text parts go before the prompt's system
    blocks. Sampling, thinking and the default max_tokens as promptfoo's table of Claude models
    says."""
    system, messages = model_messages
    rules = claude_models.rules_of(model, claude_models.vertex_guesses(config, env))
    requested = config.get("thinking")
    if not js_truthy(requested):
        requested = claude_models.thinking_in_prompt(prompt_text)
    effort = config.get("effort")
    thinking = claude_models.thinking_of(rules, requested, effort)
    body: dict[str, Any] = {
        "anthropic_version": config.get("anthropicVersion")
        or config.get("anthropic_version")
        or "vertex-2023-10-16",
        "stream": False,
        "max_tokens": claude_models.max_tokens_above_budget(
            config.get("max_tokens")
            or config.get("maxOutputTokens")
            or (2048 if thinking.spends_tokens else CLAUDE_MAX_TOKENS),
            thinking.sent,
        ),
    }
    if not rules.sampling_deprecated:
        body.update(_claude_sampling(config))
    system = _with_instruction(system, instruction)
    if system is not None:
        body["system"] = system
    if js_truthy(thinking.sent):
        body["thinking"] = thinking.sent
    if effort:
        body["output_config"] = {"effort": effort}
    body["messages"] = messages
    return body


def _claude_sampling(config: dict[str, Any]) -> dict[str, Any]:
    """temperature, top_p and top_k as written (`a || b` of their two spellings)."""
    sampling = {}
    for name, keys in (
        ("temperature", ("temperature",)),
        ("top_p", ("top_p", "topP")),
        ("top_k", ("top_k", "topK")),
    ):
        present, value = _js_or(config, *keys)
        if present:
            sampling[name] = value
    return sampling


def _with_instruction(system: Any, instruction: dict[str, Any] | None) -> Any:
    """The config's systemInstruction text parts before the prompt's system blocks."""
    blocks = [
        {"type": "text", "text": part["text"]}
        for part in (instruction or {}).get("parts") or []
        if isinstance(part, dict) and part.get("text")
    ]
    return [*blocks, *(system or [])] if blocks else system


def llama_body(model: str, messages: Any, config: dict[str, Any]) -> dict[str, Any]:
    """callLlamaApi: promptfoo's chat messages to Vertex's OpenAI-compatible endpoint."""
    region = config.get("region") or LLAMA_REGION
    if region != LLAMA_REGION:
        raise InputError(
            f"promptfoo fails this: Llama models on Vertex are only in {LLAMA_REGION}, not {region}"
        )
    llama: dict[str, Any] = config["llamaConfig"] if isinstance(config.get("llamaConfig"), dict) else {}
    safety: dict[str, Any] = llama["safetySettings"] if isinstance(llama.get("safetySettings"), dict) else {}
    guard = safety.get("llama_guard_settings")
    if "llama_guard_settings" in safety and not isinstance(guard, dict):
        raise InputError("promptfoo fails this: llama_guard_settings must be an object")
    body: dict[str, Any] = {
        "model": f"meta/{model}",
        "messages": messages,
        "max_tokens": config.get("maxOutputTokens") or LLAMA_MAX_TOKENS,
        "stream": False,
    }
    for name, key in (("temperature", "temperature"), ("top_p", "topP"), ("top_k", "topK")):
        if key in config:
            body[name] = config[key]
    body["extra_body"] = {
        "google": {
            "model_safety_settings": {
                "enabled": safety.get("enabled") is not False,
                "llama_guard_settings": guard or {},
            }
        }
    }
    return body


def claude_prompt_text(rendered_text: str, rendered_messages: Any) -> str:
    """A `- role:` YAML prompt is turned into JSON before parseMessages reads it."""
    if rendered_text.strip().startswith("- role:"):
        return json.dumps(rendered_messages, ensure_ascii=False, separators=(",", ":"))
    return rendered_text


# callPalm2Api's `parameters`: the config's keys of the same name, in promptfoo's order (a key the
# config leaves out is left out, as JSON.stringify leaves out undefined).
PALM_PARAMETERS = (
    "context",
    "examples",
    "safetySettings",
    "stopSequences",
    "temperature",
    "maxOutputTokens",
    "topP",
    "topK",
)


def palm_body(prompt_text: str, config: dict[str, Any]) -> dict[str, Any]:
    """callPalm2Api: the prompt parsed as promptfoo parses a chat prompt is sent as `instances`
    whatever it is; a plain prompt is one instance of one user message."""
    parsed = parse_chat_prompt(prompt_text)
    instances = parsed if parsed is not None else [{"messages": [{"author": "user", "content": prompt_text}]}]
    parameters: dict[str, Any] = {}
    for key in PALM_PARAMETERS:
        if key == "safetySettings":
            if js_truthy(config.get(key)):
                parameters[key] = _palm_safety(config[key])
        elif key in config:
            parameters[key] = config[key]
    return {"instances": instances, "parameters": parameters}


def _palm_safety(settings: Any) -> list[dict[str, Any]]:
    """normalizeSafetySettings: each setting's category, and its threshold (or probability)."""
    if not isinstance(settings, list) or not all(isinstance(item, dict) for item in settings):
        raise InputError("promptfoo fails this: safetySettings must be a list of objects")
    normalized = []
    for item in settings:
        setting = {"category": item["category"]} if "category" in item else {}
        setting["threshold"] = item.get("threshold") or item.get("probability") or ""
        normalized.append(setting)
    return normalized


def palm_as_chat(model: str, body: dict[str, Any]) -> dict[str, Any]:
    """The PaLM request as the OpenAI Chat request closest to it, for the page, the token counts
    and `--to`: the context as a system message, each instance's messages (`user` is the user,
    any other author the model), temperature, topP and maxOutputTokens under OpenAI's names. The
    examples and the other parameters have no OpenAI Chat words and are only in the payload."""
    parameters = body["parameters"]
    messages: list[Any] = []
    if isinstance(parameters.get("context"), str) and parameters["context"]:
        messages.append({"role": "system", "content": parameters["context"]})
    instances = body["instances"] if isinstance(body["instances"], list) else [body["instances"]]
    for instance in instances:
        inner = instance.get("messages") if isinstance(instance, dict) else None
        for message in inner if isinstance(inner, list) else [instance]:
            messages.append(_palm_message_as_chat(message))
    sampling = {
        chat_key: parameters[key]
        for key, chat_key in (
            ("temperature", "temperature"),
            ("topP", "top_p"),
            ("maxOutputTokens", "max_tokens"),
        )
        if isinstance(parameters.get(key), (int, float)) and not isinstance(parameters.get(key), bool)
    }
    return {"model": model, "messages": messages, **sampling}


def _palm_message_as_chat(message: Any) -> Any:
    """A PaLM message as a chat message; anything else (a prompt written as OpenAI's messages) as
    it is, for the OpenAI Chat reader to read or refuse."""
    if isinstance(message, dict) and "author" in message and "role" not in message:
        role = "user" if message["author"] == "user" else "assistant"
        return {"role": role, "content": message.get("content")}
    return message
