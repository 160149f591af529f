"""The Anthropic export's cache option: `cache_control` breakpoints where the document's cache map
says a prefix is shared (at most four, the API's limit), each listed in the export's Changes.

Anthropic caches a request only up to a block carrying `cache_control`; a mark placed after the
prefix several cases share lets every later case of a suite run read it from the cache.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..model import RenderedCase
from .common import ANTHROPIC, Change, ExportResult, ExportSettings
from .provider_own import without_provider_own

Export = Callable[[RenderedCase, ExportSettings], ExportResult]

MAX_BREAKPOINTS = 4
EPHEMERAL = {"type": "ephemeral"}


@dataclass(frozen=True, slots=True)
class CacheMark:
    """A place to end a cached prefix: after the tools, after the system text, or after a message."""

    kind: str  # "tools", "system" or "message"
    message_index: int | None  # for "message": its index in case.messages
    cases: int  # cases of the document that share the prefix up to here
    tokens: int  # the prefix's tokens (an estimate: no local Claude tokenizer)


def export_with_breakpoints(
    export: Export, case: RenderedCase, settings: ExportSettings, marks: list[CacheMark]
) -> ExportResult:
    """The Anthropic export of a case (`export`: anthropic.py's) with `cache_control` on the block
    ending each mark's prefix."""
    case, left_out = without_provider_own(case, ANTHROPIC)
    result = export(case, settings)
    payload = copy.deepcopy(result.payload)
    changes = left_out + list(result.changes)
    for mark in marks[:MAX_BREAKPOINTS]:
        placed = _place(export, payload, case, settings, mark)
        shared = f"{mark.tokens:,} tokens shared by {mark.cases} cases"
        if placed is None:
            changes.append(
                Change(f"cache_control breakpoint after {_what(mark)} ({shared})", mark.message_index)
            )
        else:
            changes.append(
                Change(
                    f"no cache_control breakpoint after {_what(mark)} ({shared}): {placed}",
                    mark.message_index,
                )
            )
    return replace(result, payload=payload, changes=changes)


def _what(mark: CacheMark) -> str:
    if mark.kind == "message":
        return f"message #{mark.message_index}"
    return "the tool definitions" if mark.kind == "tools" else "the system prompt"


def _place(
    export: Export, payload: dict[str, Any], case: RenderedCase, settings: ExportSettings, mark: CacheMark
) -> str | None:
    """Marks the block; returns why it could not, or None."""
    if mark.kind == "tools":
        if not payload.get("tools"):
            return "the request has no tools"
        payload["tools"][-1]["cache_control"] = dict(EPHEMERAL)
        return None
    if mark.kind == "system":
        system = payload.get("system")
        if not system:
            return "the request has no system prompt"
        if isinstance(system, str):
            payload["system"] = [{"type": "text", "text": system, "cache_control": dict(EPHEMERAL)}]
        else:
            system[-1]["cache_control"] = dict(EPHEMERAL)
        return None
    assert mark.message_index is not None
    # The block ending the message is the last block of the export of the messages up to it.
    head = export(replace(case, messages=case.messages[: mark.message_index + 1]), settings)
    turns = head.payload.get("messages") or []
    if not turns:
        return "the message is not sent as a turn"
    turn, block = len(turns) - 1, len(turns[-1]["content"]) - 1
    sent = payload["messages"]
    if (
        turn >= len(sent)
        or block >= len(sent[turn]["content"])
        or sent[turn]["content"][block] != turns[-1]["content"][block]
    ):
        return "its block moved when the turns were merged"
    sent[turn]["content"][block]["cache_control"] = dict(EPHEMERAL)
    return None
