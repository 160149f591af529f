"""The YAML reader builds its tree from the parser's events; PyYAML's composer, followed by the
alias-bomb check and the conversion, is the reference it must match exactly: the same values, keys
in the same order, the same lines, and for anything it leaves to that path the same errors."""

from __future__ import annotations

import math
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
        reference.start_line, reference.end_line, reference.text_line, reference.pieces), where
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
        both_nan = isinstance(ours.value, float) and math.isnan(ours.value) \
            and math.isnan(reference.value)
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
    ("", True), ("---\n", True), ("--- 5\n", True), ("--- |\n  text\n", True), ("[]\n", True),
    ("{}\n", True), ("%YAML 1.1\n---\na: 1\n...\n", True),
    ("x: |\n  one\n  two\ny: >\n  folded\n  text\n\nz: 3\n", True),
    ("a:\n- 1\n- 2\nb: 3\n", True), ("- - - - 1\n", True),
    ("a: 'x'\nb: \"y\"\nc: plain\nd: Yes\ne: NO\nf: on\ng: 012\nh: 1e3\ni: +1\nj: -0.5\nk: .5\n"
     "l: 0o17\nm: 0x1F\nn: 1_000\no: ~\np: .inf\nq: -.INF\nr: .nan\ns: null\nt: 2001-12-14\n", True),
    ("text: type\nTrue: False\nnull: Null\nfile: nope\nThe: tRue\nFALSE: NULL\nnothing: n\n"
     "t: f\n", True),
    ("a: !!str 123\nb: !!int '7'\nc: !!float 1\nd: !!binary aGVsbG8=\ne: !\nf: ! 12\n", True),
    ("a: !!set {x, y}\n", True),
    ("list:\n  - &m {role: user, content: hi}\n  - *m\n  - *m\n", True),
    ("base: &b {a: 1, b: [1, 2]}\nc:\n  <<: *b\n  b: 3\n", True),
    ("c:\n  <<: [{a: 1}, {a: 2, z: 9}]\n  q: 1\n", True), ("<<: {a: 1}\nb: 2\n", True),
    ("c:\n  <<: {a: 1}\n  a: 2\nd:\n  a: 1\n  <<: {a: 3, b: 4}\n  c: 5\n", True),
    # Keys met again in later mappings (the reader keeps each plain key's name by its text):
    ("- {a: 1, 1: x, null: y, true: z, .5: w, 0o7: v, 'k': q}\n"
     "- {0o7: v, .5: w, true: z, null: y, 1: x, a: 1, 'k': q}\n", True),
    ("a: &a [" + "[" * 98 + "1" + "]" * 98 + "]\nb: *a\n", True),
    # Left to the composer's path, which says what is wrong:
    ("a: 1\n---\nb: 2\n", False), ("- &x 1\n- *x\n- *y\n", False), ("a: &x 1\nb: &x 2\n", False),
    ("a: !foo bar\n", False), ("? [a, b]\n: c\n", False), ("&k a: 1\nb: *k\n", False),
    ("*x : 1\n", False), ("a: b: c\n", False), ("a: [1, 2\n", False), ("a: \"\\x\"\n", False),
    ("a: \x07\n", False), ("a: <<\n", False), ("a: &r [*r]\n", False),
    ("- " + "[" * 101 + "]" * 101 + "\n", False),
    ("a: &a [" + "[" * 99 + "1" + "]" * 99 + "]\nb: [*a]\n", False),
    ("".join(f"l{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9 if i else ["x"] * 9) + "]\n"
             for i in range(9)), False),
]


@pytest.mark.parametrize("core", [False, True], ids=["yaml-1.1", "core"])
@pytest.mark.parametrize(("text", "own"), SHAPES)
def test_the_event_reader_matches_the_composer(text: str, own: bool, core: bool):
    assert _check(text, core) is own


@pytest.mark.parametrize("core", [False, True], ids=["yaml-1.1", "core"])
def test_repeated_keys_are_refused_in_core_mode_only(core: bool):
    assert _check("a: 1\na: 2\n1: x\n1.0: y\n", core) is not core


@pytest.mark.parametrize("core", [False, True], ids=["yaml-1.1", "core"])
@pytest.mark.parametrize("text", ["c:\n  <<: {a: 1}\n  a: 2\n  a: 3\n",
                                  "c:\n  a: 2\n  <<: {a: 1}\n  a: 3\n",
                                  "- {a: 1}\n- {a: 1, a: 2}\n"])
def test_a_key_repeated_after_a_merge_or_in_a_later_mapping_is_refused_in_core_mode(
        text: str, core: bool):
    assert _check(text, core) is not core


_scalars = st.one_of(st.text(max_size=12), st.integers(), st.floats(allow_nan=False),
                     st.booleans(), st.none(), st.sampled_from(["yes", "~", "0o7", "1_0", "<<",
                                                                "2020-01-02", ".inf", "-", "#"]))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=6), inner, max_size=4),
        inner.map(lambda shared: [shared, {"again": shared}]),  # written once, then as an alias
    ),
    max_leaves=25)


@settings(max_examples=300, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(value=_values, flow=st.sampled_from([None, True, False]),
       style=st.sampled_from([None, "'", '"', "|", ">"]), core=st.booleans())
def test_any_document_pyyaml_writes_reads_as_the_composer_reads_it(value, flow, style, core):
    text = yaml.safe_dump(value, default_flow_style=flow, default_style=style, allow_unicode=True)
    _check(text, core)


@settings(max_examples=150, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
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


@pytest.mark.parametrize(("text", "value"), [
    ("../guides/a.md", "../guides/a.md"), ("1.2.3", "1.2.3"), ("-", "-"), ("0o8", "0o8"),
    ("1_000", "1_000"), ("~", None), ("+12", 12), ("0o17", 15), ("0x1F", 31), ("-1.5e3", -1500.0),
    (".5", 0.5), ("-.Inf", float("-inf")), ("TRUE", True), ("Null", None)])
def test_core_scalars_are_the_core_schemas_values_and_other_text_stays_text(text: str, value: Any):
    found = yaml_lines.core_scalar(text)
    assert type(found) is type(value) and found == value
