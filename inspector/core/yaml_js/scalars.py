"""yaml 2.8.3's scalar values and the errors found reading them: compose/resolve-flow-scalar.js and
compose/resolve-block-scalar.js. Offsets are Python str indexes, like the tokens' (see compose.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .nodes import JsError, OnError, Token

# onError at an offset within the scalar (resolveFlowScalar's _onError)
RelativeError = Callable[[int, str, str], None]

PLAIN = "PLAIN"
QUOTE_SINGLE = "QUOTE_SINGLE"
QUOTE_DOUBLE = "QUOTE_DOUBLE"
BLOCK_FOLDED = "BLOCK_FOLDED"
BLOCK_LITERAL = "BLOCK_LITERAL"


@dataclass
class ScalarValue:
    value: str
    type: str | None
    comment: str
    range: list[int]


def resolve_end(end: list[Token] | None, offset: int, req_space: bool, on_error: OnError) -> tuple[str, int]:
    """resolveEnd (compose/resolve-end.js): a node's trailing comment and where it ends."""
    comment = ""
    has_space = False
    sep = ""
    for token in end or []:
        source, kind = token["source"], token["type"]
        if kind == "space":
            has_space = True
        elif kind == "comment":
            if req_space and not has_space:
                message = "Comments must be separated from other tokens by white space characters"
                on_error(token, "MISSING_CHAR", message)
            text = source[1:] or " "
            comment = text if not comment else comment + sep + text
            sep = ""
        elif kind == "newline":
            if comment:
                sep += source
            has_space = True
        else:
            on_error(token, "UNEXPECTED_TOKEN", f"Unexpected {kind} at node end")
        offset += len(source)
    return comment, offset


def resolve_flow_scalar(scalar: Token, strict: bool, on_error: OnError) -> ScalarValue:
    """resolveFlowScalar."""
    offset, kind, source = scalar["offset"], scalar["type"], scalar["source"]

    def relative(rel: int, code: str, message: str) -> None:
        on_error(offset + rel, code, message)

    if kind == "scalar":
        scalar_type, value = PLAIN, plain_value(source, relative)
    elif kind == "single-quoted-scalar":
        scalar_type, value = QUOTE_SINGLE, single_quoted_value(source, relative)
    elif kind == "double-quoted-scalar":
        scalar_type, value = QUOTE_DOUBLE, double_quoted_value(source, relative)
    else:
        on_error(scalar, "UNEXPECTED_TOKEN", f"Expected a flow scalar value, but found: {kind}")
        end = offset + len(source)
        return ScalarValue("", None, "", [offset, end, end])
    value_end = offset + len(source)
    comment, end_offset = resolve_end(scalar.get("end"), value_end, strict, on_error)
    return ScalarValue(value, scalar_type, comment, [offset, value_end, end_offset])


BAD_PLAIN_START = {
    "\t": "a tab character",
    ",": "flow indicator character ,",
    "%": "directive indicator character %",
    "|": "block scalar indicator |",
    ">": "block scalar indicator >",
    "@": "reserved character @",
    "`": "reserved character `",
}


def plain_value(source: str, on_error: RelativeError) -> str:
    """plainValue."""
    bad = BAD_PLAIN_START.get(source[:1])
    if bad:
        on_error(0, "BAD_SCALAR_START", f"Plain value cannot start with {bad}")
    return fold_lines(source)


def single_quoted_value(source: str, on_error: RelativeError) -> str:
    """singleQuotedValue."""
    if source[-1:] != "'" or len(source) == 1:
        on_error(len(source), "MISSING_CHAR", "Missing closing 'quote")
    return fold_lines(source[1:-1]).replace("''", "'")


FIRST_LINE = re.compile(r"(.*?)(?<![ \t])[ \t]*\r?\n", re.S)
NEXT_LINE = re.compile(r"[ \t]*(.*?)(?:(?<![ \t])[ \t]*)?\r?\n", re.S)
LAST_LINE = re.compile(r"[ \t]*(.*)", re.S)


def fold_lines(source: str) -> str:
    """foldLines: a flow scalar's lines folded (a line break a space, blank lines line breaks)."""
    match = FIRST_LINE.match(source)
    if not match:
        return source
    result = match.group(1)
    sep = " "
    pos = match.end()
    while match := NEXT_LINE.match(source, pos):
        if match.group(1) == "":
            if sep == "\n":
                result += sep
            else:
                sep = "\n"
        else:
            result += sep + match.group(1)
            sep = " "
        pos = match.end()
    last = LAST_LINE.match(source, pos)
    return result + sep + (last.group(1) if last else "")


ESCAPE_CODES = {
    "0": "\0",
    "a": "\x07",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "N": "\u0085",
    "_": "\u00a0",
    "L": "\u2028",
    "P": "\u2029",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "\t": "\t",
}
CODE_LENGTHS = {"x": 2, "u": 4, "U": 8}


def _at(source: str, index: int) -> str:
    """source[index] as JS reads it: "" past the end (JS's undefined)."""
    return source[index] if 0 <= index < len(source) else ""


def _skip_blanks(source: str, index: int) -> int:
    while _at(source, index + 1) in (" ", "\t") and _at(source, index + 1):
        index += 1
    return index


def _escape(source: str, index: int, on_error: RelativeError) -> tuple[str, int]:
    """One escape of doubleQuotedValue, the backslash at index - 1: its text and the index after."""
    next_char = _at(source, index)
    code = ESCAPE_CODES.get(next_char) if next_char else None
    if code:
        return code, index
    if next_char == "\n":
        return "", _skip_blanks(source, index)
    if next_char == "\r" and _at(source, index + 1) == "\n":
        return "", _skip_blanks(source, index + 1)
    if next_char in CODE_LENGTHS and next_char:
        text, consumed = parse_char_code(source, index + 1, CODE_LENGTHS[next_char], on_error)
        return text, index + consumed
    raw = source[index - 1 : index + 1]
    on_error(index - 1, "BAD_DQ_ESCAPE", f"Invalid escape sequence {js_units(raw, 2)}")
    return raw, index


def double_quoted_value(source: str, on_error: RelativeError) -> str:
    """doubleQuotedValue."""
    result = []
    index = 1
    while index < len(source) - 1:
        char = source[index]
        if char == "\r" and _at(source, index + 1) == "\n":
            pass
        elif char == "\n":
            fold, index = fold_newline(source, index)
            result.append(fold)
        elif char == "\\":
            text, index = _escape(source, index + 1, on_error)
            result.append(text)
        elif char in (" ", "\t"):
            start = index
            index = _skip_blanks(source, index)
            following = _at(source, index + 1)
            if following != "\n" and not (following == "\r" and _at(source, index + 2) == "\n"):
                result.append(source[start : index + 1] if index > start else char)
        else:
            result.append(char)
        index += 1
    if source[-1:] != '"' or len(source) == 1:
        on_error(len(source), "MISSING_CHAR", 'Missing closing "quote')
    return paired_surrogates("".join(result))


_SURROGATE = re.compile("[\ud800-\udfff]")


def paired_surrogates(text: str) -> str:
    """The text as the JS string holds it: a JS string is UTF-16, so escapes of a surrogate pair
    (`\\ud83d\\ude42`, as JSON writes a character past the BMP) are one character there; a
    lone surrogate stays one."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def fold_newline(source: str, offset: int) -> tuple[str, int]:
    """foldNewline: a line break a space, more of them one fewer line breaks."""
    fold = ""
    char = _at(source, offset + 1)
    while char in (" ", "\t", "\n", "\r") and char:
        if char == "\r" and _at(source, offset + 2) != "\n":
            break
        if char == "\n":
            fold += "\n"
        offset += 1
        char = _at(source, offset + 1)
    return fold or " ", offset


def units(char: str) -> int:
    """A character's length in a JS string (UTF-16 code units)."""
    return 2 if ord(char) > 0xFFFF else 1


def js_units(text: str, length: int) -> str:
    """The first `length` UTF-16 code units of text, as JS's substr gives them: a character beyond
    the BMP cut in two leaves its high surrogate (yaml puts such cuts in its messages)."""
    out = []
    for char in text:
        if length <= 0:
            break
        if units(char) > length:
            out.append(chr(0xD800 + ((ord(char) - 0x10000) >> 10)))
        else:
            out.append(char)
        length -= units(char)
    return "".join(out)


def _chars_for_units(text: str, start: int, length: int) -> int:
    """How many characters from start the JS's `length` code units reach into (a cut one counts)."""
    count = 0
    while length > 0 and start + count < len(text):
        length -= units(text[start + count])
        count += 1
    return count


def parse_char_code(source: str, offset: int, length: int, on_error: RelativeError) -> tuple[str, int]:
    """parseCharCode: the escape's text, and how many characters its `length` code units span.
    String.fromCodePoint throws a RangeError past U+10FFFF."""
    consumed = _chars_for_units(source, offset, length)
    code_text = source[offset : offset + consumed]
    if len(code_text) != length or not re.fullmatch(r"[0-9a-fA-F]+", code_text):
        raw = source[offset - 2 : offset + consumed]
        message = f"Invalid escape sequence {js_units(raw, length + 2)}"
        on_error(offset - 2, "BAD_DQ_ESCAPE", message)
        return raw, consumed
    code = int(code_text, 16)
    if code > 0x10FFFF:
        raise JsError(f"Invalid code point {code}")
    return chr(code), consumed


@dataclass
class BlockHeader:
    mode: str
    indent: int
    chomp: str
    comment: str
    length: int


def _header_indicators(source: str, offset: int, on_error: OnError) -> tuple[int, str]:
    indent = 0
    chomp = ""
    error = -1
    for index, char in enumerate(source[1:], start=1):
        if not chomp and char in ("-", "+"):
            chomp = char
            continue
        number = int(char) if char in "123456789" and char else 0  # JS Number(ch): 0 or NaN are falsy
        if not indent and number:
            indent = number
        elif error == -1:
            error = offset + index
    if error != -1:
        on_error(error, "UNEXPECTED_TOKEN", f"Block scalar header includes extra characters: {source}")
    return indent, chomp


def parse_block_scalar_header(scalar: Token, strict: bool, on_error: OnError) -> BlockHeader | None:
    """parseBlockScalarHeader."""
    props = scalar["props"]
    if not props or props[0]["type"] != "block-scalar-header":
        on_error(props[0] if props else scalar, "IMPOSSIBLE", "Block scalar header not found")
        return None
    source = props[0]["source"]
    indent, chomp = _header_indicators(source, scalar["offset"], on_error)
    has_space = False
    comment = ""
    length = len(source)
    for token in props[1:]:
        kind = token["type"]
        if kind in ("space", "newline"):
            has_space = has_space or kind == "space"
        elif kind == "comment":
            if strict and not has_space:
                message = "Comments must be separated from other tokens by white space characters"
                on_error(token, "MISSING_CHAR", message)
            comment = token["source"][1:]
        elif kind == "error":
            on_error(token, "UNEXPECTED_TOKEN", token["message"])
        else:
            on_error(token, "UNEXPECTED_TOKEN", f"Unexpected token in block scalar header: {kind}")
        length += len(token.get("source") or "")
    return BlockHeader(source[0], indent, chomp, comment, length)


def split_lines(source: str) -> list[tuple[str, str]]:
    """splitLines: the lines as (indentation, content)."""
    split = re.split(r"\n( *)", source)
    first = split[0]
    spaces = re.match(r"( *)", first)
    lead = spaces.group(1) if spaces else ""
    lines = [(lead, first[len(lead) :])]
    for index in range(1, len(split), 2):
        lines.append((split[index], split[index + 1]))
    return lines


def _is_empty(content: str) -> bool:
    return content in ("", "\r")


def _chomp_start(lines: list[tuple[str, str]]) -> int:
    chomp_start = len(lines)
    for index in range(len(lines) - 1, -1, -1):
        if not _is_empty(lines[index][1]):
            break
        chomp_start = index
    return chomp_start


@dataclass
class _BlockContext:
    scalar: Token
    header: BlockHeader
    lines: list[tuple[str, str]]
    at_root: bool
    on_error: OnError


def _content_start(block: _BlockContext, chomp_start: int) -> tuple[int, int, int]:
    """The indentation to trim, the first content line and its offset (resolveBlockScalar's first loop)."""
    header, on_error = block.header, block.on_error
    trim_indent = block.scalar["indent"] + header.indent
    offset = block.scalar["offset"] + header.length
    content_start = 0
    for index in range(chomp_start):
        indent, content = block.lines[index]
        if _is_empty(content):
            if header.indent == 0 and len(indent) > trim_indent:
                trim_indent = len(indent)
        else:
            if len(indent) < trim_indent:
                message = "Block scalars with more-indented leading empty lines must use an explicit indentation indicator"
                on_error(offset + len(indent), "MISSING_CHAR", message)
            if header.indent == 0:
                trim_indent = len(indent)
            content_start = index
            if trim_indent == 0 and not block.at_root:
                on_error(offset, "BAD_INDENT", "Block scalar values in collections must be indented")
            break
        offset += len(indent) + len(content) + 1
    return trim_indent, content_start, offset


@dataclass
class _Folding:
    value: str = ""
    sep: str = ""
    prev_more_indented: bool = False


def _fold_line(state: _Folding, literal: bool, indent: str, content: str, trim_indent: int) -> None:
    if literal:
        state.value += state.sep + indent[trim_indent:] + content
        state.sep = "\n"
    elif len(indent) > trim_indent or content[:1] == "\t":
        if state.sep == " ":
            state.sep = "\n"
        elif not state.prev_more_indented and state.sep == "\n":
            state.sep = "\n\n"
        state.value += state.sep + indent[trim_indent:] + content
        state.sep = "\n"
        state.prev_more_indented = True
    elif content == "":
        if state.sep == "\n":
            state.value += "\n"
        else:
            state.sep = "\n"
    else:
        state.value += state.sep + content
        state.sep = " "
        state.prev_more_indented = False


def _block_value(block: _BlockContext, chomp_start: int, literal: bool) -> str:
    trim_indent, content_start, offset = _content_start(block, chomp_start)
    lines = block.lines
    # include trailing more-indented empty lines in content (the JS loop stops at the first found)
    for index in range(len(lines) - 1, chomp_start - 1, -1):
        if len(lines[index][0]) > trim_indent:
            chomp_start = index + 1
            break
    state = _Folding()
    for index in range(content_start):
        state.value += lines[index][0][trim_indent:] + "\n"
    for index in range(content_start, chomp_start):
        indent, content = lines[index]
        offset += len(indent) + len(content) + 1
        crlf = content[-1:] == "\r"
        if crlf:
            content = content[:-1]
        if content and len(indent) < trim_indent:
            source = "explicit indentation indicator" if block.header.indent else "first line"
            message = f"Block scalar lines must not be less indented than their {source}"
            block.on_error(offset - len(content) - (2 if crlf else 1), "BAD_INDENT", message)
            indent = ""
        _fold_line(state, literal, indent, content, trim_indent)
    value = state.value
    if block.header.chomp == "+":
        for index in range(chomp_start, len(lines)):
            value += "\n" + lines[index][0][trim_indent:]
        if value[-1:] != "\n":
            value += "\n"
    elif block.header.chomp != "-":
        value += "\n"
    return value


def resolve_block_scalar(scalar: Token, at_root: bool, strict: bool, on_error: OnError) -> ScalarValue:
    """resolveBlockScalar."""
    start = scalar["offset"]
    header = parse_block_scalar_header(scalar, strict, on_error)
    if header is None:
        return ScalarValue("", None, "", [start, start, start])
    scalar_type = BLOCK_FOLDED if header.mode == ">" else BLOCK_LITERAL
    source = scalar.get("source") or ""
    lines = split_lines(source) if source else []
    chomp_start = _chomp_start(lines)
    end = start + header.length + len(source)
    if chomp_start == 0:
        value = "\n" * max(1, len(lines) - 1) if header.chomp == "+" and lines else ""
        return ScalarValue(value, scalar_type, header.comment, [start, end, end])
    block = _BlockContext(scalar, header, lines, at_root, on_error)
    value = _block_value(block, chomp_start, scalar_type == BLOCK_LITERAL)
    return ScalarValue(value, scalar_type, header.comment, [start, end, end])
