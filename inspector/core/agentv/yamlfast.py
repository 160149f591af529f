"""A fast reader for the plain shape of eval files, in front of yamltree's event reader.

Nearly every eval file is block mappings and sequences of one-line scalars and `|` blocks. For
those the tree can be read line by line with one regular expression (matched once per distinct
line), about three times faster than libyaml makes its events (each a Python object with two marks)
and the event reader walks them. `read_plain_yaml` builds exactly the tree the event reader builds
(values by the core schema, key order, every line field) or gives up (None) at the first thing it
is not sure of, and the event reader reads the file as before. It never reports an error itself:
an invalid file is always one it gives up on. Core mode only (agentv 4+), the one that is hot.
"""

from __future__ import annotations

import re
from typing import Any

from ..safe_parse import MAX_EXPANDED_NODES
from .yamltree import _CORE_WORDS, _MAYBE_NOT_TEXT, _WORD_STARTS, MAX_DEPTH, Node, core_scalar

# Quoted scalars as written, quotes and all: single-quoted (`''` is a quote) and double-quoted.
_QUOTED = r"'[^']*+(?:''[^']*+)*+'" + r'|"[^"\\]*+(?:\\.[^"\\]*+)*+"'
# A plain scalar inside a flow sequence: as in block context, but ended by `,[]{}` too, and
# holding no `:` at all (libyaml reads `[a:b]` as text but refuses `[a:]`, and `[a: b]` is a
# mapping: not worth telling apart). It starts with none of the indicators, nor with a `-` that
# stands alone (`[-]` is text to libyaml, `[- a]` an error: both left to it).
_FLOW_PLAIN = r"""
    (?:[^-?:,\[\]{}\#&*!|>'"%@`\ ]|-(?=[^\ :,\[\]{}]))
    [^\ :,\[\]{}]*+(?:\ ++(?=[^\ :,\[\]{}\#])[^\ :,\[\]{}]*+)*+"""
_FLOW_ITEM = rf"(?:{_FLOW_PLAIN}|{_QUOTED})"
# A line of block YAML: its indentation (group 1), its sequence entries' dashes (2), a key (3), and
# its value: a plain scalar (4), or a quoted scalar, a block scalar's header or a flow sequence of
# scalars on this line alone (5); then a comment.
_LINE = re.compile(rf"""
    (\ *+)
    ((?:-(?:\ ++|$))*+)
    (?:([A-Za-z_$][A-Za-z0-9_$./-]*+):(?:\ ++|$))?
    (?:
        # A plain scalar: not starting with an indicator (`-` followed by text is no entry),
        # holding no `: ` and no ` #`, and ending before any trailing spaces. (Runs of ordinary
        # characters are matched in one step: a choice per character took twice as long.)
        ((?:[^-?:,\[\]{{}}\#&*!|>'"%@`\ ]|-(?=[^\ ]))
         [^\ :]*+(?:(?::(?=[^\ ])|\ ++(?=[^\ \#]))[^\ :]*+)*+)
      | ({_QUOTED}|[|>][+-]?
         # `[]`, `[a, 'b', "c"]`, `[a, b,]` (libyaml drops one trailing comma; `[a,,b]` and
         # `[,]` it refuses, and so does this)
         |\[\ *+(?:{_FLOW_ITEM}\ *+(?:,\ *+{_FLOW_ITEM}\ *+)*+(?:,\ *+)?)?\])
    )?
    \ *+(?:(?<![^\ ])\#.*)?
""", re.VERBOSE)
# Each item of a flow sequence `_LINE` matched: a plain scalar (group 1) or a quoted one (2). Only
# spaces and commas, which start neither, lie between them.
_FLOW_ITEMS = re.compile(rf"({_FLOW_PLAIN})|({_QUOTED})", re.VERBOSE)
# A longer line is rarely met twice (a value of its own), and keeping its groups would hold a copy
# of it till the end of the read: 10 MB more for a 10 MB file of long values.
_LONGEST_KEPT_LINE = 120
# Outside the printable characters libyaml reads, or a tab, a carriage return, a Unicode line break
# or a byte order mark: left to libyaml, which refuses some and treats others specially.
_NOT_PLAIN_TEXT = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_DOUBLE_QUOTED_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|[0abtnvfre \"/\\N_LP])")
_ESCAPED = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
            "_": "\xa0", "L": "\u2028", "P": "\u2029"}
# First characters of a plain scalar that may be other than its own text or a word of the core
# schema (`null`, `true`...): numbers, `~`, and `<<`, PyYAML's merge key, which the event reader
# leaves to the composer's path.
_NOT_WORD_PLAIN_UNSURE = (_MAYBE_NOT_TEXT - _WORD_STARTS) | {"<"}


class _GiveUp(Exception):
    """The text holds something the fast reader leaves to the event reader."""


def _double_quoted(text: str) -> str:
    def unescape(found: re.Match[str]) -> str:
        code = found.group(1)
        if len(code) == 1:
            return _ESCAPED[code]
        value = int(code[1:], 16)
        if 0xD800 <= value <= 0xDFFF:
            raise _GiveUp  # libyaml refuses a surrogate
        return chr(value)

    value = _DOUBLE_QUOTED_ESCAPE.sub(unescape, text)
    if "\\" in _DOUBLE_QUOTED_ESCAPE.sub("", text):
        raise _GiveUp  # an escape libyaml may read otherwise, or refuse
    return value


def _folded(lines: list[str], indent: int, literal: bool) -> tuple[str, str, int]:
    """A block scalar's text before chomping, its final line break ('' or '\\n') and the number of
    empty lines after its last line of text, as libyaml's scan_block_scalar joins them."""
    parts: list[str] = []
    leading_break = ""
    trailing_breaks = 0
    leading_blank = False
    for line in lines:
        if len(line) <= indent:
            trailing_breaks += 1
            continue
        text = line[indent:]
        trailing_blank = text[0] == " "
        if not literal and leading_break and not leading_blank and not trailing_blank:
            if not trailing_breaks:
                parts.append(" ")
        else:
            parts.append(leading_break)
        parts.append("\n" * trailing_breaks)
        trailing_breaks = 0
        leading_blank = trailing_blank
        parts.append(text)
        leading_break = "\n"
    return "".join(parts), leading_break, trailing_breaks


def read_plain_yaml(text: str) -> Node | None:
    """The tree of `text` read by the core schema, as yamltree's event reader builds it, or None
    when the text holds anything but block collections of one-line scalars and block scalars."""
    if not text or text.startswith(("---", "...")) or "\n---" in text or "\n..." in text:
        return None
    # (An ASCII text's test in C, without a step of the regular expression per character.)
    if not (text.replace("\n", "").isprintable() if text.isascii()
            else _NOT_PLAIN_TEXT.search(text) is None):
        return None
    ends_with_break = text.endswith("\n")
    if not ends_with_break:
        text += "\n"
    # Each `-` or `:` opens at most a collection and a null, each line holds at most one other
    # value or flow sequence: at most half MAX_EXPANDED_NODES, which the event reader refuses to
    # pass. (_read counts the items of flow sequences, the other half.)
    if len(text) > MAX_EXPANDED_NODES // 4 \
            and text.count("-") + text.count(":") + text.count("\n") > MAX_EXPANDED_NODES // 4:
        return None
    try:
        return _read(text, ends_with_break)
    except _GiveUp:
        return None


def _read(text: str, ends_with_break: bool) -> Node:
    # Each open collection: [its indentation, its dict or list, its first line, the key whose value
    # is awaited (None: none; "" in a list: an entry), the line of that key or entry, whether it is
    # a sequence indented no further than its mapping]. At the bottom, the document: a list
    # awaiting its root.
    document: list[Any] = [-1, [], 0, "", 0, False]
    stack = [document]
    top = document
    lines = text.split("\n")
    lines.pop()  # the text after its last line break
    # Each line's groups by its text: the lines that open a case, a message or a content block
    # come back again and again (`  - role: user`), and are matched once.
    rows: dict[str, tuple[str, ...]] = {}
    match_line = _LINE.fullmatch
    node_of, core_words, unsure, mapping = Node, _CORE_WORDS, _NOT_WORD_PLAIN_UNSURE, dict
    numbered = enumerate(lines, 1)
    # The items of flow sequences so far: counted as they are read, which costs the files that hold
    # none nothing (counting `,` in the text beforehand cost a 1,000-case suite 2%).
    flow_items = 0
    for line, text_of_line in numbered:
        row = rows.get(text_of_line)
        if row is None:
            row = _groups(match_line(text_of_line))
            if len(text_of_line) < _LONGEST_KEPT_LINE:
                rows[text_of_line] = row
        indent, dashes, key, plain, other = row
        if not key and not dashes:
            if plain or other:
                raise _GiveUp  # a scalar on its own line: the root, or the rest of a plain scalar
            continue  # blank, or a comment
        column = len(indent)
        while top[0] > column:  # close what the line is outside of
            top = _close(stack)
        # The key or entry ("") whose value follows. A key next to the last one is most lines.
        if not dashes and top[0] == column and top[3] is None and type(top[1]) is mapping:
            if key in top[1] or key in core_words:
                raise _GiveUp  # a repeated key, or one the core schema reads as no text
            awaited = key
        else:
            top, awaited = _awaiting(stack, top, column, dashes, key, line)
        if plain:
            node = node_of(_plain_value(plain) if plain[0] in unsure
                           else core_words.get(plain, plain), line, line, line)
        elif not other:  # the value comes on the next lines, or is null
            top[3], top[4] = awaited, line
            continue
        elif other[0] in "|>":
            node = _block_scalar(lines, line, other, top[0], ends_with_break)
            for _ in range(node.end_line - line):  # its lines
                next(numbered)
        elif other[0] == "[":
            if len(stack) > MAX_DEPTH:
                raise _GiveUp  # nested deep: the event reader applies the limit (_open)
            node = _flow_sequence(other, line)
            flow_items += len(node.value)
            if flow_items > MAX_EXPANDED_NODES // 2:
                raise _GiveUp  # maybe more values than the event reader reads
        else:
            node = node_of(_quoted(other), line, line, line)
        # _place, written out: it runs once a line, and the common path never put `awaited` in
        # top[3].
        if awaited == "":
            top[1].append(node)
        else:
            top[1][awaited] = node
        top[3] = None
    while top is not document:
        top = _close(stack)
    if len(document[1]) != 1:
        raise _GiveUp  # an empty document
    root: Node = document[1][0]
    return root


def _groups(found: re.Match[str] | None) -> tuple[str, ...]:
    if found is None:
        raise _GiveUp  # not a line of a block collection
    return found.groups("")


def _plain_value(text: str) -> Any:
    if text == "<<":
        raise _GiveUp  # PyYAML's merge key, which the event reader leaves to the composer's path
    return core_scalar(text)


def _flow_sequence(written: str, line: int) -> Node:
    """A flow sequence of scalars on line `line`, as written from its `[` to its `]`. It and its
    items start and end on that line, as libyaml's marks put them."""
    items = []
    for plain, quoted in _FLOW_ITEMS.findall(written, 1, len(written) - 1):
        if plain:
            value = _plain_value(plain) if plain[0] in _NOT_WORD_PLAIN_UNSURE \
                else _CORE_WORDS.get(plain, plain)
        else:
            value = _quoted(quoted)
        items.append(Node(value, line, line, line))
    return Node(items, line, line, line)


def _quoted(written: str) -> str:
    """A quoted scalar's text from the scalar as written, quotes and all."""
    text = written[1:-1]
    if written[0] == "'":
        return text.replace("''", "'")
    return _double_quoted(text) if "\\" in text else text


def _awaiting(stack: list[list[Any]], top: list[Any], column: int, dashes: str, key: str,
              line: int) -> tuple[list[Any], str]:
    """The collection a line's dashes and key (the first at `column`) open or add to, and the key
    or entry ("") in it whose value the line holds."""
    if dashes == "- " and top[0] == column and top[3] is None and type(top[1]) is list:
        # An entry next to the last one (most lines but the keys).
        if not key:
            return top, ""
        if key in _CORE_WORDS or len(stack) > MAX_DEPTH:
            raise _GiveUp  # a key the core schema reads as no text; nested too deep (_open)
        top[3], top[4] = "", line
        top = [column + 2, {}, line, key, line, False]
        stack.append(top)
        return top, key
    for spaces in dashes.split("-")[1:]:
        top = _entry(stack, top, column, line)
        column += 1 + len(spaces)
    if key:
        top = _key(stack, top, column, key, line)
    return top, top[3]


def _block_scalar(lines: list[str], header_line: int, header: str, parent_indent: int,
                  ends_with_break: bool) -> Node:
    """The block scalar whose header (`|`, `>-`...) ends line `header_line`."""
    count = len(lines)
    first = header_line  # the index of the line after the header
    while first < count and not lines[first]:
        first += 1
    if first == count:
        raise _GiveUp  # no text
    indent = len(lines[first]) - len(lines[first].lstrip(" "))
    if indent == len(lines[first]) or indent <= parent_indent:
        # Blank lines holding spaces before its text (libyaml may take its indentation from
        # them), or a line outside it: an empty block scalar.
        raise _GiveUp
    end = first + 1
    margin = " " * indent
    while end < count:  # its lines: those indented as far as its first, and blank ones
        text = lines[end]
        if not text.startswith(margin) and text.strip(" "):
            break
        end += 1
    block = lines[header_line:end]
    if header[0] == "|" and len(block[-1]) > indent:  # literal, with no blank lines after it
        body = "\n".join([row[indent:] for row in block])
        last_break, trailing_breaks = "\n", 0
    else:
        body, last_break, trailing_breaks = _folded(block, indent, header[0] == "|")
    if end == count and not ends_with_break:
        # The text ends on its last line, with no line break to keep.
        if len(block[-1]) <= indent:
            raise _GiveUp
        last_break = ""
    chomping = header[1:]
    if chomping != "-":
        body += last_break
        if chomping == "+":
            body += "\n" * trailing_breaks
    # Its last line is the last blank one after its text: libyaml's end mark follows them.
    return Node(body, header_line, end, header_line + 1)


def _entry(stack: list[list[Any]], top: list[Any], column: int, line: int) -> list[Any]:
    """The sequence that a `-` at `column` adds an entry to, awaiting its value."""
    if top[0] == column and type(top[1]) is list:
        _null_awaited(top)
        top[3], top[4] = "", line
        return top
    if top[3] is None or top[0] > column:
        raise _GiveUp  # no value awaited here
    # A sequence as the awaited value; at a mapping's own indentation, the awaited key's value.
    return _open(stack, [column, [], line, "", line, top[0] == column])


def _key(stack: list[list[Any]], top: list[Any], column: int, key: str, line: int
         ) -> list[Any]:
    """The mapping that a key at `column` is added to, awaiting its value."""
    if top[0] == column:
        if top[5]:  # a key after a sequence at its mapping's indentation closes it
            top = _close(stack)
        if type(top[1]) is not dict:
            raise _GiveUp
        _null_awaited(top)
    elif top[3] is None or top[0] > column:
        raise _GiveUp  # no value awaited here
    else:
        top = _open(stack, [column, {}, line, None, line, False])
    if key in top[1] or key in _CORE_WORDS:
        raise _GiveUp  # a repeated key, or one the core schema reads as null or a boolean
    top[3], top[4] = key, line
    return top


def _open(stack: list[list[Any]], collection: list[Any]) -> list[Any]:
    if len(stack) > MAX_DEPTH:
        raise _GiveUp  # nested deep: the event reader applies the limit
    stack.append(collection)
    return collection


def _close(stack: list[list[Any]]) -> list[Any]:
    """Close the innermost collection, placing it as its parent's awaited value; the parent."""
    closed = stack.pop()
    if closed[3] is not None:
        _null_awaited(closed)
    start = closed[2]
    value = closed[1]
    # It ends where its last value ends (a collection holds one at least).
    last = value[-1] if type(value) is list else value[next(reversed(value))]
    top = stack[-1]
    _place(top, Node(value, start, last.end_line, start))
    return top


def _null_awaited(top: list[Any]) -> None:
    """The awaited value of `top` is null: its key or entry is followed by no value."""
    if top[3] is not None:
        line = top[4]
        _place(top, Node(None, line, line, line))


def _place(top: list[Any], node: Node) -> None:
    """`node` as the value `top` awaits: its next entry ("") or its awaited key's value."""
    awaited = top[3]
    if awaited == "":
        top[1].append(node)
    else:
        top[1][awaited] = node
    top[3] = None
