"""Validate exported payloads with the providers' own SDK request types.

The SDKs' request TypedDicts accept unknown keys, coerce "1024" to 1024 and validate `Iterable[...]`
fields lazily; three adjustments (payloads.md) make them a real check: forbid extra keys on every
TypedDict reachable from the request type, validate with strict=True, and consume every iterable of
the validated result. Building an adapter takes seconds, so build each once per test session.
"""

from __future__ import annotations

import collections.abc
import json
import typing
from collections.abc import Callable
from typing import Any

import pydantic
import typing_extensions

# Anthropic request types reach file-upload types (IO[bytes]) that pydantic cannot build itself.
TYPED_DICT_CONFIG = pydantic.ConfigDict(extra="forbid", arbitrary_types_allowed=True)
GEMINI_BODY_KEYS = {
    "contents",
    "systemInstruction",
    "tools",
    "toolConfig",
    "generationConfig",
    "safetySettings",
}


class PayloadRejected(AssertionError):
    pass


def _is_typed_dict(tp: Any) -> bool:
    return typing.is_typeddict(tp) or typing_extensions.is_typeddict(tp)


def forbid_extras(root: Any) -> int:
    """Set extra="forbid" on every TypedDict reachable from `root`; returns how many."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        tp = stack.pop()
        if id(tp) in seen:
            continue
        seen.add(id(tp))
        if _is_typed_dict(tp):
            tp.__pydantic_config__ = TYPED_DICT_CONFIG
            stack.extend(typing_extensions.get_type_hints(tp, include_extras=True).values())
            continue
        alias_value = getattr(tp, "__value__", None)  # PEP 695 / TypeAliasType
        if alias_value is not None:
            stack.append(alias_value)
        stack.extend(arg for arg in typing_extensions.get_args(tp) if not isinstance(arg, str))
    return sum(1 for _ in seen)


def consume(value: Any, raw: Any, path: str = "") -> Any:
    """Run pydantic's lazy validators for Iterable[...] fields (they validate only when read).
    `raw` is the matching part of the payload, to name where a failure is and filter its errors."""
    if isinstance(value, dict):
        for key, item in list(value.items()):
            part = raw.get(key) if isinstance(raw, dict) else None
            value[key] = consume(item, part, f"{path}{key}.")
        return value
    if isinstance(value, list | tuple | collections.abc.Iterator):
        items = []
        iterator = iter(value)
        position = 0
        while True:
            part = raw[position] if isinstance(raw, list) and position < len(raw) else None
            try:
                item = next(iterator)
            except StopIteration:
                break
            except pydantic.ValidationError as error:
                raise PayloadRejected(
                    "\n".join(f"{path}{line}" for line in _relevant_errors(error, raw))
                ) from None
            items.append(consume(item, part, f"{path}{position}."))
            position += 1
        return items
    return value


def _branch(location: tuple) -> tuple:
    """The location up to the innermost union branch (a type name such as "ToolUseBlockParam")."""
    for position in range(len(location) - 1, -1, -1):
        part = location[position]
        if isinstance(part, str) and part[:1].isupper():
            return location[: position + 1]
    return ()


def _relevant_errors(error: pydantic.ValidationError, payload: Any) -> list[str]:
    """A failure inside a union lists every branch: drop the branches whose `type` or `role`
    literal does not match the payload, keeping the one the payload meant."""
    errors = error.errors()
    wrong_branches = {
        _branch(item["loc"])
        for item in errors
        if item["type"] == "literal_error"
        and item["loc"][-1] in ("type", "role")
        and _branch(item["loc"]) == item["loc"][:-1]
    }
    kept = [
        item
        for item in errors
        if not any(item["loc"][: len(branch)] == branch for branch in wrong_branches if branch)
    ]
    return [f"{'.'.join(str(part) for part in item['loc'])}: {item['msg']}" for item in (kept or errors)[:30]]


class TypedDictValidator:
    def __init__(self, request_type: Any):
        forbid_extras(request_type)
        self.adapter = pydantic.TypeAdapter(request_type)

    def __call__(self, payload: dict[str, Any]) -> None:
        try:
            consume(self.adapter.validate_python(payload, strict=True), payload)
        except pydantic.ValidationError as error:
            raise PayloadRejected("\n".join(_relevant_errors(error, payload))) from None


class GeminiValidator:
    """google-genai's pydantic models forbid extras already; the REST body is a set of them."""

    def __init__(self) -> None:
        from google.genai import types

        self.models = {
            "contents": list[types.Content],
            "systemInstruction": types.Content,
            "tools": list[types.Tool],
            "toolConfig": types.ToolConfig,
            "generationConfig": types.GenerationConfig,
            "safetySettings": list[types.SafetySetting],
        }
        self.adapters = {key: pydantic.TypeAdapter(model) for key, model in self.models.items()}

    def __call__(self, payload: dict[str, Any]) -> None:
        unknown = set(payload) - GEMINI_BODY_KEYS
        if unknown:
            raise PayloadRejected(f"unknown body keys: {sorted(unknown)}")
        if "contents" not in payload:
            raise PayloadRejected("contents is required")
        problems = []
        for key, value in payload.items():
            try:
                # As JSON, so strict mode takes enum values as the REST body spells them.
                self.adapters[key].validate_json(json.dumps(value), strict=True)
            except pydantic.ValidationError as error:
                problems.extend(f"{key}.{line}" for line in _relevant_errors(error, value))
        if problems:
            raise PayloadRejected("\n".join(problems))


class BotocoreValidator:
    """A Converse body checked against botocore's own `bedrock-runtime` service model: first
    botocore's ParamValidator, the check boto3 runs before it sends (types, required members,
    unknown keys, minima, one member per union), then what the model declares and botocore leaves
    to the server: maxima, enums, and string patterns (taken whole: the documentation gives them
    as the allowed characters)."""

    def __init__(self) -> None:
        import botocore.session

        model = botocore.session.get_session().get_service_model("bedrock-runtime")
        self.shape = model.operation_model("Converse").input_shape

    def __call__(self, payload: dict[str, Any]) -> None:
        from botocore.validate import ParamValidator

        if "modelId" in payload:
            raise PayloadRejected("modelId belongs in the URL, not the body")
        params = {"modelId": "amazon.nova-lite-v1:0", **payload}
        report = ParamValidator().validate(params, self.shape)
        if report.has_errors():
            raise PayloadRejected(report.generate_report())
        problems = list(_declared_limits(self.shape, params, ""))
        if problems:
            raise PayloadRejected("\n".join(problems[:30]))


def _declared_limits(shape: Any, value: Any, path: str):
    """Values breaking the maxima, enums and patterns a botocore shape declares."""
    import re

    metadata = shape.metadata
    if shape.type_name == "structure" and isinstance(value, dict):
        for name, member in shape.members.items():
            if name in value:
                yield from _declared_limits(member, value[name], f"{path}{name}.")
    elif shape.type_name == "list" and isinstance(value, list):
        if "max" in metadata and len(value) > metadata["max"]:
            yield f"{path.rstrip('.')}: more than {metadata['max']} items"
        for position, item in enumerate(value):
            yield from _declared_limits(shape.member, item, f"{path}{position}.")
    elif shape.type_name == "string" and isinstance(value, str):
        if "max" in metadata and len(value) > metadata["max"]:
            yield f"{path.rstrip('.')}: longer than {metadata['max']} characters"
        if "pattern" in metadata and not re.fullmatch(metadata["pattern"], value):
            yield f"{path.rstrip('.')}: {value!r} does not match {metadata['pattern']}"
        if shape.enum and value not in shape.enum:
            yield f"{path.rstrip('.')}: {value!r} is not one of {shape.enum}"
    elif (
        shape.type_name in ("integer", "long", "float", "double")
        and "max" in metadata
        and isinstance(value, int | float)
        and value > metadata["max"]
    ):
        yield f"{path.rstrip('.')}: {value} is above {metadata['max']}"


def build_validators() -> dict[str, Callable[[dict[str, Any]], None]]:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    return {
        "openai-chat": TypedDictValidator(CompletionCreateParamsNonStreaming),
        "openai-responses": TypedDictValidator(ResponseCreateParamsNonStreaming),
        "anthropic": TypedDictValidator(MessageCreateParamsNonStreaming),
        "gemini": GeminiValidator(),
        "bedrock-converse": BotocoreValidator(),
    }
