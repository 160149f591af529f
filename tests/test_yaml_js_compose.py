"""yaml's Composer ported (inspector/core/yaml_js/compose.py) on CST tokens written here, without
Node: the oracle's test (tests/oracle/test_yaml_js_compose.py) checks it against yaml itself."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.core.yaml_js.compose import compose_errors, first_error, to_js_error
from inspector.core.yaml_js.nodes import JsError, YamlError


def tok(kind: str, offset: int, source: str) -> dict[str, Any]:
    return {"type": kind, "offset": offset, "indent": 0, "source": source}


def plain(offset: int, source: str, newline: bool = False) -> dict[str, Any]:
    token = tok("scalar", offset, source)
    if newline:
        token["end"] = [tok("newline", offset + len(source), "\n")]
    return token


def item(
    key: dict[str, Any], value: dict[str, Any], start: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """key: value, the colon right after the key and one space after it."""
    colon = key["offset"] + len(key["source"])
    sep = [tok("map-value-ind", colon, ":"), tok("space", colon + 1, " ")]
    return {"start": start or [], "key": key, "sep": sep, "value": value}


def block_map(*items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "block-map", "offset": items[0]["key"]["offset"], "indent": 0, "items": list(items)}


def document(offset: int, value: dict[str, Any], start: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"type": "document", "offset": offset, "start": start or [], "value": value}


def flow_map(key_sources: list[tuple[str, str]]) -> tuple[str, list[dict[str, Any]]]:
    """`{k1: a, k2: b}` from (key token type, key text) pairs, as the Parser gives it."""
    text, items = "{", []
    for index, (kind, source) in enumerate(key_sources):
        start = []
        if index:
            start = [tok("comma", len(text), ","), tok("space", len(text) + 1, " ")]
            text += ", "
        key = tok(kind, len(text), source)
        text += source
        items.append(item(key, tok("scalar", len(text) + 2, "v"), start))
        text += ": v"
    end = [tok("flow-map-end", len(text), "}"), tok("newline", len(text) + 1, "\n")]
    collection = {"type": "flow-collection", "offset": 0, "indent": 0, "start": tok("flow-map-start", 0, "{")}
    collection.update(items=items, end=end)
    return text + "}\n", [document(0, collection)]


UNIQUE = "Map keys must be unique"


def test_keys_repeat_when_their_values_resolve_alike_not_when_their_texts_do():
    text, tokens = flow_map([("scalar", "1"), ("scalar", "0x1")])
    assert compose_errors(tokens, text) == [YamlError("DUPLICATE_KEY", UNIQUE, 7)]
    text, tokens = flow_map([("scalar", "1"), ("single-quoted-scalar", "'1'")])
    assert compose_errors(tokens, text) == []
    text, tokens = flow_map([("scalar", "1"), ("scalar", "1.0")])
    assert compose_errors(tokens, text) == [YamlError("DUPLICATE_KEY", UNIQUE, 7)]
    text, tokens = flow_map([("scalar", ".nan"), ("scalar", ".nan")])
    assert compose_errors(tokens, text) == []  # NaN is not NaN
    text, tokens = flow_map([("scalar", "<<"), ("scalar", "<<")])
    assert compose_errors(tokens, text) == []  # each merge key is its own Symbol


def _yes_and_on(directive: str) -> tuple[str, list[dict[str, Any]]]:
    body = len(directive) + 5 if directive else 0  # after "<directive>\n---\n"
    mapping = block_map(
        item(plain(body, "yes"), plain(body + 5, "a", True)),
        item(plain(body + 7, "on"), plain(body + 11, "b", True)),
    )
    if not directive:
        return "yes: a\non: b\n", [document(0, mapping)]
    start = [tok("doc-start", len(directive) + 1, "---"), tok("newline", len(directive) + 4, "\n")]
    tokens = [
        tok("directive", 0, directive),
        tok("newline", len(directive), "\n"),
        document(len(directive) + 1, mapping, start),
    ]
    return f"{directive}\n---\nyes: a\non: b\n", tokens


def test_the_yaml_version_picks_the_schema_keys_resolve_by():
    text, tokens = _yes_and_on("%YAML 1.1")
    assert compose_errors(tokens, text) == [YamlError("DUPLICATE_KEY", UNIQUE, 21)]  # both true in 1.1
    text, tokens = _yes_and_on("")
    assert compose_errors(tokens, text) == []


def test_a_second_document_is_an_error_where_it_starts():
    second = document(
        5,
        block_map(item(plain(9, "b"), plain(12, "2", True))),
        [tok("doc-start", 5, "---"), tok("newline", 8, "\n")],
    )
    tokens = [document(0, block_map(item(plain(0, "a"), plain(3, "1", True)))), second]
    message = "Source contains multiple documents; please use YAML.parseAllDocuments()"
    assert compose_errors(tokens, "a: 1\n---\nb: 2\n") == [YamlError("MULTIPLE_DOCS", message, 5)]


def test_the_first_error_is_the_one_parse_throws():
    text = '"a\\q" x\n'
    tokens = [
        document(
            0,
            {
                **tok("double-quoted-scalar", 0, '"a\\q"'),
                "end": [tok("space", 5, " "), tok("scalar", 6, "x")],
            },
        )
    ]
    assert compose_errors(tokens, text) == [
        YamlError("BAD_DQ_ESCAPE", "Invalid escape sequence \\q", 2),
        YamlError("UNEXPECTED_TOKEN", "Unexpected scalar at node end", 6),
    ]
    assert first_error(tokens, text) == YamlError("BAD_DQ_ESCAPE", "Invalid escape sequence \\q", 2)
    assert first_error([document(0, plain(0, "a", True))], "a\n") is None


def test_a_directive_without_a_document_is_named_at_the_end_of_the_text():
    tokens = [tok("directive", 0, "%YAML 1.2"), tok("newline", 9, "\n")]
    assert compose_errors(tokens, "%YAML 1.2\n") == [
        YamlError("MISSING_CHAR", "Missing directives-end indicator line", 10)
    ]


def test_offsets_are_str_indexes_past_characters_beyond_the_bmp():
    emoji = "\U0001f600"
    tokens = [
        document(
            0,
            block_map(item(plain(0, emoji), plain(3, "a", True)), item(plain(5, emoji), plain(8, "b", True))),
        )
    ]
    assert compose_errors(tokens, f"{emoji}: a\n{emoji}: b\n") == [YamlError("DUPLICATE_KEY", UNIQUE, 5)]


def test_nesting_beyond_the_stack_is_an_error_not_a_crash():
    depth = 5000
    value: dict[str, Any] = plain(depth, "x")
    for level in reversed(range(depth)):
        value = {
            "type": "flow-collection",
            "offset": level,
            "indent": 0,
            "start": tok("flow-seq-start", level, "["),
            "items": [{"start": [], "value": value}],
            "end": [tok("flow-seq-end", 2 * depth + 1 - level, "]")],
        }
    text = "[" * depth + "x" + "]" * depth
    errors = compose_errors([document(0, value)], text)
    assert errors and {error.code for error in errors} == {"RESOURCE_EXHAUSTION"}
    assert errors[0].message == "Maximum call stack size exceeded"


def test_what_to_js_throws_after_a_document_without_errors():
    alias = {**tok("alias", 3, "*x"), "end": [tok("newline", 5, "\n")]}
    tokens = [document(0, block_map(item(plain(0, "a"), alias)))]
    assert compose_errors(tokens, "a: *x\n") == []
    assert to_js_error(tokens, "a: *x\n") == "Unresolved alias (the anchor must be set before the alias): x"
    tokens = [document(0, block_map(item(plain(0, "<<"), plain(4, "1", True))))]
    assert to_js_error(tokens, "<<: 1\n") == "Merge sources must be maps or map aliases"
    quoted = tok("single-quoted-scalar", 0, "'<<'")
    tokens = [document(0, block_map(item(quoted, plain(6, "1", True))))]
    assert to_js_error(tokens, "'<<': 1\n") is None  # a quoted << is no merge key


def test_a_code_point_past_unicode_throws_as_yaml_throws_it_unless_a_collection_holds_it():
    quoted = tok("double-quoted-scalar", 0, '"\\U00110000"')
    with pytest.raises(JsError, match="Invalid code point 1114112"):
        compose_errors([document(0, quoted)], '"\\U00110000"')
    sequence = {"type": "flow-collection", "offset": 0, "indent": 0, "start": tok("flow-seq-start", 0, "[")}
    sequence.update(
        items=[{"start": [], "value": {**quoted, "offset": 1}}], end=[tok("flow-seq-end", 13, "]")]
    )
    errors = compose_errors([document(0, sequence)], '["\\U00110000"]')
    assert errors == [YamlError("RESOURCE_EXHAUSTION", "Invalid code point 1114112", 0)]
