"""Render and export settings read from a request's query parameters, for the pages and the API."""

from __future__ import annotations

from collections.abc import Mapping

from inspector.core.export import FORMATS as EXPORT_FORMATS
from inspector.core.export import PROVIDERS

# One settings parser for pages, API and CLI, re-exported for the web layer.
from inspector.core.render_settings import (  # noqa: F401
    SettingsError,
    parse_pricing,
    parse_render_options,
)


def parse_export_settings(params: Mapping[str, str]):
    """ExportSettings from query parameters: model, max_output_tokens, temperature."""
    from inspector.core.export import ExportSettings

    model = (params.get("model") or "").strip() or None
    if model is not None and len(model) > 200:
        raise SettingsError("the model name is too long")
    max_output_tokens = None
    if params.get("max_output_tokens"):
        try:
            max_output_tokens = int(params["max_output_tokens"])
        except ValueError:
            raise SettingsError("max_output_tokens must be a whole number") from None
        if not 1 <= max_output_tokens <= 1_000_000:
            raise SettingsError("max_output_tokens must be between 1 and 1,000,000")
    temperature = None
    if params.get("temperature"):
        try:
            temperature = float(params["temperature"])
        except ValueError:
            raise SettingsError("temperature must be a number") from None
        if not 0 <= temperature <= 2:
            raise SettingsError("temperature must be between 0 and 2")
    return ExportSettings(model=model, max_tokens=max_output_tokens, temperature=temperature)


def parse_provider(value: str | None) -> str:
    provider = value or "openai-chat"
    if provider not in PROVIDERS:
        raise SettingsError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    return provider


def parse_export_format(value: str | None) -> str:
    form = value or "json"
    if form not in EXPORT_FORMATS:
        raise SettingsError(f"unknown format {form!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    return form
