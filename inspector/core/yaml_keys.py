"""A list or mapping used as a mapping key, named as agentv's YAML reader names it.

agentv reads eval files with the npm `yaml` package (2.8.3), whose documents become plain
JavaScript objects: a key that is a list or a mapping (`? [a]`, `{a: 1}: b`) cannot be an object's
key, so `yaml` names it by its own YAML text, written by its stringifier in flow mode
(nodes/addPairToJSMap.js, stringifyKey): `[ a ]`, `{ a: 1 }`, with that stringifier's choices of
quotes, escapes, number spellings and line folding past 80 characters. This module is a port of
that writing (stringify/stringify.js, stringifyCollection.js, stringifyPair.js, stringifyString.js,
foldFlowLines.js, stringifyNumber.js and the core schema's tags), for the nodes a key can hold,
read back from libyaml's parser events (which keep what the composed nodes lose: anchors, aliases,
explicit tags, whether a pair has a value).

What it cannot write exactly it refuses with the reason (`KeyNotWritten`): a comment or a blank
line inside the key (`yaml` writes them into the name), characters outside the Basic Multilingual
Plane (its line width counts UTF-16 units), tags outside the core schema, documents read by YAML
1.1's schema or with `%TAG` directives.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from copy import copy
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import yaml

from .js import js_number
from .yaml_js.nodes import Alias as PortAlias
from .yaml_js.nodes import Pair as PortPair
from .yaml_js.nodes import Scalar as PortScalar
from .yaml_js.nodes import is_map as is_port_map
from .yaml_js.schema import BOOL_TEST, CORE_TAGS, FLOAT_NAN_TEST, MERGE, MERGE_TEST, NULL_TEST

_CORE = "tag:yaml.org,2002:"
_LINE_WIDTH = 80
_MIN_CONTENT_WIDTH = 20
_INDENT_STEP = "  "
_DOUBLE_QUOTED_MIN_MULTI_LINE = 40


class KeyNotWritten(Exception):
    """A key this module cannot write as `yaml` does; the message says why."""


@dataclass(slots=True)
class KeyScalar:
    value: str  # the text as read (quotes and escapes resolved)
    style: str | None  # None (plain), "'", '"', "|" or ">"
    anchor: str | None
    tag: str | None  # written explicitly (`!!str`, `!x`, `!`), else None
    start: int
    end: int


@dataclass(slots=True)
class KeyAlias:
    name: str


@dataclass(slots=True)
class KeyCollection:
    is_map: bool
    anchor: str | None
    tag: str | None
    start: int
    end: int
    # A list's items, or a mapping's pairs (a pair without `:` and value has None).
    items: list[Any] = field(default_factory=list)


KeyTree = KeyScalar | KeyAlias | KeyCollection


def document_mappings(
    events: list[Any], text: str, bom: int, put_back: Callable[[str], str]
) -> dict[tuple[int, int], KeyCollection]:
    """Every mapping of the document, by the (start, end) index of its marks: what a composed
    MappingNode's marks find. `put_back`: the characters the reader respelled (stand-ins), put
    back in texts and names, where the stringifier sees them."""
    mappings: dict[tuple[int, int], KeyCollection] = {}
    position = 0

    def read() -> KeyTree:
        nonlocal position
        event: Any = events[position]
        position += 1
        start, end = event.start_mark.index, event.end_mark.index
        if isinstance(event, yaml.AliasEvent):
            return KeyAlias(put_back(event.anchor or ""))
        anchor = None if event.anchor is None else put_back(event.anchor)
        if isinstance(event, yaml.ScalarEvent):
            return KeyScalar(put_back(event.value), event.style or None, anchor, event.tag, start, end)
        collection = KeyCollection(isinstance(event, yaml.MappingStartEvent), anchor, event.tag, start, 0)
        while not isinstance(events[position], (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            item = read()
            if collection.is_map:
                collection.items.append((item, _written_value(read(), text, bom)))
            else:
                collection.items.append(item)
        collection.end = events[position].end_mark.index
        position += 1
        if collection.is_map:
            mappings[(start, collection.end)] = collection
        return collection

    while position < len(events):
        if isinstance(events[position], (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            read()
        else:
            position += 1
    return mappings


def _written_value(value: KeyTree, text: str, bom: int) -> KeyTree | None:
    """None for a pair written without `:` (`{a}`, `? a`), whose value libyaml reads as an empty
    scalar at the next token and `yaml` as no node at all (which it writes otherwise)."""
    if (
        isinstance(value, KeyScalar)
        and value.start == value.end
        and value.style is None
        and value.anchor is None
        and value.tag is None
        and _before(text, value.start + bom) != ":"
    ):
        return None
    return value


def _before(text: str, index: int) -> str:
    """The last character before `index` that is not white space."""
    while index > 0 and text[index - 1] in " \t\r\n":
        index -= 1
    return text[index - 1 : index]


def refuse_unwritable(tree: KeyCollection | KeyAlias, text: str, bom: int) -> None:
    """Raise KeyNotWritten for a key whose text `yaml` would write with what this port leaves out."""
    if isinstance(tree, KeyAlias):
        return
    if "\n%TAG" in "\n" + text[: tree.start + bom]:
        raise KeyNotWritten("in a document with %TAG directives")
    scalars: list[tuple[int, int]] = []
    _check_nodes(tree, scalars, text, bom)
    written = text[tree.start + bom : tree.end + bom]
    outside = list(written)
    for start, end in scalars:
        for index in range(start - tree.start, end - tree.start):
            outside[index] = "x"
    between = "".join(outside)
    if re.search(r"(?:^|[ \t\n])#", between):
        raise KeyNotWritten("it holds a comment, which `yaml` writes into the name")
    if re.search(r"\n[ \t\r]*\n", between):
        raise KeyNotWritten("it holds a blank line, which `yaml` writes into the name")


def _check_nodes(tree: KeyTree, scalars: list[tuple[int, int]], text: str, bom: int) -> None:
    if isinstance(tree, KeyAlias):
        return
    tag = tree.tag
    if tag is not None and tag.startswith(_CORE) and tag[len(_CORE) :] not in _CORE_TAG_NAMES:
        raise KeyNotWritten(f"it holds a {tag} value, outside the core schema")
    if isinstance(tree, KeyScalar):
        if (
            tree.value == "~"
            and tree.end == tree.start + 1
            and text[tree.end + bom : tree.end + bom + 1] == ":"
        ):
            # The reader reads an empty key (`{: a}`) as libyaml reads `~` (a respelling), and
            # `yaml` writes each as written: which of the two the file holds is no longer known.
            raise KeyNotWritten("it holds an empty or `~` key, which the reader does not tell apart")
        if any(ord(character) > 0xFFFF for character in tree.value):
            raise KeyNotWritten("it holds characters outside the Basic Multilingual Plane")
        scalars.append((tree.start, tree.end))
        return
    for item in tree.items:
        for node in item if tree.is_map else (item,):
            if node is not None:
                _check_nodes(node, scalars, text, bom)


_CORE_TAG_NAMES = {"str", "null", "bool", "int", "float", "seq", "map"}


@dataclass(slots=True)
class _Context:
    """stringify.js's context: copied where it copies (Object.assign), changed in place where it
    changes it (indentAtStart grows with each property written)."""

    indent: str = ""
    implicit_key: bool = False
    all_null_values: bool = False
    indent_at_start: int | None = None
    actual_string: bool = False


def key_text(tree: KeyCollection | KeyAlias) -> str:
    """The name `yaml` gives the key: stringifyKey's `key.toString(ctx)` with `inFlow: true`, which
    writes the key's own anchor and tag nowhere (stringify.js writes those of the nodes inside)."""
    return _stringify(tree, _Context()) if isinstance(tree, KeyAlias) else _collection(tree, _Context())


def _stringify(node: KeyTree, ctx: _Context) -> str:
    if isinstance(node, KeyAlias):
        return f"*{node.name} " if ctx.implicit_key else f"*{node.name}"
    props = " ".join(
        ([f"&{node.anchor}"] if node.anchor else []) + ([_tag_string(node)] if node.tag is not None else [])
    )
    if props:
        ctx.indent_at_start = (ctx.indent_at_start or 0) + len(props) + 1
    written = _scalar(node, ctx) if isinstance(node, KeyScalar) else _collection(node, ctx)
    if not props:
        return written
    if isinstance(node, KeyScalar) or written[:1] in ("{", "["):
        return f"{props} {written}"
    return f"{props}\n{ctx.indent}{written}"


def _tag_string(node: KeyScalar | KeyCollection) -> str:
    tag = node.tag or ""
    if tag == "!" and isinstance(node, KeyCollection):
        tag = _CORE + ("map" if node.is_map else "seq")  # the non-specific tag names the kind
    if tag.startswith(_CORE):
        return "!!" + re.sub(r"[!,[\]{}]", lambda found: f"%{ord(found.group()):02X}", tag[len(_CORE) :])
    return tag if tag.startswith("!") else f"!<{tag}>"


# --- collections and pairs (stringifyCollection.js, stringifyPair.js) ---


def _collection(node: KeyCollection, ctx: _Context) -> str:
    if node.is_map:
        if not ctx.all_null_values and all(value is None for _, value in node.items):
            ctx = copy(ctx)
            ctx.all_null_values = True
        item_indent = ctx.indent + _INDENT_STEP
        opening, closing = "{", "}"
    else:
        item_indent = ctx.indent + _INDENT_STEP + _INDENT_STEP
        opening, closing = "[", "]"
    item_ctx = copy(ctx)
    item_ctx.indent = item_indent
    lines = []
    newline = False
    for index, item in enumerate(node.items):
        written = _pair(item[0], item[1], item_ctx) if node.is_map else _stringify(item, item_ctx)
        newline = newline or "\n" in written
        lines.append(written + ("," if index < len(node.items) - 1 else ""))
    if not lines:
        return opening + closing
    if not newline:
        newline = sum(len(line) + 2 for line in lines) + 2 > _LINE_WIDTH
    if newline:
        inside = "".join(f"\n{_INDENT_STEP}{ctx.indent}{line}" if line else "\n" for line in lines)
        return f"{opening}{inside}\n{ctx.indent}{closing}"
    return f"{opening} {' '.join(lines)} {closing}"


def _pair(key: KeyTree, value: KeyTree | None, ctx: _Context) -> str:
    indent = ctx.indent
    explicit = not isinstance(key, KeyScalar) or key.style in ("|", ">")
    pair_ctx = copy(ctx)
    pair_ctx.all_null_values = False
    pair_ctx.implicit_key = not explicit and not ctx.all_null_values
    pair_ctx.indent = indent + _INDENT_STEP
    written = _stringify(key, pair_ctx)
    if ctx.all_null_values or value is None:
        return "?" if written == "" else f"? {written}" if explicit else written
    written = f"? {written}\n{indent}:" if explicit else f"{written}:"
    pair_ctx.implicit_key = False
    if not explicit and isinstance(value, KeyScalar):
        pair_ctx.indent_at_start = len(written) + 1
    value_written = _stringify(value, pair_ctx)
    return written + _space_before(value, value_written, explicit, pair_ctx.indent) + value_written


def _space_before(value: KeyTree, written: str, explicit: bool, indent: str) -> str:
    """What goes between a pair's `:` and its value."""
    if not explicit and isinstance(value, KeyCollection):
        line_end = written.find("\n")
        return f"\n{indent}" if line_end != -1 and not _props_line(written, line_end) else " "
    return "" if written == "" or written[0] == "\n" else " "


def _props_line(written: str, line_end: int) -> bool:
    """Whether a collection's text starts with its anchor and tag alone on a line."""
    if written[0] not in ("&", "!"):
        return False
    space = written.find(" ")
    if written[0] == "&" and space != -1 and space < line_end and written[space + 1 : space + 2] == "!":
        space = written.find(" ", space + 1)
    return space == -1 or line_end < space


# --- scalars: the core schema's tags and how each writes its value ---

# The core schema's scalar tags in `yaml`'s order (the port's schema), with their tests and
# formats; the merge key's apart.
_TESTS: list[tuple[str, re.Pattern[str], str | None]] = [
    (tag.tag.removeprefix(_CORE), tag.test, tag.format)
    for tag in CORE_TAGS
    if tag.test is not None and tag is not MERGE
]


@dataclass(slots=True)
class _Resolved:
    kind: str  # the tag whose stringify writes it: str, null, bool, int, float, merge
    value: Any  # the JavaScript value: str, bool, None, or a number as a float
    format: str | None = None
    fraction_digits: int = 0


def _resolved(node: KeyScalar) -> _Resolved:
    """composeScalar's tag and value, then stringify.js's getTagObject's choice of writer."""
    text = node.value
    tag = node.tag
    if tag is None and node.style is None:
        for kind, test, number_format in _TESTS:
            if test.fullmatch(text):
                return _read_as(kind, text, number_format)
    elif tag is not None and tag.startswith(_CORE) and tag[len(_CORE) :] in ("null", "bool", "int", "float"):
        kind = tag[len(_CORE) :]
        for tested, test, number_format in _TESTS:
            if tested == kind and test.fullmatch(text):
                return _read_as(kind, text, number_format)
        return _Resolved(kind, text)  # `yaml` warns and keeps the text, written by the tag's writer
    if tag is None and text == "<<":
        return _Resolved("merge", text)  # a string `<<` is written by the merge tag's writer
    return _Resolved("str", text)


def _read_as(kind: str, text: str, number_format: str | None) -> _Resolved:
    if kind == "null":
        return _Resolved("null", None)
    if kind == "bool":
        return _Resolved("bool", text[0] in "tT")
    if kind == "int":
        if number_format == "OCT":
            return _Resolved("int", float(int(text[2:], 8)), "OCT")
        if number_format == "HEX":
            return _Resolved("int", float(int(text[2:], 16)), "HEX")
        number = float(int(text))
        return _Resolved("int", -0.0 if text.startswith("-") and number == 0 else number)
    if number_format == "EXP":
        return _Resolved("float", float(text), "EXP")
    if FLOAT_NAN_TEST.fullmatch(text):
        value = math.nan if text[-3:].lower() == "nan" else -math.inf if text[0] == "-" else math.inf
        return _Resolved("float", value)
    dot = text.find(".")
    digits = len(text) - dot - 1 if dot != -1 and text.endswith("0") else 0
    return _Resolved("float", float(text), None, digits)


def _scalar(node: KeyScalar, ctx: _Context) -> str:
    resolved = _resolved(node)
    kind, value = resolved.kind, resolved.value
    if kind == "str":
        string_ctx = copy(ctx)
        string_ctx.actual_string = True
        return _string(value, node.style, string_ctx)
    if kind == "merge":
        return "<<"
    if kind == "null":
        return node.value if NULL_TEST.fullmatch(node.value) else "null"
    if kind == "bool":
        if BOOL_TEST.fullmatch(node.value) and value == (node.value[0] in "tT"):
            return node.value
        return "true" if value else "false"
    return _number_text(resolved, node.tag)


def _number_text(resolved: _Resolved, tag: str | None) -> str:
    """How the int and float tags write a number: in its format (`0x1f`, `0o17`, `1e+3`), else
    as stringifyNumber does."""
    value = resolved.value
    if resolved.format in ("OCT", "HEX") and isinstance(value, float) and value >= 0:
        octal = resolved.format == "OCT"
        return ("0o" if octal else "0x") + format(int(value), "o" if octal else "x")
    if resolved.format == "EXP" and isinstance(value, float) and math.isfinite(value):
        return _to_exponential(value)
    return _number(value, resolved.fraction_digits, tag)


def _number(value: Any, fraction_digits: int, tag: str | None) -> str:
    """stringifyNumber: a number as JSON writes it; a text a number tag could not read, as a JSON
    string (JSON.stringify of the text), unless Number() makes it NaN or infinite."""
    number = value if isinstance(value, float) else _js_number_of(value)
    if not math.isfinite(number):
        return ".nan" if math.isnan(number) else "-.inf" if number < 0 else ".inf"
    if isinstance(value, str):
        return _js_json(value)
    written = "-0" if value == 0 and math.copysign(1, value) < 0 else js_number(value)
    if fraction_digits and (tag is None or tag == _CORE + "float") and written[:1].isdigit():
        dot = written.find(".")
        if dot < 0:
            dot = len(written)
            written += "."
        written += "0" * (fraction_digits - (len(written) - dot - 1))
    return written


_JS_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_JS_RADIX = re.compile(r"0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")


def _js_number_of(text: str) -> float:
    """JavaScript's Number(text), as far as whether it is finite, NaN or infinite."""
    text = text.strip(" \t\n\r\v\f\u00a0\ufeff\u2028\u2029")
    if text == "" or _JS_RADIX.fullmatch(text):
        return 0.0
    if text in ("Infinity", "+Infinity", "-Infinity"):
        return -math.inf if text[0] == "-" else math.inf
    return float(text) if _JS_DECIMAL.fullmatch(text) else math.nan


def _to_exponential(value: float) -> str:
    """Number.prototype.toExponential() without digits: the shortest digits that read back."""
    if value == 0:
        return "0e+0"
    sign, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    written = "".join(map(str, digits))
    power = int(exponent) + len(digits) - 1
    mantissa = written[0] + ("." + written[1:] if len(written) > 1 else "")
    return ("-" if value < 0 else "") + f"{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"


def _js_json(text: str) -> str:
    """JSON.stringify of a string: lone surrogates escaped, other characters as they are."""
    written = json.dumps(text, ensure_ascii=False)
    return re.sub(r"[\ud800-\udfff]", lambda found: f"\\u{ord(found.group()):04x}", written)


# --- strings (stringifyString.js), always inside a flow collection ---

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_DOCUMENT_MARKER = re.compile(r"^(?:%|---|\.\.\.)", re.MULTILINE)
_NOT_PLAIN = re.compile(
    r"\A[\n\t ,[\]{}#&*!|>'\"%@`]|\A[?-]\Z|\A[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]\Z"
)
# The default tags whose test a plain text could pass for: such a text is quoted.
_OTHER_TESTS = [test for _, test, _ in _TESTS] + [MERGE_TEST]


def _string(value: str, style: str | None, ctx: _Context) -> str:
    if style != '"' and _CONTROL.search(value):
        style = '"'
    if style in ("|", ">"):
        return _quoted(value, ctx)  # blocks are not valid inside flow collections
    if style == '"':
        return _double_quoted(value, ctx)
    if style == "'":
        return _single_quoted(value, ctx)
    return _plain(value, ctx)


_LINE_BREAKS = re.compile(r"\n+")


def _breaks_doubled(text: str, indent: str) -> str:
    """Each run of line breaks with one more and the indentation after it: how a line break is
    written in a plain or single-quoted scalar, which folds one."""
    return _LINE_BREAKS.sub(lambda found: f"{found.group()}\n{indent}", text)


def _quoted(value: str, ctx: _Context) -> str:
    if '"' in value and "'" not in value:
        return _single_quoted(value, ctx)
    return _double_quoted(value, ctx)


def _single_quoted(value: str, ctx: _Context) -> str:
    if (ctx.implicit_key and "\n" in value) or re.search(r"[ \t]\n|\n[ \t]", value):
        return _double_quoted(value, ctx)
    indent = ctx.indent or ("  " if _DOCUMENT_MARKER.search(value) else "")
    written = "'" + _breaks_doubled(value.replace("'", "''"), indent) + "'"
    return written if ctx.implicit_key else _fold(written, indent, _FLOW, ctx.indent_at_start)


_NAMED_ESCAPES = {"0000": "\\0", "0007": "\\a", "000b": "\\v", "001b": "\\e", "0085": "\\N"}
_NAMED_ESCAPES |= {"00a0": "\\_", "2028": "\\L", "2029": "\\P"}


def _double_quoted(value: str, ctx: _Context) -> str:
    written = _js_json(value)
    indent = ctx.indent or ("  " if _DOCUMENT_MARKER.search(value) else "")
    out = ""
    start = 0
    index = 0
    while index < len(written):
        character = written[index]
        if character == " " and written[index + 1 : index + 3] == "\\n":
            out += written[start:index] + "\\ "  # a space before a line break, kept from folding
            index += 1
            start = index
            character = "\\"
        if character == "\\":
            index, start, out = _escape(written, index, start, out, indent, ctx.implicit_key)
        index += 1
    out = out + written[start:] if start else written
    return out if ctx.implicit_key else _fold(out, indent, _QUOTED, ctx.indent_at_start)


def _escape(
    written: str, index: int, start: int, out: str, indent: str, implicit_key: bool
) -> tuple[int, int, str]:
    """doubleQuotedString's handling of one JSON escape at `index`: `\\u00XX` shortened, a line
    break written as one (folded) where the string is long enough."""
    after = written[index + 1 : index + 2]
    if after == "u":
        out += written[start:index]
        code = written[index + 2 : index + 6]
        if code in _NAMED_ESCAPES:
            out += _NAMED_ESCAPES[code]
        else:
            out += "\\x" + code[2:] if code[:2] == "00" else written[index : index + 6]
        index += 5
        return index, index + 1, out
    if after != "n":
        return index + 1, start, out
    if implicit_key or written[index + 2 : index + 3] == '"' or len(written) < _DOUBLE_QUOTED_MIN_MULTI_LINE:
        return index + 1, start, out
    out += written[start:index] + "\n\n"
    while written[index + 2 : index + 4] == "\\n" and written[index + 4 : index + 5] != '"':
        out += "\n"
        index += 2
    out += indent
    if written[index + 2 : index + 3] == " ":
        out += "\\"
    index += 1
    return index, index + 1, out


def _plain(value: str, ctx: _Context) -> str:
    if (ctx.implicit_key and "\n" in value) or re.search(r"[\[\]{},]", value):
        return _quoted(value, ctx)
    if _NOT_PLAIN.search(value):
        return _quoted(value, ctx)
    if _DOCUMENT_MARKER.search(value):
        if ctx.indent == "":
            raise KeyNotWritten("it holds a text that starts a line with a document marker")
        if ctx.implicit_key and ctx.indent == _INDENT_STEP:
            return _quoted(value, ctx)
    written = _breaks_doubled(value, ctx.indent)
    if ctx.actual_string and any(test.fullmatch(written) for test in _OTHER_TESTS):
        return _quoted(value, ctx)
    return written if ctx.implicit_key else _fold(written, ctx.indent, _FLOW, ctx.indent_at_start)


# --- foldFlowLines.js: lines past 80 characters broken at a space (or inside a quoted string) ---

_FLOW = "flow"
_QUOTED = "quoted"


def _fold(text: str, indent: str, mode: str, indent_at_start: int | None) -> str:
    end_step = max(1 + _MIN_CONTENT_WIDTH, 1 + _LINE_WIDTH - len(indent))
    if len(text) <= end_step:
        return text
    folding = _Folding(text, mode, len(indent), end_step, _LINE_WIDTH - len(indent))
    if indent_at_start is not None:
        if indent_at_start > _LINE_WIDTH - max(2, _MIN_CONTENT_WIDTH):
            folding.folds.append(0)
        else:
            folding.end = _LINE_WIDTH - indent_at_start
    if not folding.run() or not folding.folds:
        return text
    folds = folding.folds
    result = text[: folds[0]]
    for number, fold in enumerate(folds):
        until = folds[number + 1] if number + 1 < len(folds) and folds[number + 1] else len(text)
        if fold == 0:
            result = f"\n{indent}{text[:until]}"
        else:
            if mode == _QUOTED and fold in folding.escaped:
                result += f"{text[fold]}\\"
            result += f"\n{indent}{text[fold + 1 : until]}"
    return result


@dataclass(slots=True)
class _Folding:
    """foldFlowLines' walk over the text: where it breaks lines."""

    text: str
    mode: str
    indent_length: int
    end_step: int
    end: int  # the index past which the line is too long
    folds: list[int] = field(default_factory=list)
    escaped: set[int] = field(default_factory=set)  # folds inside a quoted string's escapes
    split: int | None = None  # the last space the line may break at
    previous: str = ""
    index: int = -1
    escape_start: int = -1
    escape_end: int = -1

    def at(self, position: int) -> str:
        return self.text[position] if 0 <= position < len(self.text) else ""

    def run(self) -> bool:
        """Find the folds; False where the width is shorter than an escape (the text is kept)."""
        while True:
            self.index += 1
            character = self.at(self.index)
            if not character:
                return True
            if self.mode == _QUOTED and character == "\\":
                self.escape_start = self.index
                self.index += {"x": 3, "u": 5, "U": 9}.get(self.at(self.index + 1), 1)
                self.escape_end = self.index
            if character == "\n":
                self.end = self.index + self.indent_length + self.end_step
                self.split = None
            else:
                self._note_split(character)
                if self.index >= self.end:
                    folded = self._fold_here(character)
                    if folded is None:
                        return False
                    character = folded
            self.previous = character

    def _note_split(self, character: str) -> None:
        """A space between two other characters may become a line break."""
        if character == " " and self.previous and self.previous not in " \n\t":
            following = self.at(self.index + 1)
            if following and following not in " \n\t":
                self.split = self.index

    def _fold_here(self, character: str) -> str | None:
        """Break the line at its last space; a quoted string's anywhere (escaping the break)."""
        if self.split:
            self.folds.append(self.split)
            self.end = self.split + self.end_step
            self.split = None
            return character
        if self.mode != _QUOTED:
            return character  # a plain or single-quoted line runs on past the width
        while self.previous in (" ", "\t"):  # white space at the end may run past the width
            self.previous = character
            self.index += 1
            character = self.at(self.index)
        fold = self.index - 2 if self.index > self.escape_end + 1 else self.escape_start - 1
        if fold in self.escaped:
            return None
        self.folds.append(fold)
        self.escaped.add(fold)
        self.end = fold + self.end_step
        self.split = None
        return character


_PORT_STYLES = {"QUOTE_SINGLE": "'", "QUOTE_DOUBLE": '"', "BLOCK_LITERAL": "|", "BLOCK_FOLDED": ">"}


def port_key_tree(node: Any) -> KeyTree:
    """A key as the port of `yaml` (yaml_js) composed it, in this module's terms: the same
    anchors, explicit tags and pairs without `:` (a Pair without value) the events tell."""
    if isinstance(node, PortAlias):
        return KeyAlias(node.source)
    start = node.range[0] if node.props is None else node.props
    anchor = node.anchor or None
    if isinstance(node, PortScalar):
        return KeyScalar(node.text, _PORT_STYLES.get(node.type or ""), anchor, node.tag, start, node.range[1])
    tree = KeyCollection(is_port_map(node), anchor, node.tag, start, node.range[1])
    for item in node.items:
        if isinstance(item, PortPair):
            value = None if item.value is None else port_key_tree(item.value)
            tree.items.append((port_key_tree(item.key), value))
        else:
            tree.items.append(port_key_tree(item))
    # A flow list's `key: value` item: its range may start after its key's
    nodes = [node for item in tree.items for node in (item if tree.is_map else (item,))]
    tree.start = min([start, *(node.start for node in nodes if isinstance(node, (KeyScalar, KeyCollection)))])
    return tree
