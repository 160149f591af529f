"""Sample decks: TOML sample files and the markdown grader decks (`*.deck.md`) that embed them.

Each sample becomes a case: the grader deck's text as the system message (when a deck is
present), then the sample's messages. A TOML file opened on its own has no deck text.
`samples` reads TOML sample files, `embeds` expands a deck's markdown, `grader` and
`sample_cases` make the cases.
"""

from __future__ import annotations

from ..bundle import Bundle
from ..model import InputError, RenderedDocument
from ..options import RenderOptions
from .embeds import MAX_EMBEDS
from .grader import render_grader_deck
from .sample_cases import render_sample_file

__all__ = ["MAX_EMBEDS", "render_deck_file"]


def render_deck_file(bundle: Bundle, path: str, options: RenderOptions | None = None
                     ) -> RenderedDocument:
    options = options or RenderOptions()
    decoded = bundle.text(path)
    if decoded is None:
        raise InputError("file not found in the bundle", path)
    if path.lower().endswith(".md"):
        return render_grader_deck(bundle, path, decoded.text, options)
    return render_sample_file(path, decoded.text, options)
