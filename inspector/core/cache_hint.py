"""Why a provider that caches only marked blocks (Anthropic's cache_control) finds nothing to cache
where automatic prefix caching (OpenAI's) does: a file every case sends sits in one text block with
each case's own text, so no two cases send the same block. The hint names the file and the split."""

from __future__ import annotations

from collections.abc import Sequence

from .cache_map import Piece
from .model import RenderedCase


def split_hint(
    cases: Sequence[RenderedCase], pieces: Sequence[Sequence[Piece]], minimum: int, count
) -> str | None:
    """The sentence saying which file to send as a block of its own, or None when there is none:
    the largest file sent whole by at least two cases, long enough to cache on its own, whose block
    differs from case to case."""
    found, texts = _shared_files(cases, pieces)
    best = None
    for path, places in found.items():
        if len(places) < 2 or len(texts[path]) != 1:
            continue  # one case only, or not the same text in every case
        tokens = count(next(iter(texts[path])))
        blocks = {pieces[position][number].key for position, number in places}
        if tokens >= minimum and len(blocks) > 1 and (best is None or tokens > best[1]):
            best = (path, tokens, len(places))
    if best is None:
        return None
    path, tokens, sharing = best
    return (
        f"{path} ({tokens:,} tokens, sent by {sharing} cases) shares a text block with each "
        f"case's own text, so no two cases send the same block: send it as a block of its own "
        f"before the case's text (its own system block, or a first text content block), with a "
        f"cache breakpoint after it, and those {tokens:,} tokens are cacheable"
    )


def _shared_files(
    cases: Sequence[RenderedCase], pieces: Sequence[Sequence[Piece]]
) -> tuple[dict[str, list[tuple[int, int]]], dict[str, set[str]]]:
    """Each guideline or attached file: the (case, piece) places it is sent in, one per case, and
    the texts sent of it."""
    found: dict[str, list[tuple[int, int]]] = {}
    texts: dict[str, set[str]] = {}
    for position, case in enumerate(cases):
        for piece_number, piece in enumerate(pieces[position]):
            for segment in (segment for index in piece.messages for segment in case.messages[index].segments):
                path = segment.origin.path
                if path is None or segment.origin.kind.value not in ("guideline", "file"):
                    continue
                places = found.setdefault(path, [])
                if not places or places[-1][0] != position:
                    places.append((position, piece_number))
                texts.setdefault(path, set()).add(segment.text)
    return found, texts
