"""The port's composed Document as the values agentv's `parse(text, { merge: true })` returns, built
by a caller's `Builder` (the reader's Nodes, yaml_lines.py) so this package needs nothing of it.

toJS's rules (nodes/toJS.js, addPairToJSMap.js, schema/yaml-1.1/merge.js): an alias is the value of
the last node before it with its anchor (the same built node, shared); a merge key `<<` adds the
keys its mapping (or each mapping of its sequence, the earlier first) holds and the map does not; a
later key is written over an earlier one of the same name. Line spans follow libyaml's marks, as
the reader makes them: a node starts at its anchor or tag, a collection ends where its last value
ends, and a multi-line block scalar's text starts on the line after its header."""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from typing import Any, Protocol

from ..js import js_string
from .compose import Document
from .nodes import Alias, Collection, Node, Pair, Scalar, is_map

BLOCK_TYPES = ("BLOCK_LITERAL", "BLOCK_FOLDED")
_BLANK_LINES = re.compile(r"(?: *\r?\n)+")
# Blanks, line breaks and comments: what lies between one token and the next.
_BETWEEN_TOKENS = re.compile(r"(?:[ \t\r\n]|#[^\n]*)*")


class Builder(Protocol):
    """What the caller makes of the values: its nodes, a scalar's value and a key's name."""

    def node(self, value: Any, start: int, end: int, text: int) -> Any: ...

    def scalar(self, scalar: Scalar, schema11: bool, line: int) -> Any: ...

    def key(self, value: Any) -> str: ...

    def collection_key(self, key: Node, schema11: bool, at: tuple[int, int]) -> str:
        """A list or mapping key's name (an alias's to one too), or raises where it cannot name it."""

    def too_deep(self, line: int, column: int) -> Any:
        """Nested past the caller's limit (an alias inside what it names, or aliases stacked): raises."""


class _Lines:
    """1-based lines and columns of offsets into the source."""

    def __init__(self, source: str):
        self.starts = [0] + [index + 1 for index, character in enumerate(source) if character == "\n"]

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def column(self, offset: int) -> int:
        return offset - self.starts[self.line(offset) - 1] + 1

    def end(self, offset: int) -> int:
        """The line a value ending at `offset` (exclusive) ends on: an end at a line's start is
        the previous line's end, as the reader reads libyaml's end marks."""
        line = self.line(offset)
        return line - 1 if self.starts[line - 1] == offset and line > 1 else line


class _Tree:
    """One document's walk in toJS's order (a key before its value), its anchors as it meets them."""

    def __init__(self, source: str, builder: Builder, schema11: bool, max_depth: int):
        self.source = source
        self.lines = _Lines(source)
        self.builder = builder
        self.schema11 = schema11
        self.max_depth = max_depth
        self.anchors: dict[str, Any] = {}  # each anchor's built node, the last one before here
        self.building: set[str] = set()  # anchors whose node is still being built
        self.root: Node | None = None  # the document's node: empty, at the next token (`...`)
        self.flow = 0  # how many flow collections the node being built is in
        # Each mapping built, as a merge reads it (mapping()), by the built node's id, the node
        # held beside its entries: a key's node is dropped once named, and a dropped node's id
        # may be the next node's.
        self.map_entries: dict[int, tuple[Any, dict[Any, tuple[str, Any]]]] = {}
        self.collection_keys = itertools.count()  # each list or mapping key is a key of its own
        self.pending_entries: dict[Any, tuple[str, Any]] = {}

    def start(self, node: Node) -> int:
        return self.lines.line(node.range[0] if node.props is None else node.props)

    def build(self, node: Any, depth: int) -> Any:
        if depth > self.max_depth:
            return self.builder.too_deep(self.start(node), self.lines.column(node.range[0]))
        if isinstance(node, Alias):
            if node.source in self.building:  # inside what it names: endless, nested past any limit
                return self.builder.too_deep(self.lines.line(node.range[0]), self.lines.column(node.range[0]))
            return self.anchors[node.source]
        anchor = node.anchor
        if anchor:
            self.building.add(anchor)
        built = self.scalar(node) if isinstance(node, Scalar) else self.collection(node, depth)
        if anchor:
            self.building.discard(anchor)
            self.anchors[anchor] = built
        return built

    def next_token(self, offset: int) -> int:
        found = _BETWEEN_TOKENS.match(self.source, offset)
        return found.end() if found else offset

    def token_line(self, offset: int) -> int:
        """The line of a token at `offset`; libyaml puts the stream's end on a line of its own."""
        line = self.lines.line(offset)
        return line + 1 if offset == len(self.source) and self.lines.column(offset) > 1 else line

    def empty_at(self, node: Scalar) -> int | None:
        """Where libyaml places an empty value without properties, when not where yaml does: at
        the next token, in a flow collection or after a key without `:` (after a block indicator, `:`,
        `-` or `?`, where yaml places it)."""
        if node.props is not None or node.range[0] != node.range[1] or node.type not in (None, "PLAIN"):
            return None
        before = self.source[: node.range[0]].rstrip(" \t")
        if self.flow or before[-1:] not in (":", "-", "?") or node is self.root:
            return self.next_token(node.range[0])
        return None

    def key_line(self, key: Node) -> int:
        """The line a pair starts on: its key's (an empty key's is the `:`'s)."""
        empty = self.empty_at(key) if isinstance(key, Scalar) else None
        return self.start(key) if empty is None else self.token_line(empty)

    def scalar(self, node: Scalar) -> Any:
        empty = self.empty_at(node)
        if empty is not None:
            line = self.token_line(empty)
            return self.builder.node(self.builder.scalar(node, self.schema11, line), line, line, line)
        start = self.start(node)
        stop = self.blank_lines_after(node.range[1]) if node.type in BLOCK_TYPES else node.range[1]
        end = max(start, self.lines.end(stop))
        value = self.builder.scalar(node, self.schema11, start)
        if end <= start:
            return self.builder.node(value, start, start, start)
        return self.builder.node(value, start, end, start + (node.type in BLOCK_TYPES))

    def blank_lines_after(self, offset: int) -> int:
        """Past the lines of nothing but spaces after a block scalar: libyaml's block scalar ends
        after the last of their line breaks."""
        found = _BLANK_LINES.match(self.source, offset)
        if found:
            offset = found.end()
        line_start = self.source.rfind("\n", 0, offset) + 1
        # spaces at the end of the text: libyaml's block scalar ends after the last line break
        return (
            line_start if offset == len(self.source) and not self.source[line_start:].strip(" ") else offset
        )

    def collection(self, node: Collection, depth: int) -> Any:
        self.flow += node.flow
        try:
            return self.collection_node(node, depth)
        finally:
            self.flow -= node.flow

    def collection_node(self, node: Collection, depth: int) -> Any:
        entries = None
        if is_map(node):
            value: Any = self.mapping(node, depth)
            entries = self.pending_entries
            children = list(value.values())
        else:
            value = [self.item(item, depth) for item in node.items]
            children = value
        start = self.start(node)
        if self.flow and not node.flow and node.items and isinstance(node.items[0], Pair):
            start = self.key_line(node.items[0].key)  # a flow sequence's `key: value` item
        # libyaml's block collection ends at the next token
        end = self.lines.end(node.range[1] if node.flow else self.next_token(node.range[1]))
        if children:
            end = min(end, max(child.end_line for child in children))
        end = max(start, end)
        built = self.builder.node(value, start, end, start)
        if entries is not None:
            self.map_entries[id(built)] = (built, entries)
        return built

    def item(self, item: Any, depth: int) -> Any:
        if not isinstance(item, Pair):
            return self.build(item, depth + 1)
        # an !!omap's or !!pairs' item: a mapping of one key
        pair = {self.key_name(item.key, depth)[0]: self.value(item, depth)}
        start = self.start(item.key)
        return self.builder.node(pair, start, max(start, pair_end(pair)), start)

    def value(self, pair: Pair, depth: int) -> Any:
        if pair.value is None:  # a key without `:`: libyaml's empty value is at the next token
            line = self.token_line(self.next_token(pair.key.range[2]))
            return self.builder.node(self.builder.scalar(Scalar(), self.schema11, line), line, line, line)
        return self.build(pair.value, depth + 1)

    def mapping(self, node: Collection, depth: int) -> dict[str, Any]:
        """The mapping as toJS makes the object; beside it, as mergeValue reads a merge source (a
        JS Map: each key by its JS value, in first place with its last value, a null key named
        "null" where the object names it ""), kept for a later merge of it."""
        value: dict[str, Any] = {}
        entries: dict[Any, tuple[str, Any]] = {}
        for pair in node.items:
            key = pair.key
            if isinstance(key, Scalar) and key.merge:
                for identity, name, item in self.entries_of(self.value(pair, depth)):
                    value.setdefault(name, item)  # defined only where the object has no such key
                    entries.setdefault(identity, (name, item))  # set only where the Map has none
                continue
            name, identity, merge_name = self.key_name(key, depth)
            item = self.value(pair, depth)
            value[name] = item
            entries[identity] = (entries[identity][0] if identity in entries else merge_name, item)
        self.pending_entries = entries
        return value

    def key_name(self, key: Node, depth: int) -> tuple[str, Any, str]:
        """A key's name in the object, its identity in a JS Map, and its name when merged."""
        built = self.build(key, depth + 1)
        if isinstance(built.value, (dict, list)):
            at = (self.start(key), self.lines.column(key.range[0] if key.props is None else key.props))
            name = self.builder.collection_key(key, self.schema11, at)
            return (
                name,
                ("node", next(self.collection_keys)),
                js_string(built.plain()),
            )  # a merge names it as String() of the JS object
        name = self.builder.key(built.value)
        js = built.value
        if isinstance(js, float) and js.is_integer():
            js = int(js)  # one JS number
        identity = ("value", type(js).__name__, js)
        return name, identity, "null" if js is None else name

    def entries_of(self, merged: Any) -> list[tuple[Any, str, Any]]:
        """mergeValue's sources (a mapping, or each of a sequence's, the earlier first) as Maps."""
        found = []
        for source in merged.value if isinstance(merged.value, list) else [merged]:
            held = self.map_entries.get(id(source))
            if held is None:
                found += [(("value", "str", name), name, item) for name, item in source.value.items()]
            else:
                found += [(identity, name, item) for identity, (name, item) in held[1].items()]
        return found


def pair_end(pair: dict[str, Any]) -> int:
    return max(node.end_line for node in pair.values())


def to_tree(document: Document, source: str, builder: Builder, max_depth: int) -> Any:
    """The document's root as the builder's node, or None for a stream without a document. The
    document must be one the port composed without errors and toJS does not refuse."""
    if document.contents is None:
        return None
    schema11 = document.directives.version == "1.1"
    tree = _Tree(source, builder, schema11, max_depth)
    tree.root = document.contents
    return tree.build(document.contents, 0)
