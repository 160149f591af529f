"""yaml 2.8.3 `dist/parse/lexer.js`: splits a YAML stream into lexical tokens (`lex`).

Lexing starts in a "stream" context. Besides slices of the source, the Lexer emits the control
characters of cst.py: DOCUMENT (a document starts with the next token), FLOW_END (unexpected end of
flow mode, an error), SCALAR (the next token is a scalar value) and BOM (outside documents).

Where the JS reads `buffer[i]` past either end it gets `undefined`; the port reads "" there
(`_Lexer.at`), so "no character" stays distinct from every real one. The JS recurses on itself for
each indicator on a line (`parseBlockStart`, `pushIndicators`); the port loops instead, so a long line
of `- - - …` cannot exhaust Python's stack.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterator

from .cst import BOM, DOCUMENT, FLOW_END, SCALAR

Lexemes = Generator[str, None, int]
"""Yields lexemes, returns how many characters it consumed."""
State = Generator[str, None, str]
"""Yields lexemes, returns the next state."""

_EMPTY = frozenset(("", " ", "\n", "\r", "\t"))
_HEX_DIGITS = frozenset("0123456789ABCDEFabcdef")
_TAG_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-#;/?:@&=+$_.!~*'()")
_FLOW_INDICATOR_CHARS = frozenset(",[]{}")
_INVALID_ANCHOR_CHARS = frozenset(" ,[]{}\n\r\t")
# Runs the JS steps over one character at a time, matched at once: spaces (and tabs), and the
# characters of a plain scalar that only move its end (not `:`, a space or line break, or, in a flow
# collection, a flow indicator).
_SPACES = re.compile(r" *")
_SPACES_AND_TABS = re.compile(r"[ \t]*")
_PLAIN_RUN = re.compile(r"[^: \n\r\t]+")
_PLAIN_RUN_IN_FLOW = re.compile(r"[^: \n\r\t,\[\]{}]+")


def is_empty(ch: str) -> bool:
    """JS `isEmpty`: no character, or a space, tab or line break."""
    return ch in _EMPTY


def _is_not_anchor_char(ch: str) -> bool:
    # JS `isNotAnchorChar`
    return not ch or ch in _INVALID_ANCHOR_CHARS


def _ends_block_scalar_header(ch: str) -> bool:
    # the test `parseBlockScalarHeader` passes to `pushUntil`
    return is_empty(ch) or ch == "#"


def lex(source: str) -> Iterator[str]:
    """The lexemes of `source`, read as complete input (JS `Lexer.lex(source)`)."""
    return _Lexer(source).lex()


class _Lexer:
    """JS `class Lexer`, for one complete source (`atEnd` is always true)."""

    def __init__(self, source: str) -> None:
        # Explicit indent set in a block scalar header, as an offset from the current minimum
        # indent (1 from a header `|2+`); -1 if not set.
        self.block_scalar_indent = -1
        # A `+` (keep) chomping indicator keeps a block scalar's trailing empty lines.
        self.block_scalar_keep = False
        self.buffer = source
        self.length = len(source)
        # Whether the map value indicator `:` can immediately follow this node in a flow context.
        self.flow_key = False
        self.flow_level = 0
        # Minimum indentation for next lines to be part of the current scalar value.
        self.indent_next = 0
        self.indent_value = 0
        self.line_end_pos: int | None = None
        self.pos = 0
        self.states: dict[str, Callable[[], State]] = {
            "stream": self.parse_stream,
            "line-start": self.parse_line_start,
            "block-start": self.parse_block_start,
            "doc": self.parse_document,
            "flow": self.parse_flow_collection,
            "quoted-scalar": self.parse_quoted_scalar,
            "block-scalar": self.parse_block_scalar,
            "plain-scalar": self.parse_plain_scalar,
        }

    def lex(self) -> Iterator[str]:
        # JS `lex`
        state = "stream"
        while self.has_chars(1):
            state = yield from self.states[state]()

    def at(self, index: int) -> str:
        """`buffer[index]`, "" where the JS reads `undefined` (past either end)."""
        return self.buffer[index] if 0 <= index < self.length else ""

    def at_line_end(self) -> bool:
        # JS `atLineEnd`
        i = self.pos
        ch = self.at(i)
        while ch in (" ", "\t"):
            i += 1
            ch = self.at(i)
        if not ch or ch in ("#", "\n"):
            return True
        if ch == "\r":
            return self.at(i + 1) == "\n"
        return False

    def char_at(self, n: int) -> str:
        return self.at(self.pos + n)

    def continue_scalar(self, offset: int) -> int:
        # JS `continueScalar`
        ch = self.at(offset)
        if self.indent_next > 0:
            indent = 0
            while ch == " ":
                indent += 1
                ch = self.at(indent + offset)
            if ch == "\r" and self.at(indent + offset + 1) == "\n":
                return offset + indent + 1
            return offset + indent if ch == "\n" or indent >= self.indent_next else -1
        if ch in ("-", "."):
            marker = self.buffer[offset : offset + 3]
            if marker in ("---", "...") and is_empty(self.at(offset + 3)):
                return -1
        return offset

    def get_line(self) -> str:
        # JS `getLine`
        end = self.line_end_pos
        if end is None or (end != -1 and end < self.pos):
            end = self.buffer.find("\n", self.pos)
            self.line_end_pos = end
        if end == -1:
            return self.buffer[self.pos :]
        if self.at(end - 1) == "\r":
            end -= 1
        # JS `substring` swaps reversed bounds
        return self.buffer[min(self.pos, end) : max(self.pos, end)]

    def has_chars(self, n: int) -> bool:
        return self.pos + n <= self.length

    def peek(self, n: int) -> str:
        return self.buffer[self.pos : self.pos + n]

    def parse_stream(self) -> State:
        # JS `parseStream`
        line = self.get_line()
        if line[:1] == BOM:
            yield from self.push_count(1)
            line = line[1:]
        if line[:1] == "%":
            yield from self.push_directive(line)
            return "stream"
        if self.at_line_end():
            spaces = yield from self.push_spaces(True)
            yield from self.push_count(len(line) - spaces)
            yield from self.push_newline()
            return "stream"
        yield DOCUMENT
        return (yield from self.parse_line_start())

    def push_directive(self, line: str) -> Lexemes:
        # the directive branch of JS `parseStream`
        directive_end = len(line)
        comment_start = line.find("#")
        while comment_start != -1:
            if line[comment_start - 1] in (" ", "\t"):
                directive_end = comment_start - 1
                break
            comment_start = line.find("#", comment_start + 1)
        while directive_end > 0 and line[directive_end - 1] in (" ", "\t"):
            directive_end -= 1
        n = (yield from self.push_count(directive_end)) + (yield from self.push_spaces(True))
        yield from self.push_count(len(line) - n)  # possible comment
        # The JS calls `this.pushNewline()` here without `yield*`, which does nothing: the line
        # break is pushed by the next `parseStream`.
        return n

    def parse_line_start(self) -> State:
        # JS `parseLineStart`
        if self.char_at(0) in ("-", "."):
            marker = self.peek(3)
            if marker in ("---", "...") and is_empty(self.char_at(3)):
                yield from self.push_count(3)
                self.indent_value = 0
                self.indent_next = 0
                return "doc" if marker == "---" else "stream"
        self.indent_value = yield from self.push_spaces(False)
        if self.indent_next > self.indent_value and not self.is_empty_after_first():
            self.indent_next = self.indent_value
        return (yield from self.parse_block_start())

    def is_empty_after_first(self) -> bool:
        """JS `isEmpty(this.charAt(1))`: after a character beyond the BMP, the JS reads the second
        half of its surrogate pair there, never empty."""
        first = self.char_at(0)
        return (not first or ord(first) <= 0xFFFF) and is_empty(self.char_at(1))

    def parse_block_start(self) -> State:
        # JS `parseBlockStart`, its recursion once per indicator made a loop
        while self.char_at(0) in ("-", "?", ":") and is_empty(self.char_at(1)):
            n = (yield from self.push_count(1)) + (yield from self.push_spaces(True))
            self.indent_next = self.indent_value + 1
            self.indent_value += n
        return "doc"

    def parse_document(self) -> State:
        # JS `parseDocument`
        yield from self.push_spaces(True)
        line = self.get_line()
        n = yield from self.push_indicators()
        ch = line[n : n + 1]
        if ch == "#":
            yield from self.push_count(len(line) - n)
            ch = ""
        if not ch:
            yield from self.push_newline()
            return (yield from self.parse_line_start())
        if ch in ("{", "["):
            yield from self.push_count(1)
            self.flow_key = False
            self.flow_level = 1
            return "flow"
        if ch in ("}", "]"):  # this is an error
            yield from self.push_count(1)
            return "doc"
        if ch == "*":
            yield from self.push_until(_is_not_anchor_char)
            return "doc"
        if ch in ('"', "'"):
            return (yield from self.parse_quoted_scalar())
        if ch in ("|", ">"):
            n += yield from self.parse_block_scalar_header()
            n += yield from self.push_spaces(True)
            yield from self.push_count(len(line) - n)
            yield from self.push_newline()
            return (yield from self.parse_block_scalar())
        return (yield from self.parse_plain_scalar())

    def parse_flow_collection(self) -> State:
        # JS `parseFlowCollection`
        indent = yield from self.push_flow_line_starts()
        line = self.get_line()
        if self.flow_ends_unindented(indent, line):
            # this is an error
            self.flow_level = 0
            yield FLOW_END
            return (yield from self.parse_line_start())
        n = 0
        while line[n : n + 1] == ",":
            n += yield from self.push_count(1)
            n += yield from self.push_spaces(True)
            self.flow_key = False
        n += yield from self.push_indicators()
        return (yield from self.parse_flow_item(line[n : n + 1], line, n))

    def push_flow_line_starts(self) -> Lexemes:
        """The line breaks and spaces before a flow item; returns the last line's indent or -1."""
        indent = -1
        while True:
            newline = yield from self.push_newline()
            spaces = 0
            if newline > 0:
                spaces = yield from self.push_spaces(False)
                self.indent_value = indent = spaces
            spaces += yield from self.push_spaces(True)
            if newline + spaces <= 0:
                return indent

    def flow_ends_unindented(self, indent: int, line: str) -> bool:
        # the error test of JS `parseFlowCollection`
        if (indent != -1 and indent < self.indent_next and line[:1] != "#") or (
            indent == 0 and line[:3] in ("---", "...") and is_empty(line[3:4])
        ):
            # Allowing for the terminal ] or } at the same (rather than greater) indent level as
            # the initial [ or { is technically invalid, but failing here would be surprising.
            at_flow_end_marker = (
                indent == self.indent_next - 1 and self.flow_level == 1 and line[:1] in ("]", "}")
            )
            return not at_flow_end_marker
        return False

    def parse_flow_item(self, ch: str, line: str, n: int) -> State:
        # the switch of JS `parseFlowCollection`
        if not ch:
            return "flow"
        if ch == "#":
            yield from self.push_count(len(line) - n)
            return "flow"
        if ch in ("{", "["):
            yield from self.push_count(1)
            self.flow_key = False
            self.flow_level += 1
            return "flow"
        if ch in ("}", "]"):
            yield from self.push_count(1)
            self.flow_key = True
            self.flow_level -= 1
            return "flow" if self.flow_level else "doc"
        if ch == "*":
            yield from self.push_until(_is_not_anchor_char)
            return "flow"
        if ch in ('"', "'"):
            self.flow_key = True
            return (yield from self.parse_quoted_scalar())
        if ch == ":":
            following = self.char_at(1)
            if self.flow_key or is_empty(following) or following == ",":
                self.flow_key = False
                yield from self.push_count(1)
                yield from self.push_spaces(True)
                return "flow"
        self.flow_key = False
        return (yield from self.parse_plain_scalar())

    def parse_quoted_scalar(self) -> State:
        # JS `parseQuotedScalar`
        end = self.quoted_scalar_end()
        # Only looking for newlines within the quotes (the JS cuts `qb = buffer.substring(0, end)`;
        # `find`'s bound does the same without a copy)
        within = max(end, 0)
        newline = self.buffer.find("\n", self.pos, within)
        while newline != -1:
            continued = self.continue_scalar(newline + 1)
            if continued == -1:
                # this is an error caused by an unexpected unindent
                end = newline - (2 if self.at(newline - 1) == "\r" else 1)
                break
            newline = self.buffer.find("\n", continued, within)
        if end == -1:
            end = len(self.buffer)
        yield from self.push_to_index(end + 1, False)
        return "flow" if self.flow_level else "doc"

    def quoted_scalar_end(self) -> int:
        """The index of the closing quote, or -1."""
        quote = self.char_at(0)
        end = self.buffer.find(quote, self.pos + 1)
        if quote == "'":
            while end != -1 and self.at(end + 1) == "'":
                end = self.buffer.find("'", end + 2)
            return end
        while end != -1:
            backslashes = 0
            while self.at(end - 1 - backslashes) == "\\":
                backslashes += 1
            if backslashes % 2 == 0:
                break
            end = self.buffer.find('"', end + 1)
        return end

    def parse_block_scalar_header(self) -> Lexemes:
        # JS `parseBlockScalarHeader`
        self.block_scalar_indent = -1
        self.block_scalar_keep = False
        i = self.pos
        while True:
            i += 1
            ch = self.at(i)
            if ch == "+":
                self.block_scalar_keep = True
            elif "0" < ch <= "9":
                self.block_scalar_indent = int(ch) - 1
            elif ch != "-":
                break
        return (yield from self.push_until(_ends_block_scalar_header))

    def parse_block_scalar(self) -> State:
        # JS `parseBlockScalar`
        newline, indent = self.block_scalar_first_indent()
        if indent >= self.indent_next:
            if self.block_scalar_indent == -1:
                self.indent_next = indent
            else:
                self.indent_next = self.block_scalar_indent + (self.indent_next or 1)
            while True:
                continued = self.continue_scalar(newline + 1)
                if continued == -1:
                    break
                newline = self.buffer.find("\n", continued)
                if newline == -1:
                    break
            if newline == -1:
                newline = len(self.buffer)
        newline = self.block_scalar_last_newline(newline, indent)
        yield SCALAR
        yield from self.push_to_index(newline + 1, True)
        return (yield from self.parse_line_start())

    def block_scalar_first_indent(self) -> tuple[int, int]:
        """The last line break before the block scalar's first content, and that line's indent."""
        newline = self.pos - 1  # may be -1 if pos is 0
        indent = 0
        i = self.pos
        while ch := self.at(i):
            if ch == " ":
                indent += 1
            elif ch == "\n":
                newline = i
                indent = 0
            elif ch != "\r" or self.at(i + 1) != "\n":
                break
            i += 1
        return newline, indent

    def block_scalar_last_newline(self, newline: int, indent: int) -> int:
        """Where the block scalar ends: trailing tabs kept, trailing empty lines dropped unless `+`."""
        i = newline + 1
        ch = self.at(i)
        while ch == " ":
            i += 1
            ch = self.at(i)
        if ch == "\t":
            # Trailing insufficiently indented tabs are invalid. To catch that during parsing,
            # they are included in the block scalar value.
            while ch in ("\t", " ", "\r", "\n"):
                i += 1
                ch = self.at(i)
            return i - 1
        if self.block_scalar_keep:
            return newline
        while True:
            i = newline - 1
            ch = self.at(i)
            if ch == "\r":
                i -= 1
                ch = self.at(i)
            last_char = i  # Drop the line if last char not more indented
            while ch == " ":
                i -= 1
                ch = self.at(i)
            if ch == "\n" and i >= self.pos and i + 1 + indent > last_char:
                newline = i
            else:
                return newline

    def parse_plain_scalar(self) -> State:
        # JS `parsePlainScalar`
        in_flow = self.flow_level > 0
        plain_run = _PLAIN_RUN_IN_FLOW if in_flow else _PLAIN_RUN
        end = self.pos - 1
        i = self.pos - 1
        while ch := self.at(i + 1):
            i += 1
            if run := plain_run.match(self.buffer, i):
                i = end = run.end() - 1
            elif ch == ":":
                following = self.at(i + 1)
                if is_empty(following) or (in_flow and following in _FLOW_INDICATOR_CHARS):
                    break
                end = i
            elif is_empty(ch):
                i, end, stop = self.plain_scalar_space(ch, i, end, in_flow)
                if stop:
                    break
            else:
                if in_flow and ch in _FLOW_INDICATOR_CHARS:
                    break
                end = i
        yield SCALAR
        yield from self.push_to_index(end + 1, True)
        return "flow" if in_flow else "doc"

    def plain_scalar_space(self, ch: str, i: int, end: int, in_flow: bool) -> tuple[int, int, bool]:
        """A space or line break in a plain scalar: the new index and end, and whether it stops."""
        following = self.at(i + 1)
        if ch == "\r":
            if following == "\n":
                i += 1
                ch = "\n"
                following = self.at(i + 1)
            else:
                end = i
        if following == "#" or (in_flow and following in _FLOW_INDICATOR_CHARS):
            return i, end, True
        if ch == "\n":
            continued = self.continue_scalar(i + 1)
            if continued == -1:
                return i, end, True
            i = max(i, continued - 2)  # to advance, but still account for ' #'
        return i, end, False

    def push_count(self, n: int) -> Lexemes:
        # JS `pushCount`
        if n > 0:
            yield self.buffer[self.pos : self.pos + n]
            self.pos += n
            return n
        return 0

    def push_to_index(self, i: int, allow_empty: bool) -> Lexemes:
        # JS `pushToIndex`
        lexeme = self.buffer[self.pos : i]
        if lexeme:
            yield lexeme
            self.pos += len(lexeme)
            return len(lexeme)
        if allow_empty:
            yield ""
        return 0

    def push_indicators(self) -> Lexemes:
        # JS `pushIndicators`, its recursion once per indicator made a loop
        pushed = 0
        while True:
            ch = self.char_at(0)
            if ch == "!":
                pushed += yield from self.push_tag()
            elif ch == "&":
                pushed += yield from self.push_until(_is_not_anchor_char)
            elif ch in ("-", "?", ":") and self.is_indicator_here():
                # `-` is an error here, and `?` outside flow collections
                if not self.flow_level:
                    self.indent_next = self.indent_value + 1
                elif self.flow_key:
                    self.flow_key = False
                pushed += yield from self.push_count(1)
            else:
                return pushed
            pushed += yield from self.push_spaces(True)

    def is_indicator_here(self) -> bool:
        following = self.char_at(1)
        return is_empty(following) or (self.flow_level > 0 and following in _FLOW_INDICATOR_CHARS)

    def push_tag(self) -> Lexemes:
        # JS `pushTag`
        if self.char_at(1) == "<":
            i = self.pos + 2
            ch = self.at(i)
            while not is_empty(ch) and ch != ">":
                i += 1
                ch = self.at(i)
            return (yield from self.push_to_index(i + 1 if ch == ">" else i, False))
        i = self.pos + 1
        ch = self.at(i)
        while ch:
            if ch in _TAG_CHARS:
                i += 1
            elif ch == "%" and self.at(i + 1) in _HEX_DIGITS and self.at(i + 2) in _HEX_DIGITS:
                i += 3
            else:
                break
            ch = self.at(i)
        return (yield from self.push_to_index(i, False))

    def push_newline(self) -> Lexemes:
        # JS `pushNewline`
        ch = self.at(self.pos)
        if ch == "\n":
            return (yield from self.push_count(1))
        if ch == "\r" and self.char_at(1) == "\n":
            return (yield from self.push_count(2))
        return 0

    def push_spaces(self, allow_tabs: bool) -> Lexemes:
        # JS `pushSpaces`
        i = (_SPACES_AND_TABS if allow_tabs else _SPACES).match(self.buffer, self.pos).end()  # type: ignore[union-attr]
        n = i - self.pos
        if n > 0:
            yield self.buffer[self.pos : i]
            self.pos = i
        return n

    def push_until(self, test: Callable[[str], bool]) -> Lexemes:
        # JS `pushUntil`
        i = self.pos
        ch = self.at(i)
        while not test(ch):
            i += 1
            ch = self.at(i)
        return (yield from self.push_to_index(i, False))
