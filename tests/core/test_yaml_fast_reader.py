"""yamlfast reads plain block YAML line by line, in front of the event reader; its tree must be the
event reader's (and the composer's) exactly, values, key order, types and every line field, or it
must give up so the event reader reads the file. It may never succeed on a file the reference
refuses."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.agentv import yamltree
from inspector.core.agentv.yamlfast import read_plain_yaml
from tests.conftest import CORPUS
from tests.core.test_yaml_event_reader import _same
from tests.oracle.generate import Suite, suites

_PATH = "evals/x.yaml"


def _bench_render() -> Any:
    """benchmarks/bench_render.py, whose suite the fast reader must read (that folder is no
    package)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_render.py"
    spec = importlib.util.spec_from_file_location("bench_render", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_fast(text: str) -> bool:
    """Whether the fast reader read `text` itself; when it did, its tree is the reference's."""
    tree = read_plain_yaml(text)
    if tree is None:
        return False
    # Raises (and fails the test) where the reference refuses the text.
    _same(tree, yamltree._from_events(text, _PATH, True))
    _same(tree, yamltree._compose_and_convert(text, _PATH, True))
    return True


# Each: the text, and whether the fast reader reads it itself.
SHAPES = [
    ("a: 1\n", True), ("a: 1", True), ("- x\n- y\n", True), ("- - x\n  - y\n- z\n", True),
    ("a:\n  b:\n    c: d\n  e: f\ng: h\n", True), ("a:\n- 1\n- 2\nb: 3\n", True),
    ("a:\n  - 1\n  -\n  - k: v\n    l:\nb:\n", True), ("-\n- \n-   # c\n", True),
    ("- a: 1\n  b: 2\n-   c: 3\n    d: 4\n", True), ("a: x # c\nb: x#c\nc: 'x' # c\nd: \"y\"\n", True),
    ("a: 'it''s'\nb: \"\\\"q\\\" \\\\ \\n\\t\\x41\\u00e9\\N\\_\"\nc: ''\nd: \"\"\n", True),
    ('a: "\\0\\a\\b\\e\\f\\r\\v\\/\\ \\L\\P\\x7f\\u2028\\uFFFD"\n', True),
    ('a: "\\x01\\u0000\\uFFFE\\uFFFF\\x85\\uD7FF\\uE000\\xff"\n', True),
    ("a: null\nb: ~\nc: true\nd: FALSE\ne: 0o17\nf: 0x1F\ng: .inf\nh: -.Inf\ni: .nan\nj: 1e3\n"
     "k: -12\nl: +1.5\nm: 1_000\nn: yes\no: 2001-12-14\np: <x>\nq: Null\nr: nul\n", True),
    ("a: |\n  one\n   two\n\n  three\nb: 1\n", True), ("a: |-\n  x\n\n\nb: 1\n", True),
    ("a: |+\n  x\n\n\nb: 1\n", True), ("a: >\n  one\n  two\n\n  three\n   more\n  four\n", True),
    ("a: >-\n  x\n  y\n", True), ("a: >+\n  x\n\n", True), ("- |\n x\n- >\n y\n", True),
    ("a: |  # c\n  # not a comment\n  x\n", True), ("a: |\n  x", True), ("a: >-\n  x\n  y", True),
    ("a: |\n\n\n  x\n", True), ("# top\n\na: 1 # one\n  # indented\n\nb: 2\n# end\n\n", True),
    ("k: a:b\nl: http://x/y?z=1#f\nm: -x\nn: x, y [z] {w}\no: a  b\np: é ☃\n", True),
    ("a: x   \nb:   y\n", True), ("$a: 1\n_b: 2\nc.d: 3\ne/f: 4\ng-h: 5\nnul: 6\n", True),
    # One-line flow sequences of scalars, as a key's value or an entry.
    ("a: [1, 2]\n", True), ("a: [a, b]  # c\n", True), ("a: [\"a, b\", 'c''d']\n", True),
    ("a: [ ]\nb: []\n", True), ("a: [a ,b]\n", True), ("a: [ a , b ]\n", True),
    ("a: [1, 2.5, true, null, ~]\n", True), ("a: [a, b,]\nb: [ a , ]\n", True), ("a: [x]", True),
    ("a: [.inf, -.Inf, .nan, 0o17, 0x1F, 1e3, -12, +1, 1_000, yes, 2001-12-14, Null, FALSE, nul]\n",
     True),
    ("a: [-a, a-b, -1, a#b, a  b, a'b, a\"b, a!b, c&d, e*f, g%h, i@j, k|l, m>n, o`p, q?r, <x>]\n",
     True),
    ("a: ['', \"\", \"x]\", 'y,', '[z]', \"{w}\", \"a # b\", '\"', \"\\t\\u00e9\\\\\"]\n", True),
    ("a: [é, ☃, 'ü', \"\\u00e9\", \u00a0x]\n", True),
    ("- [x]\n- []\n- - [y, z]\n  - [1]\n- k: [1]\n  l: [2]  # c\n-   [3]\n", True),
    ("a:\n  - [1]\n  - b: [c]\nd: [e]\ne:\n- [f]\ng: 1\n", True),
    # Given up: the event reader (or the composer's path) reads these.
    ("", False), ("# only a comment\n", False), ("x\n", False), ("a: 1\n---\nb: 2\n", False),
    ("--- \na: 1\n", False), ("a: {b: 1}\n", False), ("a: &x 1\n", False),
    ("a: *x\n", False), ("a: !!str 1\n", False), ("? a\n: b\n", False), ("<<: {a: 1}\n", False),
    ("a: <<\n", False), ("a: b\n  c\n", False), ("a: 'b\n  c'\n", False), ("a:\tb\n", False),
    ("a: b\r\n", False), ("\ufeffa: b\n", False), ("a: b\u2028c\n", False), ("a: 1\na: 2\n", False),
    ("1: a\n", False), ("true: a\n", False), ("null: a\n", False), ("a b: c\n", False),
    ("'a': b\n", False), ("a: b: c\n", False), ("a: - b\n", False), ("a: |\nb: 1\n", False),
    ("a: |2\n   x\n", False), ("a: |\n  \n  x\n", False), ("a: \"\\U0001F600\"\n", False),
    ("a: \"\\ud800\"\n", False), ("a: \"\\q\"\n", False), ("a: \"b\\\n  c\"\n", False),
    ("a: 1\n b: 2\n", False), ("- a\nb: 1\n", False), ("a:\n  - x\n b: 1\n", False),
    ("a: ?x\n", False), ("a: %x\n", False), ("a: @x\n", False), ("a: 'x'y\n", False),
    ("a: 'x'#c\n", False), ("  a: 1\nb: 2\n", False), ("a: \x07\n", False),
    # Flow collections but one-line sequences of scalars, and near misses: libyaml reads some
    # (`[a:b]`, `[-]`, `[? a]`, `[a]#c`) and refuses others (`[a:]`, `[a,,b]`, `[*x]`).
    *((f"a: {value}\n", False) for value in [
        '["\\q"]', '["\\ud800"]', "[<<]", "[a: b]", "[a:b]", "[a:]", '["a": b]', "[[a]]",
        "[a, {b: c}]", "[{}]", "{}", "[a", "[a,\n  b]", "[a]]", "[a] b", "[a]\n  b", "[a]#c",
        "[-a, - a]", "[-]", "[a #b]", "['a' b]", "['a'b]", "[a,,b]", "[,]", "[, a]", "[?]", "[? a]",
        "[&x a]", "[*x]", "[!t a]", "[|]", "[a\tb]", "[a]: b", "[a] [b]"]),
    ("[a, b]\n", False),
    # As deep as the event reader reads (MAX_DEPTH collections), and one deeper.
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 100)), True),
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 101)), False),
    # A flow sequence is a collection too: as the hundredth it is read, as the hundred-and-first not.
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 98)) + " " * 196 + "k: [x]\n",
     True),
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 99)) + " " * 198 + "k: [x]\n",
     False),
]


@pytest.mark.parametrize(("text", "taken"), SHAPES)
def test_the_fast_reader_reads_plain_block_yaml_as_the_event_reader_and_gives_up_on_the_rest(
        text: str, taken: bool):
    assert _read_fast(text) is taken


def test_the_fast_reader_gives_up_on_more_flow_items_than_half_the_node_limit(
        monkeypatch: pytest.MonkeyPatch):
    # The other half is what the text's `-`, `:` and lines bound: a file of two million items is
    # one the event reader refuses, and which would take seconds to write out here.
    monkeypatch.setattr("inspector.core.agentv.yamlfast.MAX_EXPANDED_NODES", 40)
    assert read_plain_yaml("a: [" + "1, " * 12 + "]\nb: [" + "1, " * 8 + "]\n") is not None
    assert read_plain_yaml("a: [" + "1, " * 12 + "]\nb: [" + "1, " * 9 + "]\n") is None


def test_load_yaml_takes_the_fast_path_in_core_mode_only(monkeypatch: pytest.MonkeyPatch):
    taken: list[str] = []

    def spy(text: str) -> yamltree.Node | None:
        taken.append(text)
        return read_plain_yaml(text)

    monkeypatch.setattr("inspector.core.agentv.yamlfast.read_plain_yaml", spy)
    yamltree.forget_last_read()
    yamltree.load_yaml("a: 1\n", _PATH, core=False)
    yamltree.forget_last_read()
    tree = yamltree.load_yaml("a: 1\n", _PATH, core=True)
    assert taken == ["a: 1\n"] and tree is not None and tree.plain() == {"a": 1}


def test_the_benchmark_suite_takes_the_fast_path():
    for agentv_5 in (False, True):
        text = _bench_render().synthetic_bundle(120, agentv_5).read("evals/suite.yaml").decode()
        assert _read_fast(text)


def _corpus_files() -> list[Path]:
    return sorted(path for path in (CORPUS / "agentv").rglob("*") if path.suffix in (".yaml", ".yml"))


def test_the_corpus_reads_the_same_with_and_without_the_fast_path():
    taken = {path.relative_to(CORPUS).as_posix(): _read_fast(path.read_text(encoding="utf-8"))
             for path in _corpus_files()}
    # Left to the event reader: a plain scalar on two lines (`- Assistant provides...` and its
    # next line), and flow mappings (`input: { query: "..." }`). The files whose only flow
    # collections are one-line sequences of scalars (`script: ["bun", "run", "x.ts"]`) are read.
    given_up = {path for path, fast in taken.items() if not fast}
    assert given_up == {
        "agentv/HEAD-2026-07-08/examples/features/basic/evals/suite.yaml",
        "agentv/v1.0.0/examples/features/evals/tool-trajectory/expected-messages-demo.yaml",
    }
    assert len(taken) - len(given_up) >= 24


# ---- generated text -----------------------------------------------------------------------------

# Scalars as written after `key: ` or `- `: plain block YAML the reader should read itself...
_SCALARS = st.sampled_from([
    "x", "hello world", "a#b", "a #b", "a:b", "-1", "-x", "null", "Null", "~", "true", "TRUE",
    "False", "0o17", "0o8", "0x1F", ".inf", "-.INF", ".nan", "1e3", "+1", "1_000", ".5", "1.",
    "yes", "2001-01-01", "<x>", "x  ", "  x", "'q'", "'it''s'", "'a'' '", "''", '""', '"a\\nb"',
    '"\\x41\\u00e9\\t\\\\"', '"\\"x"', "'x' # c", "x # c", "x#", "#", "a  #", "é", "\u00a0x",
    "x, y", "x]", "0", "00", "-0", "+.inf", "n", "t", "y", "f", "nul", "truex", ".", "..", "~x",
    "x ~", "a  b", "a'b", 'a"b', "-.", "+", "0x", "0o", "1e", "1_", "--x"])
# ...and what it must give up on (flow mappings and nested flow collections, anchors, tags, `: `
# inside, escapes it does not read).
_ODD_SCALARS = st.one_of(
    st.sampled_from(["a: b", "x:", "- x", "-", "<<", '"\\q"', '"\\ud800"', '"x" y', "[[1], 2]",
                     "{a: 1}", "&a x", "*a", "!t x", "%x", "@x", "`x`", "?x", ":x", ",x", "|x",
                     "'x'#c", "x\ty", "a\u2028b", '"\\U0001F600"']),
    st.text(alphabet="ab :#-'\"\\0.~ntf!&*[]{},", min_size=1, max_size=8))
_KEYS = st.sampled_from(["a", "b", "key", "k-1", "x.y", "$k", "_", "a/b", "nul", "y", "tests",
                         "value", "n"])
_ODD_KEYS = st.sampled_from(["Null", "true", "null", "1", "0o7", "<<", "a b", "'q'", '"d"', "? a",
                             "-", "TRUE", "a\tb"])
_BLOCK_LINES = st.one_of(
    st.sampled_from(["", " ", "  ", "x", " x", "  x", "# c", "- a", "a: b", "x  ", "'q", "|"]),
    st.text(alphabet="ab #:", max_size=5))


# Items of a flow sequence the reader should read itself...
_FLOW_SCALARS = st.sampled_from([
    "x", "b c", "a  b", "-a", "a-b", "-1", "1", "2.5", "1e3", "+1", ".inf", "-.INF", ".nan", "0o17",
    "0x1F", "1_000", "true", "FALSE", "null", "Null", "~", "yes", "nul", "2001-01-01", "<x>",
    "a#b", "a'b", 'a"b', "a!b", "a&b", "a*b", "a?b", "a%b", "a@b", "a|b", "a>b", "é", "\u00a0x", "n",
    "t", "f", ".", "'q'", "'it''s'", "''", '""', '"a, b"', '"x]"', "'[y]'", "'{z}'", '"a # b"',
    '"\\t\\u00e9"', '"\\"x"', "'a: b'", "'-'"])
# ...and near misses it must give up on: libyaml reads some (`a:b`, `-`, `? a`, `&x a`), refuses
# others (`a:`, `- a`, `*x`, `"\\q"`), or reads a mapping or a nested collection.
_ODD_FLOW_SCALARS = st.one_of(
    st.sampled_from(["a: b", "a:", ":a", "a:b", "[a]", "[]", "{}", "{b: c}", "- a", "-", "?", "? a",
                     "&x a", "*x", "!t a", "<<", "a #b", "'a' b", "'a'b", '"\\q"', '"a": b', "",
                     "|", ">", "#", "@x", "`x`", "%x", ",", "a\tb", '"\\ud800"']),
    st.text(alphabet="ab :#-'\",[]{}&*!?", max_size=6))


@st.composite
def _flow_sequences(draw: st.DrawFn, messy: bool) -> str:
    """A flow sequence on one line, `[a, 'b']  # c`; in a messy document, now and then a near miss:
    an odd item, a second comma, no `]`, or something after it."""
    spaces = st.sampled_from(["", "", " ", "  "])
    items = [draw(spaces) + _odd_or(draw, messy, _FLOW_SCALARS, _ODD_FLOW_SCALARS) + draw(spaces)
             for _ in range(draw(st.integers(0, 4)))]
    commas = [_odd_or(draw, messy, st.just(","), st.sampled_from([",,", ", ,", "", " "]))
              for _ in items[1:]]
    inside = items[0] if items else draw(spaces)
    for comma, item in zip(commas, items[1:], strict=True):
        inside += comma + item
    if items and draw(st.integers(0, 4)) == 0:
        inside += "," + draw(spaces)  # a trailing comma, which libyaml drops
    close = _odd_or(draw, messy, st.just("]"), st.sampled_from(["", "]]", "] b", "]: b", "]#c",
                                                                 "] [b]", "},"]))
    after = draw(st.sampled_from(["", "", "  ", " # c", "  #c"]))
    return "[" + inside + close + after


def _odd_or(draw: st.DrawFn, messy: bool, usual: Any, odd: Any) -> Any:
    """Now and then, in a messy document, something the reader must give up on."""
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
        lines.append(" " * max(0, base + extra) + _odd_or(draw, messy, _BLOCK_LINES,
                                                          st.just("\t")))
    if not messy:  # its first line is text
        lines[0] = " " * base + "x" + lines[0].lstrip(" ")
    blanks = "\n" * draw(st.sampled_from([0, 0, 1, 2]))
    return header + "".join("\n" + line for line in lines) + blanks


@st.composite
def _values(draw: st.DrawFn, indent: int, messy: bool, depth: int = 0) -> tuple[str, list[str]]:
    """A value as (what follows `key:` on its line, the lines after it)."""
    kind = draw(st.sampled_from(["scalar", "scalar", "flow", "block", "mapping", "sequence", "empty"]
                                if depth < 4 else ["scalar", "flow", "block", "empty"]))
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
            after, more = draw(_values(indent, messy, depth))
            lines += [head + after, *more]
            continue
        compact = draw(st.sampled_from(["plain", "plain", "mapping", "sequence"])) \
            if depth < 4 else "plain"
        dash = "-" + " " * draw(st.sampled_from([1, 1, 1, 2, 3]))
        if compact == "plain":
            after, more = draw(_values(indent, messy, depth))
            lines += [pad + "-" + after, *more]
        else:  # `- key: value` or `- - value`: a collection opened on the entry's line
            first, *rest = draw(_collections(indent + len(dash), messy, depth + 1, compact))
            lines += [pad + dash + first.lstrip(" "), *rest]
    return lines


@st.composite
def _documents(draw: st.DrawFn) -> str:
    messy = draw(st.booleans())
    lines = draw(_collections(0, messy, 0, draw(st.sampled_from(["mapping", "sequence"]))))
    # In a messy one, a line nudged sideways or one of junk: the reader must notice.
    for _ in range(draw(st.sampled_from([0, 1, 2])) if messy else 0):
        at = draw(st.integers(0, len(lines) - 1))
        change = draw(st.sampled_from(["indent", "dedent", "junk"]))
        if change == "indent":
            lines[at] = " " + lines[at]
        elif change == "dedent":
            lines[at] = lines[at][1:] if lines[at].startswith(" ") else lines[at]
        else:
            lines.insert(at, draw(st.sampled_from(
                ["x", "  x", "---", "...", "a: 1", "- y", "  b:", "\t", "? q", ": v"])))
    text = "\n".join(lines)
    return text + draw(st.sampled_from(["\n", "\n", "", "\n\n", "\n  \n", "\n# end"]))


_SETTINGS = settings(max_examples=300, derandomize=True, deadline=None, database=None,
                     suppress_health_check=list(HealthCheck))


@_SETTINGS
@given(text=_documents())
def test_generated_block_yaml_reads_as_the_event_reader_reads_it(text: str):
    _read_fast(text)


def _generated_documents_read() -> list[tuple[str, bool]]:
    """A hundred generated documents, each with whether the fast reader read it."""
    read = []

    @settings(max_examples=100, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(text=_documents())
    def each(text: str) -> None:
        read.append((text, _read_fast(text)))

    each()
    return read


def test_the_generated_documents_are_often_read_by_the_fast_reader():
    # The test above means little if nearly every document were given up on.
    taken = [fast for _, fast in _generated_documents_read()]
    assert sum(taken) > len(taken) // 3


def test_generated_documents_with_flow_sequences_are_often_read_by_the_fast_reader():
    # The generated flow sequences mean little if the fast reader gave up on all of them.
    taken = [fast for text, fast in _generated_documents_read() if "[" in text]
    assert len(taken) > 20 and sum(taken) > len(taken) // 4


_PLAIN_VALUES = st.recursive(
    st.one_of(st.text(max_size=12), st.integers(), st.floats(), st.booleans(), st.none(),
              st.sampled_from(["yes", "~", "0o7", "1_0", "<<", "2020-01-02", ".inf", "-", "#",
                               "a: b", "a #b", "x\n\ny\n", " lead", "trail \n", "\n"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,5}", fullmatch=True)
                                            | st.text(max_size=6), inner, max_size=4)),
    max_leaves=25)


@_SETTINGS
@given(value=_PLAIN_VALUES, style=st.sampled_from([None, "'", '"', "|", ">"]),
       indent=st.sampled_from([2, 4]), flow=st.sampled_from([False, None]))
def test_any_block_document_pyyaml_writes_reads_as_the_event_reader_reads_it(
        value: Any, style: str | None, indent: int, flow: bool | None):
    # default_flow_style=None writes each collection of scalars in flow style, on one line at this
    # width: `a: [1, x]`, `b: {c: d}`.
    text = yaml.safe_dump(value, default_flow_style=flow, default_style=style, indent=indent,
                          allow_unicode=True, width=1_000_000)
    _read_fast(text)


@settings(max_examples=100, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(suite=suites())
def test_generated_agentv_suites_read_as_the_event_reader_reads_them(suite: Suite):
    for path, data in suite.files.items():
        if path.endswith((".yaml", ".yml")):
            _read_fast(data.decode("utf-8-sig", errors="replace"))
