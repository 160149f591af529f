"""What a raw request format declares about itself: the one place a request body's API is
described. Each reader module ends with a `FORMAT = RequestFormat(...)`, and `formats.py`
registers it as an input format (the CLI's `--input-format`, the API's enum, the page's menu and
`auto` read it from there); `export/request.py` reads its label, model family and request-level
fields when a request of this API is exported."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model import RenderedCase
from ..options import RenderOptions
from .builder import Builder

# (builder, case id, parsed body, options) -> the body as one case
Reader = Callable[[Builder, str, dict, RenderOptions], RenderedCase]
# (request, neutral fields found so far, keys consumed) -> None: the request's common fields
# (max tokens, sampling, stop, seed, tool choice, reasoning effort, user, metadata) under
# export/request.py's neutral names, and which of its keys they came from.
FieldReader = Callable[[dict[str, Any], dict[str, Any], set[str]], None]


@dataclass(frozen=True, slots=True)
class RequestFormat:
    name: str  # the input format's name, e.g. "openai-chat"; the same as its provider's id
    label: str  # how Changes name the API, e.g. "OpenAI Chat"
    matches: Callable[[dict], bool]  # whether a parsed body has this API's shape
    read: Reader
    read_fields: FieldReader | None = None  # None: no request field maps to another API's
    family: str | None = None  # whose model names its `model` holds; None: its own name's
    # Detection tries the lowest first: a shape that another one's also fits goes before it
    # (Converse before Anthropic before OpenAI Chat, which takes any list of role messages).
    detect_rank: int = 100

    @property
    def model_family(self) -> str:
        return self.family or self.name


def role_messages(data: dict) -> list | None:
    """A body's `messages` when they are a non-empty list of objects with a role."""
    messages = data.get("messages")
    if (
        isinstance(messages, list)
        and messages
        and all(isinstance(item, dict) and "role" in item for item in messages)
    ):
        return messages
    return None


def take(request: dict[str, Any], key: str, name: str, common: dict[str, Any], consumed: set[str]) -> None:
    """A request field read as it is under its neutral name (the first one found wins)."""
    if key in request and request[key] is not None:
        common.setdefault(name, request[key])
        consumed.add(key)


def openai_tool_choice(choice: Any) -> Any:
    """An OpenAI tool choice (Chat's or Responses'): a mode, or {"name": ...}; None when neither."""
    if isinstance(choice, str):
        return choice
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else choice.get("name")
        if isinstance(name, str):
            return {"name": name}
    return None
