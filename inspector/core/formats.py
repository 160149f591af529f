"""The input formats the inspector reads, in the order `auto` tries them. A new format is one entry
here: its name (for `--input-format`, the API's enum and the page's menu), which files it claims,
and how it renders one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from . import conversations
from .agentv import render_eval_file
from .bundle import Bundle
from .decks import is_gambit_file, render_deck_file, render_gambit_file
from .model import RenderedDocument
from .options import RenderOptions


@dataclass(slots=False)
class Probe:
    """What `auto` knows about a file: its path (lower case) and text, and, read once when asked,
    which provider request body it is."""

    path: str
    text: str

    @cached_property
    def conversation(self) -> str | None:
        if self.path.endswith(".jsonl"):
            return None  # agentv datasets; a request body is one document
        return conversations.sniff(self.text)


@dataclass(frozen=True, slots=True)
class InputFormat:
    name: str
    claims: Callable[[Probe], bool]  # whether `auto` reads the file with this format
    render: Callable[[Bundle, str, RenderOptions], RenderedDocument]


def _conversation(name: str) -> InputFormat:
    return InputFormat(
        name, lambda probe: probe.conversation == name,
        lambda bundle, path, options: conversations.render_conversation_file(
            bundle, path, name, options))


FORMATS: tuple[InputFormat, ...] = (
    # gambit 1.0 (PROMPT.md, *.card.md, gambit-style *.deck.md) before aibff's `.deck.md` decks.
    InputFormat("gambit", lambda probe: is_gambit_file(probe.path, probe.text), render_gambit_file),
    InputFormat("deck", lambda probe: probe.path.endswith((".toml", ".deck.md")), render_deck_file),
    _conversation("openai-chat"),
    _conversation("openai-responses"),
    _conversation("anthropic"),
    _conversation("gemini"),
    _conversation("bedrock-converse"),
    # Every other YAML or JSONL file is an agentv eval file; its profile picks the generation.
    InputFormat("agentv", lambda _probe: True, render_eval_file),
)
REGISTRY = {entry.name: entry for entry in FORMATS}
# The menus' order: agentv first, as users meet it.
INPUT_FORMATS = ("auto", "agentv", *(entry.name for entry in FORMATS if entry.name != "agentv"))


def detect_format(path: str, text: str) -> str:
    """Which format `auto` reads this file with."""
    probe = Probe(path.lower(), text)
    return next(entry.name for entry in FORMATS if entry.claims(probe))
