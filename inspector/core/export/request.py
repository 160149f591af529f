"""Request-level fields: model, limits, sampling, stop, seed, tool choice, reasoning, metadata ...

A raw request keeps its own fields (`case.metadata["request"]`, the source API in
`case.metadata["format"]`). Exported to the API it came from, every field goes back as it was;
exported to another, each field is read into a neutral name by the source format's
`RequestFormat.read_fields`, written the way the target spells it by its `Provider.write_fields`
where the target has it, and named in Changes where it does not.
"""

from __future__ import annotations

from typing import Any

from .. import formats
from ..conversations.spec import FieldReader
from ..model import RenderedCase
from .common import ExportSettings, Notes, ResolvedSettings
from .registry import REGISTRY
from .spec import Provider

# Neutral names, as Changes name them.
SETTING_NAMES = {
    "max_tokens": "max tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "stop": "stop sequences",
    "seed": "seed",
    "presence_penalty": "presence penalty",
    "frequency_penalty": "frequency penalty",
    "tool_choice": "tool choice",
    "parallel_tool_calls": "parallel tool calls",
    "effort": "reasoning effort",
    "user": "end-user id",
    "metadata": "metadata",
    "n": "number of choices",
}


def source(case: RenderedCase) -> tuple[str | None, dict[str, Any]]:
    """The API a raw request came from and its request-level fields (empty for eval files)."""
    request = case.metadata.get("request")
    return case.metadata.get("format"), request if isinstance(request, dict) else {}


def api_label(name: str) -> str:
    """How Changes name an API: as its request format does (Bedrock's provider label says AWS),
    else as its provider does, else by its name."""
    request = formats.request_format(name)
    if request is not None:
        return request.label
    spec = REGISTRY.get(name)
    return spec.label if spec is not None else name


def resolve(case: RenderedCase, settings: ExportSettings, target: Provider, notes: Notes) -> ResolvedSettings:
    """Model, max tokens and temperature: what the user set, else the source request's, else the
    provider's defaults. A model of another provider's family is not sent (and said so)."""
    defaults = target.defaults
    if "request" not in case.metadata:  # no raw request: the common case, kept cheap
        return settings.resolved(defaults)
    fmt, request = source(case)
    if fmt is None or not request:
        return settings.resolved(defaults)
    source_format = formats.request_format(fmt)
    common = (
        read_common(source_format.read_fields, request)[0]
        if (source_format is not None and source_format.read_fields is not None)
        else {}
    )
    model = settings.model
    source_model = request.get("model")
    if model is None and isinstance(source_model, str) and source_model:
        if source_format is not None and source_format.model_family == target.model_family:
            model = source_model
        else:
            notes.change(
                f"model {source_model!r} belongs to {api_label(fmt)}; sent as {defaults.model!r}, the default"
            )
    max_tokens = (
        settings.max_tokens
        if settings.max_tokens is not None
        else common.get("max_tokens", defaults.max_tokens)
    )
    temperature = (
        settings.temperature
        if settings.temperature is not None
        else common.get("temperature", defaults.temperature)
    )
    return ResolvedSettings(model or defaults.model, max_tokens, temperature)


def apply(case: RenderedCase, target: Provider, payload: dict[str, Any], notes: Notes) -> None:
    """The source request's other fields: all of them back to their own API, the common ones
    mapped to another (what the exporter already set stays)."""
    if "request" not in case.metadata:
        return
    fmt, request = source(case)
    if fmt is None or not request:
        return
    if fmt == target.id:
        _back_to_own_api(request, target, payload)
        return
    source_format = formats.request_format(fmt)
    if source_format is None or source_format.read_fields is None:
        return
    common, consumed = read_common(source_format.read_fields, request)
    writer = target.write_fields
    for name in writer(common, payload) if writer else list(common):
        notes.change(f"{SETTING_NAMES.get(name, name)} left out: {api_label(target.id)} has no such setting")
    for key in request:
        if key != "model" and key not in consumed:
            notes.change(f"request field {key!r} left out: it is {source_format.label}'s own")


def _back_to_own_api(request: dict[str, Any], target: Provider, payload: dict[str, Any]) -> None:
    """Every field of a request exported to its own API, but those the exporter wrote."""
    for key, value in request.items():
        if key == "model" or key in target.own_keys:
            continue  # set by the exporter from the resolved settings
        built = payload.get(key)
        if isinstance(built, dict) and isinstance(value, dict):
            payload[key] = {**value, **built}
        elif key not in payload:
            payload[key] = value


def read_common(read_fields: FieldReader, request: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """A request's common fields under their neutral names, and the keys they came from."""
    common: dict[str, Any] = {}
    consumed: set[str] = set()
    read_fields(request, common, consumed)
    return common, consumed


def put_field(payload: dict[str, Any], key: str, value: Any) -> None:
    """A field the target spells `key`, unless the exporter wrote it already."""
    if key not in payload:
        payload[key] = value
