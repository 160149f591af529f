"""What a provider module declares about itself: the one place a provider is described.

Every surface that offers providers — the exporters, batch files, curl/Python/TypeScript code, token
counts, the page's menu, the API's enum, the CLI's `--to` — reads these specs from `registry`, so a
new provider is one module that ends with a `PROVIDER = Provider(...)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model import Media, RenderedCase
from . import image_tokens
from .common import ExportResult, ExportSettings, ResolvedDefaults

Exporter = Callable[[RenderedCase, ExportSettings], ExportResult]
# (payload as JSON text, already a safe literal for the language; the case comment line) -> code
CodeTemplate = Callable[[ExportResult, str, str], str]


@dataclass(frozen=True, slots=True)
class Batch:
    """One line of the provider's batch file (OpenAI Batch API, Anthropic Message Batches, Gemini
    batch `{key, request}` lines)."""

    key_name: str  # what the provider calls the case id in a batch line
    custom_id: Callable[[str, str], str]  # (case id, fallback) -> an id the provider accepts
    line: Callable[[str, dict[str, Any]], dict[str, Any]]  # (custom id, payload) -> line
    max_id_length: int | None = None  # for making repeated ids unique without breaking the limit


@dataclass(frozen=True, slots=True)
class Http:
    endpoint: Callable[[str], str]  # model -> URL
    headers: tuple[str, ...]  # curl headers, API keys read from the environment


@dataclass(frozen=True, slots=True)
class Provider:
    id: str
    label: str
    defaults: ResolvedDefaults
    export: Exporter
    encoding: str  # tokenizer standing in for the provider's
    exact_tokens: bool  # whether that encoding is the provider's own
    batch: Batch
    http: Http
    python: CodeTemplate
    typescript: CodeTemplate
    sdks: tuple[str, ...]  # the SDK packages the generated code needs, with minimum versions
    # What an image costs (export/image_tokens.py); OpenAI's tiles unless the provider says.
    image_tokens: Callable[[Media], int] = image_tokens.openai
