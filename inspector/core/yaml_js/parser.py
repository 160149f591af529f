"""yaml 2.8.3 `dist/parse/parser.js`: the YAML concrete syntax tree (CST) parser (`parse`).

`parse(source)` yields the Parser's tokens as plain dicts and lists, with the keys and values the JS
objects have (`type`, `offset`, `indent`, `source`, `start`, `items`, `key`, `sep`, `value`, `end`,
`props`, `explicitKey`, `message`); an absent JS property is an absent key, a JS `null` is None.
Errors are not raised but yielded as `{"type": "error", …}` tokens, as in the JS.

Offsets count Python `str` indexes (code points), see the package docstring. The JS keeps its stack
of open nodes in an array; so does the port, and where the JS ends a step by popping and stepping
again (`yield* this.pop(); yield* this.step()`), the port's handler pops and returns True for
`step` to go round again, so closing many nested nodes at once does not recurse.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

from .cst import token_type
from .lexer import lex

Token = dict[str, Any]
Tokens = Generator[Token, None, None]
Step = Generator[Token, None, bool]
"""Yields tokens, returns whether `step` must go round again (the JS `pop(); step()`)."""

_FLOW_SCALAR_TYPES = ("alias", "scalar", "single-quoted-scalar", "double-quoted-scalar")
_BLANK_TYPES = ("space", "comment", "newline")


def parse(source: str) -> Iterator[Token]:
    """The CST tokens of `source`, read as complete input (JS `Parser.parse(source)`)."""
    return _Parser().parse(source)


def _present(item: Token, name: str) -> bool:
    # A JS property test (`it.sep`, `it.value`): the arrays and objects they hold are always truthy.
    return item.get(name) is not None


def includes_token(tokens: list[Token], type_: str) -> bool:
    # JS `includesToken`
    return any(token["type"] == type_ for token in tokens)


def find_non_empty_index(tokens: list[Token]) -> int:
    # JS `findNonEmptyIndex`
    for index, token in enumerate(tokens):
        if token["type"] not in _BLANK_TYPES:
            return index
    return -1


def is_flow_token(token: Token | None) -> bool:
    # JS `isFlowToken`
    return token is not None and token["type"] in (*_FLOW_SCALAR_TYPES, "flow-collection")


def get_prev_props(parent: Token) -> list[Token]:
    # JS `getPrevProps`
    if parent["type"] == "document":
        return parent["start"]
    if parent["type"] == "block-map":
        item = parent["items"][-1]
        return item["sep"] if _present(item, "sep") else item["start"]
    if parent["type"] == "block-seq":
        return parent["items"][-1]["start"]
    return []


def get_first_key_start_props(prev: list[Token]) -> list[Token]:
    """JS `getFirstKeyStartProps`: the props after the last indicator or line break, cut from `prev`."""
    if not prev:
        return []
    i = len(prev) - 1
    while i >= 0 and prev[i]["type"] not in (
        "doc-start",
        "explicit-key-ind",
        "map-value-ind",
        "seq-item-ind",
        "newline",
    ):
        i -= 1
    i += 1
    while i < len(prev) and prev[i]["type"] == "space":
        i += 1
    start = prev[i:]
    del prev[i:]
    return start


def fix_flow_seq_items(collection: Token) -> None:
    """JS `fixFlowSeqItems`: a flow sequence's items without `:` hold values, not keys."""
    if collection["start"]["type"] != "flow-seq-start":
        return
    for item in collection["items"]:
        if (
            _present(item, "sep")
            and not _present(item, "value")
            and not includes_token(item["start"], "explicit-key-ind")
            and not includes_token(item["sep"], "map-value-ind")
        ):
            if _present(item, "key"):
                item["value"] = item["key"]
            item.pop("key", None)
            value = item.get("value")
            if value is not None and is_flow_token(value):
                if _present(value, "end"):
                    value["end"].extend(item["sep"])
                else:
                    value["end"] = item["sep"]
            else:
                item["start"].extend(item["sep"])
            del item["sep"]


def _push_end(token: Token, source_token: Token) -> None:
    if _present(token, "end"):
        token["end"].append(source_token)
    else:
        token["end"] = [source_token]


class _Parser:
    """JS `class Parser`, without `onNewLine`."""

    def __init__(self) -> None:
        self.at_new_line = True  # if true, space and sequence indicators count as indentation
        self.at_scalar = False  # if true, the next token is a scalar value
        self.indent = 0
        self.offset = 0
        self.on_key_line = False  # on the same line with a block map key
        self.stack: list[Token] = []  # the top is the node being built
        self.source = ""
        self.type = ""

    def parse(self, source: str) -> Iterator[Token]:
        # JS `parse`
        for lexeme in lex(source):
            yield from self.next(lexeme)
        yield from self.end()

    def next(self, source: str) -> Tokens:
        # JS `next`: advance by the source of one lexical token
        self.source = source
        if self.at_scalar:
            self.at_scalar = False
            yield from self.step()
            self.offset += len(source)
            return
        type_ = token_type(source)
        if type_ is None:
            message = f"Not a YAML token: {source}"
            yield from self.pop(
                {"type": "error", "offset": self.offset, "message": message, "source": source}
            )
            self.offset += len(source)
        elif type_ == "scalar":
            self.at_new_line = False
            self.at_scalar = True
            self.type = "scalar"
        else:
            self.type = type_
            yield from self.step()
            if type_ in ("doc-mode", "flow-error-end"):
                return
            self.count_indent(type_, source)
            self.offset += len(source)

    def count_indent(self, type_: str, source: str) -> None:
        # the switch of JS `next`
        if type_ == "newline":
            self.at_new_line = True
            self.indent = 0
        elif type_ == "space":
            if self.at_new_line and source[0] == " ":
                self.indent += len(source)
        elif type_ in ("explicit-key-ind", "map-value-ind", "seq-item-ind"):
            if self.at_new_line:
                self.indent += len(source)
        else:
            self.at_new_line = False

    def end(self) -> Tokens:
        # JS `end`: push out any remaining constructions
        while self.stack:
            yield from self.pop()

    @property
    def source_token(self) -> Token:
        return {"type": self.type, "offset": self.offset, "indent": self.indent, "source": self.source}

    def peek(self, n: int) -> Token | None:
        return self.stack[-n] if len(self.stack) >= n else None

    def step(self) -> Tokens:
        # JS `step`, its tail calls to itself made a loop
        while (yield from self.step_once()):
            pass

    def step_once(self) -> Step:
        top = self.peek(1)
        if self.type == "doc-end" and (top is None or top["type"] != "doc-end"):
            while self.stack:
                yield from self.pop()
            self.stack.append({"type": "doc-end", "offset": self.offset, "source": self.source})
            return False
        if top is None:
            yield from self.stream()
            return False
        top_type = top["type"]
        if top_type == "document":
            return (yield from self.document(top))
        if top_type in _FLOW_SCALAR_TYPES:
            return (yield from self.scalar(top))
        if top_type == "block-scalar":
            return (yield from self.block_scalar(top))
        if top_type == "block-map":
            return (yield from self.block_map(top))
        if top_type == "block-seq":
            return (yield from self.block_sequence(top))
        if top_type == "flow-collection":
            return (yield from self.flow_collection(top))
        if top_type == "doc-end":
            yield from self.document_end(top)
            return False
        yield from self.pop()  # should not happen
        return False

    def pop(self, error: Token | None = None) -> Tokens:
        # JS `pop`
        token = error if error is not None else (self.stack.pop() if self.stack else None)
        if token is None:  # should not happen
            yield {
                "type": "error",
                "offset": self.offset,
                "source": "",
                "message": "Tried to pop an empty stack",
            }
            return
        if not self.stack:
            yield token
            return
        top = self.stack[-1]
        if token["type"] == "block-scalar":
            # Block scalars use their parent rather than header indent
            token["indent"] = top.get("indent", 0)
        elif token["type"] == "flow-collection" and top["type"] == "document":
            # Ignore all indent for top-level flow collections
            token["indent"] = 0
        if token["type"] == "flow-collection":
            fix_flow_seq_items(token)
        if (yield from self.attach(top, token)):
            self.lift_trailing_blank_item(top, token)

    def attach(self, top: Token, token: Token) -> Step:
        """The switch of JS `pop`: `token` becomes part of `top`; False where the JS returns early."""
        if top["type"] == "document":
            top["value"] = token
        elif top["type"] == "block-scalar":
            top["props"].append(token)  # error
        elif top["type"] == "block-map":
            return self.attach_to_block_map(top, token)
        elif top["type"] == "block-seq":
            item = top["items"][-1]
            if _present(item, "value"):
                top["items"].append({"start": [], "value": token})
            else:
                item["value"] = token
        elif top["type"] == "flow-collection":
            item = top["items"][-1] if top["items"] else None
            if item is None or _present(item, "value"):
                top["items"].append({"start": [], "key": token, "sep": []})
            elif _present(item, "sep"):
                item["value"] = token
            else:
                item.update(key=token, sep=[])
            return False
        else:  # should not happen
            yield from self.pop()
            yield from self.pop(token)
        return True

    def attach_to_block_map(self, top: Token, token: Token) -> bool:
        item = top["items"][-1]
        if _present(item, "value"):
            top["items"].append({"start": [], "key": token, "sep": []})
            self.on_key_line = True
            return False
        if _present(item, "sep"):
            item["value"] = token
            return True
        item.update(key=token, sep=[])
        self.on_key_line = not item.get("explicitKey")
        return False

    @staticmethod
    def lift_trailing_blank_item(top: Token, token: Token) -> None:
        """The end of JS `pop`: a closed block collection's last item of only blank lines and
        comments no more indented than it moves up to the parent."""
        if top["type"] not in ("document", "block-map", "block-seq"):
            return
        if token["type"] not in ("block-map", "block-seq") or not token["items"]:
            return
        last = token["items"][-1]
        if (
            not _present(last, "sep")
            and not _present(last, "value")
            and last["start"]
            and find_non_empty_index(last["start"]) == -1
            and (
                token["indent"] == 0
                or all(st["type"] != "comment" or st["indent"] < token["indent"] for st in last["start"])
            )
        ):
            if top["type"] == "document":
                top["end"] = last["start"]
            else:
                top["items"].append({"start": last["start"]})
            del token["items"][-1]

    def stream(self) -> Tokens:
        # JS `stream`
        if self.type == "directive-line":
            yield {"type": "directive", "offset": self.offset, "source": self.source}
            return
        if self.type in ("byte-order-mark", *_BLANK_TYPES):
            yield self.source_token
            return
        if self.type in ("doc-mode", "doc-start"):
            doc: Token = {"type": "document", "offset": self.offset, "start": []}
            if self.type == "doc-start":
                doc["start"].append(self.source_token)
            self.stack.append(doc)
            return
        yield {
            "type": "error",
            "offset": self.offset,
            "message": f"Unexpected {self.type} token in YAML stream",
            "source": self.source,
        }

    def document(self, doc: Token) -> Step:
        # JS `document`
        if _present(doc, "value"):
            return (yield from self.line_end(doc))
        if self.type == "doc-start":
            if find_non_empty_index(doc["start"]) != -1:
                yield from self.pop()
                return True
            doc["start"].append(self.source_token)
            return False
        if self.type in ("anchor", "tag", *_BLANK_TYPES):
            doc["start"].append(self.source_token)
            return False
        value = self.start_block_value(doc)
        if value is not None:
            self.stack.append(value)
        else:
            yield {
                "type": "error",
                "offset": self.offset,
                "message": f"Unexpected {self.type} token in YAML document",
                "source": self.source,
            }
        return False

    def scalar(self, scalar: Token) -> Step:
        # JS `scalar`
        if self.type != "map-value-ind":
            return (yield from self.line_end(scalar))
        parent = self.peek(2)
        start = get_first_key_start_props(get_prev_props(parent)) if parent is not None else []
        if _present(scalar, "end"):
            sep = scalar.pop("end")
            sep.append(self.source_token)
        else:
            sep = [self.source_token]
        self.become_key(scalar, start, sep)
        return False

    def become_key(self, key: Token, start: list[Token], sep: list[Token]) -> None:
        """The node on top of the stack, followed by `:`, is the first key of a new block map."""
        self.on_key_line = True
        self.stack[-1] = {
            "type": "block-map",
            "offset": key["offset"],
            "indent": key["indent"],
            "items": [{"start": start, "key": key, "sep": sep}],
        }

    def block_scalar(self, scalar: Token) -> Step:
        # JS `blockScalar`
        if self.type in _BLANK_TYPES:
            scalar["props"].append(self.source_token)
            return False
        if self.type == "scalar":
            scalar["source"] = self.source
            # block-scalar source includes trailing newline
            self.at_new_line = True
            self.indent = 0
            yield from self.pop()
            return False
        yield from self.pop()  # should not happen
        return True

    def append_after_value(self, items: list[Token], item: Token) -> None:
        """A line break after an item's value: into the value's end after a comment, else a new item."""
        end = item["value"].get("end")
        if isinstance(end, list) and end and end[-1]["type"] == "comment":
            end.append(self.source_token)
        else:
            items.append({"start": [self.source_token]})

    def fold_indented_comment(self, items: list[Token], item: Token, indent: int) -> bool:
        """A comment more indented than its collection, on an item so far blank, belongs to the end of
        the previous item's value: moved there (and the blank item dropped) when it has one."""
        if not self.at_indented_comment(item["start"], indent) or len(items) < 2:
            return False
        value = items[-2].get("value")
        end = value.get("end") if value is not None else None
        if not isinstance(end, list):
            return False
        end.extend(item["start"])
        end.append(self.source_token)
        items.pop()
        return True

    def block_map(self, map_: Token) -> Step:
        # JS `blockMap`
        item = map_["items"][-1]
        if self.type == "newline":
            self.on_key_line = False
            self.add_blank_to_map_item(map_, item)
            return False
        if self.type in ("space", "comment"):
            self.add_blank_to_map_item(map_, item)
            return False
        if self.indent >= map_["indent"] and (yield from self.block_map_indented(map_, item)):
            return False
        yield from self.pop()
        return True

    def add_blank_to_map_item(self, map_: Token, item: Token) -> None:
        # the newline, space and comment cases of JS `blockMap`
        if _present(item, "value"):
            if self.type == "newline":
                self.append_after_value(map_["items"], item)
            else:
                map_["items"].append({"start": [self.source_token]})
        elif _present(item, "sep"):
            item["sep"].append(self.source_token)
        elif self.type == "newline" or not self.fold_indented_comment(map_["items"], item, map_["indent"]):
            item["start"].append(self.source_token)

    def block_map_indented(self, map_: Token, item: Token) -> Step:
        """The JS `blockMap` at or past the map's indent; False to close the map."""
        at_map_indent = not self.on_key_line and self.indent == map_["indent"]
        at_next_item = (
            at_map_indent
            and (_present(item, "sep") or bool(item.get("explicitKey")))
            and self.type != "seq-item-ind"
        )
        # For empty nodes, assign newline-separated not indented empty tokens to following node
        start: list[Token] = []
        if at_next_item and _present(item, "sep") and not _present(item, "value"):
            start = self.empty_node_start(map_, item)
        if self.type in ("anchor", "tag"):
            self.block_map_props(map_, item, at_next_item, start)
        elif self.type == "explicit-key-ind":
            self.block_map_explicit_key(map_, item, at_next_item, start)
        elif self.type == "map-value-ind":
            if item.get("explicitKey"):
                self.block_map_explicit_value(map_, item, start)
            else:
                self.block_map_implicit_value(map_, item, at_next_item, start)
            self.on_key_line = True
        elif self.type in _FLOW_SCALAR_TYPES:
            self.block_map_flow_scalar(map_, item, at_next_item, start)
        else:
            return (yield from self.block_map_block_value(map_, item, at_map_indent, start))
        return True

    @staticmethod
    def empty_node_start(map_: Token, item: Token) -> list[Token]:
        newlines: list[int] = []
        for index, token in enumerate(item["sep"]):
            if token["type"] == "newline":
                newlines.append(index)
            elif token["type"] == "space":
                pass
            elif token["type"] != "comment" or token["indent"] > map_["indent"]:
                newlines.clear()
        if len(newlines) < 2:
            return []
        start: list[Token] = item["sep"][newlines[1] :]
        del item["sep"][newlines[1] :]
        return start

    def block_map_props(self, map_: Token, item: Token, at_next_item: bool, start: list[Token]) -> None:
        # the anchor and tag case of JS `blockMap`
        if at_next_item or _present(item, "value"):
            start.append(self.source_token)
            map_["items"].append({"start": start})
            self.on_key_line = True
        elif _present(item, "sep"):
            item["sep"].append(self.source_token)
        else:
            item["start"].append(self.source_token)

    def block_map_explicit_key(
        self, map_: Token, item: Token, at_next_item: bool, start: list[Token]
    ) -> None:
        # the explicit-key-ind case of JS `blockMap`
        if not _present(item, "sep") and not item.get("explicitKey"):
            item["start"].append(self.source_token)
            item["explicitKey"] = True
        elif at_next_item or _present(item, "value"):
            start.append(self.source_token)
            map_["items"].append({"start": start, "explicitKey": True})
        else:
            self.stack.append(self.new_block_map({"start": [self.source_token], "explicitKey": True}))
        self.on_key_line = True

    def new_block_map(self, item: Token) -> Token:
        return {"type": "block-map", "offset": self.offset, "indent": self.indent, "items": [item]}

    def block_map_explicit_value(self, map_: Token, item: Token, start: list[Token]) -> None:
        # the map-value-ind case of JS `blockMap` after an explicit key
        if not _present(item, "sep"):
            if includes_token(item["start"], "newline"):
                item.update(key=None, sep=[self.source_token])
            else:
                key_start = get_first_key_start_props(item["start"])
                self.stack.append(
                    self.new_block_map({"start": key_start, "key": None, "sep": [self.source_token]})
                )
        elif _present(item, "value"):
            map_["items"].append({"start": [], "key": None, "sep": [self.source_token]})
        elif includes_token(item["sep"], "map-value-ind"):
            self.stack.append(self.new_block_map({"start": start, "key": None, "sep": [self.source_token]}))
        elif is_flow_token(item.get("key")) and not includes_token(item["sep"], "newline"):
            key_start = get_first_key_start_props(item["start"])
            key = item.pop("key")
            sep = item.pop("sep")
            sep.append(self.source_token)
            self.stack.append(self.new_block_map({"start": key_start, "key": key, "sep": sep}))
        elif start:
            # Not actually at next item
            item["sep"] = [*item["sep"], *start, self.source_token]
        else:
            item["sep"].append(self.source_token)

    def block_map_implicit_value(
        self, map_: Token, item: Token, at_next_item: bool, start: list[Token]
    ) -> None:
        # the map-value-ind case of JS `blockMap` without an explicit key
        if not _present(item, "sep"):
            item.update(key=None, sep=[self.source_token])
        elif _present(item, "value") or at_next_item:
            map_["items"].append({"start": start, "key": None, "sep": [self.source_token]})
        elif includes_token(item["sep"], "map-value-ind"):
            self.stack.append(self.new_block_map({"start": [], "key": None, "sep": [self.source_token]}))
        else:
            item["sep"].append(self.source_token)

    def block_map_flow_scalar(self, map_: Token, item: Token, at_next_item: bool, start: list[Token]) -> None:
        # the alias and scalar cases of JS `blockMap`
        scalar = self.flow_scalar(self.type)
        if at_next_item or _present(item, "value"):
            map_["items"].append({"start": start, "key": scalar, "sep": []})
            self.on_key_line = True
        elif _present(item, "sep"):
            self.stack.append(scalar)
        else:
            item.update(key=scalar, sep=[])
            self.on_key_line = True

    def block_map_block_value(
        self, map_: Token, item: Token, at_map_indent: bool, start: list[Token]
    ) -> Step:
        # the default case of JS `blockMap`; False when there is no block value here
        value = self.start_block_value(map_)
        if value is None:
            return False
        if value["type"] == "block-seq":
            if (
                not item.get("explicitKey")
                and _present(item, "sep")
                and not includes_token(item["sep"], "newline")
            ):
                yield from self.pop(
                    {
                        "type": "error",
                        "offset": self.offset,
                        "message": "Unexpected block-seq-ind on same line with key",
                        "source": self.source,
                    }
                )
                return True
        elif at_map_indent:
            map_["items"].append({"start": start})
        self.stack.append(value)
        return True

    def block_sequence(self, seq: Token) -> Step:
        # JS `blockSequence`
        item = seq["items"][-1]
        if self.type == "newline":
            if _present(item, "value"):
                self.append_after_value(seq["items"], item)
            else:
                item["start"].append(self.source_token)
            return False
        if self.type in ("space", "comment"):
            if _present(item, "value"):
                seq["items"].append({"start": [self.source_token]})
            elif not self.fold_indented_comment(seq["items"], item, seq["indent"]):
                item["start"].append(self.source_token)
            return False
        if self.type in ("anchor", "tag"):
            if not _present(item, "value") and self.indent > seq["indent"]:
                item["start"].append(self.source_token)
                return False
        elif self.type == "seq-item-ind" and self.indent == seq["indent"]:
            if _present(item, "value") or includes_token(item["start"], "seq-item-ind"):
                seq["items"].append({"start": [self.source_token]})
            else:
                item["start"].append(self.source_token)
            return False
        if self.indent > seq["indent"]:
            value = self.start_block_value(seq)
            if value is not None:
                self.stack.append(value)
                return False
        yield from self.pop()
        return True

    def flow_collection(self, collection: Token) -> Step:
        # JS `flowCollection`
        if self.type == "flow-error-end":
            while True:
                yield from self.pop()
                top = self.peek(1)
                if top is None or top["type"] != "flow-collection":
                    return False
        if not collection["end"]:
            item = collection["items"][-1] if collection["items"] else None
            if self.add_to_flow_item(collection, item):
                return False
            value = self.start_block_value(collection)
            if value is not None:
                self.stack.append(value)
                return False
            yield from self.pop()  # should not happen
            return True
        return (yield from self.after_flow_collection(collection))

    def add_to_flow_item(self, collection: Token, item: Token | None) -> bool:
        """The switch of JS `flowCollection` while it is open; False for a block value."""
        open_item = item is not None and not _present(item, "value")
        if self.type in ("comma", "explicit-key-ind"):
            if item is not None and not _present(item, "sep"):
                item["start"].append(self.source_token)
            else:
                collection["items"].append({"start": [self.source_token]})
        elif self.type == "map-value-ind":
            self.add_flow_value_ind(collection, item if open_item else None)
        elif self.type in ("anchor", "tag", *_BLANK_TYPES):
            if item is None or not open_item:
                collection["items"].append({"start": [self.source_token]})
            else:
                item["sep" if _present(item, "sep") else "start"].append(self.source_token)
        elif self.type in _FLOW_SCALAR_TYPES:
            self.add_flow_scalar(collection, item if open_item else None)
        elif self.type in ("flow-map-end", "flow-seq-end"):
            collection["end"].append(self.source_token)
        else:
            return False
        return True

    def add_flow_value_ind(self, collection: Token, open_item: Token | None) -> None:
        if open_item is None:
            collection["items"].append({"start": [], "key": None, "sep": [self.source_token]})
        elif _present(open_item, "sep"):
            open_item["sep"].append(self.source_token)
        else:
            open_item.update(key=None, sep=[self.source_token])

    def add_flow_scalar(self, collection: Token, open_item: Token | None) -> None:
        scalar = self.flow_scalar(self.type)
        if open_item is None:
            collection["items"].append({"start": [], "key": scalar, "sep": []})
        elif _present(open_item, "sep"):
            self.stack.append(scalar)
        else:
            open_item.update(key=scalar, sep=[])

    def after_flow_collection(self, collection: Token) -> Step:
        # JS `flowCollection` once it is closed
        parent = self.peek(2)
        assert parent is not None, "a flow collection is always inside a document"
        if parent["type"] == "block-map" and (
            (self.type == "map-value-ind" and parent["indent"] == collection["indent"])
            or (self.type == "newline" and not _present(parent["items"][-1], "sep"))
        ):
            yield from self.pop()
            return True
        if self.type == "map-value-ind" and parent["type"] != "flow-collection":
            start = get_first_key_start_props(get_prev_props(parent))
            fix_flow_seq_items(collection)
            sep = collection["end"][1:]
            del collection["end"][1:]
            sep.append(self.source_token)
            self.become_key(collection, start, sep)
            return False
        return (yield from self.line_end(collection))

    def flow_scalar(self, type_: str) -> Token:
        # JS `flowScalar`
        return {"type": type_, "offset": self.offset, "indent": self.indent, "source": self.source}

    def start_block_value(self, parent: Token) -> Token | None:
        # JS `startBlockValue`
        if self.type in _FLOW_SCALAR_TYPES:
            return self.flow_scalar(self.type)
        if self.type == "block-scalar-header":
            return {
                "type": "block-scalar",
                "offset": self.offset,
                "indent": self.indent,
                "props": [self.source_token],
                "source": "",
            }
        if self.type in ("flow-map-start", "flow-seq-start"):
            return {
                "type": "flow-collection",
                "offset": self.offset,
                "indent": self.indent,
                "start": self.source_token,
                "items": [],
                "end": [],
            }
        if self.type == "seq-item-ind":
            return {
                "type": "block-seq",
                "offset": self.offset,
                "indent": self.indent,
                "items": [{"start": [self.source_token]}],
            }
        if self.type == "explicit-key-ind":
            self.on_key_line = True
            start = get_first_key_start_props(get_prev_props(parent))
            start.append(self.source_token)
            return self.new_block_map({"start": start, "explicitKey": True})
        if self.type == "map-value-ind":
            self.on_key_line = True
            start = get_first_key_start_props(get_prev_props(parent))
            return self.new_block_map({"start": start, "key": None, "sep": [self.source_token]})
        return None

    def at_indented_comment(self, start: list[Token], indent: int) -> bool:
        # JS `atIndentedComment`
        if self.type != "comment" or self.indent <= indent:
            return False
        return all(token["type"] in ("newline", "space") for token in start)

    def document_end(self, doc_end: Token) -> Tokens:
        # JS `documentEnd`
        if self.type != "doc-mode":
            _push_end(doc_end, self.source_token)
            if self.type == "newline":
                yield from self.pop()

    def line_end(self, token: Token) -> Step:
        # JS `lineEnd`
        if self.type in ("comma", "doc-start", "doc-end", "flow-seq-end", "flow-map-end", "map-value-ind"):
            yield from self.pop()
            return True
        if self.type == "newline":
            self.on_key_line = False
        # all other values are errors
        _push_end(token, self.source_token)
        if self.type == "newline":
            yield from self.pop()
        return False
