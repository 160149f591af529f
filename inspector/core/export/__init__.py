"""Provider request payloads from rendered cases: OpenAI Chat, OpenAI Responses, Anthropic, Gemini.

Each exporter returns the payload with what it changed to fit the provider (Change) and what the
provider would still reject (Lint), both pointing at the message (index into case.messages).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..model import RenderedCase
from . import anthropic, gemini, openai_chat, openai_responses
from .code import FORMATS, render_code
from .common import (
    ANTHROPIC,
    DEFAULTS,
    GEMINI,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    PROVIDERS,
    Change,
    ExportResult,
    ExportSettings,
    Lint,
    full_instructions,
    safe_id,
)

__all__ = [
    "DEFAULTS", "FORMATS", "PROVIDERS", "BatchExport", "Change", "ExportResult", "ExportSettings",
    "Lint", "batch_export", "batch_jsonl", "export_case", "full_instructions", "render_code",
]

EXPORTERS: dict[str, Callable[[RenderedCase, ExportSettings], ExportResult]] = {
    OPENAI_CHAT: openai_chat.export,
    OPENAI_RESPONSES: openai_responses.export,
    ANTHROPIC: anthropic.export,
    GEMINI: gemini.export,
}

BATCH_URLS = {OPENAI_CHAT: "/v1/chat/completions", OPENAI_RESPONSES: "/v1/responses"}
OPENAI_MAX_CUSTOM_ID = 512


def export_case(case: RenderedCase, provider: str, settings: ExportSettings | None = None
                ) -> ExportResult:
    exporter = EXPORTERS.get(provider)
    if exporter is None:
        raise ValueError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    return exporter(case, settings or ExportSettings())


@dataclass(slots=True)
class BatchExport:
    jsonl: str
    # What the batch changed: custom ids sanitised or made unique, per case id.
    notes: list[str] = field(default_factory=list)
    results: list[ExportResult] = field(default_factory=list)


def batch_export(cases: Iterable[RenderedCase], provider: str,
                 settings: ExportSettings | None = None) -> BatchExport:
    """One batch request line per case, the case id as the custom id (OpenAI Batch API lines,
    Anthropic Message Batches requests, Gemini batch `{key, request}` lines)."""
    settings = settings or ExportSettings()
    lines: list[str] = []
    notes: list[str] = []
    results: list[ExportResult] = []
    used: set[str] = set()
    for position, case in enumerate(cases):
        result = export_case(case, provider, settings)
        results.append(result)
        custom_id = _custom_id(case.id, provider, position)
        if custom_id in used:
            base = custom_id[:56] if provider == ANTHROPIC else custom_id
            suffix = 2
            while f"{base}-{suffix}" in used:
                suffix += 1
            custom_id = f"{base}-{suffix}"
        used.add(custom_id)
        if custom_id != case.id:
            notes.append(f"case {case.id!r}: custom id {custom_id!r}")
        if provider == ANTHROPIC:
            line = {"custom_id": custom_id, "params": result.payload}
        elif provider == GEMINI:
            line = {"key": custom_id, "request": result.payload}
        else:
            line = {"custom_id": custom_id, "method": "POST", "url": BATCH_URLS[provider],
                    "body": result.payload}
        lines.append(_one_line(json.dumps(line, ensure_ascii=False)))
    return BatchExport("".join(line + "\n" for line in lines), notes, results)


# Characters str.splitlines() and many JSONL readers take as line ends; JSON leaves them raw.
LINE_BREAKERS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def _one_line(text: str) -> str:
    return text.translate(LINE_BREAKERS)


def _custom_id(case_id: str, provider: str, position: int) -> str:
    fallback = f"case-{position + 1}"
    if provider == ANTHROPIC:
        # Message Batches: ^[a-zA-Z0-9_-]{1,64}$
        return safe_id(case_id, fallback)
    if provider in BATCH_URLS:
        return case_id[:OPENAI_MAX_CUSTOM_ID] or fallback
    return case_id or fallback


def batch_jsonl(cases: Iterable[RenderedCase], provider: str,
                settings: ExportSettings | None = None) -> str:
    return batch_export(cases, provider, settings).jsonl
