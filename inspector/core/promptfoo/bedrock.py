"""Bedrock InvokeModel request bodies (`bedrock:<model id>`, promptfoo's AwsBedrockCompletionProvider):
one builder per model family, as promptfoo's BEDROCK_MODEL table, chosen as its getHandlerForModel
chooses (the few ids its model table files under another family than their prefix, then the
prefixes; an inference-profile ARN by the config's `inferenceModelType`).

Each builder takes the rendered prompt string, the merged config and the config's `env` (promptfoo
reads AWS_BEDROCK_MAX_TOKENS and its kin through getEnvString, which looks in the config's `env`
before the process environment; the inspector has only the config's). The body is the HTTP body:
the model id is in the URL.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..js import JS_SPACE_CLASS, js_string, js_trim, js_truthy
from ..model import InputError
from . import claude_models
from .anthropic import anthropic_messages
from .render import parse_chat_prompt

Body = dict[str, Any]
MISSING = object()


@dataclass(frozen=True)
class Family:
    """One of promptfoo's BEDROCK_MODEL entries: how its body is built, and whether that body
    carries the prompt as chat `messages` promptfoo parsed (parseChatPrompt) or as text."""

    name: str
    build: Callable[[str, str, dict[str, Any], dict[str, Any]], Body]
    chat: bool = True


class Env:
    """getEnvString/getEnvInt/getEnvFloat over the config's `env`."""

    def __init__(self, env: dict[str, Any]):
        self.env = env

    def string(self, key: str) -> Any:
        value = self.env.get(key, MISSING)
        return MISSING if value is MISSING or value is None else js_string(value)

    def int(self, key: str) -> Any:
        return _parsed(self.string(key), _JS_INT)

    def float(self, key: str) -> Any:
        return _parsed(self.string(key), _JS_FLOAT)


_JS_INT = re.compile(rf"^[{JS_SPACE_CLASS}]*([+-]?\d+)")
_JS_FLOAT = re.compile(
    rf"^[{JS_SPACE_CLASS}]*([+-]?(?:Infinity|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))"
)


def _parsed(text: Any, pattern: re.Pattern[str]) -> Any:
    """Number.parseInt / parseFloat: the longest numeric prefix, or nothing."""
    if text is MISSING or text == "":
        return MISSING
    match = pattern.match(text)
    if match is None:
        return MISSING
    number = float(match.group(1))
    if math.isinf(number):
        return None  # JSON.stringify writes Infinity as null
    return int(number) if number.is_integer() else number


def _param(
    params: Body, key: str, config_value: Any, env_value: Any = MISSING, default: Any = MISSING
) -> None:
    """addConfigParam: the config's value, else the environment's, else the default; a key none
    of them gives is left out (a null config value counts as none)."""
    if config_value is not None and config_value is not MISSING:
        params[key] = config_value
    elif env_value is not MISSING:
        params[key] = env_value
    elif default is not MISSING:
        params[key] = default


def _sampling(params: Body, config: dict[str, Any], read: Env, temperature: Any = 0, top_p: Any = 1) -> None:
    """The chat families' max_tokens, temperature and top_p, each from the config, else the
    environment's AWS_BEDROCK_* value, else the family's default (MISSING: none)."""
    _param(params, "max_tokens", config.get("max_tokens"), read.int("AWS_BEDROCK_MAX_TOKENS"))
    _param(
        params, "temperature", config.get("temperature"), read.float("AWS_BEDROCK_TEMPERATURE"), temperature
    )
    _param(params, "top_p", config.get("top_p"), read.float("AWS_BEDROCK_TOP_P"), top_p)


def _stop(env: Env) -> Any:
    """AWS_BEDROCK_STOP, a JSON list, read before any family's builder runs."""
    text = env.string("AWS_BEDROCK_STOP")
    if text is MISSING or text == "":
        return []
    try:
        return json.loads(text)
    except ValueError:
        raise InputError(
            f"promptfoo fails this evaluation: BEDROCK_STOP is not a valid JSON string: {text!r}"
        ) from None


def _has_items(value: Any) -> bool:
    """`stop && stop.length > 0`."""
    return js_truthy(value) and isinstance(value, (list, str)) and len(value) > 0


def _chat(prompt: str) -> Any:
    """parseChatPrompt(prompt, [{role: 'user', content: prompt}])."""
    parsed = parse_chat_prompt(prompt)
    return [{"role": "user", "content": prompt}] if parsed is None else parsed


def _json_array(prompt: str) -> list[Any] | None:
    try:
        parsed = json.loads(prompt, parse_constant=_no_constant)
    except ValueError:
        return None
    return parsed if isinstance(parsed, list) else None


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _tools(value: Any) -> Any:
    """maybeLoadToolsFromExternalFile: tools written in the config are sent as they are; a file
    or templated tools are promptfoo's to load or render, not built here."""
    if value is None:
        return None
    text = json.dumps(value)
    if isinstance(value, str) or "{{" in text or "{%" in text:
        raise InputError("the inspector does not build Bedrock tools loaded from a file or templated")
    return value


# ---- the families -----------------------------------------------------------------------------


def ai21(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    read = Env(env)
    params: Body = {"messages": _chat(prompt)}
    _sampling(params, config, read)
    _param(params, "stop", config.get("stop"), read.string("AWS_BEDROCK_STOP"))
    _penalties(params, config, read)
    return params


def _penalties(params: Body, config: dict[str, Any], read: Env) -> None:
    _param(
        params,
        "frequency_penalty",
        config.get("frequency_penalty"),
        read.float("AWS_BEDROCK_FREQUENCY_PENALTY"),
    )
    _param(
        params, "presence_penalty", config.get("presence_penalty"), read.float("AWS_BEDROCK_PRESENCE_PENALTY")
    )


def nova_messages(prompt: str) -> tuple[list[Any], Any]:
    """AMAZON_NOVA's messages and system: a JSON chat array, else novaParseMessages, whose system
    (already a list of blocks) promptfoo wraps once more: `[{"text": [{"text": ...}]}]`."""
    parsed = _json_array(prompt)
    if parsed is not None:
        if not all(isinstance(item, dict) for item in parsed):
            raise InputError("the inspector builds a Nova request from a JSON chat of message objects only")
        messages = [
            {"role": item.get("role"), "content": _blocks(item.get("content"))}
            for item in parsed
            if item.get("role") != "system"
        ]
        system_message = next((item for item in parsed if item.get("role") == "system"), None)
        return messages, ([{"text": system_message.get("content")}] if system_message is not None else None)
    system, messages = _nova_lines(prompt)
    return messages, ([{"text": system}] if system is not None else None)


def _get(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, dict) else None


def _blocks(content: Any) -> Any:
    return content if isinstance(content, list) else [{"text": content}]


def _nova_lines(prompt: str) -> tuple[list[Any] | None, list[Any]]:
    """novaParseMessages: `system:`/`user:`/`assistant:` lines, each trimmed, blank lines dropped;
    text before any role is the user's."""
    system = None
    messages: list[Any] = []
    role: str | None = None
    content: list[str] = []

    def push() -> None:
        nonlocal content
        if role and content:
            messages.append({"role": role, "content": [{"text": "\n".join(content)}]})
            content = []

    for line in (js_trim(line) for line in prompt.split("\n")):
        if not line:
            continue
        if line.startswith("system:"):
            system = [{"text": js_trim(line[7:])}]
        elif line.startswith(("user:", "assistant:")):
            push()
            role = "user" if line.startswith("user:") else "assistant"
            content.append(js_trim(line[line.index(":") + 1 :]))
        else:
            role = role or "user"
            content.append(line)
    push()
    if not messages and system is None:
        messages.append({"role": "user", "content": [{"text": js_trim(prompt)}]})
    return system, messages


def amazon_nova(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    read = Env(env)
    messages, system = nova_messages(prompt)
    params: Body = {"messages": messages}
    if system:
        params["system"] = system
    given = _interface_config(config)
    inference = dict(given)
    _param(inference, "max_new_tokens", given.get("max_new_tokens"), read.int("AWS_BEDROCK_MAX_TOKENS"))
    _param(inference, "temperature", given.get("temperature"), read.float("AWS_BEDROCK_TEMPERATURE"), 0)
    params["inferenceConfig"] = inference
    _param(params, "toolConfig", config.get("toolConfig"))
    return params


def _interface_config(config: dict[str, Any]) -> dict[str, Any]:
    """promptfoo reads Nova's inference settings from `interfaceConfig` (its spelling)."""
    given = config.get("interfaceConfig")
    if given is None:
        return {}
    if not isinstance(given, dict):
        raise InputError("`interfaceConfig` must be a mapping")
    return given


def amazon_nova_2(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    """AMAZON_NOVA_2: as Nova, and with reasoning on no temperature (nor max tokens at high
    effort), and `reasoningConfig` sent as written."""
    read = Env(env)
    messages, system = nova_messages(prompt)
    params: Body = {"messages": messages}
    if system:
        params["system"] = system
    reasoning = config.get("reasoningConfig")
    enabled = isinstance(reasoning, dict) and reasoning.get("type") == "enabled"
    high = isinstance(reasoning, dict) and reasoning.get("maxReasoningEffort") == "high"
    given = _interface_config(config)
    inference = {key: value for key, value in given.items() if key not in ("max_new_tokens", "temperature")}
    if not (enabled and high):
        _param(inference, "max_new_tokens", given.get("max_new_tokens"), read.int("AWS_BEDROCK_MAX_TOKENS"))
    if not enabled:
        _param(inference, "temperature", given.get("temperature"), read.float("AWS_BEDROCK_TEMPERATURE"), 0)
    params["inferenceConfig"] = inference
    _param(params, "toolConfig", config.get("toolConfig"))
    if js_truthy(reasoning):
        params["reasoningConfig"] = reasoning
    return params


def claude_messages(prompt: str, model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    """CLAUDE_MESSAGES: a JSON chat array (a lone system message sent as the user's), else
    Anthropic's parseMessages; `anthropic_version`, max_tokens 1024 (2048 for a model that thinks
    unasked) and temperature 0 by default, and sampling, thinking and a forced tool choice as
    promptfoo's table of Claude models says."""
    read = Env(env)
    rules = claude_models.rules_of(model)
    messages, system = _claude_chat(prompt)
    params: Body = {"messages": messages}
    _param(params, "anthropic_version", config.get("anthropic_version"), default="bedrock-2023-05-31")
    requested = config.get("thinking")
    unasked = rules.thinks_by_default and not (
        isinstance(requested, dict) and requested.get("type") == "disabled"
    )
    _param(
        params,
        "max_tokens",
        config.get("max_tokens"),
        read.int("AWS_BEDROCK_MAX_TOKENS"),
        2048 if unasked else 1024,
    )
    if not rules.sampling_deprecated:
        _param(params, "temperature", config.get("temperature"), default=0)
    _param(params, "tools", _tools(config.get("tools")))
    tool_choice = config.get("tool_choice")
    forced = isinstance(tool_choice, dict) and tool_choice.get("type") in ("any", "tool")
    _param(params, "tool_choice", None if rules.always_adaptive and forced else tool_choice)
    thinking = claude_models.normalized_thinking(rules, requested, None)
    _param(params, "thinking", thinking)
    if isinstance(params.get("max_tokens"), (int, float)):
        params["max_tokens"] = claude_models.max_tokens_above_budget(params["max_tokens"], thinking)
    if js_truthy(system):
        params["system"] = system
    return params


def _claude_chat(prompt: str) -> tuple[list[Any], Any]:
    parsed = _json_array(prompt)
    if parsed is None:
        system, messages = anthropic_messages(prompt)
        return messages, system
    systems = [item for item in parsed if _get(item, "role") == "system"]
    others = [item for item in parsed if _get(item, "role") != "system"]
    if len(systems) == 1 and not others:
        return [{"role": "user", "content": _typed_blocks(_get(systems[0], "content"))}], None
    messages = [
        {"role": _get(item, "role"), "content": _typed_blocks(_get(item, "content"))} for item in others
    ]
    return messages, (_get(systems[0], "content") if systems else None)


def _typed_blocks(content: Any) -> Any:
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


def titan_text(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    read = Env(env)
    given = config.get("textGenerationConfig")
    given = given if isinstance(given, dict) else {}
    generation: Body = {}
    _param(generation, "maxTokenCount", given.get("maxTokenCount"), read.int("AWS_BEDROCK_MAX_TOKENS"), 1024)
    _param(generation, "temperature", given.get("temperature"), read.float("AWS_BEDROCK_TEMPERATURE"), 0)
    _param(generation, "topP", given.get("topP"), read.float("AWS_BEDROCK_TOP_P"), 1)
    _param(generation, "stopSequences", given.get("stopSequences"), default=_stop(read))
    return {"inputText": prompt, "textGenerationConfig": generation}


# Llama's chat templates. The Llama 3 and 4 turns are written with the `dedent` package's tag,
# which strips the smallest indentation of any line (the message's own lines count), trims, and
# then turns escapes written in the text (`\n`, `\t`, `\xHH`, `\uHHHH`...) into characters.
_DEDENT_INDENT = re.compile(rf"^([{JS_SPACE_CLASS}]+)[^{JS_SPACE_CLASS}]+")
_DEDENT_ESCAPES = (
    ("\\n", "\n"),
    ("\\t", "\t"),
    ("\\r", "\r"),
    ("\\v", "\v"),
    ("\\b", "\b"),
    ("\\f", "\f"),
    ("\\0", "\0"),
)


def dedent(text: str) -> str:
    lines = text.split("\n")
    indents = [len(match.group(1)) for match in map(_DEDENT_INDENT.match, lines) if match]
    if indents:
        least = min(indents)
        text = "\n".join(line[least:] if line[:1] in (" ", "\t") else line for line in lines)
    text = js_trim(text)
    for escape, character in _DEDENT_ESCAPES:
        text = text.replace(escape, character)
    text = re.sub(r"\\x([\da-fA-F]{2})", lambda match: chr(int(match.group(1), 16)), text)
    text = re.sub(r"\\u\{([\da-fA-F]{1,6})\}", lambda match: _code_point(match.group(1)), text)
    return re.sub(r"\\u([\da-fA-F]{4})", lambda match: chr(int(match.group(1), 16)), text)


def _code_point(digits: str) -> str:
    value = int(digits, 16)
    if value > 0x10FFFF:
        raise InputError("promptfoo fails this evaluation: an invalid code point escape in a Llama prompt")
    return chr(value)


def _llama_text(content: Any, joiner: str) -> str:
    """extractTextContent (joiner " ") and, for Llama 3.2 Vision, extractTextAndImages (joiner "")."""
    if isinstance(content, str):
        return js_trim(content)
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and (
                block.get("type") in ("image", "image_url") or block.get("image") or block.get("image_url")
            ):
                raise InputError("the inspector does not build a Bedrock Llama prompt with images")
            elif (
                isinstance(block, dict)
                and js_truthy(block.get("text"))
                and block.get("type") in ("text", None)
            ):
                parts.append(js_string(block["text"]))
        return js_trim(joiner.join(parts))
    return js_trim(js_string(content))


def _llama_messages(prompt: str) -> list[dict[str, Any]]:
    messages = _chat(prompt)
    if not isinstance(messages, list) or not all(isinstance(item, dict) for item in messages):
        raise InputError("promptfoo fails this evaluation: a Llama prompt must be a list of chat messages")
    return messages


def _llama2(messages: list[dict[str, Any]]) -> str:
    """formatPromptLlama2Chat."""
    if not messages:
        return ""
    prompt, system_seen = "<s>", False
    for index, message in enumerate(messages):
        text = _llama_text(message.get("content"), " ")
        role = message.get("role")
        if role == "system":
            if not system_seen:
                prompt += f"[INST] <<SYS>>\n{text}\n<</SYS>>\n\n"
                system_seen = True
        elif role == "user":
            if index == 0:
                prompt += f"{text} [/INST]" if system_seen else f"[INST] {text} [/INST]"
            elif messages[index - 1].get("role") == "assistant":
                prompt += f"<s>[INST] {text} [/INST]"
            else:
                prompt += f"{text} [/INST]"
        elif role == "assistant":
            prompt += f" {text} </s>"
        else:
            raise InputError(f"promptfoo fails this evaluation: Unexpected role: {js_string(role)}")
    return prompt


def _llama3(messages: list[dict[str, Any]], joiner: str = " ") -> str:
    """formatPromptLlama3Instruct (and Llama 3.2 Vision's, text only)."""
    prompt = "<|begin_of_text|>"
    for message in messages:
        text = _llama_text(message.get("content"), joiner)
        role = js_string(message.get("role"))
        prompt += dedent(f"\n      <|start_header_id|>{role}<|end_header_id|>\n\n      {text}<|eot_id|>")
    return prompt + "<|start_header_id|>assistant<|end_header_id|>"


def _llama4(messages: list[dict[str, Any]]) -> str:
    prompt = "<|begin_of_text|>"
    for message in messages:
        text = _llama_text(message.get("content"), " ")
        prompt += dedent(f"<|header_start|>{js_string(message.get('role'))}<|header_end|>\n\n{text}<|eot|>")
    return prompt + "<|header_start|>assistant<|header_end|>"


def _llama(version: str) -> Callable[[str, str, dict[str, Any], dict[str, Any]], Body]:
    def build(prompt: str, model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
        read = Env(env)
        messages = _llama_messages(prompt)
        if version == "2":
            text = _llama2(messages)
        elif version == "4":
            text = _llama4(messages)
        elif version == "3.2" and re.search("11b|90b", model, re.I):
            text = _llama3(messages, "")
        else:
            text = _llama3(messages)
        params: Body = {"prompt": text}
        _param(params, "temperature", config.get("temperature"), read.float("AWS_BEDROCK_TEMPERATURE"), 0)
        _param(params, "top_p", config.get("top_p"), read.float("AWS_BEDROCK_TOP_P"), 1)
        _param(params, "max_gen_len", config.get("max_gen_len"), read.int("AWS_BEDROCK_MAX_GEN_LEN"), 1024)
        return params

    return build


def cohere_command(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    read = Env(env)
    params: Body = {"prompt": prompt}
    _param(params, "temperature", config.get("temperature"), read.float("COHERE_TEMPERATURE"), 0)
    _param(params, "p", config.get("p"), read.float("COHERE_P"), 1)
    _param(params, "k", config.get("k"), read.int("COHERE_K"), 0)
    _param(params, "max_tokens", config.get("max_tokens"), read.int("COHERE_MAX_TOKENS"), 1024)
    _param(params, "return_likelihoods", config.get("return_likelihoods"), default="NONE")
    _param(params, "stream", config.get("stream"), default=False)
    _param(params, "num_generations", config.get("num_generations"), default=1)
    _param(params, "logit_bias", config.get("logit_bias"), default={})
    _param(params, "truncate", config.get("truncate"), default="NONE")
    _param(params, "stop_sequences", _stop(read))
    return params


COHERE_R_KEYS = (
    "documents",
    "search_queries_only",
    "preamble",
    "max_tokens",
    "temperature",
    "p",
    "k",
    "prompt_truncation",
    "frequency_penalty",
    "presence_penalty",
    "seed",
    "return_prompt",
)


def cohere_command_r(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    """COHERE_COMMAND_R: the last message is `message`, the others `chat_history`."""
    messages = _chat(prompt)
    if not isinstance(messages, list) or not messages or not all(isinstance(item, dict) for item in messages):
        raise InputError("promptfoo fails this evaluation: a Cohere Command R prompt must be chat messages")
    if not all(isinstance(item.get("content"), str) for item in messages):
        raise InputError("promptfoo fails this evaluation: Message content must be a string")
    params: Body = {
        "message": messages[-1]["content"],
        "chat_history": [
            {"role": "CHATBOT" if item.get("role") == "assistant" else "USER", "message": item["content"]}
            for item in messages[:-1]
        ],
    }
    for key in COHERE_R_KEYS:
        _param(params, key, config.get(key))
    _param(params, "tools", _tools(config.get("tools")))
    _param(params, "tool_results", config.get("tool_results"))
    _param(params, "stop_sequences", _stop(Env(env)))
    _param(params, "raw_prompting", config.get("raw_prompting"))
    return params


def deepseek(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    """DEEPSEEK (R1): the prompt between newlines, then an open `<think>`."""
    read = Env(env)
    params: Body = {"prompt": f"\n{prompt}\n<think>\n"}
    _sampling(params, config, read)
    return params


def deepseek_chat(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    read = Env(env)
    params: Body = {"messages": _chat(prompt)}
    _sampling(params, config, read)
    stop = _stop(read)
    if _has_items(stop):
        params["stop"] = stop
    return params


def mistral(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    """MISTRAL: the prompt as written, with the stop list (empty unless AWS_BEDROCK_STOP)."""
    read = Env(env)
    params: Body = {"prompt": prompt, "stop": _stop(read)}
    _param(params, "max_tokens", config.get("max_tokens"), read.int("MISTRAL_MAX_TOKENS"), 1024)
    _param(params, "temperature", config.get("temperature"), read.float("MISTRAL_TEMPERATURE"), 0)
    _param(params, "top_p", config.get("top_p"), read.float("MISTRAL_TOP_P"), 1)
    _param(params, "top_k", config.get("top_k"), read.float("MISTRAL_TOP_K"))
    return params


def mistral_chat(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    read = Env(env)
    params: Body = {"messages": _chat(prompt)}
    _param(params, "max_tokens", config.get("max_tokens"), read.int("MISTRAL_MAX_TOKENS"), 1024)
    _param(params, "temperature", config.get("temperature"), read.float("MISTRAL_TEMPERATURE"), 0)
    _param(params, "top_p", config.get("top_p"), read.float("MISTRAL_TOP_P"), 1)
    stop = _stop(read)
    if _has_items(stop):
        params["stop"] = stop
    return params


def _openai_stop(params: Body, config: dict[str, Any], read: Env) -> None:
    """`if (stop.length > 0 || config.stop) params.stop = stop || config.stop`: the environment's
    list, which is `[]` (true in JavaScript) when it is not set, so a config `stop` sends `[]`."""
    stop = _stop(read)
    if _has_items(stop) or js_truthy(config.get("stop")):
        chosen = stop if js_truthy(stop) else config.get("stop")
        _param(params, "stop", chosen, read.string("AWS_BEDROCK_STOP"))


def openai_gpt_oss(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    read = Env(env)
    params: Body = {"messages": _chat(prompt)}
    _param(
        params,
        "max_completion_tokens",
        config.get("max_completion_tokens"),
        read.int("AWS_BEDROCK_MAX_TOKENS"),
    )
    _param(params, "temperature", config.get("temperature"), read.float("AWS_BEDROCK_TEMPERATURE"), 0.1)
    _param(params, "top_p", config.get("top_p"), read.float("AWS_BEDROCK_TOP_P"), 1)
    _param(params, "reasoning_effort", config.get("reasoning_effort"))
    _openai_stop(params, config, read)
    _penalties(params, config, read)
    return params


def qwen(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    read = Env(env)
    params: Body = {"messages": _chat(prompt)}
    _sampling(params, config, read, temperature=0.7)
    _openai_stop(params, config, read)
    _penalties(params, config, read)
    _param(params, "tools", _tools(config.get("tools")))
    _param(params, "tool_choice", config.get("tool_choice"))
    return params


def openai_compatible(prompt: str, _model: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    """OPENAI_COMPAT (GLM, MiniMax, Kimi, Nemotron, Gemma, Palmyra, Grok 4.6 profiles): no
    sampling defaults."""
    read = Env(env)
    params: Body = {"messages": _chat(prompt)}
    _sampling(params, config, read, temperature=MISSING, top_p=MISSING)
    stop = _stop(read)
    chosen = config.get("stop") if _has_items(config.get("stop")) else (stop if _has_items(stop) else None)
    _param(params, "stop", chosen)
    _penalties(params, config, read)
    _param(params, "reasoning_effort", config.get("reasoning_effort"))
    _param(params, "tools", _tools(config.get("tools")))
    _param(params, "tool_choice", config.get("tool_choice"))
    return params


AI21 = Family("AI21", ai21)
NOVA = Family("Amazon Nova", amazon_nova)
NOVA_2 = Family("Amazon Nova 2", amazon_nova_2)
CLAUDE = Family("Claude (Messages)", claude_messages)
TITAN = Family("Amazon Titan Text", titan_text, chat=False)
LLAMA2 = Family("Llama 2", _llama("2"))
LLAMA3 = Family("Llama 3", _llama("3"))
LLAMA3_1 = Family("Llama 3.1", _llama("3.1"))
LLAMA3_2 = Family("Llama 3.2", _llama("3.2"))
LLAMA3_3 = Family("Llama 3.3", _llama("3.3"))
LLAMA4 = Family("Llama 4", _llama("4"))
COHERE = Family("Cohere Command", cohere_command, chat=False)
COHERE_R = Family("Cohere Command R", cohere_command_r)
DEEPSEEK = Family("DeepSeek R1", deepseek, chat=False)
DEEPSEEK_CHAT = Family("DeepSeek (chat)", deepseek_chat)
MISTRAL = Family("Mistral", mistral, chat=False)
MISTRAL_CHAT = Family("Mistral (chat)", mistral_chat)
OPENAI = Family("OpenAI gpt-oss", openai_gpt_oss)
QWEN = Family("Qwen", qwen)
OPENAI_COMPAT = Family("OpenAI-compatible", openai_compatible)
# The families promptfoo's BEDROCK_MODEL holds, in its order (CLAUDE_COMPLETION, Claude's old text
# completion, is in the table but no model id or inference-profile type reaches it).
FAMILIES = (
    AI21, NOVA, NOVA_2, CLAUDE, TITAN, LLAMA2, LLAMA3, LLAMA3_1, LLAMA3_2, LLAMA3_3, LLAMA4,
    COHERE, COHERE_R, DEEPSEEK, MISTRAL, MISTRAL_CHAT, DEEPSEEK_CHAT, OPENAI, QWEN, OPENAI_COMPAT,
)  # fmt: skip

# Model ids promptfoo's AWS_BEDROCK_MODELS files under another family than the prefixes below
# give (or than none: the prefixes do not know them).
BY_MODEL_ID: dict[str, Family] = {
    "amazon.nova-2-sonic-v1:0": NOVA,
    "us.amazon.nova-2-sonic-v1:0": NOVA,
    "deepseek.v3-v1:0": DEEPSEEK_CHAT,
    "deepseek.v3.2": DEEPSEEK_CHAT,
    "us.deepseek.r1-v1:0": DEEPSEEK,
    "mistral.devstral-2-123b": MISTRAL_CHAT,
    "mistral.magistral-small-2509": MISTRAL_CHAT,
    "mistral.ministral-3-14b-instruct": MISTRAL_CHAT,
    "mistral.ministral-3-8b-instruct": MISTRAL_CHAT,
    "mistral.ministral-3-3b-instruct": MISTRAL_CHAT,
    "mistral.mistral-large-2407-v1:0": MISTRAL_CHAT,
    "mistral.mistral-large-3-675b-instruct": MISTRAL_CHAT,
    "mistral.pixtral-large-2502-v1:0": MISTRAL_CHAT,
    "eu.mistral.pixtral-large-2502-v1:0": MISTRAL_CHAT,
    "us.mistral.pixtral-large-2502-v1:0": MISTRAL_CHAT,
    "mistral.voxtral-mini-3b-2507": MISTRAL_CHAT,
    "mistral.voxtral-small-24b-2507": MISTRAL_CHAT,
    "openai.gpt-oss-safeguard-120b": OPENAI,
    "openai.gpt-oss-safeguard-20b": OPENAI,
    **dict.fromkeys(
        (
            "us.xai.grok-4.6",
            "global.xai.grok-4.6",
            "zai.glm-5",
            "zai.glm-4.7",
            "zai.glm-4.7-flash",
            "minimax.minimax-m2",
            "minimax.minimax-m2.1",
            "minimax.minimax-m2.5",
            "moonshotai.kimi-k2.5",
            "moonshot.kimi-k2-thinking",
            "nvidia.nemotron-nano-9b-v2",
            "nvidia.nemotron-nano-12b-v2",
            "nvidia.nemotron-nano-3-30b",
            "nvidia.nemotron-super-3-120b",
            "us-gov.nvidia.nemotron-nano-9b-v2",
            "us-gov.nvidia.nemotron-nano-12b-v2",
            "us-gov.nvidia.nemotron-nano-3-30b",
            "us-gov.nvidia.nemotron-super-3-120b",
            "google.gemma-3-4b-it",
            "google.gemma-3-12b-it",
            "google.gemma-3-27b-it",
            "us.writer.palmyra-x5-v1:0",
            "us.writer.palmyra-x4-v1:0",
            "writer.palmyra-vision-7b",
        ),
        OPENAI_COMPAT,
    ),
}
# Older ids promptfoo refuses by name ("Unknown Amazon Bedrock model").
RETIRED = frozenset(
    {
        "anthropic.claude-3-opus-20240229-v1:0",
        "us.anthropic.claude-3-opus-20240229-v1:0",
        "anthropic.claude-opus-4-20250514-v1:0",
        "us.anthropic.claude-opus-4-20250514-v1:0",
        "anthropic.claude-3-5-haiku-20241022-v1:0",
        "us.anthropic.claude-3-5-haiku-20241022-v1:0",
        "anthropic.claude-instant-v1",
        "anthropic.claude-v1",
        "anthropic.claude-v2",
        "anthropic.claude-v2:1",
        "cohere.command-text-v14",
        "cohere.command-light-text-v14",
        "meta.llama2-13b-chat-v1",
        "meta.llama2-70b-chat-v1",
    }
)
# (how the id is tested, the text, the family), in getHandlerForModel's order.
BY_PREFIX: tuple[tuple[str, str, Family], ...] = (
    ("starts", "ai21.", AI21),
    ("contains", "amazon.nova-2", NOVA_2),
    ("contains", "amazon.nova", NOVA),
    ("contains", "anthropic.claude", CLAUDE),
    ("starts", "meta.llama2", LLAMA2),
    ("contains", "meta.llama3-1", LLAMA3_1),
    ("contains", "meta.llama3-2", LLAMA3_2),
    ("contains", "meta.llama3-3", LLAMA3_3),
    ("contains", "meta.llama4", LLAMA4),
    ("contains", "meta.llama3", LLAMA3),
    ("starts", "cohere.command-r", COHERE_R),
    ("starts", "cohere.command", COHERE),
    ("starts", "mistral.", MISTRAL),
    ("starts", "deepseek.", DEEPSEEK),
    ("starts", "qwen.", QWEN),
)
# An inference profile's `inferenceModelType`.
BY_PROFILE_TYPE: dict[str, Family] = {
    "claude": CLAUDE,
    "nova": NOVA,
    "llama": LLAMA4,
    "llama2": LLAMA2,
    "llama3": LLAMA3,
    "llama3.1": LLAMA3_1,
    "llama3_1": LLAMA3_1,
    "llama3.2": LLAMA3_2,
    "llama3_2": LLAMA3_2,
    "llama3.3": LLAMA3_3,
    "llama3_3": LLAMA3_3,
    "llama4": LLAMA4,
    "mistral": MISTRAL,
    "cohere": COHERE_R,
    "ai21": AI21,
    "titan": TITAN,
    "deepseek": DEEPSEEK,
    "openai": OPENAI,
    "qwen": QWEN,
    "nova2": NOVA_2,
    **dict.fromkeys(("zai", "minimax", "moonshot", "nvidia", "writer", "gemma"), OPENAI_COMPAT),
}


def family_of(model: str, config: dict[str, Any]) -> Family:
    """getHandlerForModel; what promptfoo refuses is an InputError with its reason."""
    if re.match(r"^(?:[^.]+\.)?anthropic\.claude-mythos-5$", model):
        raise InputError(f'promptfoo sends "{model}" to Bedrock\'s Anthropic Messages API, not InvokeModel')
    if "arn:" in model and "inference-profile" in model:
        kind = config.get("inferenceModelType")
        if not kind:
            raise InputError("promptfoo needs `inferenceModelType` in the config of an inference profile")
        family = BY_PROFILE_TYPE.get(kind) if isinstance(kind, str) else None
        if family is None:
            raise InputError(f"promptfoo knows no inference model type {js_string(kind)!r}")
        return family
    if model in BY_MODEL_ID:
        return BY_MODEL_ID[model]
    if model in RETIRED:
        raise InputError(
            f"promptfoo refuses the Amazon Bedrock model {model!r} (Unknown Amazon Bedrock model)"
        )
    for test, text, family in BY_PREFIX:
        if model.startswith(text) if test == "starts" else text in model:
            return family
    if "openai.gpt-oss" in model and re.search(r"-\d+:\d+$", model):
        return OPENAI
    raise InputError(f"promptfoo has no InvokeModel request for the Amazon Bedrock model {model!r}")


def not_invoked(model: str, config: dict[str, Any]) -> str | None:
    """Why promptfoo sends `model` no InvokeModel request, or None."""
    try:
        family_of(model, config)
    except InputError as error:
        return error.diagnostic.message
    return None


def invoke_body(model: str, prompt: str, config: dict[str, Any], env: dict[str, Any]) -> Body:
    """The body promptfoo's InvokeModel call sends for `model`, the prompt rendered."""
    return family_of(model, config).build(prompt, model, config, env)


_CHAT_SAMPLING = ("max_tokens", "max_completion_tokens", "temperature", "top_p")


def neutral_request(model: str, prompt: str, body: Body, config: dict[str, Any]) -> tuple[str, Body]:
    """The InvokeModel request as a request of an API the inspector reads (its API, its body), for
    the page, the token counts and `--to`: Claude's as Anthropic Messages, Nova's as Converse,
    the chat families' and the text families' (their prompt before the family's template) as
    OpenAI Chat."""
    family = family_of(model, config)
    if family is CLAUDE:
        return "anthropic", {
            "model": model,
            **{key: value for key, value in body.items() if key != "anthropic_version"},
        }
    if family in (NOVA, NOVA_2):
        return "bedrock-converse", _nova_as_converse(body)
    messages, sampling = _as_chat(family, prompt, body)
    return "openai-chat", {"model": model, "messages": messages, **sampling}


# Nova's inferenceConfig keys and their names in a Converse request.
_NOVA_TO_CONVERSE = (("max_new_tokens", "maxTokens"), ("temperature", "temperature"), ("top_p", "topP"))


def _nova_as_converse(body: Body) -> Body:
    system = body.get("system")
    if system and isinstance(system[0].get("text"), list):
        system = system[0]["text"]  # the blocks promptfoo wrapped once more
    inference = body.get("inferenceConfig") or {}
    sampling = {converse_key: inference[key] for key, converse_key in _NOVA_TO_CONVERSE if key in inference}
    return {
        "messages": body["messages"],
        **({"system": system} if system else {}),
        **({"inferenceConfig": sampling} if sampling else {}),
    }


LLAMAS = (LLAMA2, LLAMA3, LLAMA3_1, LLAMA3_2, LLAMA3_3, LLAMA4)


def _as_chat(family: Family, prompt: str, body: Body) -> tuple[Any, Body]:
    """The messages and the sampling of an OpenAI Chat request that says what `body` says. Of the
    families that send the prompt as text, only Llama's max_gen_len is carried (as max_tokens): the
    others' sampling keys are their own words."""
    sampling = {key: body[key] for key in _CHAT_SAMPLING if isinstance(body.get(key), (int, float))}
    if family is COHERE_R:
        return _cohere_r_messages(body), sampling
    if family.chat and "messages" in body:
        return body["messages"], sampling
    if family in LLAMAS:
        max_tokens = body.get("max_gen_len")
        return _llama_messages(prompt), ({"max_tokens": max_tokens} if isinstance(max_tokens, int) else {})
    return [{"role": "user", "content": prompt}], {}


def _cohere_r_messages(body: Body) -> list[Any]:
    """Command R's chat_history and message as chat messages."""
    history = [
        {"role": "assistant" if item["role"] == "CHATBOT" else "user", "content": item["message"]}
        for item in body["chat_history"]
    ]
    return [*history, {"role": "user", "content": body["message"]}]
