"""What the pages and the JSON API both do, in one place: find a bundle, read render settings from a
request's parameters, render a document. Views and API endpoints stay thin wrappers around these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import give_cases_distinct_ids, list_documents, render_document
from inspector.core.model import InputError, RenderedCase, RenderedDocument
from inspector.core.options import INPUT_FORMATS, PROFILES, RenderOptions
from inspector.models import Bundle

MAX_SYSTEM_PROMPT = 100_000
MAX_PATTERNS = 50


class SettingsError(ValueError):
    """A render setting in the query string is not usable."""


def parse_render_options(params: Mapping[str, str]) -> RenderOptions:
    """RenderOptions from query parameters: profile, patterns (one per line or comma separated,
    `patterns=` present but empty means none), system_prompt, max_tokens, input_format."""
    profile = params.get("profile") or "spec"
    if profile not in PROFILES:
        raise SettingsError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    input_format = params.get("input_format") or "auto"
    if input_format not in INPUT_FORMATS:
        raise SettingsError(f"unknown input format {input_format!r}")
    patterns = None
    if "patterns" in params and params.get("patterns_mode", "custom") != "config":
        raw = params.get("patterns") or ""
        patterns = tuple(p.strip() for p in raw.replace(",", "\n").splitlines() if p.strip())
        if len(patterns) > MAX_PATTERNS:
            raise SettingsError(f"at most {MAX_PATTERNS} guideline patterns")
    system_prompt = params.get("system_prompt") or None
    if system_prompt is not None and len(system_prompt) > MAX_SYSTEM_PROMPT:
        raise SettingsError("the system prompt is too long")
    max_tokens = None
    if params.get("max_tokens"):
        try:
            max_tokens = int(params["max_tokens"])
        except ValueError:
            raise SettingsError("max_tokens must be a whole number") from None
        if not 1 <= max_tokens <= 10_000_000:
            raise SettingsError("max_tokens must be between 1 and 10,000,000")
    return RenderOptions(profile=profile, guideline_patterns=patterns, system_prompt=system_prompt,
                         max_tokens=max_tokens, input_format=input_format)


@dataclass(frozen=True)
class LoadedBundle:
    """A stored bundle with its files in memory, ready for the core."""

    record: Bundle
    files: MemoryBundle
    documents: tuple[str, ...]


# A bundle may hold up to MAX_BUNDLE_BYTES; sixteen of them bound each worker's cache.
@lru_cache(maxsize=16)
def _load(bundle_id: str) -> tuple[MemoryBundle, tuple[str, ...]] | None:
    # Bundles are immutable, so their files can be cached by id for the life of the process.
    record = Bundle.objects.filter(pk=bundle_id).first()
    if record is None:
        return None
    files = record.as_core_bundle()
    return files, tuple(list_documents(files))


def load_bundle(bundle_id: str) -> LoadedBundle | None:
    if not bundle_id or len(bundle_id) > 64:
        return None
    record = Bundle.objects.filter(pk=bundle_id).first()
    if record is None:
        # A deleted bundle must not linger in the cache.
        forget_bundle(bundle_id)
        return None
    loaded = _load(bundle_id)
    if loaded is None:
        return None
    files, documents = loaded
    return LoadedBundle(record, files, documents)


def forget_bundle(bundle_id: str) -> None:
    _load.cache_clear()


@lru_cache(maxsize=256)
def _render_cached(bundle_id: str, path: str, options: RenderOptions) -> RenderedDocument:
    loaded = _load(bundle_id)
    if loaded is None:
        raise InputError("the bundle was deleted", path)
    return give_cases_distinct_ids(render_document(loaded[0], path, options))


def render(loaded: LoadedBundle, path: str, options: RenderOptions) -> RenderedDocument:
    """Render a document of a stored bundle. Raises InputError for unusable input."""
    if path not in loaded.files.paths():
        raise InputError("no such file in this bundle", path)
    return _render_cached(loaded.record.pk, path, options)


def find_case(document: RenderedDocument, case_id: str) -> RenderedCase | None:
    for case in document.cases:
        if case.id == case_id:
            return case
    return None


PROVIDERS = ("openai-chat", "openai-responses", "anthropic", "gemini")
EXPORT_FORMATS = ("json", "curl", "python", "typescript")


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
