"""Provider request payloads from rendered cases, one module per provider (see registry.py).

Each exporter returns the payload with what it changed to fit the provider (Change) and what the
provider would still reject (Lint), both pointing at the message (index into case.messages).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..formats import read_request
from ..model import RenderedCase, distinct_ids
from . import anthropic, bedrock_converse, gemini, openai_chat, openai_responses, registry
from .code import FORMATS, render_code, render_codes
from .common import Change, ExportResult, ExportSettings, Lint, full_instructions
from .provider_own import without_provider_own
from .registry import REGISTRY, with_cache_breakpoints
from .registry import provider as provider_spec

__all__ = [
    "FORMATS",
    "PROVIDERS",
    "REGISTRY",
    "BatchExport",
    "Change",
    "ExportResult",
    "ExportSettings",
    "Lint",
    "batch_export",
    "batch_jsonl",
    "export_case",
    "export_request",
    "full_instructions",
    "provider_spec",
    "with_cache_breakpoints",
    "render_code",
    "render_codes",
]


if TYPE_CHECKING:
    PROVIDERS: tuple[str, ...]


def __getattr__(name: str) -> object:
    # PROVIDERS as the registry has it now (registry.register rebinds it), for those that import
    # it after a provider was registered.
    if name == "PROVIDERS":
        return registry.PROVIDERS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def export_case(case: RenderedCase, provider: str, settings: ExportSettings | None = None) -> ExportResult:
    spec = provider_spec(provider)
    settings = settings or ExportSettings()
    if not case.metadata:  # an eval case: nothing of a source API or its defaults to look at
        return spec.export(case, settings)
    case, left_out = without_provider_own(case, provider)
    result = spec.export(case, with_source_defaults(case, settings))
    if left_out:
        result.changes[:0] = left_out
    return result


def export_request(
    body: dict,
    input_format: str,
    provider: str,
    settings: ExportSettings | None = None,
    path: str = "request.json",
) -> ExportResult:
    """A request body given as dicts in `input_format`, as `provider`'s request: the body read
    into the neutral model as a file's would be (without lines), then exported."""
    return export_case(read_request(body, input_format, path), provider, settings)


def with_source_defaults(case: RenderedCase, settings: ExportSettings) -> ExportSettings:
    """Settings the user left empty, taken from what the case's source declares (a gambit deck's
    [modelParams]: `metadata["export_defaults"]`)."""
    declared = case.metadata.get("export_defaults")
    if not isinstance(declared, dict):
        return settings
    return replace(
        settings,
        model=settings.model or declared.get("model"),
        max_tokens=settings.max_tokens if settings.max_tokens is not None else declared.get("max_tokens"),
        temperature=settings.temperature if settings.temperature is not None else declared.get("temperature"),
    )


@dataclass(slots=True)
class BatchExport:
    jsonl: str
    # What the batch changed: custom ids sanitised or made unique, per case id.
    notes: list[str] = field(default_factory=list)
    results: list[ExportResult] = field(default_factory=list)


def batch_export(
    cases: Iterable[RenderedCase], provider: str, settings: ExportSettings | None = None
) -> BatchExport:
    """One batch request line per case, the case id as the custom id (OpenAI Batch API lines,
    Anthropic Message Batches requests, Gemini batch `{key, request}` lines)."""
    settings = settings or ExportSettings()
    batch = provider_spec(provider).batch
    lines: list[str] = []
    notes: list[str] = []
    results: list[ExportResult] = []
    used: set[str] = set()
    cases = list(cases)
    # Duplicate ids get the pages' names (`a#2`), so a batch line and a case page name a case
    # alike; only a provider's character rules (Anthropic: no `#`) change them further.
    for position, (case, case_id) in enumerate(zip(cases, distinct_ids([c.id for c in cases]), strict=True)):
        result = export_case(case, provider, settings)
        results.append(result)
        custom_id = batch.custom_id(case_id, f"case-{position + 1}")
        if custom_id in used:
            # Room for "-NNNNNNN" within the provider's limit.
            base = custom_id[: batch.max_id_length - 8] if batch.max_id_length else custom_id
            suffix = 2
            while f"{base}-{suffix}" in used:
                suffix += 1
            custom_id = f"{base}-{suffix}"
        used.add(custom_id)
        if custom_id != case.id:
            where = f" (line {case.span.start_line})" if case.span else ""
            notes.append(f"case {case.id!r}{where}: custom id {custom_id!r}")
        line = batch.line(custom_id, result.payload)
        lines.append(_one_line(json.dumps(line, ensure_ascii=False)))
    return BatchExport("".join(line + "\n" for line in lines), notes, results)


# Characters str.splitlines() and many JSONL readers take as line ends; JSON leaves them raw.
LINE_BREAKERS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def _one_line(text: str) -> str:
    return text.translate(LINE_BREAKERS)


def batch_jsonl(cases: Iterable[RenderedCase], provider: str, settings: ExportSettings | None = None) -> str:
    return batch_export(cases, provider, settings).jsonl


# The built-in providers, in the order every menu offers them: through the same hook as any other.
for _module in (openai_chat, openai_responses, anthropic, gemini, bedrock_converse):
    registry.register(_module.PROVIDER)
