"""The port of agentv's YAML Lexer and Parser (inspector/core/yaml_js/) on fixed documents, with the
lexemes and CST tokens `yaml` 2.8.3 gives for them written out (tests/oracle/test_yaml_js_parser.py
compares against the package itself where node is installed)."""

from __future__ import annotations

import json
import sys

from inspector.core.yaml_js.cst import token_type
from inspector.core.yaml_js.lexer import lex
from inspector.core.yaml_js.parser import parse


def _source(type_: str, offset: int, indent: int, source: str) -> dict[str, object]:
    return {"type": type_, "offset": offset, "indent": indent, "source": source}


def test_a_document_with_markers_a_tag_and_a_comment():
    text = "--- !t\n- x # c\n...\n"
    assert list(lex(text)) == [
        "\x02",
        "---",
        " ",
        "!t",
        "\n",
        "-",
        " ",
        "\x1f",
        "x",
        " ",
        "# c",
        "\n",
        "...",
        "\n",
    ]
    assert list(parse(text)) == [
        {
            "type": "document",
            "offset": 0,
            "start": [
                _source("doc-start", 0, 0, "---"),
                _source("space", 3, 0, " "),
                _source("tag", 4, 0, "!t"),
                _source("newline", 6, 0, "\n"),
            ],
            "value": {
                "type": "block-seq",
                "offset": 7,
                "indent": 0,
                "items": [
                    {
                        "start": [_source("seq-item-ind", 7, 0, "-"), _source("space", 8, 1, " ")],
                        "value": {
                            **_source("scalar", 9, 2, "x"),
                            "end": [
                                _source("space", 10, 2, " "),
                                _source("comment", 11, 2, "# c"),
                                _source("newline", 14, 2, "\n"),
                            ],
                        },
                    }
                ],
            },
        },
        {"type": "doc-end", "offset": 15, "source": "...", "end": [_source("newline", 18, 0, "\n")]},
    ]


def test_offsets_count_code_points_where_yaml_counts_utf16_units():
    # yaml puts the `]` at 11: the emoji is two UTF-16 code units there, one code point here.
    [document] = parse('k: [a, "😀"]\n')
    collection = document["value"]["items"][0]["value"]
    assert collection["items"][1]["value"] == {**_source("double-quoted-scalar", 7, 0, '"😀"'), "end": []}
    assert collection["end"] == [_source("flow-seq-end", 10, 0, "]"), _source("newline", 11, 0, "\n")]


def test_a_character_beyond_the_bmp_at_a_line_start_reads_as_two_units_in_the_js():
    # parseLineStart peeks at `charAt(1)`: the emoji's second UTF-16 half, not the line break, so
    # the line does not keep the key's indent and the plain scalar runs on to `x`.
    assert list(lex("k:\n😀\nx\n")) == ["\x02", "\x1f", "k", ":", "\n", "\x1f", "😀\nx", "\n"]


def test_a_sequence_on_a_key_line_is_an_error_token_where_yaml_puts_it():
    [document] = parse("key: - x\n")
    first, second = document["value"]["items"]
    assert first["value"] == {
        "type": "error",
        "offset": 5,
        "message": "Unexpected block-seq-ind on same line with key",
        "source": "-",
    }
    assert second == {
        "start": [_source("space", 6, 0, " ")],
        "key": _source("scalar", 7, 0, "x"),
        "sep": [_source("newline", 8, 0, "\n")],
    }


def test_a_flow_sequence_left_open_keeps_its_scalar_across_lines():
    assert list(lex("[a\nb\n")) == ["\x02", "[", "\x1f", "a\nb", "\n"]
    [document] = parse("[a\nb\n")
    assert document["value"]["items"] == [
        {"start": [], "value": {**_source("scalar", 1, 0, "a\nb"), "end": [_source("newline", 4, 0, "\n")]}}
    ]
    assert document["value"]["end"] == []


def test_token_types_of_control_characters_and_indicators():
    assert [
        token_type(s) for s in ("\ufeff", "\x02", "\x18", "\x1f", "", "\r\n", "\t ", "%YAML", "|+", "x")
    ] == [
        "byte-order-mark",
        "doc-mode",
        "flow-error-end",
        "scalar",
        "newline",
        "newline",
        "space",
        "directive-line",
        "block-scalar-header",
        None,
    ]


def test_deep_nesting_does_not_recurse():
    # An indicator per level on one line, then nested indented maps: each is a loop, not a call.
    levels = sys.getrecursionlimit() * 3
    [document] = parse("- " * levels + "x\n")
    node, depth = document["value"], 0
    while node["type"] == "block-seq":
        node, depth = node["items"][0]["value"], depth + 1
    assert depth == levels and node["source"] == "x"
    nested_maps = "".join(" " * level + "k:\n" for level in range(levels)) + "end: 1\n"
    [document] = parse(nested_maps)
    assert json.dumps(document["value"]["items"][0]["key"]) == json.dumps(_source("scalar", 0, 0, "k"))
    assert len(document["value"]["items"]) == 2  # `end` closes every level back to the first
    [document] = parse("[" * levels + "]" * levels + "\n")
    node, depth = document["value"], 0
    while node["items"]:
        node, depth = node["items"][0]["value"], depth + 1
    assert depth == levels - 1 and node["end"][0]["offset"] == levels
