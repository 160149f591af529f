"""A port of yaml 2.8.3's Composer (dist/compose/*.js), agentv's YAML library, for the errors it
finds: given the Parser's CST tokens (plain dicts in the JSON shape of yaml's JS objects),
`compose_errors` gives the errors `parseDocument(text, { merge: true })` collects, in its order, so a
refused document's first error (the one agentv's `parse` throws) is named as agentv names it.

Functions keep the JS names in snake_case; docstrings cite the JS function. Values are kept only as
far as errors depend on them (duplicate keys compare resolved scalar values; tags resolve by the
schema, schema.py); comments, and the rest yaml keeps for stringifying, are left out.

Offsets: every `offset` in the tokens, and every offset in the errors, is a Python str index into
the document (a code point), as yamllex's lexer.py and parser.py give them; yaml's JS counts UTF-16
code units, so a character beyond the BMP moves its offsets by two. The composer only adds tokens'
offsets to lengths of their own text, so it is consistent in either unit as long as the tokens and
`source` agree; the oracle's test converts yaml's UTF-16 offsets before comparing. One place still
counts in code points where yaml counts code units: the 1024-character limit of an implicit key
(KEY_OVER_1024_CHARS), for a key holding characters beyond the BMP.

Depth: the composer recurses per nesting level (a few Python frames a level). The reader's own
limits run first and refuse a document nested more than 100 levels deep, so it stays far below
Python's recursion limit; a RecursionError is still reported as yaml reports its stack overflow
(RESOURCE_EXHAUSTION) rather than escaping."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .directives import Directives
from .nodes import (
    Alias,
    Collection,
    ErrorSource,
    JsError,
    Node,
    OnError,
    Pair,
    Scalar,
    Token,
    YamlError,
    error_offset,
)
from .props import Props, contains_newline, empty_scalar_position, resolve_props
from .scalars import resolve_block_scalar, resolve_end, resolve_flow_scalar
from .schema import MAP, MERGE, SEQ, STRING, Schema, Tag, schema_for
from .tojs import to_js_error as to_js_error_of

# Document's default options (doc/Document.js): strict, and keys must be unique.
STRICT = True
STACK_OVERFLOW = "Maximum call stack size exceeded"


@dataclass
class ComposeContext:
    """The ctx of composeDoc: where the composer is, and the document's directives and schema."""

    directives: Directives
    schema: Schema
    at_key: bool = False
    at_root: bool = True


@dataclass
class Document:
    directives: Directives
    errors: list[YamlError] = field(default_factory=list)
    range: list[int] = field(default_factory=lambda: [0, 0, 0])
    contents: Node | None = None


class ErrorList:
    """Composer.onError: errors collected until the composer hands them to a document; warnings
    (yaml keeps them apart, and `parse` only logs them) are dropped."""

    def __init__(self) -> None:
        self.errors: list[YamlError] = []

    def __call__(self, source: ErrorSource, code: str, message: str, warning: bool = False) -> None:
        if not warning:
            self.errors.append(YamlError(code, message, error_offset(source)))


# ---- compose-node.js


def compose_node(ctx: ComposeContext, token: Token, props: Props, on_error: OnError) -> Node:
    """composeNode."""
    anchor, tag = props.anchor, props.tag
    node: Node | None = None
    kind = token["type"]
    if kind == "alias":
        node = compose_alias(token, on_error)
        if anchor or tag:
            on_error(token, "ALIAS_PROPS", "An alias node must not specify any properties")
    elif kind in ("scalar", "single-quoted-scalar", "double-quoted-scalar", "block-scalar"):
        node = compose_scalar(ctx, token, tag, on_error)
        if anchor:
            node.anchor = anchor["source"][1:]
    elif kind in ("block-map", "block-seq", "flow-collection"):
        node = _compose_collection_guarded(ctx, token, props, on_error)
    else:
        message = token["message"] if kind == "error" else f"Unsupported token (type: {kind})"
        on_error(token, "UNEXPECTED_TOKEN", message)
    if node is None:
        node = compose_empty_node(ctx, token["offset"], None, None, props, on_error)
    if anchor and node.anchor == "":
        on_error(anchor, "BAD_ALIAS", "Anchor cannot be an empty string")
    node.props = props_start(props)
    return node


def props_start(props: Props) -> int | None:
    """Where a node's anchor or tag starts (the earlier of the two), or None without either."""
    offsets = [token["offset"] for token in (props.anchor, props.tag) if token]
    return min(offsets) if offsets else None


def _compose_collection_guarded(
    ctx: ComposeContext, token: Token, props: Props, on_error: OnError
) -> Node | None:
    # composeNode's try/catch around composeCollection: "almost certainly a stack overflow"
    try:
        node = compose_collection(ctx, token, props, on_error)
    except RecursionError:
        on_error(token, "RESOURCE_EXHAUSTION", STACK_OVERFLOW)
        return None
    except JsError as error:
        on_error(token, "RESOURCE_EXHAUSTION", str(error))
        return None
    if props.anchor:
        node.anchor = props.anchor["source"][1:]
    return node


def compose_empty_node(
    ctx: ComposeContext,
    offset: int,
    before: list[Token] | None,
    pos: int | None,
    props: Props,
    on_error: OnError,
) -> Node:
    """composeEmptyNode."""
    token = {
        "type": "scalar",
        "offset": empty_scalar_position(offset, before, pos),
        "indent": -1,
        "source": "",
    }
    node = compose_scalar(ctx, token, props.tag, on_error)
    if props.anchor:
        node.anchor = props.anchor["source"][1:]
        if node.anchor == "":
            on_error(props.anchor, "BAD_ALIAS", "Anchor cannot be an empty string")
    if props.comment:
        node.comment = props.comment
        node.range[2] = props.end
    node.props = props_start(props)
    return node


def compose_alias(token: Token, on_error: OnError) -> Alias:
    """composeAlias."""
    offset, source = token["offset"], token["source"]
    alias = Alias(source=source[1:])
    if alias.source == "":
        on_error(offset, "BAD_ALIAS", "Alias cannot be an empty string")
    if alias.source.endswith(":"):
        on_error(offset + len(source) - 1, "BAD_ALIAS", "Alias ending in : is ambiguous", True)
    value_end = offset + len(source)
    comment, end = resolve_end(token.get("end"), value_end, STRICT, on_error)
    alias.range = [offset, value_end, end]
    alias.comment = comment
    return alias


# ---- compose-scalar.js


def compose_scalar(ctx: ComposeContext, token: Token, tag_token: Token | None, on_error: OnError) -> Scalar:
    """composeScalar."""
    if token["type"] == "block-scalar":
        resolved = resolve_block_scalar(token, ctx.at_root, STRICT, on_error)
    else:
        resolved = resolve_flow_scalar(token, STRICT, on_error)
    value = resolved.value
    tag_name = _tag_name(ctx, tag_token, on_error)
    if tag_name and tag_token:
        tag = find_scalar_tag_by_name(ctx.schema, value, tag_name, tag_token, on_error)
    elif token["type"] == "scalar":
        tag = find_scalar_tag_by_test(ctx, value)
    else:
        tag = STRING
    scalar = Scalar(
        range=resolved.range, type=resolved.type, comment=resolved.comment, tag=tag_name, text=value
    )
    where = tag_token or token
    try:
        assert tag.resolve is not None
        scalar.value = tag.resolve(value)
        scalar.merge = tag.tag == MERGE.tag
    except JsError as error:
        on_error(where, "TAG_RESOLVE_FAILED", str(error))
        scalar.value = value
    return scalar


def find_scalar_tag_by_name(
    schema: Schema, value: str, tag_name: str, tag_token: Token, on_error: OnError
) -> Tag:
    """findScalarTagByName: the schema's tag of that name (by its test if several), or a known tag."""
    if tag_name == "!":
        return STRING  # non-specific tag
    match_with_test = []
    for tag in schema.tags:
        if not tag.collection and tag.tag == tag_name:
            if tag.default and tag.test:
                match_with_test.append(tag)
            else:
                return tag
    for tag in match_with_test:
        if tag.test and tag.test.fullmatch(value):
            return tag
    known = schema.known_tags.get(tag_name)
    if known and not known.collection:
        # available for stringifying, not used by default
        schema.tags.append(dataclasses.replace(known, default=False, test=None))
        return known
    warning = tag_name != "tag:yaml.org,2002:str"
    on_error(tag_token, "TAG_RESOLVE_FAILED", f"Unresolved tag: {tag_name}", warning)
    return STRING


def find_scalar_tag_by_test(ctx: ComposeContext, value: str) -> Tag:
    """findScalarTagByTest (no `compat` schema: its warnings are not errors)."""
    for tag in ctx.schema.tags:
        usable = tag.default is True or (ctx.at_key and tag.default == "key")
        if usable and tag.test and tag.test.fullmatch(value):
            return tag
    return STRING


# ---- compose-collection.js


def _resolve_collection(
    ctx: ComposeContext, token: Token, on_error: OnError, tag_name: str | None, tag: Tag | None = None
) -> Collection:
    """resolveCollection."""
    kind = token["type"]
    if kind == "block-map":
        coll = resolve_block_map(ctx, token, on_error, tag)
    elif kind == "block-seq":
        coll = resolve_block_seq(ctx, token, on_error, tag)
    else:
        coll = resolve_flow_collection(ctx, token, on_error, tag)
    class_tag = {"map": MAP.tag, "seq": SEQ.tag}.get(coll.kind, f"tag:yaml.org,2002:{coll.kind}")
    if tag_name == "!" or tag_name == class_tag:
        coll.tag = class_tag
    elif tag_name:
        coll.tag = tag_name
    return coll


def _check_block_seq_props(props: Props, on_error: OnError) -> None:
    anchor, tag, newline = props.anchor, props.tag, props.newline_after_prop
    # the later of the two
    last = max((prop for prop in (anchor, tag) if prop), key=lambda prop: prop["offset"], default=None)
    if last and (not newline or newline["offset"] < last["offset"]):
        on_error(last, "MISSING_CHAR", "Missing newline after block sequence props")


def _expected_type(token: Token) -> str:
    if token["type"] == "block-map":
        return "map"
    if token["type"] == "block-seq":
        return "seq"
    return "map" if token["start"]["source"] == "{" else "seq"


def _tag_name(ctx: ComposeContext, tag_token: Token | None, on_error: OnError) -> str | None:
    if not tag_token:
        return None
    return ctx.directives.tag_name(
        tag_token["source"], lambda message: on_error(tag_token, "TAG_RESOLVE_FAILED", message)
    )


def _collection_tag(ctx: ComposeContext, tag_name: str, exp_type: str) -> Tag | None:
    """The schema's tag for a collection, or a known one (added to the schema); None for yaml's
    BAD_COLLECTION_TYPE or "Unresolved tag", both warnings."""
    tag = next((t for t in ctx.schema.tags if t.tag == tag_name and t.collection == exp_type), None)
    if tag is None:
        known = ctx.schema.known_tags.get(tag_name)
        if not known or known.collection != exp_type:
            return None
        ctx.schema.tags.append(dataclasses.replace(known, default=False))
        tag = known
    return tag


def compose_collection(ctx: ComposeContext, token: Token, props: Props, on_error: OnError) -> Node:
    """composeCollection."""
    tag_token = props.tag
    tag_name = _tag_name(ctx, tag_token, on_error)
    if token["type"] == "block-seq":
        _check_block_seq_props(props, on_error)
    exp_type = _expected_type(token)
    generic = tag_name in (None, "", "!") or (tag_name, exp_type) in ((MAP.tag, "map"), (SEQ.tag, "seq"))
    if not tag_token or generic:
        return _resolve_collection(ctx, token, on_error, tag_name)
    assert tag_name
    tag = _collection_tag(ctx, tag_name, exp_type)
    if tag is None:
        return _resolve_collection(ctx, token, on_error, tag_name)
    coll = _resolve_collection(ctx, token, on_error, tag_name, tag)
    node: Node = coll
    if tag.resolve_collection:
        node = tag.resolve_collection(
            coll, lambda message: on_error(tag_token, "TAG_RESOLVE_FAILED", message)
        )
    node.range = coll.range
    node.tag = tag_name
    return node


# ---- resolve-block-map.js

START_COL = "All mapping items must start at the same column"


class MapKeys:
    """mapIncludes (compose/util-map-includes.js) for one map: a key repeats one before it if it is
    the same node or both are scalars whose values are `===`. A key node is new each time, so only
    the values count; they are kept in a set (JS compares each key with all before it, which on a
    map of thousands of keys is slow in Python), by type as `===` tells 1 from true."""

    def __init__(self) -> None:
        self.values: set[tuple[type, Any]] = set()

    def includes(self, search: Node) -> bool:
        value = search.value if isinstance(search, Scalar) else None
        return isinstance(search, Scalar) and not _is_nan(value) and (type(value), value) in self.values

    def add(self, key: Node) -> None:
        if isinstance(key, Scalar) and not _is_nan(key.value):
            self.values.add((type(key.value), key.value))


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


@dataclass
class _BlockMapState:
    coll: Collection
    offset: int
    comment_end: int | None = None
    keys: MapKeys = field(default_factory=MapKeys)


def _check_implicit_key(bm: Token, item: Token, key_props: Props, offset: int, on_error: OnError) -> bool:
    """resolveBlockMap's checks of an implicit key; False for an item holding a comment only."""
    key, sep, start = item.get("key"), item.get("sep"), item.get("start") or []
    if key:
        if key["type"] == "block-seq":
            message = "A block sequence may not be used as an implicit map key"
            on_error(offset, "BLOCK_AS_IMPLICIT_KEY", message)
        elif "indent" in key and key["indent"] != bm["indent"]:
            on_error(offset, "BAD_INDENT", START_COL)
    if not key_props.anchor and not key_props.tag and sep is None:
        return False
    if key_props.newline_after_prop or contains_newline(key):
        on_error(key or start[-1], "MULTILINE_IMPLICIT_KEY", "Implicit keys need to be on a single line")
    return True


def _block_map_item(
    ctx: ComposeContext, bm: Token, item: Token, state: _BlockMapState, on_error: OnError
) -> None:
    start, key, sep, value = item.get("start") or [], item.get("key"), item.get("sep"), item.get("value")
    key_props = resolve_props(
        start,
        indicator="explicit-key-ind",
        next=key or (sep[0] if sep else None),
        offset=state.offset,
        on_error=on_error,
        parent_indent=bm["indent"],
        start_on_newline=True,
    )
    implicit_key = not key_props.found
    if implicit_key:
        if not _check_implicit_key(bm, item, key_props, state.offset, on_error):
            state.comment_end = key_props.end
            return
    elif key_props.found and key_props.found["indent"] != bm["indent"]:
        on_error(state.offset, "BAD_INDENT", START_COL)
    ctx.at_key = True
    key_start = key_props.end
    if key:
        key_node = compose_node(ctx, key, key_props, on_error)
    else:
        key_node = compose_empty_node(ctx, key_start, start, None, key_props, on_error)
    ctx.at_key = False
    if state.keys.includes(key_node):
        on_error(key_start, "DUPLICATE_KEY", "Map keys must be unique")
    state.keys.add(key_node)
    value_props = resolve_props(
        sep or [],
        indicator="map-value-ind",
        next=value,
        offset=key_node.range[2],
        on_error=on_error,
        parent_indent=bm["indent"],
        start_on_newline=not key or key["type"] == "block-scalar",
    )
    state.offset = value_props.end
    _block_map_value(ctx, item, key_props, value_props, key_node, state, on_error)


def _block_map_value(
    ctx: ComposeContext,
    item: Token,
    key_props: Props,
    value_props: Props,
    key_node: Node,
    state: _BlockMapState,
    on_error: OnError,
) -> None:
    """The second half of a resolveBlockMap item: its value, or the key alone."""
    sep, value = item.get("sep"), item.get("value")
    implicit_key = not key_props.found
    if not value_props.found:
        if implicit_key:
            message = "Implicit map keys need to be followed by map values"
            on_error(key_node.range, "MISSING_CHAR", message)
        state.coll.items.append(Pair(key_node))
        return
    if implicit_key:
        if value and value["type"] == "block-map" and not value_props.has_newline:
            on_error(
                state.offset, "BLOCK_AS_IMPLICIT_KEY", "Nested mappings are not allowed in compact mappings"
            )
        if STRICT and key_props.start < value_props.found["offset"] - 1024:
            message = (
                "The : indicator must be at most 1024 chars after the start of an implicit block mapping key"
            )
            on_error(key_node.range, "KEY_OVER_1024_CHARS", message)
    if value:
        value_node = compose_node(ctx, value, value_props, on_error)
    else:
        value_node = compose_empty_node(ctx, state.offset, sep, None, value_props, on_error)
    state.offset = value_node.range[2]
    state.coll.items.append(Pair(key_node, value_node))


def resolve_block_map(ctx: ComposeContext, bm: Token, on_error: OnError, tag: Tag | None) -> Collection:
    """resolveBlockMap. (A CST list is there even when empty, as JS's `[]` is true: `sep is None`.)"""
    coll = Collection(kind=(tag.node_kind if tag and tag.node_kind else "map"))
    ctx.at_root = False
    state = _BlockMapState(coll, bm["offset"])
    for item in bm["items"]:
        _block_map_item(ctx, bm, item, state, on_error)
    if state.comment_end is not None and state.comment_end < state.offset:
        on_error(state.comment_end, "IMPOSSIBLE", "Map comment with trailing content")
    end = state.comment_end if state.comment_end is not None else state.offset
    coll.range = [bm["offset"], state.offset, end]
    return coll


# ---- resolve-block-seq.js


def resolve_block_seq(ctx: ComposeContext, bs: Token, on_error: OnError, tag: Tag | None) -> Collection:
    """resolveBlockSeq."""
    seq = Collection(kind=(tag.node_kind if tag and tag.node_kind else "seq"))
    ctx.at_root = False
    ctx.at_key = False
    offset = bs["offset"]
    comment_end = None
    for item in bs["items"]:
        start, value = item.get("start") or [], item.get("value")
        props = resolve_props(
            start,
            indicator="seq-item-ind",
            next=value,
            offset=offset,
            on_error=on_error,
            parent_indent=bs["indent"],
            start_on_newline=True,
        )
        if not props.found:
            if not (props.anchor or props.tag or value):
                comment_end = props.end
                continue
            if value and value["type"] == "block-seq":
                on_error(props.end, "BAD_INDENT", "All sequence items must start at the same column")
            else:
                on_error(offset, "MISSING_CHAR", "Sequence item without - indicator")
        if value:
            node = compose_node(ctx, value, props, on_error)
        else:
            node = compose_empty_node(ctx, props.end, start, None, props, on_error)
        offset = node.range[2]
        seq.items.append(node)
    seq.range = [bs["offset"], offset, offset if comment_end is None else comment_end]
    return seq


# ---- resolve-flow-collection.js

BLOCK_MSG = "Block collections are not allowed within flow collections"


def _is_block(token: Token | None) -> bool:
    return token is not None and token["type"] in ("block-map", "block-seq")


@dataclass
class _FlowState:
    coll: Collection
    is_map: bool
    name: str
    offset: int
    keys: MapKeys = field(default_factory=MapKeys)


def _previous_item_comment(start: list[Token]) -> str:
    # a comment right after the comma belongs to the item before
    for token in start:
        if token["type"] in ("comma", "space"):
            continue
        return token["source"][1:] if token["type"] == "comment" else ""
    return ""


def _flow_item_without_indicator(
    fc: Token, index: int, item: Token, props: Props, state: _FlowState, on_error: OnError
) -> bool:
    key, sep, value = item.get("key"), item.get("sep"), item.get("value")
    if not props.anchor and not props.tag and sep is None and not value:
        if index == 0 and props.comma:
            on_error(props.comma, "UNEXPECTED_TOKEN", f"Unexpected , in {state.name}")
        elif index < len(fc["items"]) - 1:
            on_error(props.start, "UNEXPECTED_TOKEN", f"Unexpected empty item in {state.name}")
        state.offset = props.end
        return False
    if not state.is_map and STRICT and contains_newline(key):
        message = "Implicit keys of flow sequence pairs need to be on a single line"
        on_error(key or props.start, "MULTILINE_IMPLICIT_KEY", message)
    return True


def _flow_item_checks(
    fc: Token, index: int, item: Token, props: Props, state: _FlowState, on_error: OnError
) -> bool:
    """resolveFlowCollection's checks of an item's start; False for an empty item (skipped)."""
    if not props.found and not _flow_item_without_indicator(fc, index, item, props, state, on_error):
        return False
    if index == 0:
        if props.comma:
            on_error(props.comma, "UNEXPECTED_TOKEN", f"Unexpected , in {state.name}")
        return True
    if not props.comma:
        on_error(props.start, "MISSING_CHAR", f"Missing , between {state.name} items")
    if props.comment:
        previous = _previous_item_comment(item.get("start") or [])
        if previous:
            props.comment = props.comment[len(previous) + 1 :]
    return True


def _flow_value_checks(
    item: Token, props: Props, value_props: Props, state: _FlowState, on_error: OnError
) -> None:
    sep, value = item.get("sep"), item.get("value")
    found = value_props.found
    if found:
        if not state.is_map and not props.found and STRICT:
            for token in sep or []:
                if token is found:
                    break
                if token["type"] == "newline":
                    message = "Implicit keys of flow sequence pairs need to be on a single line"
                    on_error(token, "MULTILINE_IMPLICIT_KEY", message)
                    break
            if props.start < found["offset"] - 1024:
                message = "The : indicator must be at most 1024 chars after the start of an implicit flow sequence key"
                on_error(found, "KEY_OVER_1024_CHARS", message)
    elif value:
        if isinstance(value.get("source"), str) and value["source"][:1] == ":":
            on_error(value, "MISSING_CHAR", f"Missing space after : in {state.name}")
        else:
            on_error(value_props.start, "MISSING_CHAR", f"Missing , or : between {state.name} items")


def _flow_pair(
    ctx: ComposeContext, fc: Token, item: Token, props: Props, state: _FlowState, on_error: OnError
) -> None:
    start, key, sep, value = item.get("start") or [], item.get("key"), item.get("sep"), item.get("value")
    ctx.at_key = True
    key_start = props.end
    if key:
        key_node = compose_node(ctx, key, props, on_error)
    else:
        key_node = compose_empty_node(ctx, key_start, start, None, props, on_error)
    if _is_block(key):
        on_error(key_node.range, "BLOCK_IN_FLOW", BLOCK_MSG)
    ctx.at_key = False
    value_props = resolve_props(
        sep or [],
        flow=state.name,
        indicator="map-value-ind",
        next=value,
        offset=key_node.range[2],
        on_error=on_error,
        parent_indent=fc["indent"],
        start_on_newline=False,
    )
    _flow_value_checks(item, props, value_props, state, on_error)
    value_node: Node | None = None
    if value:
        value_node = compose_node(ctx, value, value_props, on_error)
    elif value_props.found:
        value_node = compose_empty_node(ctx, value_props.end, sep, None, value_props, on_error)
    if value_node and _is_block(value):
        on_error(value_node.range, "BLOCK_IN_FLOW", BLOCK_MSG)
    pair = Pair(key_node, value_node)
    if state.is_map:
        if state.keys.includes(key_node):
            on_error(key_start, "DUPLICATE_KEY", "Map keys must be unique")
        state.keys.add(key_node)
        state.coll.items.append(pair)
    else:
        end_range = (value_node or key_node).range
        state.coll.items.append(
            Collection(range=[key_node.range[0], end_range[1], end_range[2]], items=[pair])
        )
    state.offset = value_node.range[2] if value_node else value_props.end


def _flow_item(ctx: ComposeContext, fc: Token, index: int, state: _FlowState, on_error: OnError) -> None:
    item = fc["items"][index]
    start, key, sep, value = item.get("start") or [], item.get("key"), item.get("sep"), item.get("value")
    props = resolve_props(
        start,
        flow=state.name,
        indicator="explicit-key-ind",
        next=key or (sep[0] if sep else None),
        offset=state.offset,
        on_error=on_error,
        parent_indent=fc["indent"],
        start_on_newline=False,
    )
    if not _flow_item_checks(fc, index, item, props, state, on_error):
        return
    if state.is_map or sep is not None or props.found:
        _flow_pair(ctx, fc, item, props, state, on_error)
        return
    # a value in a sequence: key and sep are empty, start holds no ? or :
    if value:
        value_node = compose_node(ctx, value, props, on_error)
    else:
        value_node = compose_empty_node(ctx, props.end, sep, None, props, on_error)
    state.coll.items.append(value_node)
    state.offset = value_node.range[2]
    if _is_block(value):
        on_error(value_node.range, "BLOCK_IN_FLOW", BLOCK_MSG)


def resolve_flow_collection(ctx: ComposeContext, fc: Token, on_error: OnError, tag: Tag | None) -> Collection:
    """resolveFlowCollection."""
    is_map = fc["start"]["source"] == "{"
    name = "flow map" if is_map else "flow sequence"
    kind = tag.node_kind if tag and tag.node_kind else ("map" if is_map else "seq")
    coll = Collection(kind=kind, flow=True)
    at_root = ctx.at_root
    ctx.at_root = False
    ctx.at_key = False
    state = _FlowState(coll, is_map, name, fc["offset"] + len(fc["start"]["source"]))
    for index in range(len(fc["items"])):
        _flow_item(ctx, fc, index, state, on_error)
    expected_end = "}" if is_map else "]"
    ends = list(fc.get("end") or [])
    close = ends.pop(0) if ends else None
    close_end = state.offset
    if close and close["source"] == expected_end:
        close_end = close["offset"] + len(close["source"])
    else:
        title = name[0].upper() + name[1:]
        if at_root:
            on_error(state.offset, "MISSING_CHAR", f"{title} must end with a {expected_end}")
        else:
            message = (
                f"{title} in block collection must be sufficiently indented and end with a {expected_end}"
            )
            on_error(state.offset, "BAD_INDENT", message)
        if close and len(close["source"]) != 1:
            ends.insert(0, close)
    end = close_end
    if ends:
        _comment, end = resolve_end(ends, close_end, STRICT, on_error)
    coll.range = [fc["offset"], close_end, end]
    return coll


# ---- compose-doc.js


def compose_doc(directives: Directives, token: Token, on_error: OnError) -> Document:
    """composeDoc."""
    doc_directives = directives.at_document()
    version = doc_directives.version if doc_directives.explicit else "1.2"
    doc_directives.version = version
    doc = Document(doc_directives)
    ctx = ComposeContext(doc_directives, schema_for(version))
    start, value, end = token.get("start") or [], token.get("value"), token.get("end")
    props = resolve_props(
        start,
        indicator="doc-start",
        next=value or (end[0] if end else None),
        offset=token["offset"],
        on_error=on_error,
        parent_indent=0,
        start_on_newline=True,
    )
    if props.found:
        doc_directives.doc_start = True
        if value and value["type"] in ("block-map", "block-seq") and not props.has_newline:
            message = "Block collection cannot start on same line with directives-end marker"
            on_error(props.end, "MISSING_CHAR", message)
    if value:
        doc.contents = compose_node(ctx, value, props, on_error)
    else:
        doc.contents = compose_empty_node(ctx, props.end, start, None, props, on_error)
    content_end = doc.contents.range[2]
    _comment, end_offset = resolve_end(end, content_end, False, on_error)
    doc.range = [token["offset"], content_end, end_offset]
    return doc


# ---- composer.js


class Composer:
    """Composer: CST tokens in, documents out, each with the errors found up to it."""

    def __init__(self) -> None:
        self.doc: Document | None = None
        self.at_directives = False
        self.on_error = ErrorList()
        self.directives = Directives()

    def decorate(self, doc: Document, after_doc: bool) -> None:
        """decorate, for the errors: the pending ones become the document's."""
        if after_doc:
            doc.errors.extend(self.on_error.errors)
        else:
            doc.errors = self.on_error.errors
        self.on_error.errors = []

    def compose(
        self, tokens: Iterable[Token], force_doc: bool = False, end_offset: int = -1
    ) -> Iterator[Document]:
        for token in tokens:
            yield from self.next(token)
        yield from self.end(force_doc, end_offset)

    def _directive(self, token: Token) -> None:
        def on_error(offset: int, message: str, warning: bool) -> None:
            self.on_error(token["offset"] + offset, "BAD_DIRECTIVE", message, warning)

        self.directives.add(token["source"], on_error)
        self.at_directives = True

    def _document(self, token: Token) -> Iterator[Document]:
        doc = compose_doc(self.directives, token, self.on_error)
        if self.at_directives and not doc.directives.doc_start:
            self.on_error(token, "MISSING_CHAR", "Missing directives-end/doc-start indicator line")
        self.decorate(doc, False)
        if self.doc:
            yield self.doc
        self.doc = doc
        self.at_directives = False

    def _error_token(self, token: Token) -> None:
        source = token.get("source")
        message = (
            f"{token['message']}: {json.dumps(source, ensure_ascii=False)}" if source else token["message"]
        )
        error = YamlError("UNEXPECTED_TOKEN", message, token["offset"])
        if self.at_directives or not self.doc:
            self.on_error.errors.append(error)
        else:
            self.doc.errors.append(error)

    def _doc_end(self, token: Token) -> None:
        if not self.doc:
            message = "Unexpected doc-end without preceding document"
            self.on_error.errors.append(YamlError("UNEXPECTED_TOKEN", message, token["offset"]))
            return
        _comment, end = resolve_end(
            token.get("end"), token["offset"] + len(token["source"]), STRICT, self.on_error
        )
        self.decorate(self.doc, True)
        self.doc.range[2] = end

    def next(self, token: Token) -> Iterator[Document]:
        """next: one CST token."""
        kind = token["type"]
        if kind == "directive":
            self._directive(token)
        elif kind == "document":
            yield from self._document(token)
        elif kind == "error":
            self._error_token(token)
        elif kind == "doc-end":
            self._doc_end(token)
        elif kind not in ("byte-order-mark", "space", "comment", "newline"):
            message = f"Unsupported token {kind}"
            self.on_error.errors.append(YamlError("UNEXPECTED_TOKEN", message, token["offset"]))

    def end(self, force_doc: bool, end_offset: int) -> Iterator[Document]:
        """end: the last document, or with force_doc an empty one for an empty stream."""
        if self.doc:
            self.decorate(self.doc, True)
            yield self.doc
            self.doc = None
        elif force_doc:
            doc = Document(self.directives.at_document())
            if self.at_directives:
                self.on_error(end_offset, "MISSING_CHAR", "Missing directives-end indicator line")
            doc.range = [0, end_offset, end_offset]
            self.decorate(doc, False)
            yield doc


MULTIPLE_DOCS = "Source contains multiple documents; please use YAML.parseAllDocuments()"


def compose_document(tokens: Iterable[Token], source: str) -> Document:
    """parseDocument (public-api.js): the first document, with its errors in yaml's order, and
    MULTIPLE_DOCS where a second one starts. `source` is the document's text (its length is where
    an empty stream's missing directives-end line is named).

    Raises JsError where parseDocument itself throws rather than collecting an error: a `\\U`
    escape past U+10FFFF in a scalar outside any collection (String.fromCodePoint's RangeError,
    "Invalid code point …"); inside a collection yaml reports it as RESOURCE_EXHAUSTION."""
    first: Document | None = None
    for doc in Composer().compose(tokens, True, len(source)):
        if first is None:
            first = doc
        else:
            first.errors.append(YamlError("MULTIPLE_DOCS", MULTIPLE_DOCS, doc.range[0]))
            break
    assert first is not None  # compose(force_doc=True) always gives one
    return first


def compose_errors(tokens: Iterable[Token], source: str) -> list[YamlError]:
    """The errors parseDocument collects, in its order."""
    return compose_document(tokens, source).errors


def first_error(tokens: Iterable[Token], source: str) -> YamlError | None:
    """The error agentv's `parse` throws (the document's first), or None."""
    errors = compose_errors(tokens, source)
    return errors[0] if errors else None


def to_js_error(tokens: Iterable[Token], source: str) -> str | None:
    """For a document without errors, the message of what agentv's `parse` then throws turning it
    into values (toJS: an unresolved alias, a bad merge, ...), or None; see tojs.py."""
    document = compose_document(tokens, source)
    return None if document.errors else to_js_error_of(document.contents)


__all__ = ["YamlError", "compose_document", "compose_errors", "first_error", "to_js_error"]
