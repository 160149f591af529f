"""Markdown grader decks (`*.deck.md`): each embedded sample becomes a case. By default the case
is what aibff's grader received (aibff_request: the deck's text, then its contexts' questions and
values); profile `spec` keeps seed 004's reading, the deck's text then the sample's messages."""

from __future__ import annotations

import posixpath

from ..bundle import Bundle
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
from .aibff_early import ERAS, EarlyRequest, early_request
from .aibff_request import AibffRequest
from .embeds import Expansion, collapse_blank_runs, selected
from .sample_cases import add_legacy_notice, configured_system_prompt, sample_case
from .samples import Sample, SampleFile, load_sample_file


def render_grader_deck(bundle: Bundle, path: str, text: str, options: RenderOptions) -> RenderedDocument:
    expansion = Expansion(bundle)
    expansion.expand(path, text, "", (path,))
    pieces = collapse_blank_runs(expansion.pieces)
    document = RenderedDocument(path=path, kind="deck", cases=[])
    document.warnings.extend(expansion.diagnostics)
    loaded, samples, contexts = _embedded_samples(bundle, expansion, document)

    deck_text = "".join(piece.text for piece in pieces)
    system_segments = _deck_segments(pieces)
    deck_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    context_questions = {
        name: definition.get("assistantQuestion", definition.get("question"))
        for name, definition in contexts.items()
    }
    aibff = None if options.profile == "spec" else AibffRequest.of(bundle, path, expansion, loaded, document)
    early: EarlyRequest | None = None
    if aibff is not None:
        aibff, early, samples = _aibff_reading(
            aibff, bundle, path, text, options, expansion, loaded, samples, document
        )
        system_segments = _deck_segments(_sent_text(bundle, path, text))

    def deck_message() -> Message:
        return Message("system", list(system_segments), span=LineSpan(path, 1, max(1, deck_lines)))

    for (sample_path, _), sample in samples.items():
        leading = [deck_message()] if deck_text else configured_system_prompt(options)
        case = sample_case(sample, sample_path, leading)
        if early is not None:
            early.apply(case, sample, loaded[sample_path])
        elif aibff is not None and deck_text:
            aibff.apply(case, sample, sample_path)
        if context_questions:
            case.metadata["contexts"] = context_questions
        case.metadata["deck"] = path
        document.cases.append(case)
    if not samples:
        case = RenderedCase(
            id=_deck_stem(path),
            messages=[deck_message()] if deck_text else [],
            span=LineSpan(path, 1, max(1, deck_lines)),
        )
        if context_questions:
            case.metadata["contexts"] = context_questions
        case.warnings.append(
            Diagnostic("this deck embeds no samples; only its system message is shown", path)
        )
        document.cases.append(case)
    return document


def _embedded_samples(
    bundle: Bundle, expansion: Expansion, document: RenderedDocument
) -> tuple[dict[str, SampleFile], dict[tuple[str, str], Sample], dict[str, dict]]:
    """The sample files the deck embeds, and the samples and contexts its embeds select (the
    first of each name wins)."""
    loaded: dict[str, SampleFile] = {}
    samples: dict[tuple[str, str], Sample] = {}
    contexts: dict[str, dict] = {}
    for embed in expansion.toml_embeds:
        if embed.path not in loaded:
            decoded = bundle.text(embed.path)
            assert decoded is not None  # existence was checked when the embed was read
            sample_file = load_sample_file(decoded.text, embed.path)
            loaded[embed.path] = sample_file
            document.warnings.extend(sample_file.diagnostics)
            add_legacy_notice(document, sample_file)
        sample_file = loaded[embed.path]
        chosen_samples, chosen_contexts = selected(sample_file, embed.fragment)
        if embed.fragment and not chosen_samples and not chosen_contexts:
            document.warnings.append(
                Diagnostic(f"#{embed.fragment} names nothing in {embed.path}", embed.from_path, embed.line)
            )
        for sample in chosen_samples:
            samples.setdefault((embed.path, sample.id), sample)
        for name in chosen_contexts:
            contexts.setdefault(name, sample_file.contexts[name])
    return loaded, samples, contexts


def _deck_segments(pieces: list) -> list[Segment]:
    return [
        Segment(piece.text, Origin(OriginKind.DECK, piece.path, piece.first_line, piece.last_line))
        for piece in pieces
    ]


def _sent_text(bundle: Bundle, path: str, text: str) -> list:
    """The deck's text as aibff sends it: every file's front matter in it."""
    sent_text = Expansion(bundle, keep_front_matter=True)
    sent_text.expand(path, text, "", (path,))
    return collapse_blank_runs(sent_text.pieces)


def _aibff_reading(
    aibff: AibffRequest | None,
    bundle: Bundle,
    path: str,
    text: str,
    options: RenderOptions,
    expansion: Expansion,
    loaded: dict[str, SampleFile],
    samples: dict[tuple[str, str], Sample],
    document: RenderedDocument,
) -> tuple[AibffRequest | None, EarlyRequest | None, dict[tuple[str, str], Sample]]:
    """aibff's calibrate takes samples only from the TOML files the deck itself embeds; an
    earlier era's code may keep fewer, or stop on the deck (then seed 004's reading is shown,
    with no aibff request)."""
    top = {embed.path for embed in expansion.toml_embeds if embed.from_path == path}
    samples = {key: sample for key, sample in samples.items() if key[0] in top}
    early: EarlyRequest | None = None
    era = ERAS.get(options.profile)
    if era is not None and samples:
        built = early_request(era, bundle, path, text, {name: loaded[name] for name in loaded if name in top})
        if isinstance(built, tuple):
            message, where, line = built
            document.warnings.append(
                Diagnostic(
                    f"aibff's calibrate ({era.profile}) stops on this deck: {message}. Shown "
                    "instead in seed 004's reading (the deck's text, then each sample's "
                    "messages)",
                    where,
                    line,
                    severity="error",
                )
            )
            aibff = None
        else:
            early = built
            samples = {key: sample for key, sample in samples.items() if early.keeps(sample)}
    document.profile = early.era.profile if early is not None else "aibff-2025-08"
    document.profile_reason = (
        f"chosen in the settings: {early.era.name}"
        if early is not None
        else "a grader deck: shown as aibff's calibrate sent it in August 2025 (a deck does not "
        "say which aibff ran it; profiles aibff-2025-06 and aibff-2025-07 give June's and "
        "July's code, spec seed 004's reading)"
    )
    return aibff, early, samples


def _deck_stem(path: str) -> str:
    stem = posixpath.basename(path)
    return stem[: -len(".deck.md")] if stem.lower().endswith(".deck.md") else stem
