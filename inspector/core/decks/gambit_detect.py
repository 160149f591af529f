"""Which markdown files are gambit 1.0 decks and cards, as opposed to aibff's 2025 grader decks
(`*.deck.md` embedding TOML samples), which share the `.deck.md` name and the `+++` front matter."""

from __future__ import annotations

import posixpath
import tomllib

from ..model import InputError
from ..safe_parse import check_toml
from .gambit_text import FrontMatterError, embeds, split_front_matter

# Front matter keys only gambit's deck and card definitions have.
GAMBIT_KEYS = frozenset(
    {
        "label",
        "modelParams",
        "contextSchema",
        "responseSchema",
        "inputSchema",
        "outputSchema",
        "contextFragment",
        "responseFragment",
        "actions",
        "actionDecks",
        "scenarios",
        "testDecks",
        "graderDecks",
        "startMode",
        "respond",
        "allowEnd",
        "permissions",
        "handlers",
        "tools",
        "guardrails",
        "workloop",
        "responseItemExtensions",
        "acceptsUserTurns",
        "deck",
    }
)
_SNIFF_CHARS = 200_000


def is_gambit_file(path: str, text: str) -> bool:
    """`PROMPT.md` and `*.card.md` by name; a `*.deck.md` when it reads like gambit's."""
    name = posixpath.basename(path).lower()
    if name == "prompt.md" or name.endswith(".card.md"):
        return True
    return name.endswith(".deck.md") and looks_like_gambit(text[:_SNIFF_CHARS])


def looks_like_gambit(text: str) -> bool:
    try:
        front = split_front_matter(text)
    except FrontMatterError:
        return False
    targets = [embed.target for embed in embeds(text, front.body_start, len(text))]
    if any(target.lower().endswith(".toml") or ".toml#" in target.lower() for target in targets):
        return False  # aibff's sample embeds
    if any(target.startswith("gambit://") or target.endswith(".card.md") for target in targets):
        return True
    if front.kind != "toml":
        return front.kind == "yaml"
    try:
        check_toml(front.text)
        attrs = tomllib.loads(front.text)
    except (tomllib.TOMLDecodeError, InputError, RecursionError):
        return False
    graders = attrs.get("graders")
    if isinstance(graders, list) and graders and all(isinstance(g, str) for g in graders):
        return False  # aibff's `graders = ["./x.deck.md"]`
    return bool(GAMBIT_KEYS & attrs.keys())
