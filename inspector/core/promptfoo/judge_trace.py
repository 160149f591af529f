"""Where each stretch of a promptfoo judge's request comes from.

A judge's prompt is promptfoo's grading template (or the config's `rubricPrompt`) with the
assertion's value, the test's vars, the candidate's prompt and the placeholders for what only the
run knows written into it. Rendering it through the traced nunjucks engine would change nothing
that is sent and everything about how it is built, so the request is traced after it is made:
each text the judge was given that is known to come from a line (the candidate's traced segments,
the assertion's rendered value, each var's value) is found in the request's messages, longest
first (str.find: a regex of the texts cost more to compile than the search), and the rest is the
template's. A text shorter than a few characters is not looked for: it
would be found inside words it never wrote.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from ..model import Message, Origin, OriginKind, Segment

# Shorter texts than this are too likely to turn up by chance inside the template's own words.
SHORTEST_TRACED = 4


def trace_messages(messages: list[Message], known: Iterable[Segment], rest: Origin) -> list[Message]:
    """The judge's messages, each one-string message cut into the known texts it holds (with
    their origins) and the rest (with `rest`)."""
    origins: dict[str, Origin] = {}
    for segment in known:
        text = segment.text
        telling = segment.origin.kind is OriginKind.MARKER or len(text.strip()) >= SHORTEST_TRACED
        if segment.media is None and telling and text not in origins:
            origins[text] = segment.origin
    if not origins:
        return [_whole(message, rest) for message in messages]
    # Longest first: a text found inside a longer one already claimed is not cut out of it.
    ordered = sorted(origins.items(), key=lambda item: len(item[0]), reverse=True)
    return [_cut(message, ordered, rest) for message in messages]


def _whole(message: Message, rest: Origin) -> Message:
    if len(message.segments) != 1 or message.segments[0].media is not None or message.segments[0].raw:
        return message
    return msgspec.structs.replace(
        message, segments=[msgspec.structs.replace(message.segments[0], origin=rest)]
    )


def _claimed(text: str, ordered: list[tuple[str, Origin]]) -> list[tuple[int, int, Origin]]:
    """Where each known text stands in `text`, the longest first, none overlapping another."""
    spans: list[tuple[int, int, Origin]] = []
    taken = bytearray(len(text))
    for known, origin in ordered:
        start = text.find(known)
        while start != -1:
            end = start + len(known)
            free = not any(taken[start:end])
            if free:
                spans.append((start, end, origin))
                taken[start:end] = b"\x01" * (end - start)
            start = text.find(known, end if free else start + 1)
    return sorted(spans, key=lambda span: span[0])


def _cut(message: Message, ordered: list[tuple[str, Origin]], rest: Origin) -> Message:
    if len(message.segments) != 1 or message.segments[0].media is not None or message.segments[0].raw:
        return message
    if message.blocks:
        # Sent as one content block, which is one segment: it is the template's.
        return _whole(message, rest)
    whole = message.segments[0]
    text = whole.text
    cut: list[Segment] = []
    position = 0
    for start, end, origin in _claimed(text, ordered):
        if start > position:
            cut.append(Segment(text[position:start], rest))
        cut.append(Segment(text[start:end], origin))
        position = end
    if position < len(text):
        cut.append(Segment(text[position:], rest))
    if cut and whole.options is not None:
        cut[0] = msgspec.structs.replace(cut[0], options=whole.options)
    return msgspec.structs.replace(message, segments=cut or [msgspec.structs.replace(whole, origin=rest)])
