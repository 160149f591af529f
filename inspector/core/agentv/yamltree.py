"""YAML and JSONL loading that remembers where every value came from.

agentv reads eval files with a plain YAML parser; the inspector needs more: every case, message and
content block must know its 1-based lines so the page can highlight them. We compose the YAML into
nodes (the C loader when present) and turn them into a small tree of `Node`s that carry both the
plain value and its line span. Limits on size, node count and depth keep hostile input (alias
bombs, absurd nesting) bounded in time and memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import yaml

from ..model import InputError
from ..safe_parse import check_nesting

try:  # the C composer is several times faster on large files
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

MAX_FILE_BYTES = 10 * 1024 * 1024
# Aliases let a tiny file describe an enormous tree; expanding more nodes than a huge honest
# eval file would ever hold means the file is an alias bomb.
MAX_NODES = 2_000_000
MAX_DEPTH = 100


@dataclass(slots=True)
class Node:
    """A YAML/JSON value with its 1-based line span in the eval file.

    `value` is a dict of str -> Node, a list of Node, or a plain scalar (str, int, float, bool, None).
    `text_line` is the line where a string's text starts (the line after `|`/`>` for block scalars).
    """

    value: Any
    start_line: int
    end_line: int
    text_line: int

    def get(self, key: str) -> Node | None:
        return self.value.get(key) if isinstance(self.value, dict) else None

    def plain(self) -> Any:
        """The value with line information stripped, as agentv would see it."""
        if isinstance(self.value, dict):
            return {key: node.plain() for key, node in self.value.items()}
        if isinstance(self.value, list):
            return [node.plain() for node in self.value]
        return self.value


def check_size(data: bytes, path: str) -> None:
    if len(data) > MAX_FILE_BYTES:
        raise InputError(
            f"the file is {len(data) / 1024 / 1024:.1f} MB; eval files over "
            f"{MAX_FILE_BYTES // 1024 // 1024} MB are not rendered", path)


class _Converter:
    def __init__(self, path: str):
        self.path = path
        self.count = 0
        self._construct = yaml.SafeLoader("")  # only its scalar resolution is borrowed

    def convert(self, node: yaml.Node, depth: int = 0) -> Node:
        self.count += 1
        if self.count > MAX_NODES:
            raise InputError(
                f"the document expands to more than {MAX_NODES:,} values (a YAML alias bomb?)",
                self.path, node.start_mark.line + 1, node.start_mark.column + 1)
        if depth > MAX_DEPTH:
            raise InputError(f"the document is nested more than {MAX_DEPTH} levels deep",
                             self.path, node.start_mark.line + 1, node.start_mark.column + 1)
        start = node.start_mark.line + 1
        # A mark at column 0 sits on the line after the value (block scalars and collections).
        end = node.end_mark.line + (0 if node.end_mark.column == 0 else 1)
        end = max(start, end)
        if isinstance(node, yaml.MappingNode):
            value: dict[str, Node] = {}
            for key_node, value_node in node.value:
                key = self._scalar(key_node)
                if key_node.tag == "tag:yaml.org,2002:merge":
                    merged = self.convert(value_node, depth + 1)
                    if isinstance(merged.value, dict):
                        for merged_key, merged_value in merged.value.items():
                            value.setdefault(merged_key, merged_value)
                    continue
                value[str(key)] = self.convert(value_node, depth + 1)
            return Node(value, start, end, start)
        if isinstance(node, yaml.SequenceNode):
            items = [self.convert(item, depth + 1) for item in node.value]
            return Node(items, start, end, start)
        scalar = self._scalar(node)
        text_line = start + 1 if node.style in ("|", ">") else start
        return Node(scalar, start, end, min(text_line, end))

    def _scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise InputError("a mapping key must be a plain value", self.path,
                             node.start_mark.line + 1, node.start_mark.column + 1)
        try:
            return self._construct.construct_object(node, deep=True)
        except yaml.YAMLError as error:
            raise InputError(f"invalid value: {error}", self.path, node.start_mark.line + 1,
                             node.start_mark.column + 1) from None


def load_yaml(text: str, path: str) -> Node | None:
    """The document's tree, or None for an empty file. Raises InputError with line and column."""
    check_nesting(text, path)  # before libyaml, which would overflow the C stack
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or "invalid YAML"
        if error.context:
            started = ""
            if error.context_mark is not None and mark is not None \
                    and error.context_mark.line != mark.line:
                started = f" started on line {error.context_mark.line + 1}"
            problem = f"{problem} ({error.context}{started})"
        raise InputError(f"invalid YAML: {problem}", path,
                         mark.line + 1 if mark else None,
                         mark.column + 1 if mark else None) from None
    except yaml.reader.ReaderError as error:
        # The reader reports a character offset, not a line: turn it into line and column.
        before = text[: error.position]
        line = before.count("\n") + 1
        column = error.position - (before.rfind("\n") + 1) + 1
        raise InputError(f"invalid YAML: unacceptable character {error.character!r} "
                         f"(control characters are not allowed)", path, line, column) from None
    except yaml.YAMLError as error:
        raise InputError("invalid YAML: " + " ".join(str(error).split()), path) from None
    except RecursionError:
        raise InputError(f"the document is nested more than {MAX_DEPTH} levels deep", path) from None
    if root is None:
        return None
    try:
        return _Converter(path).convert(root)
    except RecursionError:
        raise InputError(f"the document is nested more than {MAX_DEPTH} levels deep", path) from None


def from_plain(value: Any, line: int, depth: int = 0) -> Node:
    """Wrap a JSON value read from one JSONL line: everything in it lives on that line."""
    if depth > MAX_DEPTH:
        raise InputError(f"the record is nested more than {MAX_DEPTH} levels deep", None, line)
    if isinstance(value, dict):
        value = {str(key): from_plain(item, line, depth + 1) for key, item in value.items()}
    elif isinstance(value, list):
        value = [from_plain(item, line, depth + 1) for item in value]
    return Node(value, line, line, line)


def load_jsonl(text: str, path: str) -> list[Node]:
    records = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"invalid JSON: {error.msg}", path, number, error.colno) from None
        except RecursionError:
            raise InputError(f"the record is nested more than {MAX_DEPTH} levels deep",
                             path, number) from None
        try:
            records.append(from_plain(value, number))
        except InputError as error:
            raise InputError(error.diagnostic.message, path, number) from None
    return records
