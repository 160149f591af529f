"""What only a request's source API has (thinking blocks, server and built-in tools), taken out of
a case before it goes to another API, each named in a Change."""

from __future__ import annotations

from dataclasses import replace

import msgspec

from ..model import Message, RenderedCase
from .common import Change
from .registry import provider as provider_spec
from .request import api_label


def without_provider_own(case: RenderedCase, provider: str) -> tuple[RenderedCase, list[Change]]:
    """The case without what only its source API has (thinking blocks, server and built-in
    tools: `raw` segments and tools), each named in a Change, when it goes to another API; a raw
    segment with text (structured content) goes as that text. Only
    raw requests hold such things, so eval files pass untouched."""
    source = case.metadata.get("format")
    if source is None or source == provider:
        return case, []
    own, label = api_label(source), provider_spec(provider).label
    changes: list[Change] = []
    messages = case.messages
    for index, message in enumerate(case.messages):
        if any(segment.raw is not None for segment in message.segments):
            if messages is case.messages:
                messages = list(case.messages)
            messages[index] = _without_raw_segments(message, index, f"{own}'s", label, changes)
    tools = [tool for tool in case.tools if tool.raw is None]
    for tool in case.tools:
        if tool.raw is not None:
            kind = _kind(tool.raw)
            changes.append(
                Change(f"tool {tool.name!r} left out: {own}'s own {kind} tool, which {label} does not have")
            )
    if not changes:
        return case, []
    return replace(case, messages=messages, tools=tools), changes


def _without_raw_segments(
    message: Message, index: int, own: str, label: str, changes: list[Change]
) -> Message:
    kept = []
    for segment in message.segments:
        if segment.raw is None:
            kept.append(segment)
        elif segment.text:
            # Structured content (Converse's `json` tool-result block) carries its JSON text.
            changes.append(
                Change(
                    f"{own} {_kind(segment.raw)} content sent as JSON text: {label} has no such block", index
                )
            )
            kept.append(msgspec.structs.replace(segment, raw=None))
        else:
            changes.append(
                Change(f"{own} {_kind(segment.raw)} block left out: {label} has no such block", index)
            )
    return msgspec.structs.replace(message, segments=kept)


def _kind(raw: dict) -> str:
    """What a provider's own block or tool is: its `type`, else its one key (Converse's
    `reasoningContent`, `systemTool`; Gemini's `googleSearch`)."""
    kind = raw.get("type")
    return kind if isinstance(kind, str) else next(iter(raw), "own")
