"""The port of agentv's YAML Lexer and Parser (inspector/core/yaml_js/) against `yaml` 2.8.3 itself.

tests/oracle/yaml_cst.mjs runs the pinned package (`yaml-agentv`): for each document the port's
`lex` must equal its Lexer's lexemes and the port's `parse` its Parser's CST tokens, exactly, on the
documents of test_yaml_differential.py's seeded generator (20 batches of 20; `YAML_EXAMPLES=1000`
for a long run, `YAML_BATCH=n` to start elsewhere) and on written edge cases.

The JS counts offsets in UTF-16 code units, the port in Python code points: the oracle's offsets are
converted to code points here, before comparing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from inspector.core.yaml_js.lexer import lex
from inspector.core.yaml_js.parser import parse

from .test_yaml_differential import assert_batches_agree, yaml_oracle

EDGE_CASES = [
    "",
    "\ufeffa: 1\n",
    "\ufeff\ufeff# two\n",
    "a: 1\r\nb:\r\n  - x\r\n  - y\r\n",
    "a:\tb\n\tc: d\n",
    "- \t- x\n",
    "%YAML 1.2\n%TAG !e! tag:example.com,2000:\n--- !e!foo\nx\n...\n",
    "%YAML 1.2 # comment\n---\n",
    "--- a\n--- b\n...\n...\n# end\n",
    "---\n...\n---\n",
    "a: |2-\n    x\n   y\n\nb: >+\n  folded\n\n\n",
    "a: |\n\tx\n",
    "- |1\n  x\n \n",
    "k: >-\n\n  x\n  # not a comment\n# comment\n",
    "[a, b,\n  c]: {x: 1,\n y: [2, 3]}\n",
    "{a: 1\n",
    "- [a\n- b\n",
    "a: [b, {c: d}]]\n",
    "# c1\na: 1 # c2\n  # c3\nb: 2\n#c4\n",
    "a: &x 1\nb: *x\nc: !!str 2\nd: !<tag:yaml.org,2002:int> 3\ne: !e%21x y\n",
    "? a\n: b\n? - c\n: - d\n",
    "a: 'it''s\n  two'\nb: \"x\\\"\n  y\"\n",
    "a: 'unterminated\nb: c\n",
    "😀: 𝒳 \"𝒴\"\n- 🎉\n[😀, '𝒳']\n",
    "k:\n😀\nx\n",  # a character beyond the BMP at a line's start: the JS peeks at its second half
    "😀|- ,\r\n[#:\r\n😀\r\na{b cb c !-",
    "a:\n  b:\n    c:\n      d: 1\n  e: 2\nf: 3\n",
    "- - - - - x\n  - y\n- z\n",
    "a: b: c\n",
    "key: - x\n",
    "\t\n  \n",
    "a\rb: c\r",
    "x: {a: 1}: 2\n",
    "[a]: b\n{c: d}: e\n",
    "!t &a\n- x\n",
    "? |\n  x\n: y\n",
    "a: 1\n  b: 2\n",
    "...\n",
    "---",
    "- a\n  # c\n- b\n",
    "a:\n  - b\n  # c\nd: e\n",
]


@pytest.fixture(scope="module")
def yaml_cst():
    with yaml_oracle("yaml_cst.mjs") as read:
        yield read


def code_points(text: str) -> Callable[[int], int]:
    """Maps a UTF-16 offset into `text` to its Python index."""
    index_of = []
    for index, ch in enumerate(text):
        index_of.extend([index] * (2 if ord(ch) > 0xFFFF else 1))
    index_of.append(len(text))
    return lambda offset: index_of[offset]


def in_code_points(value: Any, convert: Callable[[int], int]) -> Any:
    """The oracle's tokens with every `offset` converted."""
    if isinstance(value, list):
        return [in_code_points(item, convert) for item in value]
    if isinstance(value, dict):
        return {
            key: convert(item) if key == "offset" else in_code_points(item, convert)
            for key, item in value.items()
        }
    return value


def difference(text: str, theirs: dict[str, Any]) -> str | None:
    lexemes = list(lex(text))
    if lexemes != theirs["lexemes"]:
        return f"lexemes: ours {lexemes!r}, theirs {theirs['lexemes']!r}"
    tokens = json.loads(json.dumps(list(parse(text))))
    expected = in_code_points(theirs["tokens"], code_points(text))
    if tokens != expected:
        return f"tokens:\nours   {json.dumps(tokens)}\ntheirs {json.dumps(expected)}"
    return None


def test_edge_cases_lex_and_parse_as_yaml_does(yaml_cst):
    problems = [
        f"{text!r}: {problem}"
        for text, theirs in zip(EDGE_CASES, yaml_cst(EDGE_CASES), strict=True)
        if (problem := difference(text, theirs)) is not None
    ]
    assert not problems, "\n".join(problems)


def test_generated_documents_lex_and_parse_as_yaml_does(yaml_cst):
    assert_batches_agree(yaml_cst, difference)
