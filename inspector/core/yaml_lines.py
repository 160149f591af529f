"""YAML and JSONL loading that remembers where every value came from: the one YAML reader.

agentv, gambit and the conversation files are read with plain YAML parsers; the inspector needs
more: every case, message and content block must know its 1-based lines so the page can highlight
them. The tree of `Node`s (each the plain value and its line span) is built in one pass from
libyaml's parser events; anything unusual (an error, a limit, a repeated key or anchor, a complex
key) goes PyYAML's composer's way, whose errors and limits are the reference. Limits on size, node
count and depth keep hostile input (alias bombs, absurd nesting) bounded in time and memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from operator import attrgetter
from typing import Any

import msgspec
import yaml

from .js import js_number
from .model import InputError
from .safe_parse import (
    EXPANSION_ALLOWANCE,
    EXPANSION_FACTOR,
    MAX_EXPANDED_NODES,
    LimitExceeded,
    check_expansion,
    check_yaml_nesting,
)
from .yaml_start import marked_error

try:  # the C composer is several times faster on large files
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

MAX_FILE_BYTES = 10 * 1024 * 1024
# Aliases let a tiny file describe an enormous tree; expanding more nodes than a huge honest
# eval file would ever hold means the file is an alias bomb.
MAX_NODES = 2_000_000
MAX_DEPTH = 100


class Node(msgspec.Struct, gc=False):
    """A YAML/JSON value with its 1-based line span in the eval file.

    `value` is a dict of str -> Node, a list of Node, or a plain scalar (str, int, float, bool, None).
    `text_line` is the line where a string's text starts (the line after `|`/`>` for block scalars).

    A msgspec Struct, not a dataclass: its __init__ is C, not a Python call, and a render makes one
    per value of the file (25,000 for a 1,000-case suite) and more as the loader rebuilds them.
    Untracked by the collector (gc=False): a tree holds no cycle (an alias shares a Node that is
    already complete; a recursive one goes the composer's way, which builds new Nodes down to the
    depth limit), and the dicts and lists inside are tracked themselves. Never changed once made
    (msgspec.structs.replace makes a changed copy).
    """

    value: Any
    start_line: int
    end_line: int
    text_line: int
    # For text a template produced: where each stretch of it came from (see nunjucks.py).
    pieces: list[Any] | None = None

    def get(self, key: str) -> Node | None:
        # Only a dict among the values a Node holds has a `get`: no isinstance on every lookup
        # (the loader makes forty thousand).
        try:
            return self.value.get(key)
        except AttributeError:
            return None

    def map_strings(self, leaf: Callable[[Node], Node]) -> Node:
        """The tree with each string's node replaced by `leaf(node)`; lists and mappings are
        rebuilt around them, and other values stay as they are."""
        value = self.value
        if isinstance(value, str):
            return leaf(self)
        if isinstance(value, list):
            value = [item.map_strings(leaf) for item in value]
        elif isinstance(value, dict):
            value = {key: item.map_strings(leaf) for key, item in value.items()}
        else:
            return self
        return Node(value, self.start_line, self.end_line, self.text_line)

    def plain(self) -> Any:
        """The value with line information stripped, as agentv would see it."""
        if isinstance(self.value, dict):
            return {key: node.plain() for key, node in self.value.items()}
        if isinstance(self.value, list):
            return [node.plain() for node in self.value]
        return self.value


_END_LINE = attrgetter("end_line")  # no Python frame per collection, as a comprehension has


def _closed(value: dict[str, Node] | list[Node], start: Any, end_event: Any, last: int | None = None) -> Node:
    """A collection's node as its end event closes it: it ends where its last value ends (the
    end mark of a block collection sits on the next item's `- ` line, one line too far). `last`:
    where the value read last ends, when it ends last (no alias or merge brought values from
    elsewhere)."""
    first = start.start_mark.line + 1
    mark = end_event.end_mark
    end = mark.line + (0 if mark.column == 0 else 1)
    if value:
        if last is None:
            last = max(map(_END_LINE, value.values() if type(value) is dict else value))
        end = last if last < end else end
    return Node(value, first, end if end > first else first, first)


def _merge_into(value: dict[str, Node], merged: Node) -> None:
    """A merge key's (`<<`) mapping, or each mapping of its sequence, into `value`: the keys it
    does not hold yet."""
    for source in merged.value if isinstance(merged.value, list) else [merged]:
        if isinstance(source.value, dict):
            for merged_key, merged_value in source.value.items():
                value.setdefault(merged_key, merged_value)


def _last_line(children: Any, start: int, end: int) -> int:
    """A block collection ends where its last value ends: PyYAML's end mark sits on the next
    item's `- ` line (column 2, not 0), one line too far."""
    ends = [child.end_line for child in children]
    return max(start, min(end, max(ends))) if ends else end


def check_size(data: bytes, path: str) -> None:
    if len(data) > MAX_FILE_BYTES:
        raise InputError(
            f"the file is {len(data) / 1024 / 1024:.1f} MB; eval files over "
            f"{MAX_FILE_BYTES // 1024 // 1024} MB are not rendered",
            path,
        )


# agentv 4+ parses with the `yaml` npm package: YAML 1.2's core schema, where `yes`, `on`, dates and
# `1_000` stay strings and `0o17` is octal. PyYAML resolves plain scalars by YAML 1.1, so in core mode
# plain scalars are resolved again from their text.
_CORE_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_CORE_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_CORE_INT = re.compile(r"^[-+]?[0-9]+$")
_CORE_OCT = re.compile(r"^0o[0-7]+$")
_CORE_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_CORE_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_CORE_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_CORE_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
# Any of the patterns above: a text none of them matches (a path like `../guide.md`) is text after
# one match, not eight.
_CORE_ANY = re.compile(
    "|".join(
        f"(?:{pattern.pattern})"
        for pattern in (
            _CORE_NULL,
            _CORE_BOOL,
            _CORE_INT,
            _CORE_OCT,
            _CORE_HEX,
            _CORE_FLOAT,
            _CORE_INF,
            _CORE_NAN,
        )
    )
)


# Every non-text value of the core schema starts with one of these (null, ~, true/false, digits,
# signs, `.inf`, `.nan`, `0o`, `0x`): anything else is text without trying the patterns.
_MAYBE_NOT_TEXT = frozenset("0123456789+-.~nNtTfF")
_WORD_STARTS = frozenset("nNtTfF")
# In the core schema a plain scalar without a tag is core_scalar of its text whatever PyYAML's
# resolvers say, but for these first characters (`<<` merges; `!`, `&`, `*` alone are PyYAML's
# `yaml` tag) and the empty text.
_NOT_CORE_PLAIN = frozenset("<!&*")
# First characters (and the empty text) for which an untagged plain scalar in core mode may be
# other than its own text.
_CORE_PLAIN_UNSURE = _MAYBE_NOT_TEXT | _NOT_CORE_PLAIN | {""}


# The core schema's values that are words; any other word is text.
_CORE_WORDS: dict[str, Any] = {
    **dict.fromkeys(("null", "Null", "NULL"), None),
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
}
_NOT_A_WORD = object()


def core_scalar(text: str) -> Any:
    """A plain scalar's value under YAML 1.2's core schema."""
    if text and text[0] not in _MAYBE_NOT_TEXT:
        return text
    if text[:1] in _WORD_STARTS:  # `text`, `type`, `file` and `The` too: no patterns for those
        word = _CORE_WORDS.get(text, _NOT_A_WORD)
        return text if word is _NOT_A_WORD else word
    if not _CORE_ANY.match(text):
        return text
    if _CORE_NULL.match(text):
        return None
    if _CORE_BOOL.match(text):
        return text[0] in "tT"
    if _CORE_INT.match(text):
        return int(text)
    if _CORE_OCT.match(text):
        return int(text[2:], 8)
    if _CORE_HEX.match(text):
        return int(text[2:], 16)
    if _CORE_FLOAT.match(text):
        return float(text)
    if _CORE_INF.match(text):
        return float("-inf") if text.startswith("-") else float("inf")
    if _CORE_NAN.match(text):
        return float("nan")
    return text


class DuplicateKey(InputError):
    pass


class _Converter:
    def __init__(self, path: str, core: bool = False):
        self.path = path
        self.count = 0
        self.core = core
        self._construct = yaml.SafeLoader("")  # only its scalar resolution is borrowed

    def convert(self, node: yaml.Node, depth: int = 0) -> Node:
        self.count += 1
        if self.count > MAX_NODES:
            raise LimitExceeded(
                f"the document expands to more than {MAX_NODES:,} values (a YAML alias bomb?)",
                self.path,
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        if depth > MAX_DEPTH:
            raise LimitExceeded(
                f"the document is nested more than {MAX_DEPTH} levels deep",
                self.path,
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        start = node.start_mark.line + 1
        # A mark at column 0 sits on the line after the value (block scalars and collections).
        end = node.end_mark.line + (0 if node.end_mark.column == 0 else 1)
        end = max(start, end)
        if isinstance(node, yaml.MappingNode):
            value: dict[str, Node] = {}
            written: set[str] = set()
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    _merge_into(value, self.convert(value_node, depth + 1))
                    continue
                name = self._key_text(self._scalar(key_node))
                if self.core and name in written:
                    # The `yaml` package refuses a repeated key (its uniqueKeys default).
                    raise DuplicateKey(
                        "Map keys must be unique",
                        self.path,
                        key_node.start_mark.line + 1,
                        key_node.start_mark.column + 1,
                    )
                written.add(name)
                value[name] = self.convert(value_node, depth + 1)
            return Node(value, start, _last_line(value.values(), start, end), start)
        if isinstance(node, yaml.SequenceNode):
            items = [self.convert(item, depth + 1) for item in node.value]
            return Node(items, start, _last_line(items, start, end), start)
        scalar = self._scalar(node)
        text_line = start + 1 if getattr(node, "style", None) in ("|", ">") else start
        return Node(scalar, start, end, min(text_line, end))

    def _key_text(self, key: Any) -> str:
        if not self.core:
            return str(key)
        # JavaScript object keys are strings made by String(value).
        if key is None:
            return ""
        if isinstance(key, bool):
            return "true" if key else "false"
        if isinstance(key, float):
            return js_number(key)
        return str(key)

    def _scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise InputError(
                "a mapping key must be a plain value",
                self.path,
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        # Most values are text: a str scalar constructs to its own value (SafeConstructor's
        # construct_yaml_str), without the constructor's per-node bookkeeping. Plain scalars in
        # core mode still go through the YAML 1.2 resolution below.
        if node.tag == _STR_TAG and (node.style or not self.core):
            return node.value
        if self.core and not node.style and node.tag in _IMPLICIT_TAGS:
            return core_scalar(node.value)
        if node.tag == "tag:yaml.org,2002:timestamp":
            # agentv's YAML reader has no timestamps (YAML 1.2): a date is text, as written.
            return node.value
        try:
            return self._construct.construct_object(node, deep=True)
        except yaml.YAMLError as error:
            raise InputError(
                f"invalid value: {error}", self.path, node.start_mark.line + 1, node.start_mark.column + 1
            ) from None


_STR_TAG = "tag:yaml.org,2002:str"
_IMPLICIT_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "timestamp", "str", "value")
}


# `--profile auto` reads a file to choose its reader, which then reads it again: the last tree is
# kept so the second read is free. Trees are never changed after parsing (every step builds new
# nodes), so sharing one is safe.
_last_read: tuple[tuple[str, str, bool], Node | None] | None = None


def forget_last_read() -> None:
    """Drop the kept tree, so the next read parses (a benchmark timing a whole render)."""
    global _last_read
    _last_read = None


def load_yaml(text: str, path: str, core: bool = False) -> Node | None:
    """The document's tree, or None for an empty file. Raises InputError with line and column.

    `core` reads the way agentv 4+ does (YAML 1.2 core schema, repeated keys refused)."""
    global _last_read
    key = (path, text, core)
    last = _last_read
    if last is not None and last[0] == key:
        return last[1]
    root = _parse_yaml(text, path, core)
    _last_read = (key, root)
    return root


def _parse_yaml(text: str, path: str, core: bool) -> Node | None:
    check_yaml_nesting(text, path)  # before libyaml, which would overflow the C stack
    try:
        return _from_events(text, path, core)
    except _Unusual:
        # Invalid or hostile input, or a shape the event reader leaves alone: the composer's path
        # says exactly what is wrong, and where, in the words it always has.
        return _compose_and_convert(text, path, core)


class _Unusual(Exception):
    """The event reader met something it leaves to the composer's path: a YAML error, a limit, a
    repeated key or anchor, a key that is not a plain value, a second document."""


_MERGE_TAG = "tag:yaml.org,2002:merge"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


def _from_events(text: str, path: str, core: bool) -> Node | None:
    """The tree built straight from the parser's events, the way _compose_and_convert builds it but
    without composing yaml.Node objects first, resolving each scalar's tag in Python and walking the
    graph twice: on a 10 MB file that was three quarters of the time. An alias shares its anchor's
    Node (trees are never changed after parsing), its expanded size and depth counted as the
    composer's path counts them."""
    parser = _Loader(text)
    try:
        return _EventReader(path, core).read(parser.get_event)
    except yaml.YAMLError:
        raise _Unusual from None
    finally:
        parser.dispose()


class _EventReader(_Converter):
    """_Converter's rules (scalars, keys, merges, limits) applied to parser events, read by
    recursive descent: a mapping's loop takes a key then its value, a sequence's its items, so no
    state says what comes next. What the composer's path would count (the nodes it composes, what
    the aliases stand for) is counted per collection as it closes, not per value."""

    def __init__(self, path: str, core: bool):
        super().__init__(path, core)
        self.resolvers = _Loader.yaml_implicit_resolvers
        self.wildcard = self.resolvers.get(None, [])
        self.key_names: dict[str, str] = {}  # each plain key's name by its text, as read before
        # First characters of an untagged plain scalar that may be other than its own text (the
        # rest, and every quoted scalar without a tag, are their text: _is_text's test).
        self.unsure_first = (
            frozenset(
                first for first in _CORE_PLAIN_UNSURE if first in self.resolvers or first in _MAYBE_NOT_TEXT
            )
            if core
            else frozenset(self.resolvers)
        )
        # What an anchor names: its node, its expanded size and its height (0 for a scalar or an
        # empty collection, else 1 + its tallest child's, a plain scalar's counted as 0).
        self.anchors: dict[str, tuple[Node, int, int]] = {}
        self.composed = 0  # nodes the composer would make: the expansion allowance grows with them
        self.expanded = 0  # the nodes the aliases read so far stand for, as the composer counts them
        self.get_event: Any = None

    def read(self, get_event: Any) -> Node | None:
        get_event()  # the stream's start
        if isinstance(get_event(), yaml.StreamEndEvent):
            return None
        if self.wildcard:
            raise _Unusual  # a resolver for any first character: every scalar is the composer's
        self.get_event = get_event
        root, _ = self._node(get_event(), 0)
        if not isinstance(get_event(), yaml.DocumentEndEvent) or not isinstance(
            get_event(), yaml.StreamEndEvent
        ):
            raise _Unusual  # a second document
        # The root stands for everything composed and everything the aliases stand for.
        size = self.composed + self.expanded
        if size > MAX_EXPANDED_NODES or size > EXPANSION_ALLOWANCE + EXPANSION_FACTOR * self.composed:
            raise _Unusual  # an alias bomb
        return root

    def _node(self, event: Any, depth: int) -> tuple[Node, int]:
        """The node an event starts, `depth` collections deep, and its height."""
        kind = type(event)
        if kind is yaml.ScalarEvent:
            self.composed += 1
            node = self._scalar_node(event)
            if event.anchor is not None:
                self._anchor(event.anchor, node, 1, 0)
            return node, 0
        if kind is yaml.AliasEvent:
            found = self.anchors.get(event.anchor)
            if found is None or depth + found[2] > MAX_DEPTH:
                raise _Unusual  # undefined, or nested too deep where it is used
            self.expanded += found[1]
            return found[0], found[2]
        if kind is yaml.MappingStartEvent:
            read = self._mapping
        elif kind is yaml.SequenceStartEvent:
            read = self._sequence
        else:
            raise _Unusual
        if event.anchor is None:
            return read(event, depth + 1)
        before = self.composed + self.expanded
        node, height = read(event, depth + 1)
        # Its own node, what was composed inside it, and what the aliases inside it stand for.
        self._anchor(event.anchor, node, self.composed + self.expanded - before, height)
        return node, height

    def _too_deep(self, start: Any, end_kind: type) -> tuple[Node, int]:
        """A collection nested deeper than MAX_DEPTH: only its end may follow (a key would be
        followed by a value, an item is one, both refused)."""
        end = self.get_event()
        if type(end) is not end_kind:
            raise _Unusual
        self.composed += 1
        return _closed({} if end_kind is yaml.MappingEndEvent else [], start, end), 0

    def _mapping(self, start: Any, depth: int) -> tuple[Node, int]:
        if depth > MAX_DEPTH:
            return self._too_deep(start, yaml.MappingEndEvent)
        get_event, scalar_event, scalar_node = self.get_event, yaml.ScalarEvent, self._scalar_node
        value: dict[str, Node] = {}
        written: set[str] | None = None  # the keys written, once a merge may write keys again
        composed = 1  # the mapping, its keys and its plain values
        height = 0
        expanded = self.expanded
        while True:
            event = get_event()
            if type(event) is yaml.MappingEndEvent:
                break
            name = self._key_for(event, value, written)
            event = get_event()
            composed += 1
            if type(event) is scalar_event and event.anchor is None:
                composed += 1
                node, below = scalar_node(event), -1  # a plain scalar leaves the height alone
            else:
                node, below = self._node(event, depth)
            if name is not None:
                value[name] = node
                height = below + 1 if below >= height else height
                continue
            if written is None:
                written = set(value)  # the keys written so far: merged ones may be written again
            _merge_into(value, node)
            height = max(height, below + 1, 1)
        self.composed += composed
        last = node.end_line if value and written is None and self.expanded == expanded else None
        return _closed(value, start, event, last), height or (1 if value else 0)

    def _sequence(self, start: Any, depth: int) -> tuple[Node, int]:
        if depth > MAX_DEPTH:
            return self._too_deep(start, yaml.SequenceEndEvent)
        get_event, scalar_event, scalar_node = self.get_event, yaml.ScalarEvent, self._scalar_node
        items: list[Node] = []
        composed = 1  # the sequence and its plain items
        height = 0
        expanded = self.expanded
        while True:
            event = get_event()
            kind = type(event)
            if kind is scalar_event and event.anchor is None:
                composed += 1
                items.append(scalar_node(event))
            elif kind is yaml.SequenceEndEvent:
                break
            else:
                node, below = self._node(event, depth)
                items.append(node)
                height = below + 1 if below >= height else height
        self.composed += composed
        last = items[-1].end_line if items and self.expanded == expanded else None
        return _closed(items, start, event, last), height or (1 if items else 0)

    def _scalar_node(self, event: Any) -> Node:
        start = event.start_mark.line + 1
        mark = event.end_mark
        # A mark at column 0 sits on the line after the value (block scalars).
        end = mark.line + (0 if mark.column == 0 else 1)
        style = event.style  # '' for a plain scalar
        value = event.value
        if event.tag is not None or not (style or value[:1] not in self.unsure_first):
            value = self._value_of(event)
        if end <= start:
            return Node(value, start, start, start)
        # A block scalar's text starts on the line after its `|` or `>`.
        return Node(value, start, end, start + (style == "|" or style == ">"))

    def _anchor(self, anchor: str, node: Node, size: int, height: int) -> None:
        if anchor in self.anchors:
            raise _Unusual  # the composer refuses a repeated anchor
        self.anchors[anchor] = (node, size, height)

    def _key_for(self, event: Any, value: dict[str, Node], written: set[str] | None) -> str | None:
        """The name of the mapping's next key, from its event; None for a merge key (`<<`)."""
        # A plain key, untagged and unanchored: its name depends on its text alone, and the same
        # few keys (`role`, `content`, `type`) are half the events of an eval file.
        text = (
            event.value
            if type(event) is yaml.ScalarEvent
            and event.anchor is None
            and event.tag is None
            and not event.style
            else None
        )
        name = None if text is None else self.key_names.get(text)
        if name is None:
            name = self._key_name(event)
            if name is None:
                return None
            if text is not None:
                self.key_names[text] = name
        if self.core and name in (value if written is None else written):
            raise _Unusual  # the composer's path names the repeated key
        if written is not None:
            written.add(name)
        return name

    def _value_of(self, event: Any) -> Any:
        """A scalar's value when it may be other than its own text (_scalar, for an event)."""
        value = event.value
        if (
            self.core
            and event.tag is None
            and not self.wildcard
            and not event.style
            and value
            and value[0] not in _NOT_CORE_PLAIN
        ):
            if value[0] in _WORD_STARTS:  # core_scalar's first test, for `text`, `file`, `The`
                word = _CORE_WORDS.get(value, _NOT_A_WORD)
                return value if word is _NOT_A_WORD else word
            return core_scalar(value)
        return self._scalar_of(self._tag(event), event)

    def _key_name(self, event: Any) -> str | None:
        """A key's name from its event, or None for a merge key (`<<`)."""
        if type(event) is not yaml.ScalarEvent or event.anchor is not None:
            raise _Unusual  # a key that is not a plain value, or one aliased elsewhere
        text: str = event.value
        if (
            event.tag is None
            and not self.wildcard
            and not event.style
            and self.core
            and text
            and text[0] not in _NOT_CORE_PLAIN
        ):
            return self._key_text(core_scalar(text))  # the core schema's value, as _key finds it
        return self._key(event)

    def _tag(self, event: Any) -> str:
        """The tag the composer gives a scalar (Resolver.resolve, without path resolvers)."""
        tag = event.tag
        if tag is not None and tag != "!":
            return tag
        if event.implicit[0]:
            value = event.value
            resolvers = self.resolvers.get(value[:1])
            if resolvers or self.wildcard:
                for tag, pattern in (resolvers or []) + self.wildcard:
                    if pattern.match(value):
                        return tag
        return _STR_TAG

    def _key(self, event: Any) -> str | None:
        """A key's text, or None for a merge key (`<<`)."""
        if self._is_text(event):
            return event.value  # as _key_text leaves text
        tag = self._tag(event)
        return None if tag == _MERGE_TAG else self._key_text(self._scalar_of(tag, event))

    def _is_text(self, event: Any) -> bool:
        """Whether a scalar is its own text, decided without _tag and _scalar_of for most of a
        file: no tag given and none resolves (the composer's tag is str), and it is no number
        or null of the core schema."""
        return (
            event.tag is None
            and not self.wildcard
            and (not event.implicit[0] or event.value[:1] not in self.resolvers)
            and bool(event.style or not self.core or event.value[:1] not in _MAYBE_NOT_TEXT)
        )

    def _scalar_of(self, tag: str, event: Any) -> Any:
        """_Converter._scalar of the node the composer would make."""
        if tag == _STR_TAG and (event.style or not self.core):
            return event.value
        if self.core and not event.style and tag in _IMPLICIT_TAGS:
            return core_scalar(event.value)
        if tag == _TIMESTAMP_TAG:
            return event.value
        try:
            return self._construct.construct_object(
                yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style), deep=True
            )
        except yaml.YAMLError:
            raise _Unusual from None


def _compose_and_convert(text: str, path: str, core: bool) -> Node | None:
    """The composer's way: every node composed, the graph checked for alias bombs, then
    converted. Slower than _from_events, and the one whose errors and limits are the reference."""
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as error:
        raise marked_error(text, path, error) from None
    except yaml.reader.ReaderError as error:
        # The reader reports a character offset, not a line: turn it into line and column.
        before = text[: error.position]
        line = before.count("\n") + 1
        column = error.position - (before.rfind("\n") + 1) + 1
        raise InputError(
            f"invalid YAML: unacceptable character {error.character!r} (control characters are not allowed)",
            path,
            line,
            column,
        ) from None
    except yaml.YAMLError as error:
        raise InputError("invalid YAML: " + " ".join(str(error).split()), path) from None
    except RecursionError:
        raise LimitExceeded(f"the document is nested more than {MAX_DEPTH} levels deep", path) from None
    if root is None:
        return None
    check_expansion(root, path)  # on the composed graph, before converting a single node
    try:
        return _Converter(path, core).convert(root)
    except RecursionError:
        raise LimitExceeded(f"the document is nested more than {MAX_DEPTH} levels deep", path) from None


def from_plain(value: Any, line: int, depth: int = 0) -> Node:
    """Wrap a JSON value read from one JSONL line: everything in it lives on that line."""
    if depth > MAX_DEPTH:
        raise LimitExceeded(f"the record is nested more than {MAX_DEPTH} levels deep", None, line)
    if isinstance(value, dict):
        value = {str(key): from_plain(item, line, depth + 1) for key, item in value.items()}
    elif isinstance(value, list):
        value = [from_plain(item, line, depth + 1) for item in value]
    return Node(value, line, line, line)


def load_jsonl(text: str, path: str, agentv_problem: str | None = None) -> list[Node]:
    """One Node per non-blank line. With `agentv_problem` ("Malformed JSONL", "Invalid JSON"), errors
    use agentv 4's wording and a line that is not an object is refused, as agentv refuses it."""
    records = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            message = (
                f"{agentv_problem} at line {number}: {error.msg}"
                if agentv_problem
                else f"invalid JSON: {error.msg}"
            )
            raise InputError(message, path, number, error.colno) from None
        except RecursionError:
            raise LimitExceeded(
                f"the record is nested more than {MAX_DEPTH} levels deep", path, number
            ) from None
        if agentv_problem and not isinstance(value, dict):
            raise InputError(f"{agentv_problem} at line {number}: Expected JSON object", path, number)
        try:
            records.append(from_plain(value, number))
        except InputError as error:
            raise type(error)(error.diagnostic.message, path, number) from None
    return records
