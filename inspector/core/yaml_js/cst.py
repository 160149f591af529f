"""yaml 2.8.3 `dist/parse/cst.js`: the Lexer's control characters and `tokenType`."""

from __future__ import annotations

BOM = "\ufeff"
"""The byte order mark."""
DOCUMENT = "\x02"
"""Start of doc-mode (C0: Start of Text)."""
FLOW_END = "\x18"
"""Unexpected end of flow-mode (C0: Cancel)."""
SCALAR = "\x1f"
"""Next token is a scalar value (C0: Unit Separator)."""

_BY_SOURCE = {
    BOM: "byte-order-mark",
    DOCUMENT: "doc-mode",
    FLOW_END: "flow-error-end",
    SCALAR: "scalar",
    "---": "doc-start",
    "...": "doc-end",
    "": "newline",
    "\n": "newline",
    "\r\n": "newline",
    "-": "seq-item-ind",
    "?": "explicit-key-ind",
    ":": "map-value-ind",
    "{": "flow-map-start",
    "}": "flow-map-end",
    "[": "flow-seq-start",
    "]": "flow-seq-end",
    ",": "comma",
}
_BY_FIRST_CHAR = {
    " ": "space",
    "\t": "space",
    "#": "comment",
    "%": "directive-line",
    "*": "alias",
    "&": "anchor",
    "!": "tag",
    "'": "single-quoted-scalar",
    '"': "double-quoted-scalar",
    "|": "block-scalar-header",
    ">": "block-scalar-header",
}


def token_type(source: str) -> str | None:
    """Identify the type of a lexer token; None for unknown tokens (JS `tokenType`)."""
    found = _BY_SOURCE.get(source)
    if found is not None:
        return found
    return _BY_FIRST_CHAR.get(source[:1])
