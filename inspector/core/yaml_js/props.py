"""yaml 2.8.3's node properties and small checks: compose/resolve-props.js, util-contains-newline.js,
util-empty-scalar-position.js, util-flow-indent-check.js."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .nodes import OnError, Token

SEPARATED = "Tags and anchors must be separated from the next token by white space"


@dataclass
class Props:
    """What resolveProps returns."""

    comma: Token | None
    found: Token | None
    space_before: bool
    comment: str
    has_newline: bool
    anchor: Token | None
    tag: Token | None
    newline_after_prop: Token | None
    end: int
    start: int


@dataclass
class _PropsReader:
    """resolveProps's loop state; one method per kind of token."""

    flow: str | None
    indicator: str
    next: Token | None
    on_error: OnError
    at_newline: bool
    has_space: bool
    space_before: bool = False
    comment: str = ""
    comment_sep: str = ""
    has_newline: bool = False
    req_space: bool = False
    tab: Token | None = None
    anchor: Token | None = None
    tag: Token | None = None
    newline_after_prop: Token | None = None
    comma: Token | None = None
    found: Token | None = None
    start: int | None = None

    def before(self, token: Token) -> None:
        if self.req_space:
            if token["type"] not in ("space", "newline", "comma"):
                self.on_error(token["offset"], "MISSING_CHAR", SEPARATED)
            self.req_space = False
        if self.tab:
            if self.at_newline and token["type"] not in ("comment", "newline"):
                self.on_error(self.tab, "TAB_AS_INDENT", "Tabs are not allowed as indentation")
            self.tab = None

    def read(self, token: Token) -> None:
        kind = token["type"]
        if kind == "space":
            self.space(token)
        elif kind == "comment":
            self.comment_token(token)
        elif kind == "newline":
            self.newline(token)
        elif kind in ("anchor", "tag"):
            self.prop(token)
        elif kind == self.indicator:
            self.found_indicator(token)
        elif kind == "comma" and self.flow:
            if self.comma:
                self.on_error(token, "UNEXPECTED_TOKEN", f"Unexpected , in {self.flow}")
            self.comma = token
            self.at_newline = self.has_space = False
        else:
            self.on_error(token, "UNEXPECTED_TOKEN", f"Unexpected {kind} token")
            self.at_newline = self.has_space = False

    def space(self, token: Token) -> None:
        # At the doc level, tabs at line start may be parsed as leading white space rather than
        # indentation; in a flow collection only the parser handles indent.
        next_type = self.next["type"] if self.next else None
        doc_flow = self.indicator == "doc-start" and next_type == "flow-collection"
        if not self.flow and not doc_flow and "\t" in token["source"]:
            self.tab = token
        self.has_space = True

    def comment_token(self, token: Token) -> None:
        if not self.has_space:
            message = "Comments must be separated from other tokens by white space characters"
            self.on_error(token, "MISSING_CHAR", message)
        text = token["source"][1:] or " "
        self.comment = text if not self.comment else self.comment + self.comment_sep + text
        self.comment_sep = ""
        self.at_newline = False

    def newline(self, token: Token) -> None:
        if self.at_newline:
            if self.comment:
                self.comment += token["source"]
            elif not self.found or self.indicator != "seq-item-ind":
                self.space_before = True
        else:
            self.comment_sep += token["source"]
        self.at_newline = self.has_newline = self.has_space = True
        if self.anchor or self.tag:
            self.newline_after_prop = token

    def prop(self, token: Token) -> None:
        if token["type"] == "anchor":
            if self.anchor:
                self.on_error(token, "MULTIPLE_ANCHORS", "A node can have at most one anchor")
            if token["source"].endswith(":"):
                offset = token["offset"] + len(token["source"]) - 1
                self.on_error(offset, "BAD_ALIAS", "Anchor ending in : is ambiguous", True)
            self.anchor = token
        else:
            if self.tag:
                self.on_error(token, "MULTIPLE_TAGS", "A node can have at most one tag")
            self.tag = token
        if self.start is None:
            self.start = token["offset"]
        self.at_newline = self.has_space = False
        self.req_space = True

    def found_indicator(self, token: Token) -> None:
        if self.anchor or self.tag:
            message = f"Anchors and tags must be after the {token['source']} indicator"
            self.on_error(token, "BAD_PROP_ORDER", message)
        if self.found:
            self.on_error(
                token, "UNEXPECTED_TOKEN", f"Unexpected {token['source']} in {self.flow or 'collection'}"
            )
        self.found = token
        self.at_newline = self.indicator in ("seq-item-ind", "explicit-key-ind")
        self.has_space = False

    def finish(self, tokens: list[Token], offset: int, parent_indent: int) -> Props:
        last = tokens[-1] if tokens else None
        end = last["offset"] + len(last["source"]) if last else offset
        nxt = self.next
        if (
            self.req_space
            and nxt
            and nxt["type"] not in ("space", "newline", "comma")
            and (nxt["type"] != "scalar" or nxt["source"] != "")
        ):
            self.on_error(nxt["offset"], "MISSING_CHAR", SEPARATED)
        next_block = nxt is not None and nxt["type"] in ("block-map", "block-seq")
        if self.tab and ((self.at_newline and self.tab["indent"] <= parent_indent) or next_block):
            self.on_error(self.tab, "TAB_AS_INDENT", "Tabs are not allowed as indentation")
        return Props(
            self.comma,
            self.found,
            self.space_before,
            self.comment,
            self.has_newline,
            self.anchor,
            self.tag,
            self.newline_after_prop,
            end,
            end if self.start is None else self.start,
        )


def resolve_props(
    tokens: list[Token],
    *,
    indicator: str,
    next: Token | None,  # noqa: A002 - the JS option's name
    offset: int,
    on_error: OnError,
    parent_indent: int,
    start_on_newline: bool,
    flow: str | None = None,
) -> Props:
    """resolveProps (compose/resolve-props.js): a node's anchor, tag, comment and indicator."""
    reader = _PropsReader(flow, indicator, next, on_error, start_on_newline, start_on_newline)
    for token in tokens:
        reader.before(token)
        reader.read(token)
    return reader.finish(tokens, offset, parent_indent)


def _has_newline(tokens: list[Token] | None) -> bool:
    return any(token["type"] == "newline" for token in tokens or [])


def contains_newline(key: Token | None) -> bool | None:
    """containsNewline (compose/util-contains-newline.js)."""
    if not key:
        return None
    kind = key["type"]
    if kind in ("alias", "scalar", "double-quoted-scalar", "single-quoted-scalar"):
        return "\n" in key["source"] or _has_newline(key.get("end"))
    if kind == "flow-collection":
        for item in key["items"]:
            if _has_newline(item.get("start")) or _has_newline(item.get("sep")):
                return True
            if contains_newline(item.get("key")) or contains_newline(item.get("value")):
                return True
        return False
    return True


def empty_scalar_position(offset: int, before: list[Token] | None, pos: int | None) -> int:
    """emptyScalarPosition (compose/util-empty-scalar-position.js): after the last non-empty token
    before it, and after any white space following that."""
    if not before:
        return offset
    if pos is None:
        pos = len(before)
    for index in range(pos - 1, -1, -1):
        token: Any = before[index]
        if token["type"] in ("space", "comment", "newline"):
            offset -= len(token["source"])
            continue
        index += 1
        while index < len(before) and before[index]["type"] == "space":
            offset += len(before[index]["source"])
            index += 1
        break
    return offset
