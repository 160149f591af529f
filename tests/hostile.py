"""Hostile files, generated on demand (never committed): each shape the attacks used, and siblings.

Each entry is a Shape: the file to render, its text, what the refusal says, and the other files it
needs beside it (a deck's embeds). Shared by the tests and benchmarks/bench_hostile.py.
"""

from __future__ import annotations

from typing import NamedTuple

DEEP = 50_000


class Shape(NamedTuple):
    path: str
    text: str
    says: str
    others: dict[str, str] = {}

    @property
    def files(self) -> dict[str, str]:
        """Every file of the shape's bundle, the one to render first."""
        return {self.path: self.text, **self.others}


def _alias_bomb(tail: str) -> str:
    levels = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + level)}: &{chr(98 + level)} [{', '.join(['*' + chr(97 + level)] * 10)}]\n"
        for level in range(8)
    )
    return levels + tail


def _embed_fan_out(levels: int = 30) -> dict[str, str]:
    """Each file embeds the next one twice: 2**levels copies of the last one."""
    return {
        f"decks/p{level}.md": f"![](p{level + 1}.md) ![](p{level + 1}.md)\n" for level in range(levels)
    } | {f"decks/p{levels}.md": "x\n"}


def shapes(deep: int = DEEP) -> dict[str, Shape]:
    nested = "nested more than"
    bomb = "embed bomb"
    raw = {
        "yaml-block-sequence": ("evals/e.yaml", "- " * deep + "x\n", nested),
        "yaml-complex-key": ("evals/e.yaml", "? " * deep + "x\n", nested),
        "yaml-block-in-case": (
            "evals/e.yaml",
            "tests:\n  - id: a\n    input:\n      - " + "- " * deep + "x\n",
            nested,
        ),
        "yaml-flow": ("evals/e.yaml", "tests: " + "[" * deep + "]" * deep + "\n", nested),
        "yaml-alias-bomb": ("evals/e.yaml", _alias_bomb("tests:\n  - id: a\n    input: *i\n"), "alias"),
        "json-request-flow": ("request.json", '{"messages": ' + "[" * deep + "]" * deep + "}", nested),
        "yaml-request-alias-bomb": (
            "request.yaml",
            _alias_bomb("messages:\n  - role: user\n    content: hi\n  - {role: user, content: *i}\n"),
            "alias",
        ),
        "jsonl-deep-record": (
            "evals/e.jsonl",
            '{"id": "a", "input": ' + "[" * deep + "]" * deep + "}\n",
            nested,
        ),
        "toml-dotted-key": ("decks/d.toml", "a" + ".a" * deep + " = 1\n", "dotted more than"),
        "toml-dotted-header": (
            "decks/d.toml",
            "[" + ".".join(["a"] * deep) + "]\nb = 1\n",
            "dotted more than",
        ),
        "toml-many-dotted-keys": (
            "decks/d.toml",
            "\n".join(f"k{i}" + ".a" * 450 + " = 1" for i in range(300)) + "\n",
            "dotted too deep",
        ),
        "toml-inline-tables": ("decks/d.toml", "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n", nested),
        "deck-embed-fan-out": ("decks/g.deck.md", "# Grader\n\n![](p0.md)\n", bomb, _embed_fan_out()),
        "deck-embed-wide": (
            "decks/g.deck.md",
            "![](big.md)\n" * 500,
            bomb,
            {"decks/big.md": "x" * 100_000 + "\n"},
        ),
        "deck-many-embeds": ("decks/g.deck.md", "![](x.md)" * deep + "\n", bomb),
    }
    return {name: Shape(*shape) for name, shape in raw.items()}
