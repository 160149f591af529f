"""A Piece is a msgspec Struct (made by C, faster than a frozen dataclass): it must still be the
frozen, hashable value the renderers share between cases."""

from __future__ import annotations

import pickle

import msgspec
import pytest

from inspector.core.agentv.pieces import Piece
from inspector.core.model import LineSpan, Media, OriginKind

FULL = Piece("text", OriginKind.FILE, "a.md", 3, 9, LineSpan("evals/x.yaml", 1, 2), Media("image"))


def test_a_piece_made_by_keywords_or_positions_is_the_same_value():
    by_keyword = Piece(
        text="text",
        kind=OriginKind.FILE,
        path="a.md",
        first_line=3,
        last_line=9,
        via=LineSpan("evals/x.yaml", 1, 2),
        media=Media("image"),
    )
    assert by_keyword == FULL and hash(by_keyword) == hash(FULL)
    assert [getattr(FULL, field.name) for field in msgspec.structs.fields(Piece)] == [
        "text",
        OriginKind.FILE,
        "a.md",
        3,
        9,
        LineSpan("evals/x.yaml", 1, 2),
        Media("image"),
    ]


def test_a_piece_left_to_its_defaults_has_no_place():
    bare = Piece("sep", OriginKind.SEPARATOR)
    assert (bare.path, bare.first_line, bare.last_line, bare.via, bare.media) == (None,) * 5


def test_a_piece_is_still_frozen():
    with pytest.raises(AttributeError):
        FULL.text = "changed"  # type: ignore[misc]
    assert FULL.text == "text"


def test_a_piece_survives_replace_and_pickle():
    assert msgspec.structs.replace(FULL, text="") == Piece(
        "", OriginKind.FILE, "a.md", 3, 9, FULL.via, FULL.media
    )
    assert pickle.loads(pickle.dumps(FULL)) == FULL
