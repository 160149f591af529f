"""What a provider module declares about itself: the one place a provider is described.

Every surface that offers providers — the exporters, batch files, curl/Python/TypeScript code, token
counts, the page's menu, the API's enum, the CLI's `--to` — reads these specs from `registry`, so a
new provider is one module that ends with a `PROVIDER = Provider(...)`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model import Media, RenderedCase
from . import image_tokens
from .common import ExportResult, ExportSettings, ResolvedDefaults

Exporter = Callable[[RenderedCase, ExportSettings], ExportResult]
# (a request's common fields under neutral names, the payload) -> the names the API has no
# field for (export/request.py)
FieldWriter = Callable[[dict[str, Any], dict[str, Any]], list[str]]
# (case, settings, the cache map's marks for the case) -> the export with cache breakpoints
BreakpointExporter = Callable[[RenderedCase, ExportSettings, list[Any]], ExportResult]
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
class Shell:
    """A provider's own command-line client, used for the shell form instead of curl when plain
    HTTP will not do (Bedrock signs its requests with SigV4)."""

    label: str  # how the format menu names the form, e.g. "AWS CLI"
    # (model, payload as JSON text, a heredoc delimiter that the text does not hold) -> script
    script: Callable[[str, str, str], str]


@dataclass(frozen=True, slots=True)
class PromptCache:
    """How a provider caches a repeated request prefix, as its documentation states it."""

    mode: str  # "automatic" (any shared prefix) or "breakpoints" (only up to a marked block)
    # (model-name regex, minimum cacheable prefix in tokens), first match wins.
    minimums: tuple[tuple[str, int], ...]
    fallback_minimum: int  # for a model the table does not name: the largest documented one
    source: str  # where the minimums are published
    increment: int = 1  # cached lengths are counted in steps of this many tokens
    system_first: bool = False  # the system text is sent (and cached) before every message

    def minimum(self, model: str) -> tuple[int, bool]:
        """(minimum cacheable tokens for the model, whether the table names the model)."""
        for pattern, tokens in self.minimums:
            if re.match(pattern, model):
                return tokens, True
        return self.fallback_minimum, False


@dataclass(frozen=True, slots=True)
class Billing:
    """Where a provider's prices are found and how it caches prompts."""

    prices_provider: str  # the provider's id in pydantic's genai-prices data
    cache: PromptCache


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
    shell: Shell | None = None  # None: the shell form is curl against `http`
    billing: Billing | None = None  # None: no price data or cache facts for this provider
    # What an image costs (export/image_tokens.py); OpenAI's tiles unless the provider says.
    image_tokens: Callable[[Media], int] = image_tokens.openai
    # Whose model names it takes (a request's model goes along to the same family); None: its id.
    family: str | None = None
    # Payload keys the exporter writes from the resolved settings, so a request read back from
    # this API does not put its own values over them.
    own_keys: tuple[str, ...] = ()
    # A request's common fields from another API written the way this one spells them; None:
    # each is named in Changes as left out.
    write_fields: FieldWriter | None = None
    # Marks the request's prefix for the cache where the cache map says (the cache option of the
    # page, API and CLI); None: the provider caches without marks, or not at all.
    export_with_breakpoints: BreakpointExporter | None = None

    @property
    def model_family(self) -> str:
        return self.family or self.id
