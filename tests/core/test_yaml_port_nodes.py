"""The port of agentv's YAML library (yaml_js) gives the reader's Nodes: for every document both
the libyaml reader (yaml_lines) and the port read, the trees are equal, values, key order and line
spans alike. `load_yaml(agentv=True)` hands the port the documents the reader refuses and those
libyaml reads apart from `yaml` without refusing them (`&a:` anchors, `?x` in a flow collection),
so the port's trees must be the reader's wherever the reader is right.

Measured on the differential's generator (1,000 batches, 20,032 documents with the files below;
`&m:` and `[?x` spelled away, which only the port reads): with the first span rules 300 of 304
documents both read agreed on 100 batches; now 2,693 of 2,694 on 1,000 batches, list and mapping
keys included (named by yaml_keys.py from the port's nodes), the one left the reader's own error
(`*n#1` inside a flow collection, an alias libyaml cuts at the `#`), which `load_yaml` leaves to
libyaml only in files over MAX_PORT_BYTES."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from inspector.core.model import InputError
from inspector.core.yaml_lines import (
    MAX_PORT_BYTES,
    Node,
    _parse_yaml,
    _read_apart_unrefused,
    forget_last_read,
    load_yaml,
    read_by_port,
)
from tests.oracle.test_yaml_differential import batch

ROOT = Path(__file__).resolve().parents[2]
BATCHES = 20


def shape(node: Node | None) -> Any:
    """A tree as nested tuples: value (with its type), start, end and text lines."""
    if node is None:
        return None
    value = node.value
    if isinstance(value, dict):
        value = ("map", tuple((key, shape(item)) for key, item in value.items()))
    elif isinstance(value, list):
        value = ("seq", tuple(shape(item) for item in value))
    elif isinstance(value, float) and math.isnan(value):
        value = ("float", "NaN")
    else:
        value = (type(value).__name__, value)
    return (value, node.start_line, node.end_line, node.text_line)


def _read(read: Any, text: str) -> Any:
    try:
        return shape(read(text, "t.yaml"))
    except InputError as error:
        return error


def compare(texts: list[str]) -> tuple[int, list[str]]:
    """How many documents both read (of those load_yaml gives the reader), and those whose trees
    differ."""
    both, differ = 0, []
    for text in texts:
        if _read_apart_unrefused(text):
            continue  # the port's alone: the reader reads these apart from `yaml`
        ours = _read(lambda text, path: _parse_yaml(text, path, True, True), text)
        port = _read(read_by_port, text)
        if isinstance(ours, InputError) or isinstance(port, InputError):
            continue
        both += 1
        if ours != port:
            differ.append(text)
    return both, differ


def _read_alike(text: str) -> str:
    """The generated document without what libyaml reads apart from `yaml` (nearly every one holds
    `v: &m: [4]`): `&m:` spelled `&m`, `[?x` spelled `[x`."""
    text = re.sub(r"(?<=[ \t\n,\[{])&([0-9A-Za-z_-]*):", r"&\1", text)
    return re.sub(r"(?<=[\[{,:])([ \t\r\n]*)\?(?=[^ \t\r\n,\[\]{}])", r"\1", text)


def test_the_generators_documents_read_alike():
    texts = [_read_alike(text) for number in range(BATCHES) for text in batch(number)]
    both, differ = compare(texts)
    assert both > 50
    assert differ == []


def _yaml_files() -> list[Path]:
    return sorted((ROOT / "fixtures" / "examples").rglob("*.yaml")) + sorted((ROOT / "tests").rglob("*.yaml"))


def test_the_example_and_test_files_read_alike():
    texts = []
    for path in _yaml_files():
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            continue
    both, differ = compare(texts)
    assert both > 20
    assert differ == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("{k:? 1}", {"k:? 1": None}),  # libyaml refuses; `yaml` reads a plain key
        ("- {nu,ll:?,\n}", [{"nu": None, "ll:?": None}]),
        ("v: &m: [4]\nw: *m:\n", {"v": [4], "w": [4]}),  # `yaml`'s anchor is `m:`
        ("a: [?x, 1]\n", {"a": ["?x", 1]}),  # text to `yaml`, an explicit key to libyaml
        ("a: &x 1\nb: &x 2\nc: *x\n", {"a": 1, "b": 2, "c": 2}),  # the later anchor
    ],
)
def test_agentvs_reader_reads_what_libyaml_reads_apart(text, value):
    forget_last_read()
    assert load_yaml(text, "t.yaml", agentv=True).plain() == value


def test_a_large_document_libyaml_reads_apart_is_refused_clearly():
    text = "v: &m: [4]\n" + "k: v\n" * (MAX_PORT_BYTES // 5)
    with pytest.raises(InputError, match="files up to 256 KB"):
        load_yaml(text, "big.yaml", agentv=True)


@pytest.mark.parametrize(
    ("tail", "line", "words"),
    [
        ("a:\n  b: 1\n c: 2\n", 3, "did not find expected key"),  # a line that breaks a mapping
        ("k: 1\nk: 2\n", 2, "Map keys must be unique"),
        ("--- a: 1\n", 1, "mapping values are not allowed"),  # a mapping on the `---` line
        ("a: 1\n%x\n", 2, "found unknown directive name"),  # a directive inside the document
        ("a:\n  - {k: 1,\n  x}\n", 3, "Flow map in block collection must be sufficiently indented"),
    ],
)
def test_a_large_document_agentv_refuses_is_refused_at_its_line_in_the_readers_words(tail, line, words):
    """Beyond MAX_PORT_BYTES the port reads nothing: libyaml's problem, or the reader's own check's,
    names the file and the line (`yaml`'s words are not promised there)."""
    padding_lines = MAX_PORT_BYTES // 10 + 1
    with pytest.raises(InputError) as raised:
        load_yaml("# padding\n" * padding_lines + tail, "evals/big.yaml", agentv=True)
    assert str(raised.value).startswith(f"evals/big.yaml:{padding_lines + line}:")
    assert words in raised.value.diagnostic.message


def test_the_port_names_yamls_first_error_where_it_reads_no_tree():
    with pytest.raises(InputError) as raised:
        load_yaml("a: &x: [1\nb: 2\n", "t.yaml", agentv=True)
    assert str(raised.value).startswith("t.yaml:")
    assert "invalid YAML" in str(raised.value)
