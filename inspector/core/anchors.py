"""Where a review comment's anchored text lives in a rendering: a message, a stretch of rendered
text, or lines of a bundle file. Anchors are found by their text, not by offsets, so a comment
follows its text to a new revision (or another view) wherever provenance puts it now, and is
outdated only when the text itself is gone."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from inspector.core.model import Message, RenderedCase


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


@dataclass(frozen=True)
class TextPlace:
    message_index: int
    start: int  # character offsets in the message's content
    end: int


@dataclass(frozen=True)
class SourceSpan:
    path: str
    start_line: int | None
    end_line: int | None


def find_text(
    case: RenderedCase, quote: str, hint_index: int | None = None, hint_start: int | None = None
) -> TextPlace | None:
    """The quote in the case's messages: in the hinted message first (nearest the hinted offset),
    then in any message, first found."""
    if not quote:
        return None
    order = list(range(len(case.messages)))
    if hint_index is not None and 0 <= hint_index < len(order):
        order.remove(hint_index)
        order.insert(0, hint_index)
    for index in order:
        content = case.messages[index].content
        starts = _occurrences(content, quote)
        if starts:
            best = min(starts, key=lambda s: abs(s - (hint_start or 0))) if index == hint_index else starts[0]
            return TextPlace(index, best, best + len(quote))
    return None


def _occurrences(text: str, quote: str, limit: int = 1000) -> list[int]:
    found: list[int] = []
    at = text.find(quote)
    while at != -1 and len(found) < limit:
        found.append(at)
        at = text.find(quote, at + 1)
    return found


def find_message(case: RenderedCase, content_hash: str, hint_index: int | None = None) -> int | None:
    indexes = list(range(len(case.messages)))
    if hint_index is not None and 0 <= hint_index < len(indexes):
        indexes.remove(hint_index)
        indexes.insert(0, hint_index)
    for index in indexes:
        if text_hash(case.messages[index].content) == content_hash:
            return index
    return None


def origins(message: Message, start: int, end: int) -> list[SourceSpan]:
    """The files and lines the characters [start, end) of a message's content came from."""
    spans: list[SourceSpan] = []
    offset = 0
    for segment in message.segments:
        seg_start, seg_end = offset, offset + len(segment.text)
        offset = seg_end
        if seg_end <= start or seg_start >= end or not segment.origin.path:
            continue
        span = SourceSpan(segment.origin.path, segment.origin.start_line, segment.origin.end_line)
        if span not in spans:
            spans.append(span)
    return spans


def case_carries_lines(case: RenderedCase, path: str, start: int, end: int) -> bool:
    """Whether any message of the case holds text from these lines of the file (directly, or
    through a reference on them that pulled a file in)."""
    for message in case.messages:
        for segment in message.segments:
            origin = segment.origin
            if origin.path == path:
                first = origin.start_line or 1
                last = origin.end_line or (first if origin.start_line else 10**9)
                if first <= end and start <= last:
                    return True
            via = origin.via
            if via is not None and via.path == path and via.start_line <= end and start <= via.end_line:
                return True
    return False


def find_lines(text: str, quote: str, hint_start: int) -> tuple[int, int] | None:
    """The lines of `text` that read exactly `quote` (one or more whole lines), nearest the line
    they were on: (first, last), 1-based."""
    wanted = quote.split("\n")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    count = len(wanted)
    found = [i + 1 for i in range(len(lines) - count + 1) if lines[i : i + count] == wanted]
    if not found:
        return None
    first = min(found, key=lambda n: abs(n - hint_start))
    return first, first + count - 1


def line_text(text: str, start: int, end: int) -> str | None:
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    if start < 1 or end < start or end > len(lines):
        return None
    return "\n".join(lines[start - 1 : end])
