"""YAML and JSONL loading that remembers where every value came from.

agentv reads eval files with a plain YAML parser; the inspector needs more: every case, message and
content block must know its 1-based lines so the page can highlight them. We compose the YAML into
nodes (the C loader when present) and turn them into a small tree of `Node`s that carry both the
plain value and its line span. Limits on size, node count and depth keep hostile input (alias
bombs, absurd nesting) bounded in time and memory.
"""

from __future__ import annotations

import json
import re
from operator import attrgetter
from typing import Any

import msgspec
import yaml

from ..model import InputError
from ..safe_parse import (
    EXPANSION_ALLOWANCE,
    EXPANSION_FACTOR,
    MAX_EXPANDED_NODES,
    LimitExceeded,
    check_expansion,
    check_yaml_nesting,
)
from .yaml_start import likely_start

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

    def plain(self) -> Any:
        """The value with line information stripped, as agentv would see it."""
        if isinstance(self.value, dict):
            return {key: node.plain() for key, node in self.value.items()}
        if isinstance(self.value, list):
            return [node.plain() for node in self.value]
        return self.value


_END_LINE = attrgetter("end_line")  # no Python frame per collection, as a comprehension has


def _closed(entry: list[Any], event: Any, composed: int, expanded: int
            ) -> tuple[tuple[Node, int, int], str | None]:
    """A collection's node (with its expanded size and height) as its end event closes it, and
    its anchor. (_last_line's end, written out: a third of the events close something.)"""
    value, mark, anchor, _, composed_before, expanded_before, height, _ = entry
    start = mark.line + 1
    mark = event.end_mark
    end = mark.line + (0 if mark.column == 0 else 1)
    if value:
        last = max(map(_END_LINE, value.values() if type(value) is dict else value))
        end = last if last < end else end
        # A plain scalar placed in it left the height alone: its values make it at least 1.
        height = height or 1
    # Its own value, what was composed inside it, and what the aliases inside it stand for.
    size = 1 + composed - composed_before + expanded - expanded_before
    return (Node(value, start, end if end > start else start, start), size, height), anchor


def _anchored(anchors: dict[str, tuple[Node, int, int]], anchor: str,
              done: tuple[Node, int, int]) -> None:
    if anchor in anchors:
        raise _Unusual  # the composer refuses a repeated anchor
    anchors[anchor] = done


def _finished(get_event: Any, done: tuple[Node, int, int], composed: int) -> Node:
    """The root, once the document's last event is read: refused (the composer's path says why)
    when a second document follows or its aliases expand past the limits."""
    if not isinstance(get_event(), yaml.DocumentEndEvent) \
            or not isinstance(get_event(), yaml.StreamEndEvent):
        raise _Unusual  # a second document
    node, size, _ = done
    if size > MAX_EXPANDED_NODES or size > EXPANSION_ALLOWANCE + EXPANSION_FACTOR * composed:
        raise _Unusual  # an alias bomb
    return node


def _aliased(anchors: dict[str, tuple[Node, int, int]], event: Any, depth: int
             ) -> tuple[Node, int, int]:
    found = anchors.get(event.anchor)
    if found is None or depth + found[2] > MAX_DEPTH:
        raise _Unusual  # undefined, or nested too deep where it is used
    return found


def _last_line(children: Any, start: int, end: int) -> int:
    """A block collection ends where its last value ends: PyYAML's end mark sits on the next
    item's `- ` line (column 2, not 0), one line too far."""
    ends = [child.end_line for child in children]
    return max(start, min(end, max(ends))) if ends else end


def check_size(data: bytes, path: str) -> None:
    if len(data) > MAX_FILE_BYTES:
        raise InputError(
            f"the file is {len(data) / 1024 / 1024:.1f} MB; eval files over "
            f"{MAX_FILE_BYTES // 1024 // 1024} MB are not rendered", path)


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
_CORE_ANY = re.compile("|".join(f"(?:{pattern.pattern})" for pattern in (
    _CORE_NULL, _CORE_BOOL, _CORE_INT, _CORE_OCT, _CORE_HEX, _CORE_FLOAT, _CORE_INF, _CORE_NAN)))


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
    **dict.fromkeys(("null", "Null", "NULL"), None), **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False)}
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
                self.path, node.start_mark.line + 1, node.start_mark.column + 1)
        if depth > MAX_DEPTH:
            raise LimitExceeded(f"the document is nested more than {MAX_DEPTH} levels deep",
                                self.path, node.start_mark.line + 1, node.start_mark.column + 1)
        start = node.start_mark.line + 1
        # A mark at column 0 sits on the line after the value (block scalars and collections).
        end = node.end_mark.line + (0 if node.end_mark.column == 0 else 1)
        end = max(start, end)
        if isinstance(node, yaml.MappingNode):
            value: dict[str, Node] = {}
            written: set[str] = set()
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    merged = self.convert(value_node, depth + 1)
                    sources = merged.value if isinstance(merged.value, list) else [merged]
                    for source in sources:
                        if isinstance(source.value, dict):
                            for merged_key, merged_value in source.value.items():
                                value.setdefault(merged_key, merged_value)
                    continue
                name = self._key_text(self._scalar(key_node))
                if self.core and name in written:
                    # The `yaml` package refuses a repeated key (its uniqueKeys default).
                    raise DuplicateKey("Map keys must be unique", self.path,
                                       key_node.start_mark.line + 1, key_node.start_mark.column + 1)
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
            raise InputError("a mapping key must be a plain value", self.path,
                             node.start_mark.line + 1, node.start_mark.column + 1)
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
            raise InputError(f"invalid value: {error}", self.path, node.start_mark.line + 1,
                             node.start_mark.column + 1) from None


_STR_TAG = "tag:yaml.org,2002:str"
_IMPLICIT_TAGS = {f"tag:yaml.org,2002:{name}" for name in
                  ("null", "bool", "int", "float", "timestamp", "str", "value")}


def js_number(value: float) -> str:
    """A number as JavaScript's String() writes it (what agentv's JSON and keys hold)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"
    return text


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
    if core:
        # Most eval files are plain block collections, which yamlfast reads several times faster
        # (it imports this module: imported here, once yamltree is whole).
        from .yamlfast import read_plain_yaml
        root = read_plain_yaml(text)
        if root is not None:
            return root
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
_AWAITING_KEY = object()
_MERGING = object()


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
    """_Converter's rules (scalars, keys, merges, limits) applied to parser events."""

    def __init__(self, path: str, core: bool):
        super().__init__(path, core)
        self.resolvers = _Loader.yaml_implicit_resolvers
        self.wildcard = self.resolvers.get(None, [])
        self.key_names: dict[str, str] = {}  # each plain key's name by its text, as read before

    def read(self, get_event: Any) -> Node | None:
        get_event()  # the stream's start
        if isinstance(get_event(), yaml.StreamEndEvent):
            return None
        # Each open collection: [value (a dict or a list), start mark, anchor, the key whose value
        # comes next (or _AWAITING_KEY, _MERGING; None in a list), `composed` and `expanded` as it
        # opened, 1 + the height of its tallest child other than a plain scalar (0 till one is
        # placed), keys written (None until a merge: till then the mapping's own keys are the keys
        # written)]. Its expanded size is found from the counters as it closes: nothing is counted
        # per value placed in it.
        stack: list[list[Any] | None] = [None]  # None: the document itself, around the root
        top: list[Any] | None = None  # stack[-1], the innermost open collection
        depth = 0  # collections open
        anchors: dict[str, tuple[Node, int, int]] = {}
        composed = 0  # nodes the composer would make: the expansion allowance grows with them
        expanded = 0  # the nodes the aliases read so far stand for, as the composer counts them
        core = self.core
        key_names = self.key_names
        # _is_text's test, written out in the loop below (it runs once a scalar): its lookups
        # hoisted here.
        resolvers, no_wildcard, maybe_not_text = self.resolvers, not self.wildcard, _MAYBE_NOT_TEXT
        # In core mode an untagged plain scalar is text when its first character is none of these.
        plain_text_by_first = core and no_wildcard
        scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
        mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
        mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
        while True:
            event = get_event()
            kind = type(event)
            if depth > MAX_DEPTH and kind is not mapping_end and kind is not sequence_end:
                # Nested too deep: only closing what is open is left (a key here is followed
                # by a value, which would be refused).
                raise _Unusual
            if top is not None and top[3] is _AWAITING_KEY and kind is not mapping_end:
                composed += 1
                # A plain key, untagged and unanchored, already named (_take_key's first test,
                # written out: keys are half an eval file's events).
                name = key_names.get(event.value) if kind is scalar_event \
                    and event.anchor is None and event.tag is None and not event.style \
                    and event.implicit[0] else None
                if name is None:
                    self._take_key(top, event)
                    continue
                written = top[7]
                if core and (name in top[0] if written is None else name in written):
                    raise _Unusual  # the composer's path names the repeated key
                if written is not None:
                    written.add(name)
                top[3] = name
                continue
            anchor = None
            if kind is scalar_event:
                composed += 1
                start = event.start_mark.line + 1
                mark = event.end_mark
                end = mark.line + (0 if mark.column == 0 else 1)
                if end < start:
                    end = start
                style = event.style  # '' for a plain scalar
                value = event.value
                tag = event.tag
                # Plain text of the core schema is found by its first character, sooner than
                # the general test after it.
                if tag is not None or not (
                        (plain_text_by_first and not style
                         and value[:1] not in _CORE_PLAIN_UNSURE)
                        or (no_wildcard
                            and (not event.implicit[0] or value[:1] not in resolvers)
                            and (style or not core or value[:1] not in maybe_not_text))):
                    value = self._value_of(event)
                # A block scalar's text starts on the line after its `|` or `>` (if it has one).
                node = Node(value, start, end,
                            start + (start < end and (style == "|" or style == ">")))
                anchor = event.anchor
                if anchor is None and top is not None:
                    # _place for a plain scalar (height 0), written out: most events are.
                    key = top[3]
                    if key is None:
                        top[0].append(node)
                        continue
                    if key is not _MERGING:
                        top[3] = _AWAITING_KEY
                        top[0][key] = node
                        continue
                done = (node, 1, 0)
            elif kind is mapping_start or kind is sequence_start:
                composed += 1
                if kind is mapping_start:
                    top = [{}, event.start_mark, event.anchor, _AWAITING_KEY, composed, expanded,
                           0, None]
                else:
                    top = [[], event.start_mark, event.anchor, None, composed, expanded, 0, None]
                stack.append(top)
                depth += 1
                continue
            elif kind is mapping_end or kind is sequence_end:
                done, anchor = _closed(stack.pop(), event, composed, expanded)  # type: ignore[arg-type]
                depth -= 1
                top = stack[-1]
            elif kind is alias_event:
                done = _aliased(anchors, event, depth)
                expanded += done[1]
            else:
                raise _Unusual
            if anchor is not None:
                _anchored(anchors, anchor, done)
            if top is None:
                return _finished(get_event, done, composed)
            self._place(top, done)

    def _value_of(self, event: Any) -> Any:
        """A scalar's value when it may be other than its own text (_scalar, for an event)."""
        value = event.value
        if self.core and event.tag is None and not self.wildcard and not event.style and value \
                and value[0] not in _NOT_CORE_PLAIN:
            if value[0] in _WORD_STARTS:  # core_scalar's first test, for `text`, `file`, `The`
                word = _CORE_WORDS.get(value, _NOT_A_WORD)
                return value if word is _NOT_A_WORD else word
            return core_scalar(value)
        return self._scalar_of(self._tag(event), event)

    def _take_key(self, top: list[Any], event: Any) -> None:
        """The next key of the open mapping `top`, from its event."""
        # A plain key, untagged and unanchored: its name depends on its text alone, and the same
        # few keys (`role`, `content`, `type`) are half the events of an eval file.
        text = event.value if type(event) is yaml.ScalarEvent and event.anchor is None \
            and event.tag is None and not event.style and event.implicit[0] else None
        name = None if text is None else self.key_names.get(text)
        if name is None:
            name = self._key_name(event)
            if name is not None and text is not None:
                self.key_names[text] = name
        if name is None:
            top[3] = _MERGING
            return
        written = top[7]
        if self.core and (name in top[0] if written is None else name in written):
            raise _Unusual  # the composer's path names the repeated key
        if written is not None:
            written.add(name)
        top[3] = name

    def _key_name(self, event: Any) -> str | None:
        """A key's name from its event, or None for a merge key (`<<`)."""
        if type(event) is not yaml.ScalarEvent or event.anchor is not None:
            raise _Unusual  # a key that is not a plain value, or one aliased elsewhere
        text: str = event.value
        # _is_text's test, written out.
        if event.tag is None and not self.wildcard and not event.style and self.core and text \
                and text[0] not in _NOT_CORE_PLAIN:
            return self._key_text(core_scalar(text))  # the core schema's value, as _key finds it
        return text if (event.tag is None and not self.wildcard
                        and (not event.implicit[0] or text[:1] not in self.resolvers)
                        and (event.style or not self.core or text[:1] not in _MAYBE_NOT_TEXT)
                        ) else self._key(event)

    @staticmethod
    def _place(parent: list[Any], done: tuple[Node, int, int]) -> None:
        """A collection, an alias or an anchored scalar placed in the open collection `parent`
        (its size is counted by the counters read as `parent` closes)."""
        node, _, height = done
        if height >= parent[6]:
            parent[6] = height + 1
        key = parent[3]
        if key is None:
            parent[0].append(node)
            return
        parent[3] = _AWAITING_KEY
        value = parent[0]
        if key is not _MERGING:
            value[key] = node
            return
        if parent[7] is None:
            parent[7] = set(value)  # the keys written so far: merged ones may be written again
        for source in node.value if isinstance(node.value, list) else [node]:
            if isinstance(source.value, dict):
                for merged_key, merged_value in source.value.items():
                    value.setdefault(merged_key, merged_value)

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

    def _value(self, event: Any) -> Any:
        return event.value if self._is_text(event) else self._scalar_of(self._tag(event), event)

    def _is_text(self, event: Any) -> bool:
        """Whether a scalar is its own text, decided without _tag and _scalar_of for most of a
        file: no tag given and none resolves (the composer's tag is str), and it is no number
        or null of the core schema."""
        return event.tag is None and not self.wildcard \
            and (not event.implicit[0] or event.value[:1] not in self.resolvers) \
            and bool(event.style or not self.core or event.value[:1] not in _MAYBE_NOT_TEXT)

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
                yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style),
                deep=True)
        except yaml.YAMLError:
            raise _Unusual from None


def _compose_and_convert(text: str, path: str, core: bool) -> Node | None:
    """The composer's way: every node composed, the graph checked for alias bombs, then
    converted. Slower than _from_events, and the one whose errors and limits are the reference."""
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
        start = likely_start(text, error)
        if start is not None and f"started on line {start}" not in problem:
            problem += f"; likely start: line {start}, where a quoted string opens and runs on to here"
        raise InputError(f"invalid YAML: {problem}", path,
                         mark.line + 1 if mark else None,
                         mark.column + 1 if mark else None, likely_start=start) from None
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
        raise LimitExceeded(f"the document is nested more than {MAX_DEPTH} levels deep",
                            path) from None
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
            message = (f"{agentv_problem} at line {number}: {error.msg}" if agentv_problem
                       else f"invalid JSON: {error.msg}")
            raise InputError(message, path, number, error.colno) from None
        except RecursionError:
            raise LimitExceeded(f"the record is nested more than {MAX_DEPTH} levels deep",
                                path, number) from None
        if agentv_problem and not isinstance(value, dict):
            raise InputError(f"{agentv_problem} at line {number}: Expected JSON object", path,
                             number)
        try:
            records.append(from_plain(value, number))
        except InputError as error:
            raise type(error)(error.diagnostic.message, path, number) from None
    return records
