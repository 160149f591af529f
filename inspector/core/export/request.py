"""Request-level fields: model, limits, sampling, stop, seed, tool choice, reasoning, metadata ...

A raw request keeps its own fields (`case.metadata["request"]`, the source API in
`case.metadata["format"]`). Exported to the API it came from, every field goes back as it was;
exported to another, each field is read into a neutral name, written the way the target spells it
where the target has it, and named in Changes where it does not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import RenderedCase
from .common import (
    ANTHROPIC,
    BEDROCK_CONVERSE,
    GEMINI,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    ExportSettings,
    Notes,
    ResolvedDefaults,
    ResolvedSettings,
)

# Providers whose model names are the same ones (a Chat model is a Responses model).
FAMILY = {OPENAI_CHAT: "openai", OPENAI_RESPONSES: "openai", ANTHROPIC: "anthropic",
          GEMINI: "gemini", BEDROCK_CONVERSE: "bedrock"}
LABELS = {OPENAI_CHAT: "OpenAI Chat", OPENAI_RESPONSES: "OpenAI Responses",
          ANTHROPIC: "Anthropic", GEMINI: "Gemini", BEDROCK_CONVERSE: "Bedrock Converse"}
# Neutral names, as Changes name them.
SETTING_NAMES = {
    "max_tokens": "max tokens", "temperature": "temperature", "top_p": "top_p", "top_k": "top_k",
    "stop": "stop sequences", "seed": "seed", "presence_penalty": "presence penalty",
    "frequency_penalty": "frequency penalty", "tool_choice": "tool choice",
    "parallel_tool_calls": "parallel tool calls", "effort": "reasoning effort",
    "user": "end-user id", "metadata": "metadata", "n": "number of choices",
}


def source(case: RenderedCase) -> tuple[str | None, dict[str, Any]]:
    """The API a raw request came from and its request-level fields (empty for eval files)."""
    request = case.metadata.get("request")
    return case.metadata.get("format"), request if isinstance(request, dict) else {}


def resolve(case: RenderedCase, settings: ExportSettings, defaults: ResolvedDefaults,
            target: str, notes: Notes) -> ResolvedSettings:
    """Model, max tokens and temperature: what the user set, else the source request's, else the
    provider's defaults. A model of another provider's family is not sent (and said so)."""
    if "request" not in case.metadata:  # no raw request: the common case, kept cheap
        return settings.resolved(defaults)
    fmt, request = source(case)
    if fmt is None or not request:
        return settings.resolved(defaults)
    common = read_common(fmt, request)[0] if fmt in READERS else {}
    model = settings.model
    source_model = request.get("model")
    if model is None and isinstance(source_model, str) and source_model:
        if FAMILY.get(fmt) == FAMILY.get(target):
            model = source_model
        else:
            notes.change(f"model {source_model!r} belongs to {LABELS.get(fmt, fmt)}; sent as "
                         f"{defaults.model!r}, the default")
    max_tokens = settings.max_tokens if settings.max_tokens is not None else common.get(
        "max_tokens", defaults.max_tokens)
    temperature = settings.temperature if settings.temperature is not None else common.get(
        "temperature", defaults.temperature)
    return ResolvedSettings(model or defaults.model, max_tokens, temperature)


def apply(case: RenderedCase, target: str, payload: dict[str, Any], notes: Notes) -> None:
    """The source request's other fields: all of them back to their own API, the common ones
    mapped to another (what the exporter already set stays)."""
    if "request" not in case.metadata:
        return
    fmt, request = source(case)
    if fmt is None or not request:
        return
    if fmt == target:
        if target == OPENAI_CHAT:
            _older_spelling(request, payload)
        for key, value in request.items():
            if key == "model" or key in OWN_KEYS.get(target, ()):
                continue  # set by the exporter from the resolved settings
            built = payload.get(key)
            if isinstance(built, dict) and isinstance(value, dict):
                payload[key] = {**value, **built}
            elif key not in payload:
                payload[key] = value
        return
    if fmt not in READERS:
        return
    common, consumed = read_common(fmt, request)
    writer = WRITERS.get(target)
    for name in writer(common, payload) if writer else list(common):
        notes.change(f"{SETTING_NAMES.get(name, name)} left out: {LABELS[target]} has no such setting")
    for key in request:
        if key != "model" and key not in consumed:
            notes.change(f"request field {key!r} left out: it is {LABELS[fmt]}'s own")


def _older_spelling(request: dict[str, Any], payload: dict[str, Any]) -> None:
    """An OpenAI Chat request that said max_tokens, exported to itself, keeps that spelling."""
    if ("max_tokens" in request and "max_completion_tokens" in payload
            and payload["max_completion_tokens"] == request["max_tokens"]):
        payload["max_tokens"] = payload.pop("max_completion_tokens")


# Keys the exporters write themselves from ResolvedSettings.
OWN_KEYS: dict[str, tuple[str, ...]] = {
    OPENAI_CHAT: ("max_completion_tokens", "max_tokens", "temperature"),
    OPENAI_RESPONSES: ("max_output_tokens", "temperature"),
    ANTHROPIC: ("max_tokens",),
}


# -- reading: source fields -> neutral names ---------------------------------------------------

def read_common(fmt: str, request: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    common: dict[str, Any] = {}
    consumed: set[str] = set()
    READERS[fmt](request, common, consumed)
    return common, consumed


def _take(request: dict[str, Any], key: str, name: str, common: dict[str, Any],
          consumed: set[str]) -> None:
    if key in request and request[key] is not None:
        common.setdefault(name, request[key])
        consumed.add(key)


def _openai_tool_choice(choice: Any) -> Any:
    if isinstance(choice, str):
        return choice
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else choice.get("name")
        if isinstance(name, str):
            return {"name": name}
    return None


def _read_openai_chat(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    _take(request, "max_completion_tokens", "max_tokens", common, consumed)
    _take(request, "max_tokens", "max_tokens", common, consumed)
    for key in ("temperature", "top_p", "seed", "presence_penalty", "frequency_penalty",
                "parallel_tool_calls", "n", "metadata", "user"):
        _take(request, key, key, common, consumed)
    _take(request, "reasoning_effort", "effort", common, consumed)
    stop = request.get("stop")
    if stop is not None:
        common["stop"] = list(stop) if isinstance(stop, list) else [stop]
        consumed.add("stop")
    choice = _openai_tool_choice(request.get("tool_choice"))
    if choice is not None:
        common["tool_choice"] = choice
        consumed.add("tool_choice")


def _read_openai_responses(request: dict[str, Any], common: dict[str, Any],
                           consumed: set[str]) -> None:
    _take(request, "max_output_tokens", "max_tokens", common, consumed)
    for key in ("temperature", "top_p", "parallel_tool_calls", "metadata", "user"):
        _take(request, key, key, common, consumed)
    reasoning = request.get("reasoning")
    if isinstance(reasoning, dict) and set(reasoning) <= {"effort"} and reasoning.get("effort"):
        common["effort"] = reasoning["effort"]
        consumed.add("reasoning")
    choice = _openai_tool_choice(request.get("tool_choice"))
    if choice is not None:
        common["tool_choice"] = choice
        consumed.add("tool_choice")


ANTHROPIC_CHOICES = {"auto": "auto", "any": "required", "none": "none"}


def _read_anthropic(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    _take(request, "max_tokens", "max_tokens", common, consumed)
    _take(request, "stop_sequences", "stop", common, consumed)
    metadata = request.get("metadata")
    if isinstance(metadata, dict) and set(metadata) == {"user_id"} and metadata["user_id"]:
        common["user"] = metadata["user_id"]
        consumed.add("metadata")
    output = request.get("output_config")
    if isinstance(output, dict) and set(output) == {"effort"} and output["effort"]:
        common["effort"] = output["effort"]
        consumed.add("output_config")
    choice = request.get("tool_choice")
    if isinstance(choice, dict):
        kind = choice.get("type")
        if isinstance(kind, str) and kind in ANTHROPIC_CHOICES:
            common["tool_choice"] = ANTHROPIC_CHOICES[kind]
        elif kind == "tool" and isinstance(choice.get("name"), str):
            common["tool_choice"] = {"name": choice["name"]}
        if "disable_parallel_tool_use" in choice:
            common["parallel_tool_calls"] = not choice["disable_parallel_tool_use"]
        if set(choice) <= {"type", "name", "disable_parallel_tool_use"}:
            consumed.add("tool_choice")


GEMINI_GENERATION = {"maxOutputTokens": "max_tokens", "temperature": "temperature",
                     "topP": "top_p", "topK": "top_k", "stopSequences": "stop", "seed": "seed",
                     "presencePenalty": "presence_penalty",
                     "frequencyPenalty": "frequency_penalty", "candidateCount": "n"}
GEMINI_MODES = {"AUTO": "auto", "ANY": "required", "NONE": "none"}


def _read_gemini(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    generation = request.get("generationConfig")
    if isinstance(generation, dict):
        for key, name in GEMINI_GENERATION.items():
            if generation.get(key) is not None:
                common[name] = generation[key]
        thinking = generation.get("thinkingConfig")
        if isinstance(thinking, dict) and set(thinking) == {"thinkingLevel"}:
            common["effort"] = str(thinking["thinkingLevel"]).lower()
        if set(generation) <= {*GEMINI_GENERATION, "thinkingConfig"} and (
                "thinkingConfig" not in generation or "effort" in common):
            consumed.add("generationConfig")
    calling = (request.get("toolConfig") or {}).get("functionCallingConfig") if isinstance(
        request.get("toolConfig"), dict) else None
    if isinstance(calling, dict):
        mode = calling.get("mode")
        names = calling.get("allowedFunctionNames")
        if mode == "ANY" and isinstance(names, list) and len(names) == 1:
            common["tool_choice"] = {"name": names[0]}
        elif isinstance(mode, str) and mode in GEMINI_MODES and not names:
            common["tool_choice"] = GEMINI_MODES[mode]
        if "tool_choice" in common and set(request["toolConfig"]) == {"functionCallingConfig"}:
            consumed.add("toolConfig")


BEDROCK_INFERENCE = {"maxTokens": "max_tokens", "temperature": "temperature", "topP": "top_p",
                     "stopSequences": "stop"}
BEDROCK_CHOICES = {"auto": "auto", "any": "required"}


def _read_bedrock(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    inference = request.get("inferenceConfig")
    if isinstance(inference, dict):
        for key, name in BEDROCK_INFERENCE.items():
            if inference.get(key) is not None:
                common[name] = inference[key]
        if set(inference) <= BEDROCK_INFERENCE.keys():
            consumed.add("inferenceConfig")
    # The reader keeps toolConfig without its tools: what is left is the tool choice.
    tool_config = request.get("toolConfig")
    choice = tool_config.get("toolChoice") if isinstance(tool_config, dict) else None
    if isinstance(choice, dict) and len(choice) == 1:
        [(kind, value)] = choice.items()
        if kind in BEDROCK_CHOICES:
            common["tool_choice"] = BEDROCK_CHOICES[kind]
        elif kind == "tool" and isinstance(value, dict) and isinstance(value.get("name"), str):
            common["tool_choice"] = {"name": value["name"]}
    if isinstance(tool_config, dict) and set(tool_config) <= {"toolChoice"} and (
            "toolChoice" not in tool_config or "tool_choice" in common):
        consumed.add("toolConfig")


READERS: dict[str, Callable[[dict[str, Any], dict[str, Any], set[str]], None]] = {
    OPENAI_CHAT: _read_openai_chat, OPENAI_RESPONSES: _read_openai_responses,
    ANTHROPIC: _read_anthropic, GEMINI: _read_gemini, BEDROCK_CONVERSE: _read_bedrock,
}


# -- writing: neutral names -> the target's fields; returns the names it has no field for ------

def _put(payload: dict[str, Any], key: str, value: Any) -> None:
    if key not in payload:
        payload[key] = value


def _write_openai_chat(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    for name, value in common.items():
        if name in ("max_tokens", "temperature"):
            continue  # the exporter wrote them
        if name == "stop":
            _put(payload, "stop", value)
        elif name == "effort":
            _put(payload, "reasoning_effort", value)
        elif name == "tool_choice":
            _put(payload, "tool_choice", value if isinstance(value, str) else {
                "type": "function", "function": {"name": value["name"]}})
        elif name in ("top_p", "seed", "presence_penalty", "frequency_penalty",
                      "parallel_tool_calls", "n", "metadata", "user"):
            _put(payload, name, value)
        else:
            missing.append(name)
    return missing


def _write_openai_responses(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    for name, value in common.items():
        if name in ("max_tokens", "temperature"):
            continue
        if name == "effort":
            _put(payload, "reasoning", {"effort": value})
        elif name == "tool_choice":
            _put(payload, "tool_choice", value if isinstance(value, str) else {
                "type": "function", "name": value["name"]})
        elif name in ("top_p", "parallel_tool_calls", "metadata", "user"):
            _put(payload, name, value)
        else:
            missing.append(name)
    return missing


def _write_anthropic(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    choice: dict[str, Any] | None = None
    for name, value in common.items():
        if name in ("max_tokens", "temperature"):
            continue  # the exporter wrote max_tokens and named temperature itself
        if name == "stop":
            _put(payload, "stop_sequences", value)
        elif name == "user":
            _put(payload, "metadata", {"user_id": value})
        elif name == "effort":
            payload["output_config"] = {"effort": value, **payload.get("output_config", {})}
        elif name == "tool_choice":
            choice = {"type": "tool", "name": value["name"]} if isinstance(value, dict) else {
                "type": {"auto": "auto", "required": "any", "none": "none"}.get(value, "auto")}
        elif name != "parallel_tool_calls":
            missing.append(name)
    if "parallel_tool_calls" in common:
        if choice is None:
            choice = {"type": "auto"}
        if choice["type"] != "none":
            choice["disable_parallel_tool_use"] = not common["parallel_tool_calls"]
    if choice is not None:
        _put(payload, "tool_choice", choice)
    return missing


GEMINI_LEVELS = ("low", "medium", "high")


def _write_gemini(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    generation: dict[str, Any] = payload.get("generationConfig", {})
    by_name = {name: key for key, name in GEMINI_GENERATION.items()}
    for name, value in common.items():
        if name in by_name:
            generation.setdefault(by_name[name], value)
        elif name == "effort" and value in GEMINI_LEVELS:
            generation.setdefault("thinkingConfig", {"thinkingLevel": value.upper()})
        elif name == "effort":
            missing.append(name)
        elif name == "tool_choice":
            calling = {"mode": "ANY", "allowedFunctionNames": [value["name"]]} if isinstance(
                value, dict) else {"mode": {"auto": "AUTO", "required": "ANY",
                                            "none": "NONE"}.get(value, "AUTO")}
            _put(payload, "toolConfig", {"functionCallingConfig": calling})
        else:
            missing.append(name)
    if generation:
        payload["generationConfig"] = generation
    return missing


def _write_bedrock(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    inference: dict[str, Any] = payload.get("inferenceConfig", {})
    by_name = {name: key for key, name in BEDROCK_INFERENCE.items()}
    for name, value in common.items():
        if name in ("max_tokens", "temperature"):
            continue  # the exporter wrote them
        if name in by_name:
            inference.setdefault(by_name[name], value)
        elif name == "tool_choice" and "toolConfig" in payload and value != "none":
            # Converse has no "none": a choice only goes beside tools.
            payload["toolConfig"].setdefault("toolChoice", {"tool": {"name": value["name"]}}
                                             if isinstance(value, dict) else
                                             {"auto": {}} if value == "auto" else {"any": {}})
        else:
            missing.append(name)
    if inference:
        payload["inferenceConfig"] = inference
    return missing


WRITERS: dict[str, Callable[[dict[str, Any], dict[str, Any]], list[str]]] = {
    OPENAI_CHAT: _write_openai_chat, OPENAI_RESPONSES: _write_openai_responses,
    ANTHROPIC: _write_anthropic, GEMINI: _write_gemini, BEDROCK_CONVERSE: _write_bedrock,
}
