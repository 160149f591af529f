"""A sample deck's samples as cases, with or without a grader deck's text before them."""

from __future__ import annotations

import posixpath

from ..model import (
    Diagnostic,
    LineSpan,
    Message,
    Origin,
    OriginKind,
    RenderedCase,
    RenderedDocument,
    Segment,
)
from ..options import RenderOptions
from .samples import Sample, SampleFile, converted_toml, load_sample_file


def render_sample_file(path: str, text: str, options: RenderOptions) -> RenderedDocument:
    sample_file = load_sample_file(text, path)
    document = RenderedDocument(path=path, kind="deck", cases=[])
    document.warnings.extend(sample_file.diagnostics)
    add_legacy_notice(document, sample_file)
    leading = configured_system_prompt(options)
    for sample in sample_file.samples:
        document.cases.append(sample_case(sample, path, list(leading)))
    if not document.cases and not sample_file.diagnostics:
        document.warnings.append(Diagnostic("this file has no samples", path))
    return document


def configured_system_prompt(options: RenderOptions) -> list[Message]:
    if not options.system_prompt:
        return []
    return [Message("system", [Segment(options.system_prompt, Origin(OriginKind.DEFAULT_PROMPT))])]


def add_legacy_notice(document: RenderedDocument, sample_file: SampleFile) -> None:
    legacy = [sample.id for sample in sample_file.samples if sample.legacy]
    if not legacy:
        return
    name = posixpath.basename(sample_file.path)
    stem = name[:-5] if name.lower().endswith(".toml") else name
    converted_name = f"{stem}.converted.toml"
    document.conversions[converted_name] = converted_toml(sample_file)
    first_line = next((s.span[0] for s in sample_file.samples if s.legacy and s.span), None)
    document.warnings.append(
        Diagnostic(
            f"{len(legacy)} sample(s) use the userMessage/assistantResponse format, which the messages "
            f"array replaced ([[samples.<id>.messages]] with role and content); they are shown "
            f"converted, and the converted file is offered as {converted_name}: {', '.join(legacy)}",
            sample_file.path,
            first_line,
        )
    )


def sample_case(sample: Sample, path: str, leading: list[Message]) -> RenderedCase:
    messages = leading
    for item in sample.messages:
        start, end = item.content_span or item.span or (None, None)
        messages.append(
            Message(
                role=item.role,
                segments=[Segment(item.content, Origin(OriginKind.CASE_TEXT, path, start, end))],
                span=LineSpan(path, *item.span) if item.span else None,
            )
        )
    case = RenderedCase(
        id=sample.id,
        messages=messages,
        span=LineSpan(path, *sample.span) if sample.span else None,
        metadata=dict(sample.metadata),
    )
    if sample.legacy:
        case.warnings.append(
            Diagnostic(
                "legacy userMessage/assistantResponse sample: the messages array replaced this "
                "format; shown converted to a user and an assistant message",
                path,
                sample.span[0] if sample.span else None,
            )
        )
    return case
