"""Where each stretch of a promptfoo judge's request comes from.

A judge's prompt is promptfoo's grading template (or the config's `rubricPrompt`) with the
assertion's value, the test's vars, the candidate's prompt and the placeholders for what only the
run knows written into it. Rendering it through the traced nunjucks engine would change nothing
that is sent and everything about how it is built, so the request is traced after it is made:
each text the judge was given that is known to come from a line (the candidate's traced segments,
the assertion's rendered value, each var's value) is found in the request's messages, longest
first, and the rest is the template's. A text shorter than a few characters is not looked for: it
would be found inside words it never wrote.
"""

from __future__ import annotations

import re
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
    # Longest first: at one position the regex takes the first alternative that matches.
    pattern = re.compile("|".join(re.escape(text) for text in sorted(origins, key=len, reverse=True)))
    return [_cut(message, pattern, origins, rest) for message in messages]


def _whole(message: Message, rest: Origin) -> Message:
    if len(message.segments) != 1 or message.segments[0].media is not None or message.segments[0].raw:
        return message
    return msgspec.structs.replace(
        message, segments=[msgspec.structs.replace(message.segments[0], origin=rest)]
    )


def _cut(message: Message, pattern: re.Pattern[str], origins: dict[str, Origin], rest: Origin) -> Message:
    if len(message.segments) != 1 or message.segments[0].media is not None or message.segments[0].raw:
        return message
    if message.blocks:
        # Sent as one content block, which is one segment: it is the template's.
        return _whole(message, rest)
    whole = message.segments[0]
    text = whole.text
    cut: list[Segment] = []
    start = 0
    for match in pattern.finditer(text):
        if match.start() > start:
            cut.append(Segment(text[start : match.start()], rest))
        cut.append(Segment(match.group(), origins[match.group()]))
        start = match.end()
    if start < len(text):
        cut.append(Segment(text[start:], rest))
    if cut and whole.options is not None:
        cut[0] = msgspec.structs.replace(cut[0], options=whole.options)
    return msgspec.structs.replace(message, segments=cut or [msgspec.structs.replace(whole, origin=rest)])
