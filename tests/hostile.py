"""Hostile files, generated on demand (never committed): each shape the attacks used, and siblings.

Each entry is (file name, text, what the refusal says). Shared by the tests and
benchmarks/bench_hostile.py.
"""

from __future__ import annotations

DEEP = 50_000


def _alias_bomb(tail: str) -> str:
    levels = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + level)}: &{chr(98 + level)} [{', '.join(['*' + chr(97 + level)] * 10)}]\n"
        for level in range(8))
    return levels + tail


def shapes(deep: int = DEEP) -> dict[str, tuple[str, str, str]]:
    nested = "nested more than"
    return {
        "yaml-block-sequence": ("evals/e.yaml", "- " * deep + "x\n", nested),
        "yaml-complex-key": ("evals/e.yaml", "? " * deep + "x\n", nested),
        "yaml-block-in-case": ("evals/e.yaml", "tests:\n  - id: a\n    input:\n      - "
                               + "- " * deep + "x\n", nested),
        "yaml-flow": ("evals/e.yaml", "tests: " + "[" * deep + "]" * deep + "\n", nested),
        "yaml-alias-bomb": ("evals/e.yaml", _alias_bomb("tests:\n  - id: a\n    input: *i\n"),
                            "alias"),
        "json-request-flow": ("request.json", '{"messages": ' + "[" * deep + "]" * deep + "}",
                              nested),
        "yaml-request-alias-bomb": ("request.yaml", _alias_bomb(
            "messages:\n  - role: user\n    content: hi\n  - {role: user, content: *i}\n"),
            "alias"),
        "jsonl-deep-record": ("evals/e.jsonl", '{"id": "a", "input": ' + "[" * deep
                              + "]" * deep + "}\n", nested),
        "toml-dotted-key": ("decks/d.toml", "a" + ".a" * deep + " = 1\n", "dotted more than"),
        "toml-dotted-header": ("decks/d.toml", "[" + ".".join(["a"] * deep) + "]\nb = 1\n",
                               "dotted more than"),
        "toml-many-dotted-keys": ("decks/d.toml", "\n".join(
            f"k{i}" + ".a" * 450 + " = 1" for i in range(300)) + "\n", "dotted too deep"),
        "toml-inline-tables": ("decks/d.toml", "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n",
                               nested),
    }
