"""Sample decks: TOML sample files and the markdown grader decks (`*.deck.md`) that embed them.

Each sample becomes a case: the grader deck's text as the system message (when a deck is
present), then the sample's messages. A TOML file opened on its own has no deck text.
`samples` reads TOML sample files, `embeds` expands a deck's markdown, `grader` and
`sample_cases` make the cases. gambit 1.0's decks (`PROMPT.md` folders, `*.deck.md` with cards)
are the `gambit_*` modules: `gambit_detect` tells them apart, `gambit_text` and `gambit_load` read
them as gambit-core does, `gambit_deck` and `gambit_tools` make what its runtime sends.
"""

from __future__ import annotations

from ..bundle import Bundle
from ..model import InputError, RenderedDocument
from ..options import RenderOptions
from .embeds import MAX_EMBEDS
from .gambit_deck import render_gambit_deck
from .gambit_detect import is_gambit_file
from .grader import render_grader_deck
from .sample_cases import render_sample_file

__all__ = ["MAX_EMBEDS", "is_gambit_file", "render_deck_file", "render_gambit_file"]


def render_deck_file(bundle: Bundle, path: str, options: RenderOptions | None = None) -> RenderedDocument:
    options = options or RenderOptions()
    decoded = bundle.text(path)
    if decoded is None:
        raise InputError("file not found in the bundle", path)
    if path.lower().endswith(".md"):
        return render_grader_deck(bundle, path, decoded.text, options)
    return render_sample_file(path, decoded.text, options)


def render_gambit_file(bundle: Bundle, path: str, options: RenderOptions | None = None) -> RenderedDocument:
    """A gambit 1.0 deck (`PROMPT.md`, `*.deck.md`) or card (`*.card.md`) as gambit sends it."""
    options = options or RenderOptions()
    decoded = bundle.text(path)
    if decoded is None:
        raise InputError("file not found in the bundle", path)
    return render_gambit_deck(bundle, path, decoded.text, options)
