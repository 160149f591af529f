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
    # Given up: the event reader (or the composer's path) reads these.
    ("", False), ("# only a comment\n", False), ("x\n", False), ("a: 1\n---\nb: 2\n", False),
    ("--- \na: 1\n", False), ("a: [1, 2]\n", False), ("a: {b: 1}\n", False), ("a: &x 1\n", False),
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
    # As deep as the event reader reads (MAX_DEPTH collections), and one deeper.
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 100)), True),
    ("a:\n" + "".join(f"{' ' * (2 * depth)}k:\n" for depth in range(1, 101)), False),
]


@pytest.mark.parametrize(("text", "taken"), SHAPES)
def test_the_fast_reader_reads_plain_block_yaml_as_the_event_reader_and_gives_up_on_the_rest(
        text: str, taken: bool):
    assert _read_fast(text) is taken


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
    # Left to the event reader: a plain scalar on two lines, and flow collections (`[a, b]`).
    given_up = {path for path, fast in taken.items() if not fast}
    assert given_up == {
        "agentv/HEAD-2026-07-08/examples/features/basic/evals/suite.yaml",
        "agentv/v1.0.0/examples/features/evals/tool-trajectory/expected-messages-demo.yaml",
        "agentv/v2.5.8/examples/features/document-extraction/evals/dataset-field-accuracy.yaml",
        "agentv/v2.5.8/examples/features/basic/evals/dataset.yaml",
        "agentv/v2.5.8/examples/showcase/export-screening/evals/dataset.yaml",
        "agentv/v3.8.0/examples/features/basic/evals/dataset.eval.yaml",
    }
    assert len(taken) - len(given_up) >= 20


# ---- generated text -----------------------------------------------------------------------------

# Scalars as written after `key: ` or `- `: plain block YAML the reader should read itself...
_SCALARS = st.sampled_from([
    "x", "hello world", "a#b", "a #b", "a:b", "-1", "-x", "null", "Null", "~", "true", "TRUE",
    "False", "0o17", "0o8", "0x1F", ".inf", "-.INF", ".nan", "1e3", "+1", "1_000", ".5", "1.",
    "yes", "2001-01-01", "<x>", "x  ", "  x", "'q'", "'it''s'", "'a'' '", "''", '""', '"a\\nb"',
    '"\\x41\\u00e9\\t\\\\"', '"\\"x"', "'x' # c", "x # c", "x#", "#", "a  #", "é", "\u00a0x",
    "x, y", "x]", "0", "00", "-0", "+.inf", "n", "t", "y", "f", "nul", "truex", ".", "..", "~x",
    "x ~", "a  b", "a'b", 'a"b', "-.", "+", "0x", "0o", "1e", "1_", "--x"])
# ...and what it must give up on (flow, anchors, tags, `: ` inside, escapes it does not read).
_ODD_SCALARS = st.one_of(
    st.sampled_from(["a: b", "x:", "- x", "-", "<<", '"\\q"', '"\\ud800"', '"x" y', "[1, 2]",
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
    kind = draw(st.sampled_from(["scalar", "scalar", "block", "mapping", "sequence", "empty"]
                                if depth < 4 else ["scalar", "block", "empty"]))
    if kind == "scalar":
        return " " + _odd_or(draw, messy, _SCALARS, _ODD_SCALARS), []
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


def test_the_generated_documents_are_often_read_by_the_fast_reader():
    # The test above means little if nearly every document were given up on.
    taken = []

    @settings(max_examples=100, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(text=_documents())
    def count(text: str) -> None:
        taken.append(_read_fast(text))

    count()
    assert sum(taken) > len(taken) // 3


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
       indent=st.sampled_from([2, 4]))
def test_any_block_document_pyyaml_writes_reads_as_the_event_reader_reads_it(
        value: Any, style: str | None, indent: int):
    text = yaml.safe_dump(value, default_flow_style=False, default_style=style, indent=indent,
                          allow_unicode=True, width=1_000_000)
    _read_fast(text)


@settings(max_examples=100, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(suite=suites())
def test_generated_agentv_suites_read_as_the_event_reader_reads_them(suite: Suite):
    for path, data in suite.files.items():
        if path.endswith((".yaml", ".yml")):
            _read_fast(data.decode("utf-8-sig", errors="replace"))
