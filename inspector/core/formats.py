"""The input formats the inspector reads, in the order `auto` tries them: the one registry. A
format is its name (for `--input-format`, the API's enum and the page's menu), which files it
claims, and how it renders one; `register` adds it, built-ins and any other alike. A raw request
body's API is one module of `conversations/` ending with a `FORMAT = RequestFormat(...)`
(conversations/spec.py), registered here with `request_format`: `auto` detects a body by the
registered APIs' shapes, and the exporters read its label, model family and request fields."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from . import conversations
from .agentv import render_eval_file
from .bundle import Bundle
from .conversations import anthropic, bedrock, gemini, openai_chat, responses
from .conversations.spec import RequestFormat
from .decks import is_gambit_file, render_deck_file, render_gambit_file
from .model import InputError, RenderedCase, RenderedDocument
from .options import RenderOptions
from .promptfoo import claims as claims_promptfoo
from .promptfoo import render_promptfoo_file
from .sourcemap import Spans


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
        return sniff(self.text)


@dataclass(frozen=True, slots=True)
class InputFormat:
    name: str
    claims: Callable[[Probe], bool]  # whether `auto` reads the file with this format
    render: Callable[[Bundle, str, RenderOptions], RenderedDocument]
    request: RequestFormat | None = None  # a raw request body's API
    # The format `auto` tries last: it claims whatever no other one does.
    fallback: bool = False


REGISTRY: dict[str, InputFormat] = {}
FORMATS: tuple[InputFormat, ...] = ()  # auto's order
INPUT_FORMATS: tuple[str, ...] = ("auto",)  # the menus' order


def register(entry: InputFormat) -> InputFormat:
    """Offer a format everywhere: the menus list it, and `auto` tries it after those registered
    before it (and before the fallback)."""
    if entry.name in REGISTRY or entry.name == "auto":
        raise ValueError(f"input format {entry.name!r} is registered already")
    REGISTRY[entry.name] = entry
    _order()
    return entry


def unregister(name: str) -> None:
    del REGISTRY[name]
    _order()


def _order() -> None:
    global FORMATS, INPUT_FORMATS
    entries = list(REGISTRY.values())
    FORMATS = (*[e for e in entries if not e.fallback], *[e for e in entries if e.fallback])
    # The menus' order: the fallback (agentv) first, as users meet it.
    INPUT_FORMATS = (
        "auto",
        *[e.name for e in entries if e.fallback],
        *[e.name for e in entries if not e.fallback],
    )


def request_input_format(request: RequestFormat) -> InputFormat:
    """The input format of a raw request body's API: it claims the files detected as its bodies."""
    name = request.name
    return InputFormat(
        name,
        lambda probe: probe.conversation == name,
        lambda bundle, path, options: conversations.render_request_file(
            bundle, path, lambda _data, _path: request, options
        ),
        request,
    )


def request_format(name: str | None) -> RequestFormat | None:
    """The registered request API of that name, if any."""
    entry = REGISTRY.get(name) if name is not None else None
    return entry.request if entry is not None else None


def request_formats() -> list[RequestFormat]:
    return [entry.request for entry in REGISTRY.values() if entry.request is not None]


def detect_request(data: Any) -> str | None:
    """Which registered API's request body this parsed document is, or None: the most specific
    shape first (RequestFormat.detect_rank)."""
    if not isinstance(data, dict) or conversations.AGENTV_KEYS & data.keys():
        return None
    for request in sorted(request_formats(), key=lambda request: request.detect_rank):
        if request.matches(data):
            return request.name
    return None


def sniff(text: str) -> str | None:
    """The request API of a file's text, or None when it is not a request body."""
    if conversations.is_agentv_text(text):
        return None
    return detect_request(conversations.load_any(text))


def read_request(
    data: dict, input_format: str, path: str, spans: Spans | None = None, options: RenderOptions | None = None
) -> RenderedCase:
    """One request body, already parsed, as a case: what a file's text becomes after parsing, and
    the way in for bodies given as dicts (no spans: their origins have no lines)."""
    return conversations.read_with(_registered_request(input_format, path), data, path, spans, options)


def render_conversation_file(
    bundle: Bundle, path: str, input_format: str, options: RenderOptions | None = None
) -> RenderedDocument:
    """A request body file read as `input_format`'s API, or, with "auto", as the API its shape
    belongs to."""

    def chosen(data: Any, where: str) -> RequestFormat:
        name = detect_request(data) if input_format in ("auto", None) else input_format
        if name is None:
            raise InputError(
                "not a request body this inspector knows: expected an OpenAI Chat "
                "(messages), Anthropic Messages (messages with system or content "
                "blocks), OpenAI Responses / Codex Prompt (input), Gemini "
                "(contents) or Bedrock Converse (messages of type-less blocks) "
                "object",
                where,
                1,
            )
        return _registered_request(name, where)

    return conversations.render_request_file(bundle, path, chosen, options)


def _registered_request(name: str, path: str) -> RequestFormat:
    request = request_format(name)
    if request is None:
        names = [known.name for known in request_formats()]
        raise InputError(f"unknown conversation format {name!r}; choose one of {', '.join(names)}", path)
    return request


def detect_format(path: str, text: str) -> str:
    """Which format `auto` reads this file with."""
    probe = Probe(path.lower(), text)
    return next(entry.name for entry in FORMATS if entry.claims(probe))


# gambit 1.0 (PROMPT.md, *.card.md, gambit-style *.deck.md) before aibff's `.deck.md` decks.
register(InputFormat("gambit", lambda probe: is_gambit_file(probe.path, probe.text), render_gambit_file))
register(InputFormat("deck", lambda probe: probe.path.endswith((".toml", ".deck.md")), render_deck_file))
# promptfoo configs before the agentv fallback, which would read their `prompts` and `tests`.
register(
    InputFormat("promptfoo", lambda probe: claims_promptfoo(probe.path, probe.text), render_promptfoo_file)
)
for _module in (openai_chat, responses, anthropic, gemini, bedrock):
    register(request_input_format(_module.FORMAT))
# Every other YAML or JSONL file is an agentv eval file; its profile picks the generation.
register(InputFormat("agentv", lambda _probe: True, render_eval_file, fallback=True))
