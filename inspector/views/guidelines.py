"""The case page's answer to "why is this guideline in my system prompt?": each guideline segment's
label names the pattern that made its file a guideline and the config line that gave it."""

from __future__ import annotations

from inspector.bundles import loading
from inspector.cases import message_cards
from inspector.core.agentv.guideline_reason import (
    GuidelineReason,
    guideline_paths,
    guideline_reason,
    verbatim_lines,
)
from inspector.core.model import RenderedCase
from inspector.core.options import RenderOptions


def explain_guidelines(
    loaded: loading.LoadedBundle, document: str, options: RenderOptions, view: message_cards.CaseView
) -> list[tuple[str, str]]:
    """Adds the reason to each guideline segment's label and says whether its text is its file's
    lines verbatim (a click then names the line); the (file, reason) pairs, for the page."""
    reasons: dict[str, GuidelineReason | None] = {}
    for card in view.cards:
        for segment in card.segments:
            if segment.kind != "guideline" or not segment.path:
                continue
            segment.by_line = bool(segment.start and segment.end) and (
                verbatim_lines(loaded.files, segment.path, segment.start or 0, segment.end or 0, segment.text)
                is not None
            )
            if segment.path not in reasons:
                reasons[segment.path] = guideline_reason(
                    loaded.files, document, segment.path, options.guideline_patterns
                )
            reason = reasons[segment.path]
            if reason is not None:
                segment.title += f" — {reason.sentence()}"
    return [(path, reason.sentence()) for path, reason in reasons.items() if reason is not None]


def editable_files(document: str, case: RenderedCase) -> list[str]:
    """What the case's editor may open: the case's own file, then each guideline file it sends."""
    return [document, *(path for path in guideline_paths(case) if path != document)]
