"""Text pieces that remember their origin while profiles cut, trim and join them.

Profiles build each message as a list of pieces; trimming moves a piece's first line so the origin
still points at the text that is actually sent. `segments` turns pieces into model Segments.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import msgspec

from ..model import LineSpan, Media, Origin, OriginKind, Segment


class Piece(msgspec.Struct, frozen=True, gc=False):
    """A stretch of rendered text and where it came from. A msgspec Struct: made by C, not by a
    frozen dataclass's __init__ (which sets each field through object.__setattr__, seven times
    slower), and untracked by the collector (a piece holds only text, numbers and other
    untracked Structs); a render makes one per stretch of text. Frozen: pieces are shared
    between messages, cases and the tables below."""

    text: str
    kind: OriginKind
    path: str | None = None
    first_line: int | None = None
    last_line: int | None = None  # a cap: folded YAML text spans more lines than it has breaks
    via: LineSpan | None = None  # the file reference that pulled this text in
    media: Media | None = None  # an image standing in the text (the piece's text is empty)

    def with_text(self, text: str, first_line: int | None) -> Piece:
        """This piece cut or trimmed to `text`, which starts on `first_line`."""
        return Piece(text, self.kind, self.path, first_line, self.last_line, self.via, self.media)

    def origin(self) -> Origin:
        if self.first_line is None:
            if self.path is None and self.via is None:
                return _BARE_ORIGINS[self.kind]  # separators and defaults: one shared value
            return _shared_origin(self.kind, self.path, None, None, self.via)
        first, last = self.first_line, self.last_line
        end = first + self.text.rstrip("\n").count("\n")
        if last is not None and last < end:
            end = last
        return _shared_origin(self.kind, self.path, first, end if end > first else first, self.via)


_BARE_ORIGINS = {kind: Origin(kind) for kind in OriginKind}


@lru_cache(maxsize=1 << 16)
def _shared_origin(
    kind: OriginKind, path: str | None, start: int | None, end: int | None, via: LineSpan | None
) -> Origin:
    """One Origin per span: a guideline pulled into a thousand cases (and their graders' prompts)
    is one object, built once (a frozen dataclass costs several thousand instructions to make) and
    pickled once into the render cache and across the bounded worker's pipe."""
    return Origin(kind, path, start, end, via)


def sep(text: str) -> Piece:
    found = _SEPARATORS.get(text)
    if found is None:
        found = Piece(text, OriginKind.SEPARATOR)
        if len(text) <= 64:  # joins and role markers: a few texts, met in every case
            if len(_SEPARATORS) >= 1024:
                _SEPARATORS.clear()
            _SEPARATORS[text] = found
    return found


_SEPARATORS: dict[str, Piece] = {}  # pieces are frozen: one object serves every join


def lstrip(pieces: list[Piece]) -> list[Piece]:
    result = list(pieces)
    while result:
        first = result[0]
        stripped = first.text.lstrip()
        if not stripped:
            result.pop(0)
            continue
        removed = first.text[: len(first.text) - len(stripped)]
        if removed:
            line = None if first.first_line is None else first.first_line + removed.count("\n")
            result[0] = first.with_text(stripped, line)
        break
    return result


def rstrip(pieces: list[Piece]) -> list[Piece]:
    result = list(pieces)
    while result:
        last = result[-1]
        stripped = last.text.rstrip()
        if not stripped:
            result.pop()
            continue
        if stripped != last.text:
            result[-1] = last.with_text(stripped, last.first_line)
        break
    return result


def strip(pieces: list[Piece]) -> list[Piece]:
    return rstrip(lstrip(pieces))


def rstrip_newlines(piece: Piece) -> Piece:
    return piece.with_text(piece.text.rstrip("\n"), piece.first_line)


def joined(parts: Iterable[list[Piece]], separator: str) -> list[Piece]:
    result: list[Piece] = []
    for index, part in enumerate(parts):
        if index and separator:
            result.append(sep(separator))
        result.extend(part)
    return result


# The segments already made from pieces, by the piece's id: a case's graders' prompts repeat its own
# messages' pieces (the question is the case's messages), and a frozen Segment costs microseconds to
# make. Each entry holds its piece, so no id is reused while the table lives.
Made = dict[int, tuple[Piece, Segment]]


def segments(pieces: Iterable[Piece], made: Made | None = None) -> list[Segment]:
    if made is None:
        return [
            Segment(piece.text, piece.origin(), piece.media)
            for piece in pieces
            if piece.text or piece.media is not None
        ]
    result: list[Segment] = []
    append = result.append
    for piece in pieces:
        # Most pieces of a graders' prompt were made into segments by the case's own messages.
        found = made.get(id(piece))
        if found is not None:
            append(found[1])
            continue
        text, media = piece.text, piece.media
        if not text and media is None:
            continue  # never in `made`: nothing is made of it
        if media is None and piece.first_line is None and piece.path is None and piece.via is None:
            segment = _bare_segment(text, piece.kind)
        else:
            segment = Segment(text, piece.origin(), media)
        made[id(piece)] = (piece, segment)
        append(segment)
    return result


_BARE_SEGMENTS: dict[tuple[str, OriginKind], Segment] = {}


def _bare_segment(text: str, kind: OriginKind) -> Segment:
    """One Segment per text the renderer adds (role markers, joins, agentv's template text), shared
    by every case, as their origins are."""
    key = (text, kind)
    found = _BARE_SEGMENTS.get(key)
    if found is None:
        if len(_BARE_SEGMENTS) >= 4096:
            _BARE_SEGMENTS.clear()  # a bound: generated JSON and the like are bare text too
        found = _BARE_SEGMENTS[key] = Segment(text, _BARE_ORIGINS[kind])
    return found


@lru_cache(maxsize=64)
def fixed_segments(text: str, kind: OriginKind) -> tuple[Segment, ...]:
    """The segments of one of agentv's own fixed texts (a grader's system prompt), made once and
    shared by every case."""
    return tuple(segments([Piece(text, kind)]))


def with_media(segments: list[Segment]) -> bool | None:
    """Message.blocks for rendered text: False (one text, split by its images) when it holds an
    image, else None."""
    return False if any(segment.media is not None for segment in segments) else None
