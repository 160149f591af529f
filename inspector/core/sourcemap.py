"""Line spans for the values of a JSON or YAML document, keyed by their path in the parsed data.

`json` reports no positions, so JSON text is walked once more here (it has already been parsed,
so it is known to be valid); YAML takes its spans from the tree yaml_lines.py reads.
"""

from __future__ import annotations

import bisect
import json.decoder
import re

from .yaml_lines import Node

Path = tuple[str | int, ...]
Spans = dict[Path, tuple[int, int]]

_JSON_LITERAL = re.compile(r"-?[0-9][0-9.eE+\-]*|true|false|null|-?Infinity|NaN")
_WHITESPACE = re.compile(r"[ \t\r\n]*")
# The JSON string scanner json.loads uses (C when available), untyped in typeshed.
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]


def json_spans(text: str) -> Spans:
    """Spans of every value in a valid JSON text; empty if the walk fails."""
    breaks = [match.start() for match in re.finditer("\n", text)]
    spans: Spans = {}
    pos = 0

    def line(offset: int) -> int:
        return bisect.bisect_left(breaks, offset) + 1

    def skip() -> None:
        nonlocal pos
        pos = _WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]  # \s* always matches

    def value(path: Path) -> None:
        nonlocal pos
        skip()
        start = pos
        char = text[pos]
        if char == "{":
            pos += 1
            skip()
            while text[pos] != "}":
                key, pos = _scanstring(text, pos + 1)
                skip()
                pos += 1  # the colon
                value(path + (key,))
                skip()
                if text[pos] == ",":
                    pos += 1
                    skip()
            pos += 1
        elif char == "[":
            pos += 1
            skip()
            index = 0
            while text[pos] != "]":
                value(path + (index,))
                index += 1
                skip()
                if text[pos] == ",":
                    pos += 1
                    skip()
            pos += 1
        elif char == '"':
            _, pos = _scanstring(text, pos + 1)
        else:
            match = _JSON_LITERAL.match(text, pos)
            if match is None or match.end() == pos:
                raise ValueError(f"unexpected JSON at offset {pos}")
            pos = match.end()
        spans[path] = (line(start), line(pos - 1))

    try:
        if text.startswith("\ufeff"):
            pos = 1
        value(())
    except (ValueError, IndexError, RecursionError):
        return {}
    return spans


def node_spans(root: Node) -> Spans:
    """Spans of every value under a tree read by yaml_lines.py (the one YAML reader)."""
    spans: Spans = {}
    stack: list[tuple[Path, Node]] = [((), root)]
    while stack:
        path, current = stack.pop()
        spans[path] = (current.start_line, current.end_line)
        if isinstance(current.value, dict):
            stack.extend((path + (key,), item) for key, item in current.value.items())
        elif isinstance(current.value, list):
            stack.extend((path + (index,), item) for index, item in enumerate(current.value))
    return spans
