"""The parts of yaml 2.8.3's node classes (dist/nodes/*.js) its Composer needs to find errors: ranges,
anchors, tags and each scalar's resolved value, which duplicate keys are compared by. Comments and
the rest of what yaml keeps for stringifying are left out.

A resolved scalar value is the JS value as Python holds it: str, float (every JS number, NaN and
the infinities included), bool, None, or a `JsObject` for what JS compares by identity (a merge
key's Symbol, a Date, a Buffer): equal type and == is then JS's `===` on them (NaN aside)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Token = dict[str, Any]
ErrorSource = int | list[int] | Token


@dataclass(frozen=True)
class YamlError:
    """One of yaml's YAMLParseErrors: its code, its message (without prettifyError's " at line …"),
    and its offset (pos[0]) as a Python str index."""

    code: str
    message: str
    offset: int


class JsError(Exception):
    """What yaml's JS code throws outside its own error reporting (String.fromCodePoint's
    RangeError, a tag's resolve throwing), with the JS error's message."""


class OnError(Protocol):
    def __call__(self, source: ErrorSource, code: str, message: str, warning: bool = False) -> None: ...


def error_offset(source: ErrorSource) -> int:
    """The start of getErrorPos (compose/composer.js): a number, a range's start, or a token's offset."""
    if isinstance(source, int):
        return source
    if isinstance(source, list):
        return source[0]
    return int(source["offset"])


class JsObject:
    """A JS object value (Symbol, Date, Buffer): equal only to itself, as `===` compares them."""


@dataclass
class Node:
    range: list[int] = field(default_factory=lambda: [0, 0, 0])
    anchor: str | None = None
    tag: str | None = None
    comment: str = ""
    # Where its anchor or tag starts, when it has one: libyaml (and so the reader) starts a node there.
    props: int | None = None


@dataclass
class Scalar(Node):
    value: Any = None
    type: str | None = None
    # resolved by the merge tag: yaml gives such a scalar its addToJSMap (schema/yaml-1.1/merge.js)
    merge: bool = False
    # The text the tag resolved (a plain scalar's folded lines, a quoted one's unescaped text).
    text: str = ""


@dataclass
class Alias(Node):
    source: str = ""


@dataclass
class Pair:
    key: Node
    value: Node | None = None


@dataclass
class Collection(Node):
    items: list[Any] = field(default_factory=list)
    flow: bool = False
    # What the collection's class is called in yaml (YAMLMap, YAMLSeq, YAMLSet, YAMLOMap).
    kind: str = "map"


def is_map(node: Any) -> bool:
    return isinstance(node, Collection) and node.kind in ("map", "set")


def is_seq(node: Any) -> bool:
    return isinstance(node, Collection) and node.kind in ("seq", "omap")


CollectionResolver = Callable[[Collection, Callable[[str], None]], Node]
