"""yaml's Composer ported (inspector/core/yaml_js/compose.py) against the real one: for each document,
yaml's own CST tokens (tests/oracle/yaml_cst.mjs) go into the port, and the errors it gives must be
the errors `parseDocument(text, { merge: true })` collects, in order: code, message and offset.

The documents are test_yaml_differential.py's (`batch(n)`, `YAML_EXAMPLES` batches of 20, from
`YAML_BATCH`) and the written edge cases below. The oracle counts offsets in UTF-16 code units (JS
strings); the port counts Python str indexes (code points), so the oracle's offsets, in its tokens
and its errors, are converted to str indexes before they are compared (`Utf16Index`)."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.core.yaml_js.compose import compose_errors, to_js_error

from .test_yaml_differential import BATCHES, FIRST_BATCH, batch, yaml_oracle
from .test_yaml_js_parser import in_code_points


@pytest.fixture(scope="module")
def yaml_cst():
    with yaml_oracle("yaml_cst.mjs") as read:
        yield read


class Utf16Index:
    """A JS string offset (UTF-16 code units) of a text as the Python str index of the same place.
    yaml never names a place inside a surrogate pair; if it did, this names the character's start."""

    def __init__(self, text: str):
        self.indexes: list[int] = []
        for index, char in enumerate(text):
            self.indexes.extend([index] * (2 if ord(char) > 0xFFFF else 1))
        self.indexes.append(len(text))

    def __call__(self, offset: int) -> int:
        if offset >= len(self.indexes):
            return offset - len(self.indexes) + self.indexes[-1] + 1
        return self.indexes[offset]


def mismatch(text: str, theirs: dict[str, Any]) -> str | None:
    index = Utf16Index(text)
    expected = [(error["code"], error["message"], index(error["offset"])) for error in theirs["errors"]]
    tokens = in_code_points(theirs["tokens"], index)
    got = [(error.code, error.message, error.offset) for error in compose_errors(tokens, text)]
    if got != expected:
        return f"yaml: {expected}\nport: {got}"
    if not expected and to_js_error(tokens, text) != theirs.get("toJSError"):
        return f"yaml's toJS throws {theirs.get('toJSError')!r}; the port's {to_js_error(tokens, text)!r}"
    return None


# Written cases: each of yaml's composer errors, the directives, tags that resolve or do not, keys
# repeated by value, and characters beyond the BMP before an error.
EDGE_CASES = [
    "",
    "a: 1\na: 2\n",
    "{1: a, 0x1: b}\n",
    "1: a\n0o1: b\n",
    "1.0: a\n1: b\n",
    ".nan: a\n.NaN: b\n",
    "true: a\nTrue: b\n",
    "null: a\n~: b\n: c\n",
    "<<: {a: 1}\n<<: {b: 2}\n",
    "'<<': a\n'<<': b\n",
    "%YAML 1.1\n---\nyes: a\non: b\n",
    "%YAML 1.1\n---\n0b1: a\n1: b\n0x_: c\n0_: d\n",
    "%YAML 1.1\n---\n1:20: a\n80: b\n",
    "%YAML 1.3\n---\na\n",
    "%YAML 1.2 x\n---\na\n",
    "%FOO bar\n---\na\n",
    "%YAML 1.1\ufeff\n---\na\n",  # JS's trim takes the BOM off, Python's strip does not
    "%YAML 1.1\x1f\n---\na\n",
    "%TAG !e! tag:example.com,2000:\n---\n!e!x%41 a\n",
    "%TAG !e!\n---\na\n",
    "!e!x a\n",
    "!!int%zz 1\n",
    "!<!> a\n",
    "!<tag:x a\n",
    "!! a\n",
    "!!timestamp nope\n",
    "!!timestamp 2001-12-14\n",
    "!!set {a: 1}\n",
    "!!set {a, b}\n",
    "!!omap [a: 1, a: 2]\n",
    "!!pairs [{a: 1, b: 2}]\n",
    "!!binary aGk=\n",
    "!!int x\n",
    "!!str [a]\n",
    "%YAML 1.2\n",
    "%YAML 1.2\na: 1\n",
    "a: 1\n---\nb: 2\n",
    "a: 1\n...\n...\n",
    "...\n",
    "--- a\n--- b\n--- c\n",
    "--- - a\n",
    "a: &x 1\nb: *x\nc: *\n",
    "& a\n",
    "&a &b x\n",
    "!a !b x\n",
    "*a: b\n",
    "&a: x\n",
    "- &a\n  - b\n",
    "- !!seq - a\n",
    "&x *y\n",
    "a: b: c\n",
    "a:\n\t- b\n",
    "a:\n  b: 1\n c: 2\n",
    "- a\n - b\n",
    "? a\n? a\n",
    "[a, b]: c\n",
    "[a\n, b]: c\n",
    "{a: 1, a: 2}\n",
    "[a: 1, b: 2, ? c]\n",
    "[a\n: 1]\n",
    "{a: [1, 2}\n",
    "[a, , b]\n",
    "[, a]\n",
    "{a: 1 b: 2}\n",
    "{a:b}\n",
    "[a, - b]\n",
    "a: [b\n]\n",
    "a: 'b\n",
    'a: "b\\q\\x4"\n',
    'a: "\\U00110000"\n',
    'a: ["\\U00110000"]\n',
    "a: |x\n  b\n",
    "a: |2-+\n  b\n",
    "a: |\n    \n  b\n",
    "- |\nb\n",
    "a: >\n b\n\n  c\n d\n",
    "a: b #c\nd: e#f\n",
    "a: b\n#c\n  d: e\n",
    "@a: b\n",
    "`a\n",
    "a: %b\n",
    "key: \U0001f600\U0001f600\nkey: again\n",
    "\U0001f600: [a\n",
    # escapes cut through a character beyond the BMP: yaml's message holds half of it
    'a: "\\x4\U0001f600"\n',
    'a: "\\\U0001f600 \\u\U0001f600\U0001f600"\n',
    "a" * 1030 + ": b\n",
    "- " + "[" * 40 + "]" * 40 + "\n",
    # what toJS throws once there are no errors (a circular value, `- &a [*a]`, is left out: the
    # oracle's own conversion to JSON overflows on it, not yaml)
    "a: *x\n",
    "<<: 1\n",
    "<<:\n",
    "? <<\n",
    "a: &a {b: 1}\n<<: [*a, 1]\n",
    "a: &a [1]\n<<: *a\n",
    "a: &a {x: 1}\nb: {<<: *a, <<: *z}\n",
    "&a {<<: *a}\n",
    "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n",
    "!!str <<: {a: 1}\n",
    "'<<': 1\n",
    "!!merge x: {a: 1}\n",
    "!!pairs [<<: 1]\n",
    "%YAML 1.1\n---\n<<: 1\n",
    "a: &a\nb: *a\n<<: *a\n",
    "!!omap [a: 1, a: 2]\n",
]


def test_the_port_names_the_edge_cases_errors_as_yaml(yaml_cst):
    for text, theirs in zip(EDGE_CASES, yaml_cst(EDGE_CASES), strict=True):
        problem = mismatch(text, theirs)
        assert problem is None, f"{text!r}:\n{problem}"


def test_the_port_names_the_generated_documents_errors_as_yaml(yaml_cst):
    checked = 0
    for number in range(FIRST_BATCH, FIRST_BATCH + BATCHES):
        texts = batch(number)
        for position, (text, theirs) in enumerate(zip(texts, yaml_cst(texts), strict=True)):
            problem = mismatch(text, theirs)
            assert problem is None, (
                f"batch {number} (YAML_BATCH={number}), document {position}: {text!r}:\n{problem}"
            )
            checked += 1
    assert checked == BATCHES * 20
