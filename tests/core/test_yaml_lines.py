"""The one YAML reader (yaml_lines.py) builds its tree from the parser's events; PyYAML's composer,
followed by the alias-bomb check and the conversion, is the reference it must match exactly: the
same values, keys in the same order, the same lines, and for anything it leaves to that path the
same errors."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core import yaml_lines
from inspector.core.model import InputError
from inspector.core.yaml_lines import Node
from tests.oracle.generate import Suite, suites


def _same(ours: Node | None, reference: Node | None, where: str = "$") -> None:
    if ours is None or reference is None:
        assert ours is reference, where
        return
    assert (ours.start_line, ours.end_line, ours.text_line, ours.pieces) == (
        reference.start_line,
        reference.end_line,
        reference.text_line,
        reference.pieces,
    ), where
    if isinstance(reference.value, dict):
        assert isinstance(ours.value, dict) and list(ours.value) == list(reference.value), where
        for key, value in reference.value.items():
            _same(ours.value[key], value, f"{where}.{key}")
    elif isinstance(reference.value, list):
        assert isinstance(ours.value, list) and len(ours.value) == len(reference.value), where
        for index, (item, expected) in enumerate(zip(ours.value, reference.value, strict=True)):
            _same(item, expected, f"{where}[{index}]")
    else:
        assert type(ours.value) is type(reference.value), where
        both_nan = isinstance(ours.value, float) and math.isnan(ours.value) and math.isnan(reference.value)
        assert both_nan or ours.value == reference.value, where


def _outcome(read: Any, text: str, core: bool) -> tuple[Node | None, tuple | None]:
    try:
        return read(text, "evals/x.yaml", core), None
    except InputError as error:
        return None, (type(error).__name__, error.diagnostic)


def _check(text: str, core: bool) -> bool:
    """The reader's answer is the composer path's; True when the event reader built it itself."""
    yaml_lines.forget_last_read()
    tree, error = _outcome(yaml_lines.load_yaml, text, core)
    reference, reference_error = _outcome(yaml_lines._compose_and_convert, text, core)
    assert error == reference_error
    _same(tree, reference)
    try:
        yaml_lines._from_events(text, "evals/x.yaml", core)
    except yaml_lines._Unusual:
        return False
    return True


# Each: the text, and whether the event reader reads it itself (the rest go the composer's way).
SHAPES = [
    ("", True),
    ("---\n", True),
    ("--- 5\n", True),
    ("--- |\n  text\n", True),
    ("[]\n", True),
    ("{}\n", True),
    ("%YAML 1.1\n---\na: 1\n...\n", True),
    ("x: |\n  one\n  two\ny: >\n  folded\n  text\n\nz: 3\n", True),
    ("a:\n- 1\n- 2\nb: 3\n", True),
    ("- - - - 1\n", True),
    (
        "a: 'x'\nb: \"y\"\nc: plain\nd: Yes\ne: NO\nf: on\ng: 012\nh: 1e3\ni: +1\nj: -0.5\nk: .5\n"
        "l: 0o17\nm: 0x1F\nn: 1_000\no: ~\np: .inf\nq: -.INF\nr: .nan\ns: null\nt: 2001-12-14\n",
        True,
    ),
    ("text: type\nTrue: False\nnull: Null\nfile: nope\nThe: tRue\nFALSE: NULL\nnothing: n\nt: f\n", True),
    ("a: !!str 123\nb: !!int '7'\nc: !!float 1\nd: !!binary aGVsbG8=\ne: !\nf: ! 12\n", True),
    ("a: !!set {x, y}\n", True),
    ("list:\n  - &m {role: user, content: hi}\n  - *m\n  - *m\n", True),
    ("base: &b {a: 1, b: [1, 2]}\nc:\n  <<: *b\n  b: 3\n", True),
    ("c:\n  <<: [{a: 1}, {a: 2, z: 9}]\n  q: 1\n", True),
    ("<<: {a: 1}\nb: 2\n", True),
    ("c:\n  <<: {a: 1}\n  a: 2\nd:\n  a: 1\n  <<: {a: 3, b: 4}\n  c: 5\n", True),
    # Keys met again in later mappings (the reader keeps each plain key's name by its text):
    (
        "- {a: 1, 1: x, null: y, true: z, .5: w, 0o7: v, 'k': q}\n"
        "- {0o7: v, .5: w, true: z, null: y, 1: x, a: 1, 'k': q}\n",
        True,
    ),
    ("a: &a [" + "[" * 98 + "1" + "]" * 98 + "]\nb: *a\n", True),
    # Block collections as deep as the event reader reads (MAX_DEPTH of them), and one deeper; a flow
    # sequence is a collection too.
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 100)), True),
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 101)), False),
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 98)) + " " * 196 + "k: [x]\n", True),
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 99)) + " " * 198 + "k: [x]\n", False),
    # Left to the composer's path, which says what is wrong:
    ("a: 1\n---\nb: 2\n", False),
    ("- &x 1\n- *x\n- *y\n", False),
    ("a: &x 1\nb: &x 2\n", False),
    ("a: !foo bar\n", False),
    ("? [a, b]\n: c\n", False),
    ("&k a: 1\nb: *k\n", False),
    ("*x : 1\n", False),
    ("a: b: c\n", False),
    ("a: [1, 2\n", False),
    ('a: "\\x"\n', False),
    ("a: \x07\n", False),
    ("a: <<\n", False),
    ("a: &r [*r]\n", False),
    ("- " + "[" * 101 + "]" * 101 + "\n", False),
    ("a: &a [" + "[" * 99 + "1" + "]" * 99 + "]\nb: [*a]\n", False),
    (
        "".join(
            f"l{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9 if i else ["x"] * 9) + "]\n" for i in range(9)
        ),
        False,
    ),
]


@pytest.mark.parametrize("core", [False, True], ids=["yaml-1.1", "core"])
@pytest.mark.parametrize(("text", "own"), SHAPES)
def test_the_event_reader_matches_the_composer(text: str, own: bool, core: bool):
    assert _check(text, core) is own


@pytest.mark.parametrize("core", [False, True], ids=["yaml-1.1", "core"])
def test_repeated_keys_are_refused_in_core_mode_only(core: bool):
    assert _check("a: 1\na: 2\n1: x\n1.0: y\n", core) is not core


@pytest.mark.parametrize("core", [False, True], ids=["yaml-1.1", "core"])
@pytest.mark.parametrize(
    "text",
    [
        "c:\n  <<: {a: 1}\n  a: 2\n  a: 3\n",
        "c:\n  a: 2\n  <<: {a: 1}\n  a: 3\n",
        "- {a: 1}\n- {a: 1, a: 2}\n",
    ],
)
def test_a_key_repeated_after_a_merge_or_in_a_later_mapping_is_refused_in_core_mode(text: str, core: bool):
    assert _check(text, core) is not core


_scalars = st.one_of(
    st.text(max_size=12),
    st.integers(),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.sampled_from(["yes", "~", "0o7", "1_0", "<<", "2020-01-02", ".inf", "-", "#"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=6), inner, max_size=4),
        inner.map(lambda shared: [shared, {"again": shared}]),  # written once, then as an alias
    ),
    max_leaves=25,
)


@settings(
    max_examples=300, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
@given(
    value=_values,
    flow=st.sampled_from([None, True, False]),
    style=st.sampled_from([None, "'", '"', "|", ">"]),
    core=st.booleans(),
)
def test_any_document_pyyaml_writes_reads_as_the_composer_reads_it(value, flow, style, core):
    text = yaml.safe_dump(value, default_flow_style=flow, default_style=style, allow_unicode=True)
    _check(text, core)


@settings(
    max_examples=150, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
@given(suite=suites(), core=st.booleans())
def test_generated_agentv_suites_read_as_the_composer_reads_them(suite: Suite, core: bool):
    for path, data in suite.files.items():
        if path.endswith((".yaml", ".yml")):
            text = data.decode("utf-8-sig", errors="replace")
            # Only a file the composer's path refuses is left to it.
            assert _check(text, core) or _outcome(yaml_lines._compose_and_convert, text, core)[1]


@pytest.mark.parametrize("value", ["text", ["a"], 3, 1.5, True, None])
def test_a_node_that_is_no_mapping_has_no_keys(value: Any):
    assert Node(value, 1, 1, 1).get("a") is None


def test_a_mapping_node_gives_its_key_or_nothing():
    inner = Node("x", 2, 2, 2)
    node = Node({"a": inner}, 1, 2, 1)
    assert node.get("a") is inner and node.get("b") is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("../guides/a.md", "../guides/a.md"),
        ("1.2.3", "1.2.3"),
        ("-", "-"),
        ("0o8", "0o8"),
        ("1_000", "1_000"),
        ("~", None),
        ("+12", 12),
        ("0o17", 15),
        ("0x1F", 31),
        ("-1.5e3", -1500.0),
        (".5", 0.5),
        ("-.Inf", float("-inf")),
        ("TRUE", True),
        ("Null", None),
    ],
)
def test_core_scalars_are_the_core_schemas_values_and_other_text_stays_text(text: str, value: Any):
    found = yaml_lines.core_scalar(text)
    assert type(found) is type(value) and found == value


# Plain block YAML as eval files write it, and its near misses (which the composer's path refuses
# or reads otherwise).
BLOCK_SHAPES = [
    "a: 1\n",
    "a: 1",
    "- x\n- y\n",
    "- - x\n  - y\n- z\n",
    "a:\n  b:\n    c: d\n  e: f\ng: h\n",
    "a:\n- 1\n- 2\nb: 3\n",
    "a:\n  - 1\n  -\n  - k: v\n    l:\nb:\n",
    "-\n- \n-   # c\n",
    "- a: 1\n  b: 2\n-   c: 3\n    d: 4\n",
    "a: x # c\nb: x#c\nc: 'x' # c\nd: \"y\"\n",
    "a: 'it''s'\nb: \"\\\"q\\\" \\\\ \\n\\t\\x41\\u00e9\\N\\_\"\nc: ''\nd: \"\"\n",
    'a: "\\0\\a\\b\\e\\f\\r\\v\\/\\ \\L\\P\\x7f\\u2028\\uFFFD"\n',
    'a: "\\x01\\u0000\\uFFFE\\uFFFF\\x85\\uD7FF\\uE000\\xff"\n',
    "a: null\nb: ~\nc: true\nd: FALSE\ne: 0o17\nf: 0x1F\ng: .inf\nh: -.Inf\ni: .nan\nj: 1e3\n"
    "k: -12\nl: +1.5\nm: 1_000\nn: yes\no: 2001-12-14\np: <x>\nq: Null\nr: nul\n",
    "a: |\n  one\n   two\n\n  three\nb: 1\n",
    "a: |-\n  x\n\n\nb: 1\n",
    "a: |+\n  x\n\n\nb: 1\n",
    "a: >\n  one\n  two\n\n  three\n   more\n  four\n",
    "a: >-\n  x\n  y\n",
    "a: >+\n  x\n\n",
    "- |\n x\n- >\n y\n",
    "a: |  # c\n  # not a comment\n  x\n",
    "a: |\n  x",
    "a: >-\n  x\n  y",
    "a: |\n\n\n  x\n",
    "# top\n\na: 1 # one\n  # indented\n\nb: 2\n# end\n\n",
    "k: a:b\nl: http://x/y?z=1#f\nm: -x\nn: x, y [z] {w}\no: a  b\np: é ☃\n",
    "a: x   \nb:   y\n",
    "$a: 1\n_b: 2\nc.d: 3\ne/f: 4\ng-h: 5\nnul: 6\n",
    # One-line flow sequences of scalars, as a key's value or an entry.
    "a: [1, 2]\n",
    "a: [a, b]  # c\n",
    "a: [\"a, b\", 'c''d']\n",
    "a: [ ]\nb: []\n",
    "a: [a ,b]\n",
    "a: [ a , b ]\n",
    "a: [1, 2.5, true, null, ~]\n",
    "a: [a, b,]\nb: [ a , ]\n",
    "a: [x]",
    "a: [.inf, -.Inf, .nan, 0o17, 0x1F, 1e3, -12, +1, 1_000, yes, 2001-12-14, Null, FALSE, nul]\n",
    "a: [-a, a-b, -1, a#b, a  b, a'b, a\"b, a!b, c&d, e*f, g%h, i@j, k|l, m>n, o`p, q?r, <x>]\n",
    'a: [\'\', "", "x]", \'y,\', \'[z]\', "{w}", "a # b", \'"\', "\\t\\u00e9\\\\"]\n',
    "a: [é, ☃, 'ü', \"\\u00e9\", \u00a0x]\n",
    "- [x]\n- []\n- - [y, z]\n  - [1]\n- k: [1]\n  l: [2]  # c\n-   [3]\n",
    "a:\n  - [1]\n  - b: [c]\nd: [e]\ne:\n- [f]\ng: 1\n",
    "",
    "# only a comment\n",
    "x\n",
    "a: 1\n---\nb: 2\n",
    "--- \na: 1\n",
    "a: {b: 1}\n",
    "a: &x 1\n",
    "a: *x\n",
    "a: !!str 1\n",
    "? a\n: b\n",
    "<<: {a: 1}\n",
    "a: <<\n",
    "a: b\n  c\n",
    "a: 'b\n  c'\n",
    "a:\tb\n",
    "a: b\r\n",
    "\ufeffa: b\n",
    "a: b\u2028c\n",
    "a: 1\na: 2\n",
    "1: a\n",
    "true: a\n",
    "null: a\n",
    "a b: c\n",
    "'a': b\n",
    "a: b: c\n",
    "a: - b\n",
    "a: |\nb: 1\n",
    "a: |2\n   x\n",
    "a: |\n  \n  x\n",
    'a: "\\U0001F600"\n',
    'a: "\\ud800"\n',
    'a: "\\q"\n',
    'a: "b\\\n  c"\n',
    "a: 1\n b: 2\n",
    "- a\nb: 1\n",
    "a:\n  - x\n b: 1\n",
    "a: ?x\n",
    "a: %x\n",
    "a: @x\n",
    "a: 'x'y\n",
    "a: 'x'#c\n",
    "  a: 1\nb: 2\n",
    "a: \x07\n",
    # Flow collections but one-line sequences of scalars, and near misses: libyaml reads some
    # (`[a:b]`, `[-]`, `[? a]`, `[a]#c`) and refuses others (`[a:]`, `[a,,b]`, `[*x]`).
    *(
        f"a: {value}\n"
        for value in [
            '["\\q"]',
            '["\\ud800"]',
            "[<<]",
            "[a: b]",
            "[a:b]",
            "[a:]",
            '["a": b]',
            "[[a]]",
            "[a, {b: c}]",
            "[{}]",
            "{}",
            "[a",
            "[a,\n  b]",
            "[a]]",
            "[a] b",
            "[a]\n  b",
            "[a]#c",
            "[-a, - a]",
            "[-]",
            "[a #b]",
            "['a' b]",
            "['a'b]",
            "[a,,b]",
            "[,]",
            "[, a]",
            "[?]",
            "[? a]",
            "[&x a]",
            "[*x]",
            "[!t a]",
            "[|]",
            "[a\tb]",
            "[a]: b",
            "[a] [b]",
        ]
    ),
    "[a, b]\n",
]


# ---- generated text -----------------------------------------------------------------------------

# Scalars as written after `key: ` or `- `: plain block YAML...
_SCALARS = st.sampled_from(
    [
        "x",
        "hello world",
        "a#b",
        "a #b",
        "a:b",
        "-1",
        "-x",
        "null",
        "Null",
        "~",
        "true",
        "TRUE",
        "False",
        "0o17",
        "0o8",
        "0x1F",
        ".inf",
        "-.INF",
        ".nan",
        "1e3",
        "+1",
        "1_000",
        ".5",
        "1.",
        "yes",
        "2001-01-01",
        "<x>",
        "x  ",
        "  x",
        "'q'",
        "'it''s'",
        "'a'' '",
        "''",
        '""',
        '"a\\nb"',
        '"\\x41\\u00e9\\t\\\\"',
        '"\\"x"',
        "'x' # c",
        "x # c",
        "x#",
        "#",
        "a  #",
        "é",
        "\u00a0x",
        "x, y",
        "x]",
        "0",
        "00",
        "-0",
        "+.inf",
        "n",
        "t",
        "y",
        "f",
        "nul",
        "truex",
        ".",
        "..",
        "~x",
        "x ~",
        "a  b",
        "a'b",
        'a"b',
        "-.",
        "+",
        "0x",
        "0o",
        "1e",
        "1_",
        "--x",
    ]
)
# ...and odder ones (flow mappings and nested flow collections, anchors, tags, `: ` inside,
# escapes libyaml refuses).
_ODD_SCALARS = st.one_of(
    st.sampled_from(
        [
            "a: b",
            "x:",
            "- x",
            "-",
            "<<",
            '"\\q"',
            '"\\ud800"',
            '"x" y',
            "[[1], 2]",
            "{a: 1}",
            "&a x",
            "*a",
            "!t x",
            "%x",
            "@x",
            "`x`",
            "?x",
            ":x",
            ",x",
            "|x",
            "'x'#c",
            "x\ty",
            "a\u2028b",
            '"\\U0001F600"',
        ]
    ),
    st.text(alphabet="ab :#-'\"\\0.~ntf!&*[]{},", min_size=1, max_size=8),
)
_KEYS = st.sampled_from(["a", "b", "key", "k-1", "x.y", "$k", "_", "a/b", "nul", "y", "tests", "value", "n"])
_ODD_KEYS = st.sampled_from(
    ["Null", "true", "null", "1", "0o7", "<<", "a b", "'q'", '"d"', "? a", "-", "TRUE", "a\tb"]
)
_BLOCK_LINES = st.one_of(
    st.sampled_from(["", " ", "  ", "x", " x", "  x", "# c", "- a", "a: b", "x  ", "'q", "|"]),
    st.text(alphabet="ab #:", max_size=5),
)


# Items of a flow sequence...
_FLOW_SCALARS = st.sampled_from(
    [
        "x",
        "b c",
        "a  b",
        "-a",
        "a-b",
        "-1",
        "1",
        "2.5",
        "1e3",
        "+1",
        ".inf",
        "-.INF",
        ".nan",
        "0o17",
        "0x1F",
        "1_000",
        "true",
        "FALSE",
        "null",
        "Null",
        "~",
        "yes",
        "nul",
        "2001-01-01",
        "<x>",
        "a#b",
        "a'b",
        'a"b',
        "a!b",
        "a&b",
        "a*b",
        "a?b",
        "a%b",
        "a@b",
        "a|b",
        "a>b",
        "é",
        "\u00a0x",
        "n",
        "t",
        "f",
        ".",
        "'q'",
        "'it''s'",
        "''",
        '""',
        '"a, b"',
        '"x]"',
        "'[y]'",
        "'{z}'",
        '"a # b"',
        '"\\t\\u00e9"',
        '"\\"x"',
        "'a: b'",
        "'-'",
    ]
)
# ...and near misses: libyaml reads some (`a:b`, `-`, `? a`, `&x a`), refuses
# others (`a:`, `- a`, `*x`, `"\\q"`), or reads a mapping or a nested collection.
_ODD_FLOW_SCALARS = st.one_of(
    st.sampled_from(
        [
            "a: b",
            "a:",
            ":a",
            "a:b",
            "[a]",
            "[]",
            "{}",
            "{b: c}",
            "- a",
            "-",
            "?",
            "? a",
            "&x a",
            "*x",
            "!t a",
            "<<",
            "a #b",
            "'a' b",
            "'a'b",
            '"\\q"',
            '"a": b',
            "",
            "|",
            ">",
            "#",
            "@x",
            "`x`",
            "%x",
            ",",
            "a\tb",
            '"\\ud800"',
        ]
    ),
    st.text(alphabet="ab :#-'\",[]{}&*!?", max_size=6),
)


@st.composite
def _flow_sequences(draw: st.DrawFn, messy: bool) -> str:
    """A flow sequence on one line, `[a, 'b']  # c`; in a messy document, now and then a near miss:
    an odd item, a second comma, no `]`, or something after it."""
    spaces = st.sampled_from(["", "", " ", "  "])
    items = [
        draw(spaces) + _odd_or(draw, messy, _FLOW_SCALARS, _ODD_FLOW_SCALARS) + draw(spaces)
        for _ in range(draw(st.integers(0, 4)))
    ]
    commas = [_odd_or(draw, messy, st.just(","), st.sampled_from([",,", ", ,", "", " "])) for _ in items[1:]]
    inside = items[0] if items else draw(spaces)
    for comma, item in zip(commas, items[1:], strict=True):
        inside += comma + item
    if items and draw(st.integers(0, 4)) == 0:
        inside += "," + draw(spaces)  # a trailing comma, which libyaml drops
    close = _odd_or(
        draw, messy, st.just("]"), st.sampled_from(["", "]]", "] b", "]: b", "]#c", "] [b]", "},"])
    )
    after = draw(st.sampled_from(["", "", "  ", " # c", "  #c"]))
    return "[" + inside + close + after


def _odd_or(draw: st.DrawFn, messy: bool, usual: Any, odd: Any) -> Any:
    """Now and then, in a messy document, something odd."""
    return draw(odd if messy and draw(st.integers(0, 12)) == 0 else usual)


@st.composite
def _block_scalars(draw: st.DrawFn, indent: int, messy: bool) -> str:
    """A block scalar's header and its lines, indented under `indent` (or not quite)."""
    header = draw(st.sampled_from(["|", ">"])) + draw(st.sampled_from(["", "-", "+"]))
    if messy and draw(st.integers(0, 9)) == 0:
        header += draw(st.sampled_from(["1", "2", "-2", "2+", " x", "#c"]))
    if draw(st.booleans()):
        header += draw(st.sampled_from(["  # c", " "]))
    base = indent + draw(st.sampled_from([1, 2, 2, 4]))
    lines = []
    for _ in range(draw(st.integers(0 if messy else 1, 5))):
        extra = draw(st.sampled_from([0, 0, 0, 1, 2, -1] if messy else [0, 0, 0, 1, 2]))
        lines.append(" " * max(0, base + extra) + _odd_or(draw, messy, _BLOCK_LINES, st.just("\t")))
    if not messy:  # its first line is text
        lines[0] = " " * base + "x" + lines[0].lstrip(" ")
    blanks = "\n" * draw(st.sampled_from([0, 0, 1, 2]))
    return header + "".join("\n" + line for line in lines) + blanks


@st.composite
def _block_values(draw: st.DrawFn, indent: int, messy: bool, depth: int = 0) -> tuple[str, list[str]]:
    """A value as (what follows `key:` on its line, the lines after it)."""
    kind = draw(
        st.sampled_from(
            ["scalar", "scalar", "flow", "block", "mapping", "sequence", "empty"]
            if depth < 4
            else ["scalar", "flow", "block", "empty"]
        )
    )
    if kind == "scalar":
        return " " + _odd_or(draw, messy, _SCALARS, _ODD_SCALARS), []
    if kind == "flow":
        return " " + draw(_flow_sequences(messy)), []
    if kind == "block":
        first, *rest = draw(_block_scalars(indent, messy)).split("\n")
        return " " + first, rest
    if kind == "empty":
        return draw(st.sampled_from(["", " ", "  # c"])), []
    step = draw(st.sampled_from([1, 2, 2, 4]))
    inner = indent + step
    if kind == "sequence" and draw(st.booleans()):
        inner = indent  # a sequence at its key's indentation
    return "", draw(_collections(inner, messy, depth + 1, kind))


@st.composite
def _collections(draw: st.DrawFn, indent: int, messy: bool, depth: int, kind: str) -> list[str]:
    lines: list[str] = []
    pad = " " * indent
    count = draw(st.integers(1, 4))
    keys = draw(st.lists(_KEYS, min_size=count, max_size=count, unique=True))
    for key in keys:
        if draw(st.integers(0, 7)) == 0:
            lines.append(draw(st.sampled_from(["", "  ", "# c", pad + "# c", pad + "  # c"])))
        if kind == "mapping":
            head = pad + _odd_or(draw, messy, st.just(key), _ODD_KEYS) + ":"
            after, more = draw(_block_values(indent, messy, depth))
            lines += [head + after, *more]
            continue
        compact = draw(st.sampled_from(["plain", "plain", "mapping", "sequence"])) if depth < 4 else "plain"
        dash = "-" + " " * draw(st.sampled_from([1, 1, 1, 2, 3]))
        if compact == "plain":
            after, more = draw(_block_values(indent, messy, depth))
            lines += [pad + "-" + after, *more]
        else:  # `- key: value` or `- - value`: a collection opened on the entry's line
            first, *rest = draw(_collections(indent + len(dash), messy, depth + 1, compact))
            lines += [pad + dash + first.lstrip(" "), *rest]
    return lines


@st.composite
def _documents(draw: st.DrawFn) -> str:
    messy = draw(st.booleans())
    lines = draw(_collections(0, messy, 0, draw(st.sampled_from(["mapping", "sequence"]))))
    # In a messy one, a line nudged sideways or one of junk.
    for _ in range(draw(st.sampled_from([0, 1, 2])) if messy else 0):
        at = draw(st.integers(0, len(lines) - 1))
        change = draw(st.sampled_from(["indent", "dedent", "junk"]))
        if change == "indent":
            lines[at] = " " + lines[at]
        elif change == "dedent":
            lines[at] = lines[at][1:] if lines[at].startswith(" ") else lines[at]
        else:
            lines.insert(
                at,
                draw(st.sampled_from(["x", "  x", "---", "...", "a: 1", "- y", "  b:", "\t", "? q", ": v"])),
            )
    text = "\n".join(lines)
    return text + draw(st.sampled_from(["\n", "\n", "", "\n\n", "\n  \n", "\n# end"]))


@pytest.mark.parametrize("core", [False, True], ids=["yaml-1.1", "core"])
@pytest.mark.parametrize("text", BLOCK_SHAPES)
def test_plain_block_yaml_and_its_near_misses_read_as_the_composer_reads_them(text: str, core: bool):
    _check(text, core)


@settings(
    max_examples=300, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
@given(text=_documents(), core=st.booleans())
def test_generated_block_yaml_reads_as_the_composer_reads_it(text: str, core: bool):
    _check(text, core)


def test_the_benchmark_suites_read_as_the_composer_reads_them():
    # benchmarks/ is no package: bench_render.py is loaded from its file.
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_render.py"
    spec = importlib.util.spec_from_file_location("bench_render", path)
    assert spec is not None and spec.loader is not None
    bench_render = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_render)
    for agentv_5 in (False, True):
        suite = bench_render.synthetic_bundle(120, agentv_5).read("evals/suite.yaml").decode()
        assert _check(suite, core=True)


def test_agentvs_reader_refuses_a_tab_among_the_blanks_before_a_nested_mapping():
    """`-\t key:` as `yaml` reads it: the tab is indentation wherever it stands among the blanks
    after `-`, and the error names the first blank (found by the differential test)."""
    for text in ("a:\n-\t k: v\n", "a:\n- \tk: v\n", "a:\n-\tk: v\n"):
        with pytest.raises(InputError) as caught:
            yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)
        assert (caught.value.diagnostic.line, caught.value.diagnostic.column) == (2, 2), text
    assert yaml_lines.load_yaml("a:\n-\tvalue\n", "f.yaml", core=True, agentv=True).plain() == {
        "a": ["value"]
    }


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # A tab right after the indentation of a block scalar's first text line: text to `yaml`,
        # an error to libyaml.
        ("a: |\n  \tb\n  c\n", {"a": "\tb\nc\n"}),
        ("a: >\n  \tb\n  c\n", {"a": "\tb\nc\n"}),
        ("a: {k: 1}\nb: |-\n  \tx\n  \ty\n", {"a": {"k": 1}, "b": "\tx\n\ty"}),
        # A line of spaces is an empty line however long it is (libyaml keeps what passes the
        # indentation); a trailing one longer than the first text's indentation is kept.
        ("k: |2\n    \n", {"k": ""}),
        ("a: >1\n  t\n  \nb: 1\n", {"a": " t\n", "b": 1}),
        ("- |-\n  x\n  \n   \n", ["x\n\n "]),
        ("a: |+\n  x\n   \n", {"a": "x\n \n"}),
        # A last line of spaces without its line break is an empty line of the text too.
        ("- >+\n        ", ["\n"]),
        ("a: |+\n   ", {"a": "\n"}),
    ],
)
def test_agentvs_reader_reads_block_scalars_as_the_yaml_package_does(text: str, value: Any):
    """Found by the differential test (tests/oracle/test_yaml_differential.py), values from
    `yaml` 2.8.3."""
    root = yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)
    assert root is not None and root.plain() == value


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("- |-\n    \n  text\n", (3, 3), "more-indented leading empty lines"),
        ("a: |\n\t b\n", None, None),  # a tab as the only indentation stays refused
        ("a:\n  - {k: \n  x}\n", (2, 9), "Flow map in block collection must be sufficiently indented"),
        ("a:\n  - {k: 1,\n  x}\n", (3, 3), "Flow map in block collection must be sufficiently indented"),
        # A tag whose handle, to `yaml`, runs to its last `!`, which no %TAG declares.
        ("k: !!fl!oat 1. 5\n", (1, 4), "Could not resolve tag: !!fl!oat"),
        ("- !!!int 1.5\n", (1, 3), "Could not resolve tag: !!!int"),
        ("k: !'!int 3\n", (1, 4), "Could not resolve tag: !'!int"),
        ("z: &x !!a!b {m: 1}\n", (1, 7), "Could not resolve tag: !!a!b"),
        ("z: {a: !!a!b}\n", (1, 8), "Could not resolve tag: !!a!b"),
        ("\ufeff!!a!b x\n", (1, 2), "Could not resolve tag: !!a!b"),
        ("z: !{m: 1}\n", (1, 5), "Tags and anchors must be separated from the next token by white space"),
        ("%\n- a\n", (2, 1), "Missing directives-end/doc-start indicator line"),
        ("- a\n...\n%\n...\n", (4, 1), "Source contains multiple documents"),
        ("\ufeff# top\n%-  content:| On\n", (3, 1), "Missing directives-end indicator line"),
        ("%x\n# c", (2, 4), "Missing directives-end indicator line"),
        ("true: 017\n%---\n", (2, 1), "Plain value cannot start with directive indicator character %"),
        # A list or mapping key `yaml` would name with a comment or a blank line in it, or by YAML
        # 1.1's schema: the inspector cannot write that name, and says why.
        ("? [a, # c\n  b]\n: 1\n", (1, 3), "cannot write exactly for this one: it holds a comment"),
        ("? - a\n\n  - b\n: 1\n", (1, 3), "it holds a blank line"),
        ("%YAML 1.1\n---\n{a: 1}: b\n", (3, 1), "in a document read by YAML 1.1's schema"),
        # A list or mapping as a later implicit key of an indented mapping, or after a blank or
        # comment line: `yaml`'s parser takes it for a comment's trailing content.
        ("k:\n  a: x\n  [a]: y\n  [b]: z\n", (4, 3), "Map comment with trailing content"),
        ("v: 1\n\n&x [a]: x\n", (3, 4), "Implicit map keys need to be followed by map values"),
        # A repeated key is named after its anchor and tag.
        ("&a k: 1\n!!str k: 2\n", (2, 7), "Map keys must be unique"),
        # A line that breaks a block collection: named at the comment lines before it, at a
        # list item's explicit key's `:`, or after a lone `?`; a `#` line in a block scalar is text.
        ("a:\n  b: 1\n #c\n    c: 2\n", (3, 1), "All mapping items must start at the same column"),
        ("-  ? \n  :\n", (1, 6), "Sequence item without - indicator"),
        ("- a: 1\n  ? k\n  :\n x\n", (3, 4), "Sequence item without - indicator"),
        (
            "k: |\n  text\n    # not a comment\n  x: 1\n y\n",
            (5, 1),
            "All mapping items must start at the same",
        ),
        # A key running on to the next line: named after its anchor or tag.
        ("a: 1\n!...\n", (2, 5), "Implicit keys need to be on a single line"),
        ("b:\n!int 017\n~: x\n", (2, 6), "Implicit keys need to be on a single line"),
        (
            "a: 1\n&x\n",
            (2, 3),
            "Implicit keys need to be on a single line",
        ),  # outside a flow collection a tag wants a blank
    ],
)
def test_agentvs_reader_refuses_where_the_yaml_package_does(text: str, where: Any, words: Any):
    with pytest.raises(InputError) as caught:
        yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)
    found = caught.value.diagnostic
    if where is not None:
        assert (found.line, found.column) == where and words in found.message


def test_a_stand_in_for_a_tab_written_in_the_file_stays_as_written():
    text = "a: |\n  \ue000x\n   \n  y\n"
    root = yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)
    assert root is not None and root.plain() == {"a": "\ue000x\n \ny\n"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # A list or mapping key: named by its YAML text as `yaml`'s stringifier writes it, in flow
        # style, its own anchor and tag left out (those inside kept), a pair without `:` written
        # without one, numbers and quotes as `yaml` writes them, a long one folded past 80 columns.
        ("? [a]\n: 1\n", {"[ a ]": 1}),
        ("{a: 1}: b\n", {"{ a: 1 }": "b"}),
        ("? [a]", {"[ a ]": None}),
        ("v: 1\n  # c\n[a]: x\n", {"v": 1, "[ a ]": "x"}),
        ("a: &x 1\n? *x", {"a": 1, "1": None}),
        ("? &k !!seq\n  - a\n  - {b, c: }\n: 1\n", {"[ a, { b, c: } ]": 1}),
        (
            "x: &x [1]\n? [*x, &y 0x1F, !!str 1, 1.50, 'q''s', \"<<\"]\n: 2\n",
            {"x": [1], "[ *x, &y 0x1f, !!str \"1\", 1.50, 'q''s', << ]": 2},
        ),
        ("x: &x [1]\n*x : 1\n[a]: 2\n[a]: 3\n", {"x": [1], "*x": 1, "[ a ]": 3}),
        ("? [" + "word " * 17 + "end]\n: 1\n", {"[\n  " + "word " * 14 + "word\n    word word end\n]": 1}),
        # Empty keys, which `yaml` reads as null (a key "") and libyaml refuses.
        ("- : x\n", [{"": "x"}]),
        ("a: 1\n: x\n", {"a": 1, "": "x"}),
        ("{k, : 1}\n", {"k": None, "": 1}),
        ("[k, : 1]\n", ["k", {"": 1}]),
        # A tag ends at a flow indicator; a tab after a lone `:` may come before a tag or anchor.
        ("{a: !x}\n", {"a": ""}),
        ("[!x]\n", [""]),
        # Inside a flow collection a tag also ends at `{` or `[`; a `#` is part of a tag.
        ("z: [!{m: 1}]\n", {"z": [{"m": 1}]}),
        ("z: [![1]]\n", {"z": [[1]]}),
        (
            "k: !!flo#at 1.5\nl: [!!i#nt 1, 2]\nm: !x#y\nn: !!int# 3\n",
            {"k": "1.5", "l": ["1", 2], "m": "", "n": "3"},
        ),
        ("z: !<tag:a!b> x\n", {"z": "x"}),
        # An escaped line break then blank lines: one line break fewer (one blank line is a space),
        # the blanks before the `\` kept.
        ('k: "a\\\n\n b"\nl: "a\\\n \n\n b"\nm: "a \\\n\n b"\n', {"k": "a b", "l": "a\nb", "m": "a  b"}),
        ('k: "a\\\\\n\n b"\nl: "x\\\n\n  y\\\n  z\\\n\n\n w"\n', {"k": "a\\\nb", "l": "x yz\nw"}),
        # A directive `yaml` does not know is passed over; directives after the last `...`, read.
        ("%x y\n---\n- a\n", ["a"]),
        ("- a\n...\n%x\t# c\n", ["a"]),
        ("- a\n...\n%YAML 1.2\n", ["a"]),
        ("- a\n...\n%\n", ["a"]),
        # Plain scalars starting with `:` or `?` inside a flow collection are text.
        (
            "k: [:x, ?y, ::, ?x: 1, :x: 2]\nl: {a: :x, ?b: 1, :c}\n",
            {"k": [":x", "?y", {":": None}, {"?x": 1}, {":x": 2}], "l": {"a": ":x", "?b": 1, ":c": None}},
        ),
        ("- [?x,\t?x,\n   ~:]\n", [["?x", "?x", {"": None}]]),
        ("k: [? x, : y, ?]\n", {"k": [{"x": None}, {"": "y"}, {"": None}]}),
        # Anchor names holding `#` or `:`, which libyaml cuts short.
        (
            "a: &a# 1\nb: *a#\nc: [&x:y 2, *x:y]\nd: &f: [3]\ne: *f:\n",
            {"a": 1, "b": 1, "c": [2, 2], "d": [3], "e": [3]},
        ),
        ("a: &a [1]\nb: &a: 2\nc: *a:\nd: *a\n", {"a": [1], "b": 2, "c": 2, "d": [1]}),
        ("? k\n:\t&a x\n", {"k": "x"}),
        # Explicit tags: the tag's own tests, else the text.
        (
            "a: !!int 3\nb: !!float 3\nc: !!float 3.5\nd: !!bool yes\ne: !!int 1.5\n",
            {"a": 3, "b": "3", "c": 3.5, "d": "yes", "e": "1.5"},
        ),
        ('a: !!int "0x1F"\nb: !!null x\nc: !!str 1\n', {"a": 31, "b": "x", "c": "1"}),
        # `yaml`'s YAML 1.1 schema (not PyYAML's: `y` and `n` are booleans, `0o17` is text).
        (
            "%YAML 1.1\n---\n- [y, n, on, OFF, 017, 0o17, 0b101, 1_000, 1:20, 190:20:30.15, 5., 2001-12-14]\n"
            "- {yes: 1, ~: 2}\n- !!bool y\n",
            [
                [
                    True,
                    False,
                    True,
                    False,
                    15,
                    "0o17",
                    5,
                    1000,
                    80,
                    685230.15,
                    5.0,
                    "2001-12-14T00:00:00.000Z",
                ],
                {"true": 1, "": 2},
                True,
            ],
        ),
    ],
)
def test_agentvs_reader_reads_what_the_yaml_package_reads(text: str, value: Any):
    """Values from `yaml` 2.8.3, as the differential test (tests/oracle) compares them."""
    root = yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)
    assert root is not None and root.plain() == value


def test_a_tab_respelled_for_a_block_scalar_and_read_elsewhere_stays_refused():
    # libyaml would read the respelled line as a key of the mapping around; `yaml` refuses the file.
    text = "x: 1\n~:\n    - true: >\n      \t \ta: b\n      \t# c\n      <<: {x: 1}\n"
    with pytest.raises(InputError):
        yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)


@pytest.mark.parametrize("text", ["a: !!int 1.5\n", "a: !!float x\n", "a: !!bool 3\n", "!!int x: a\n"])
def test_a_tag_its_text_cannot_hold_is_a_clear_error_not_a_crash(text: str):
    """PyYAML's constructors raise ValueError or KeyError there (found by the YAML differential)."""
    with pytest.raises(InputError) as caught:
        yaml_lines.load_yaml(text, "f.yaml")
    assert "cannot be read as !!" in caught.value.diagnostic.message and caught.value.diagnostic.line == 1


def test_agentvs_reader_names_a_repeated_key_before_a_later_syntax_error():
    """`yaml` reads on past a syntax error and names the repeated key it met first (`1` and `"1"`
    are two keys to it)."""
    with pytest.raises(InputError) as caught:
        yaml_lines.load_yaml('1: 1\n"1": 2\nb: 3\n1: 4\nc: [\n', "f.yaml", core=True, agentv=True)
    assert (caught.value.diagnostic.line, caught.value.diagnostic.column) == (4, 1)
    assert "Map keys must be unique" in caught.value.diagnostic.message


def test_agentvs_reader_joins_escaped_surrogate_pairs_as_a_js_string_does():
    """JSON writes a character past the BMP as two escapes (`"\\ud83d\\ude42"`); agentv's YAML
    reader makes one character of them, a lone one stays as it is. Found by the agentv 4 grader
    differential once the port (yaml_js) read the documents libyaml refuses."""
    text = '{"a": "\\ud83d\\ude42 ok", "b": "\\ud83d", "c": [?x]}\n'
    root = yaml_lines.load_yaml(text, "f.json", core=True, agentv=True)
    assert root is not None and root.plain() == {"a": "\U0001f642 ok", "b": "\ud83d", "c": ["?x"]}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # mergeValue reads a source as a JS Map: a null key is named "null" in the merge, beside a
        # key "" (the object's own name for null); between 1 and "1" the first is merged.
        ("a: &x {~: 1}\nb:\n  <<: *x\n", {"a": {"": 1}, "b": {"null": 1}}),
        ('a: &x {~: 1, "": 2}\nb:\n  <<: *x\n', {"a": {"": 2}, "b": {"null": 1, "": 2}}),
        ('a: &x {1: a, "1": b}\nb: {<<: *x}\n', {"a": {"1": "b"}, "b": {"1": "a"}}),
        # A list or mapping key merged in is named by String() of the JS object.
        (
            "a: &x {[1, [2, ~], true]: v, {q: 1}: w}\nb: {<<: *x}\n",
            {
                "a": {"[ 1, [ 2, ~ ], true ]": "v", "{ q: 1 }": "w"},
                "b": {"1,2,,true": "v", "[object Object]": "w"},
            },
        ),
        (
            "a: &x {k: 1}\nb: &y {<<: *x, ~: 2}\nc: {<<: *y}\n",
            {"a": {"k": 1}, "b": {"k": 1, "": 2}, "c": {"k": 1, "null": 2}},
        ),
    ],
)
def test_agentvs_reader_names_merged_keys_as_the_yaml_package_does(text: str, value: Any):
    """Values from `yaml` 2.8.3; found by a long run of the differential (batches 2000-3999)."""
    root = yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)
    assert root is not None and root.plain() == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('a: !!int "12\\n"\n', {"a": "12\n"}),
        ('a: !!float "1.5\\n"\n', {"a": "1.5\n"}),
        ('a: !!int "0x1F\\n"\n', {"a": "0x1F\n"}),
        ('a: !!float ".inf\\n"\n', {"a": ".inf\n"}),
        ('a: !!null "~\\n"\n', {"a": "~\n"}),
        ('a: !!int "12"\n', {"a": 12}),
        (
            '%YAML 1.1\n---\na: !!int "12\\n"\nb: !!bool "yes\\n"\nc: !!timestamp "2001-01-01\\n"\n',
            {"a": "12\n", "b": "yes\n", "c": "2001-01-01\n"},
        ),
    ],
)
def test_agentvs_reader_tests_a_tagged_text_to_its_very_end(text: str, value: Any):
    """A JS regular expression's `$` is the text's end, where Python's also matches before a last
    line break: `!!int "12\\n"` is no int to `yaml` (its tag unresolved, the text kept). Values
    from `yaml` 2.8.3."""
    root = yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)
    assert root is not None and root.plain() == value


def test_agentvs_reader_keeps_each_list_key_merged_in_apart():
    """Each list or mapping key is a key of its own in the Map a merge reads, however many there
    are: the reader once told them apart by the id() of a node it had dropped, which the next key's
    node could take, and CI merged one key's value under another's name. Values from `yaml` 2.8.3."""
    keys = ", ".join(f"[{n}, {{k: {n}}}]: v{n}" for n in range(30))
    text = f"a: &x {{{keys}, {{q: 1}}: w, {{q: 2}}: z}}\nb: {{<<: *x}}\n"
    root = yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)
    assert root is not None
    merged = {f"{n},[object Object]": f"v{n}" for n in range(30)} | {"[object Object]": "w"}
    assert root.plain()["b"] == merged


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("a: [-, 1]\n", (1, 5), "Implicit keys of flow sequence pairs need to be on a single line"),
        ("a: [x, - ]\n", (1, 8), "Block collections are not allowed within flow collections"),
        ("a: {b: -, c: 1}\n", (1, 8), "Block collections are not allowed within flow collections"),
    ],
)
def test_agentvs_reader_refuses_a_block_indicator_in_a_flow_collection(text: str, where: Any, words: str):
    with pytest.raises(InputError) as caught:
        yaml_lines.load_yaml(text, "f.yaml", core=True, agentv=True)
    found = caught.value.diagnostic
    assert (found.line, found.column) == where and words in found.message


def test_agentvs_reader_reads_an_alias_ending_in_a_colon_as_the_yaml_package_does():
    """`*m:` is an alias named `m:` to `yaml` (libyaml reads the alias `m` as a key)."""
    with pytest.raises(InputError) as caught:
        yaml_lines.load_yaml("a: &m [4]\nb: [*m:]\n", "f.yaml", core=True, agentv=True)
    assert caught.value.diagnostic.message.endswith(
        "Unresolved alias (the anchor must be set before the alias): m:"
    )
    root = yaml_lines.load_yaml("a: &m: [4]\nb: [*m:]\n", "f.yaml", core=True, agentv=True)
    assert root is not None and root.plain() == {"a": [4], "b": [[4]]}
