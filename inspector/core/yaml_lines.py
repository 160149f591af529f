"""YAML and JSONL loading that remembers where every value came from: the one YAML reader.

agentv, gambit and the conversation files are read with plain YAML parsers; the inspector needs
more: every case, message and content block must know its 1-based lines so the page can highlight
them. The tree of `Node`s (each the plain value and its line span) is built in one pass from
libyaml's parser events; anything unusual (an error, a limit, a repeated key or anchor, a complex
key) goes PyYAML's composer's way, whose errors and limits are the reference. Limits on size, node
count and depth keep hostile input (alias bombs, absurd nesting) bounded in time and memory.

For agentv (`agentv=True`) two readers share the work. libyaml's, with the checks and respellings
below that make it read as the npm `yaml` package does, reads ordinary documents (16 times faster).
The port of `yaml` (yaml_js, pure Python) reads, up to MAX_PORT_BYTES, every document libyaml
refuses (its tree where `yaml` reads it, else `yaml`'s first error at `yaml`'s place) and those
libyaml reads apart without refusing them: `&a:` anchors and `?x` inside a flow collection
(_read_apart_unrefused); beyond that size those are refused, and the reader's own error stands.
Up to that size it also reads those libyaml may read apart (_read_apart_maybe): a merge key (whose
sources `yaml` reads as JS Maps) and `-` or `?` then a blank inside a flow collection.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from operator import attrgetter
from typing import Any, NoReturn

import msgspec
import yaml

from . import yaml_keys
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
from .yaml_js import tree as port_tree
from .yaml_js.nodes import Scalar as PortScalar
from .yaml_js.refusal import Refusal, composed, document_refusal
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


def _js_identity(value: Any) -> Any:
    """What JavaScript's `===` compares a key's value by (a NaN equals nothing)."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        return ("number", float(value)) if value == value else object()
    return (type(value).__name__, value)


def _gap_before(lines: list[str], number: int, column: int) -> bool:
    """Whether `yaml`'s parser ends the mapping item before a key at line `number` (0-based) and
    `column`: always in a mapping not at column 0, else at a blank line or a comment at column 0
    right before it."""
    if column > 0:
        return True
    for line in reversed(lines[:number]):
        text = line.strip(" \t\r")
        if text and not text.startswith("#"):
            return False
        if not text or line[:1] == "#":
            return True
    return False


def _mergeable(merged: Node) -> bool:
    """Whether `yaml` merges this value into a mapping: a mapping, or a sequence of mappings."""
    value = merged.value
    if isinstance(value, list):
        return all(isinstance(item.value, dict) for item in value)
    return isinstance(value, dict)


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
_CORE_NULL = re.compile(r"^(?:~|null|Null|NULL|)\Z")
_CORE_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)\Z")
_CORE_INT = re.compile(r"^[-+]?[0-9]+\Z")
_CORE_OCT = re.compile(r"^0o[0-7]+\Z")
_CORE_HEX = re.compile(r"^0x[0-9a-fA-F]+\Z")
_CORE_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_CORE_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)\Z")
_CORE_NAN = re.compile(r"^\.(?:nan|NaN|NAN)\Z")
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


# `yaml`'s YAML 1.1 schema (schema/yaml-1.1/), for a document whose `%YAML 1.1` directive asks for
# it: its tests in its order, each with how it reads the text. Not PyYAML's 1.1 (`y` and `n` are
# booleans here, `0o17` is text, a date is a Date).
_YAML11_TESTS: list[tuple[re.Pattern[str], Callable[[str], Any]]] = [
    (re.compile(r"^(?:~|[Nn]ull|NULL)?\Z"), lambda _text: None),
    (re.compile(r"^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)\Z"), lambda _text: True),
    (re.compile(r"^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)\Z"), lambda _text: False),
    (re.compile(r"^[-+]?0b[0-1_]+\Z"), lambda text: _yaml11_int(text, 2, 2)),
    (re.compile(r"^[-+]?0[0-7_]+\Z"), lambda text: _yaml11_int(text, 1, 8)),
    (re.compile(r"^[-+]?[0-9][0-9_]*\Z"), lambda text: _yaml11_int(text, 0, 10)),
    (re.compile(r"^[-+]?0x[0-9a-fA-F_]+\Z"), lambda text: _yaml11_int(text, 2, 16)),
    (re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)\Z"), lambda text: core_scalar(text)),
    (re.compile(r"^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+\Z"), lambda text: _js_float(text)),
    (re.compile(r"^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*\Z"), lambda text: _js_float(text)),
    (re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\Z"), lambda text: _sexagesimal(text)),
    (re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*\Z"), lambda text: float(_sexagesimal(text))),
]
_YAML11_DATE = re.compile(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\.[0-9]+)?)"
    r"(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?\Z"
)
_JS_FLOAT_PREFIX = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _yaml11_int(text: str, prefix: int, radix: int) -> int:
    sign = text[0]
    digits = text[prefix + (sign in "+-") :].replace("_", "")
    number = int(digits, radix)
    return -number if sign == "-" else number


def _js_float(text: str) -> float:
    """JavaScript's parseFloat of the text without its underscores: the longest number it starts
    with (`5.` is 5), NaN for none (`.`)."""
    found = _JS_FLOAT_PREFIX.match(text.replace("_", ""))
    return float(found.group()) if found else math.nan


def _sexagesimal(text: str) -> float | int:
    sign = text[0]
    total: float | int = 0
    for part in text.lstrip("+-").replace("_", "").split(":"):
        total = total * 60 + (float(part) if "." in part else int(part))
    return -total if sign == "-" else total


def yaml11_scalar(text: str) -> Any:
    """A plain scalar's value under `yaml`'s YAML 1.1 schema; a date as the ISO text its Date
    gives in JSON."""
    for pattern, read in _YAML11_TESTS:
        if pattern.match(text):
            return read(text)
    date = _YAML11_DATE.match(text)
    if date is None:
        return text
    year, month, day, hour, minute, second = (int(float(part or 0)) for part in date.groups()[:6])
    fraction = date.group(7)
    millisecond = int((fraction + "00")[1:4]) if fraction else 0
    try:
        moment = datetime(year, month, day, tzinfo=UTC) + timedelta(
            hours=hour, minutes=minute, seconds=second, milliseconds=millisecond
        )
    except ValueError:
        return text  # JavaScript's Date rolls a 31 February over; too rare to copy
    zone = date.group(8)
    if zone and zone != "Z":
        offset = _sexagesimal(zone)
        moment -= timedelta(minutes=offset * 60 if abs(offset) < 30 else offset)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


# Explicit tags whose value `yaml` takes from its schema's tests of that tag alone: a text none of
# them matches stays text (`!!float 3` is "3", `!!int 1.5` is "1.5").
_SCHEMA_KINDS: dict[str, Callable[[Any], bool]] = {
    "tag:yaml.org,2002:int": lambda value: type(value) is int,
    "tag:yaml.org,2002:float": lambda value: type(value) is float,
    "tag:yaml.org,2002:bool": lambda value: type(value) is bool,
    "tag:yaml.org,2002:null": lambda value: value is None,
}


def _tagged_scalar(tag: str, text: str, plain: Callable[[str], Any]) -> Any:
    value = plain(text)
    return value if _SCHEMA_KINDS[tag](value) else text


class DuplicateKey(InputError):
    pass


class ControlCharacter(InputError):
    """A control character libyaml refuses: the file is binary, or text gone wrong, whatever
    `yaml` would make of it (it reads NUL bytes as text)."""


_QUOTES = ("'", '"')
_PROPERTIES = re.compile(r"(?:[&!][^ \t\r]*[ \t]*)+")
# An escaped line break in a double-quoted string, then a blank line (the line breaks kept).
_ESCAPED_BREAK_THEN_BLANK = re.compile(r"\\\r?\n[ \t]*\r?\n")
# An anchor's or alias's name as `yaml` reads it (after its `&` or `*`), and the characters in it
# libyaml does not take.
_ANCHOR_NAME = re.compile(r"(?<=[&*])[^ \t\r\n,\[\]{}]+")
_ANCHOR_OTHER = re.compile(r"[^0-9A-Za-z_-]")
_NODE_START = r"(?:(?<=^)|(?<=[ \t\n,\[{]))"
_NODE_NAMES = re.compile(_NODE_START + r"[&*]([^ \t\r\n,\[\]{}]+)", re.M)
_COLON_ANCHOR = re.compile(_NODE_START + r"[&*][0-9A-Za-z_-]*:", re.M)
# A name libyaml ends at `:`, `?`, `%`, `@` or a backquote (`&a:`, `*x%y`) where `yaml` reads on.
_ODD_ANCHOR = re.compile(_NODE_START + r"([&*])([0-9A-Za-z_-]+[:?%@`][^ \t\r\n,\[\]{}]*)", re.M)
# A `:` starting a plain scalar in a flow collection, spelled as this while libyaml reads it.
_COLON_STAND_IN = "\ue001"
# A `?` inside a flow collection, maybe starting a plain scalar, which libyaml reads as a key.
_FLOW_QUESTION = re.compile(r"[\[{,:][ \t\r\n]*\?[^ \t\r\n,\[\]{}]")
# One anchor or tag of a node's properties, and the handle libyaml reads at a tag's start.
_PROPERTY = re.compile(r"([&!][^ \t\r,\[\]{}]*)[ \t]*")
_LIBYAML_HANDLE = re.compile(r"![0-9A-Za-z_-]*!")


# A tab libyaml refused in a block scalar, respelled as a character it reads (_respelled).
_TAB_STAND_IN = "\ue000"
# A line of nothing but spaces in a block scalar's value.
_SPACES_LINE = re.compile(r"(?:^|\n) +(?:\r?\n|\Z)")


def _block_header(header: str) -> tuple[str, str, int]:
    """A block scalar header's style (`|`, `>`), chomping (`-`, `+`, "") and indentation (0: none)."""
    chomp, explicit = "", 0
    for character in header[1:]:
        if character in "-+" and not chomp:
            chomp = character
        elif character.isdigit() and not explicit:
            explicit = int(character)
    return header[0], chomp, explicit


def _block_lines(body: str, chomp: str) -> list[tuple[str, str]]:
    """A block scalar's lines as `yaml`'s lexer leaves them, each its spaces and the rest."""
    if not body:
        return []
    split = re.split(r"\n( *)", body)
    first_indent = len(split[0]) - len(split[0].lstrip(" "))
    lines = [(split[0][:first_indent], split[0][first_indent:])]
    lines += [(split[i], split[i + 1]) for i in range(1, len(split), 2)]
    if chomp != "+":
        # The lexer leaves out trailing lines of spaces no longer than the first text's indentation.
        stripped = body.lstrip(" \n")
        first_text = len(body) - len(stripped) - (body.rfind("\n", 0, len(body) - len(stripped)) + 1)
        while lines and lines[-1][1] in ("", "\r") and len(lines[-1][0]) <= first_text and len(lines) > 1:
            lines.pop()
    return lines


def _block_scalar(header: str, body: str, parent: int, path: str, first_line: int) -> str:
    """A block scalar's value by `yaml`'s rules (compose/resolve-block-scalar.js): `body` is its
    lines after the header, `parent` the indentation of the collection around it. A line of
    spaces alone is an empty line, however long; the indentation is the first text line's."""
    mode, chomp, explicit = _block_header(header)
    lines = _block_lines(body, chomp)
    chomp_start = len(lines)
    while chomp_start > 0 and lines[chomp_start - 1][1] in ("", "\r"):
        chomp_start -= 1
    if chomp_start == 0:
        return "\n" * max(1, len(lines) - 1) if chomp == "+" and lines else ""
    trim, content_start = _block_indentation(
        lines[:chomp_start], parent + explicit, explicit, path, first_line
    )
    for number in range(len(lines) - 1, chomp_start - 1, -1):
        if len(lines[number][0]) > trim:
            chomp_start = number + 1
    value = "".join(indent[trim:] + "\n" for indent, _ in lines[:content_start])
    content = lines[content_start:chomp_start]
    if mode == "|":
        value += "\n".join(indent[trim:] + text.removesuffix("\r") for indent, text in content)
    else:
        value += _folded(content, trim)
    if chomp == "+":
        value += "".join("\n" + indent[trim:] for indent, _ in lines[chomp_start:])
        return value if value.endswith("\n") else value + "\n"
    return value if chomp == "-" else value + "\n"


def _block_indentation(
    lines: list[tuple[str, str]], trim: int, explicit: int, path: str, first_line: int
) -> tuple[int, int]:
    """The indentation a block scalar's lines lose and the number of its first text line. Without
    an indicator, blank lines before the text may set it deeper, which `yaml` then refuses."""
    for number, (indent, content) in enumerate(lines):
        if content in ("", "\r"):
            if not explicit and len(indent) > trim:
                trim = len(indent)
            continue
        if len(indent) < trim:
            raise InputError(
                "invalid YAML: Block scalars with more-indented leading empty lines must use an explicit "
                "indentation indicator (agentv's YAML reader refuses blank lines deeper than the first text)",
                path,
                first_line + number,
                len(indent) + 1,
            )
        return (trim if explicit else len(indent)), number
    return trim, 0


def _folded(lines: list[tuple[str, str]], trim: int) -> str:
    """A folded (`>`) block scalar's text lines joined: a break between text lines becomes a
    space, an empty line a break, and more-indented lines keep theirs."""
    value = ""
    separator = ""
    more_indented_before = False
    for indent, content in lines:
        content = content.removesuffix("\r")
        if len(indent) > trim or content[:1] == "\t":
            if separator == " ":
                separator = "\n"
            elif not more_indented_before and separator == "\n":
                separator = "\n\n"
            value += separator + indent[trim:] + content
            separator = "\n"
            more_indented_before = True
        elif content == "":
            if separator == "\n":
                value += "\n"
            else:
                separator = "\n"
        else:
            value += separator + content
            separator = " "
            more_indented_before = False
    return value


class _Indents:
    """The `yaml` package's indentation rules for flow content inside a block collection, which
    libyaml does not apply (agentv's reader only). Every line a quoted string runs on to, and every
    line a flow collection (`[...]`, `{...}`) runs on to, must be indented past the block
    collection around it (its column + 1: a key's column, or a `- `'s); `yaml` refuses the file
    otherwise, where its lexer (parse/lexer.js, continueScalar and parseFlowCollection) stops."""

    def __init__(
        self, text: str, path: str, tabs: frozenset[tuple[int, int]] = frozenset(), stand_ins: bool = False
    ):
        self.text = text
        self.stand_ins = stand_ins  # whether a _TAB_STAND_IN in the text is a tab respelled
        self.path = path
        self.tabs = tabs  # (line, column) of the tabs read as spaces
        self.bom = int(text.startswith("\ufeff"))  # libyaml's marks do not count it
        self.schema11 = bool(_YAML_11.match(text))  # read by `yaml`'s YAML 1.1 schema
        self._lines: list[str] | None = None
        self.indent_next = 0  # the column + 1 of the innermost block collection; 0 at the top
        self.flow_start: Any = None  # the outermost flow collection's start mark, inside one
        self.flow_quoted: list[Any] = []  # the quoted strings on several lines inside it
        self.seen: set[int] = set()  # the composed nodes checked (the composer's path only)
        self.merge_problem: InputError | None = None  # raised once the whole document is read

    def _content_column(self, mark: Any) -> int:
        """The column of a block collection that starts with an anchor or a tag: its first key's
        or `- `'s, after them on that line or on a later one."""
        lines = self.lines
        bom = self.bom if mark.line == 0 else 0
        line = lines[mark.line]
        properties = _PROPERTIES.match(line, mark.column + bom)
        after = properties.end() if properties else mark.column + bom
        if line[after:].strip(" \t\r")[:1] not in ("", "#"):
            return after - bom
        for line in lines[mark.line + 1 :]:
            rest = line.lstrip(" ")
            if rest.strip(" \t\r")[:1] not in ("", "#"):
                return len(line) - len(rest)
        return mark.column

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines

    def enter(
        self, start_mark: Any, flow_style: bool, properties: bool | None = None
    ) -> tuple[int, Any, bool]:
        """`properties`: whether the collection has an anchor or a tag, when known (else the text
        at its mark says)."""
        saved = (self.indent_next, self.flow_start, flow_style)
        if not flow_style and self.tabs:
            self._refuse_tab_before(start_mark)  # `-`, blanks with a tab, then `key:` or `- `
        if not flow_style:
            if properties is None:
                properties = self._at_properties(start_mark)
            self.indent_next = (self._content_column(start_mark) if properties else start_mark.column) + 1
        else:
            at = start_mark.index + self.bom
            if self.text[at : at + 2] in ("[#", "{#"):
                self._comment_too_close(start_mark.line, start_mark.column + 1)
        if flow_style and self.flow_start is None and self.indent_next:
            self.flow_start = start_mark
            self.flow_quoted = []
        return saved

    def _comment_too_close(self, line: int, column: int) -> None:
        raise InputError(
            "invalid YAML: Comments must be separated from other tokens by white space characters "
            "(agentv's YAML reader refuses `[#`, `]#`, `{#` and `}#`)",
            self.path,
            line + 1,
            column + 1,
        )

    def refuse_unresolvable_tag(self, mark: Any) -> None:
        """A tag whose text after its handle holds another `!` (`!!fl!oat`, `!'!int`): `yaml` takes
        everything up to the last `!` for the handle, which no `%TAG` declared, and refuses the
        file at the tag; libyaml reads the rest as the tag's suffix. Called only for a tag with a
        `!` past its first character (few files have one)."""
        line = self.lines[mark.line]
        column = mark.column + (self.bom if mark.line == 0 else 0)
        token = _PROPERTY.match(line, column)
        while token is not None and token.group(1)[:1] == "&":  # past an anchor to the tag
            token = _PROPERTY.match(line, token.end())
        if token is not None and token.group(1)[:2] != "!<":
            tag = token.group(1)
            handle = _LIBYAML_HANDLE.match(tag)
            if "!" in tag[handle.end() if handle else 1 :]:
                raise InputError(
                    f"invalid YAML: Could not resolve tag: {tag} (agentv's YAML reader takes the text up "
                    "to a tag's last `!` for its handle, and that handle is not declared)",
                    self.path,
                    mark.line + 1,
                    token.start() + 1,  # `yaml` counts a byte-order mark as a column
                )

    def _at_properties(self, mark: Any) -> bool:
        """Whether a collection's mark is at its anchor or tag, not at its content."""
        return self.text[mark.index + self.bom] in "&!"

    def leave(self, saved: tuple[int, Any, bool], end_mark: Any) -> None:
        if saved[2]:  # a flow collection: `]#` and `}#`
            at = end_mark.index + self.bom
            if self.text[at : at + 1] == "#":
                self._comment_too_close(end_mark.line, end_mark.column)
        start = self.flow_start
        self.indent_next, self.flow_start = saved[0], saved[1]
        if start is not None and saved[1] is None and end_mark.line > start.line:
            self._check_flow(start, end_mark)

    def _refuse_tab_before(self, start_mark: Any) -> None:
        """`- `, then blanks holding a tab, then a block collection: `yaml` takes those tabs for
        indentation, wherever they stand among the blanks (`-\tkey:`, `-\t key:`)."""
        line_start = start_mark.index + self.bom - start_mark.column
        column = start_mark.column
        has_tab = False
        while column > 0 and self.text[line_start + column - 1] in " \t":
            column -= 1
            if (start_mark.line, column) in self.tabs:
                has_tab = True
        if not has_tab:
            return
        raise InputError(
            "invalid YAML: Tabs are not allowed as indentation (agentv's YAML reader refuses a tab "
            "before a nested list or mapping)",
            self.path,
            start_mark.line + 1,
            column + 1,  # `yaml` names the first blank, not the tab
        )

    def block_text(self, start_mark: Any, end_mark: Any, value: Any) -> Any:
        """A block scalar's text as `yaml` reads it: unless its header strips (`|-`), it ends
        with a line break even at the end of a file that has none, where libyaml gives none; and
        where the two read its lines apart (a line of blanks longer than the indentation, which
        `yaml` takes for an empty line and libyaml for text; a tab right after the indentation
        of the first line, which libyaml refuses and a respelling let it read; nothing but blank
        lines), as `yaml` does."""
        if not isinstance(value, str):
            return value
        # Substring tests first (this runs for every block scalar, nearly all read alike), then
        # _read_apart.
        if (
            not value or value[0] == "\n" or " \n" in value or " \r" in value or value[-1] == " " or self.tabs
        ) and self._read_apart(value):
            return self._as_yaml_reads(start_mark, end_mark)
        if value[-1] == "\n":
            return value
        at = start_mark.index + self.bom
        header_end = self.text.find("\n", at)
        header = self.text[at : header_end if header_end >= 0 else len(self.text)]
        return value if "-" in header.split("#")[0] else value + "\n"

    def quoted_text(self, start_mark: Any, end_mark: Any, value: Any) -> Any:
        """A double-quoted string on several lines as `yaml` reads it: an escaped line break
        (`\\` at a line's end) followed by blank lines is folded as an unescaped one would be,
        less one line break (one blank line is a space, two a line break), where libyaml keeps
        a line break for each blank line; blanks before that `\\` stay."""
        source = self.text[start_mark.index + self.bom : end_mark.index + self.bom]
        if "\\\n" not in source and "\\\r" not in source:
            return value
        pieces = []
        last = 0
        for found in _ESCAPED_BREAK_THEN_BLANK.finditer(source):
            escape = found.start()
            backslashes = len(source[:escape]) - len(source[:escape].rstrip("\\"))
            if backslashes % 2:
                continue  # an escaped backslash, then a line break
            blanks = len(source[:escape]) - len(source[:escape].rstrip(" \t"))
            kept = "".join("\\t" if blank == "\t" else "\\x20" for blank in source[escape - blanks : escape])
            pieces.append(source[last : escape - blanks] + kept + "\n")
            last = found.end()
        if not pieces:
            return value
        respelled = "".join(pieces) + source[last:]
        try:
            return yaml.load(respelled, Loader=_Loader)
        except yaml.YAMLError:  # a line of the string read apart from it (`---` at its start)
            return value

    def _as_yaml_reads(self, start_mark: Any, end_mark: Any) -> str:
        """A block scalar's value by `yaml`'s rules, from its lines in the text."""
        at = start_mark.index + self.bom
        header_end = self.text.find("\n", at)
        end = end_mark.index + self.bom
        if not self.text[end:].strip(" \n"):
            end = len(self.text)  # libyaml's mark leaves out a last line of spaces without a line break
        body = self.text[header_end + 1 : end] if header_end >= 0 else ""
        header = self.text[at : header_end if header_end >= 0 else len(self.text)]
        header = header.split("#")[0].strip(" \t\r")
        if self.stand_ins:
            body = body.replace(_TAB_STAND_IN, "\t")
        parent = self.indent_next - 1 if self.indent_next else 0
        value = _block_scalar(header, body, parent, self.path, start_mark.line + 2)
        if not body.strip(" \r\n"):
            self._refuse_deeper_blank_lines(body, parent, header, end_mark)
        return value

    def _read_apart(self, value: str) -> bool:
        """Whether libyaml's value of a block scalar may be other than `yaml`'s: nothing but line
        breaks, a line of nothing but spaces (libyaml keeps those past the indentation, `yaml`
        takes the line for an empty one), or a tab respelled."""
        if not value or (value[0] == "\n" and not value.strip("\n")):
            return True
        if (" \n" in value or " \r" in value or value[-1] == " ") and _SPACES_LINE.search(value):
            return True
        return bool(self.tabs) and _TAB_STAND_IN in value

    def _refuse_deeper_blank_lines(self, body: str, parent: int, header: str, end_mark: Any) -> None:
        """Blank lines alone, then a line of text indented less than they are but more than the
        collection around: libyaml takes its indentation from the blank lines and ends the scalar
        before that line, `yaml` takes the line for the scalar's and refuses the blank lines."""
        if any(character.isdigit() for character in header):
            return
        deepest = max((len(line) for line in body.split("\n")), default=0)
        number = end_mark.line if end_mark.column == 0 else end_mark.line + 1
        if number >= len(self.lines):
            return
        line = self.lines[number]
        indent = len(line) - len(line.lstrip(" "))
        if line.strip(" \t\r") and parent < indent < deepest:
            raise InputError(
                "invalid YAML: Block scalars with more-indented leading empty lines must use an explicit "
                "indentation indicator (agentv's YAML reader refuses blank lines deeper than the first text)",
                self.path,
                number + 1,
                indent + 1,
            )

    def scalar(self, start_mark: Any, end_mark: Any, style: str | None) -> None:
        if style not in _QUOTES or not self.indent_next or end_mark.line == start_mark.line:
            return
        if self.flow_start is not None:
            self.flow_quoted.append((start_mark, end_mark, style))
            return
        found = self._quoted_problem(start_mark, end_mark, style, self.indent_next)
        if found is not None:
            raise InputError(found[2], self.path, found[0], found[1])

    def _quoted_problem(self, start: Any, end: Any, quote: str, indent: int) -> tuple[int, int, str] | None:
        """Where `yaml` stops a quoted string whose next line is indented too little: at the end
        of the line before."""
        lines = self.lines
        for number in range(start.line + 1, end.line + 1):
            line = lines[number]
            rest = line.lstrip(" ")
            if rest in ("", "\r") or len(line) - len(rest) >= indent:
                continue
            before = lines[number - 1].removesuffix("\r")
            why = f"(agentv's YAML reader ends a quoted string at a line indented less than {indent} spaces)"
            return number, len(before) + 1, f"invalid YAML: Missing closing {quote}quote {why}"
        return None

    def _check_flow(self, start: Any, end: Any) -> None:
        indent = self.indent_next
        inside_quotes: set[int] = set()
        problems = []
        for quoted_start, quoted_end, quote in self.flow_quoted:
            inside_quotes.update(range(quoted_start.line + 1, quoted_end.line + 1))
            problems.append(self._quoted_problem(quoted_start, quoted_end, quote, indent))
        problems.append(self._flow_problem(start, end, indent, inside_quotes))
        found = min((problem for problem in problems if problem is not None), default=None)
        if found is not None:
            raise InputError(found[2], self.path, found[0], found[1])

    def _flow_problem(
        self, start: Any, end: Any, indent: int, skipped: set[int]
    ) -> tuple[int, int, str] | None:
        lines = self.lines
        for number in range(start.line + 1, end.line + 1):
            line = lines[number]
            spaces = len(line) - len(line.lstrip(" "))
            rest = line.lstrip(" \t")
            if number in skipped or spaces >= indent or rest in ("", "\r") or rest[0] == "#":
                continue
            column = len(line) - len(rest)
            # A closing bracket one column short is allowed (parseFlowCollection's atFlowEndMarker).
            if spaces == indent - 1 and number == end.line and column == end.column - 1:
                continue
            kind = ("Flow sequence", "]") if self.text[start.index] == "[" else ("Flow map", "}")
            return (
                number + 1,
                column + 1,
                f"invalid YAML: {kind[0]} in block collection must be sufficiently indented and end "
                f"with a {kind[1]} (agentv's YAML reader needs its lines indented at least {indent} spaces)",
            )
        return None


class _Converter:
    def __init__(self, path: str, core: bool = False, indents: _Indents | None = None):
        self.path = path
        self.count = 0
        self.core = core
        # `yaml` reads a document that declares YAML 1.1 by its 1.1 schema (agentv's reader only).
        self.plain_scalar = yaml11_scalar if indents is not None and indents.schema11 else core_scalar
        self._construct = yaml.SafeLoader("")  # only its scalar resolution is borrowed
        # agentv's reader only: the `yaml` package's indentation rules for flow content.
        self.indents = indents
        # The document's mappings as libyaml's events tell them, read for a list or mapping key.
        self._mappings: dict[tuple[int, int], yaml_keys.KeyCollection] | None = None

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
        indents = self.indents
        if indents is None or id(node) in indents.seen:
            return self._convert(node, depth, start, end)
        indents.seen.add(id(node))  # an alias's node is checked where its anchor is, once
        if "!" in node.tag[1:]:
            indents.refuse_unresolvable_tag(node.start_mark)
        if isinstance(node, yaml.ScalarNode):
            indents.scalar(node.start_mark, node.end_mark, node.style)
            return self._convert(node, depth, start, end)
        saved = indents.enter(node.start_mark, bool(getattr(node, "flow_style", False)))
        converted = self._convert(node, depth, start, end)
        indents.leave(saved, node.end_mark)
        return converted

    def _same_key(self, first: Any, second: Any) -> bool:
        """Whether two keys with one name repeat a key: `yaml` compares the values (`1` and `'1'`,
        `null` and `''` differ, and the later is written over the earlier); the other readers
        compare names."""
        return self.indents is None or _js_identity(first) == _js_identity(second)

    def _merge(self, value: dict[str, Node], merged: Node) -> None:
        indents = self.indents
        if indents is not None and not _mergeable(merged) and indents.merge_problem is None:
            # `yaml` (merge: true) refuses the document once it has read all of it, without a
            # place; the merge's value is it.
            indents.merge_problem = InputError(
                "invalid YAML: Merge sources must be maps or map aliases (agentv's YAML reader "
                "merges only mappings into `<<`)",
                self.path,
                merged.start_line,
            )
        _merge_into(value, merged)

    def _convert(self, node: yaml.Node, depth: int, start: int, end: int) -> Node:
        if isinstance(node, yaml.MappingNode):
            return self._mapping_node(node, depth, start, end)
        if isinstance(node, yaml.SequenceNode):
            items = [self.convert(item, depth + 1) for item in node.value]
            return Node(items, start, _last_line(items, start, end), start)
        scalar = self._scalar(node)
        block = getattr(node, "style", None) in ("|", ">")
        if block and self.indents is not None:
            scalar = self.indents.block_text(node.start_mark, node.end_mark, scalar)
        elif self.indents is not None and getattr(node, "style", None) == '"' and end > start:
            scalar = self.indents.quoted_text(node.start_mark, node.end_mark, scalar)
        return Node(scalar, start, end, min(start + block, end))

    def _mapping_node(self, node: yaml.MappingNode, depth: int, start: int, end: int) -> Node:
        value: dict[str, Node] = {}
        written: dict[str, Any] = {}  # each key written, by its name
        for index, (key_node, value_node) in enumerate(node.value):
            if key_node.tag == "tag:yaml.org,2002:merge":
                self._merge(value, self.convert(value_node, depth + 1))
                continue
            if isinstance(key_node, yaml.ScalarNode) or self.indents is None:
                key = self._scalar(key_node)
                name = self._key_text(key)
            else:
                key, name = object(), self._collection_key(node, index, key_node, depth)
            # `yaml` reads a flow mapping's value before it checks the key, a block one's after.
            converted = self.convert(value_node, depth + 1) if node.flow_style else None
            if self.core and name in written and self._same_key(written[name], key):
                # YAML 1.2 readers refuse a repeated key (the `yaml` package's uniqueKeys default).
                mark = key_node.start_mark
                raise DuplicateKey("Map keys must be unique", self.path, mark.line + 1, mark.column + 1)
            written[name] = key
            value[name] = converted or self.convert(value_node, depth + 1)
        return Node(value, start, _last_line(value.values(), start, end), start)

    def _refuse_flow_key_after_gap(self, indents: _Indents, before: yaml.Node, key_node: yaml.Node) -> None:
        """`yaml`'s parser takes a flow list or mapping that starts a block mapping's later key
        (`[a]: x`) for a comment's trailing content, in a mapping not at column 0 or after a blank
        or comment line, and refuses the document."""
        mark = key_node.start_mark
        explicit = "?" in indents.lines[mark.line][: mark.column]  # `? [a]`: not this
        if explicit or not _gap_before(indents.lines, mark.line, mark.column):
            return
        while isinstance(before, (yaml.MappingNode, yaml.SequenceNode)) and before.value:
            last = before.value[-1]
            before = last[1] if isinstance(before, yaml.MappingNode) else last
        if mark.column == 0 and isinstance(before, yaml.ScalarNode) and before.style in ("|", ">"):
            start = before.start_mark.index + indents.bom
            if "+" in indents.text[start : indents.text.find("\n", start)]:
                return  # the blank lines are the text's own (kept)
        raise InputError(
            "invalid YAML: Map comment with trailing content (agentv's YAML reader refuses a list "
            "or mapping as a later key of an indented mapping, or after a blank or comment line)",
            self.path,
            mark.line + 1,
            mark.column + 1,
        )

    def _collection_key(self, mapping: yaml.MappingNode, index: int, key_node: yaml.Node, depth: int) -> str:
        """A list or mapping key, named as agentv's YAML reader names it: by its YAML text, as its
        stringifier writes it (yaml_keys.py). `yaml` also logs a warning ("Keys with collection
        values will be stringified"), to the console, not to its result: the inspector's reader
        returns the tree alone and has no warnings to carry one, and the file reads the same. The
        key is converted for the checks and limits its values get, its value not kept; never
        equal to another key (`yaml` compares them as nodes): a later one of the same name is
        written over it."""
        indents = self.indents
        assert indents is not None
        self.convert(key_node, depth + 1)
        if self._mappings is None:
            self._mappings = yaml_keys.document_mappings(
                list(yaml.parse(indents.text, Loader=_Loader)), indents.text, indents.bom, _put_back
            )
        pairs = self._mappings[(mapping.start_mark.index, mapping.end_mark.index)].items
        if index and not mapping.flow_style:
            # `yaml` names the last such key of the mapping (not an alias), once it has read them all.
            for later in range(len(pairs) - 1, index - 1, -1):
                if isinstance(pairs[later][0], yaml_keys.KeyCollection):
                    self._refuse_flow_key_after_gap(
                        indents, mapping.value[later - 1][1], mapping.value[later][0]
                    )
        if indents.schema11:
            self._refuse_collection_key(key_node, "in a document read by YAML 1.1's schema")
        try:
            yaml_keys.refuse_unwritable(pairs[index][0], indents.text, indents.bom)
            return yaml_keys.key_text(pairs[index][0])
        except yaml_keys.KeyNotWritten as reason:
            self._refuse_collection_key(key_node, str(reason))

    def _tagged(self, node: yaml.Node) -> bool:
        """Whether a plain scalar is written with a tag (`!!str 1`), in agentv's reader."""
        indents = self.indents
        if indents is None:
            return False
        at = node.start_mark.index + indents.bom
        return indents.text[at : at + 1] == "!"  # an empty value at the end has nothing there

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
            self._refuse_collection_key(node)
        # Most values are text: a str scalar constructs to its own value (SafeConstructor's
        # construct_yaml_str), without the constructor's per-node bookkeeping. Plain scalars in
        # core mode still go through the YAML 1.2 resolution below.
        if self.indents is not None and node.tag in _SCHEMA_KINDS and self._tagged(node):
            return _tagged_scalar(node.tag, node.value, self.plain_scalar)
        if node.tag == _STR_TAG and (node.style or not self.core or self._tagged(node)):
            return node.value
        if self.core and not node.style and node.tag in _IMPLICIT_TAGS:
            return self.plain_scalar(node.value)
        if self._kept_as_written(node.tag):
            return node.value
        return self._constructed(node)

    def _kept_as_written(self, tag: str) -> bool:
        # agentv's YAML reader has no timestamps (YAML 1.2): a date is text, as written; and
        # `yaml` reads `<<` as a merge only as a key, a tag it does not know as none.
        return tag == _TIMESTAMP_TAG or (
            self.indents is not None and (tag == _MERGE_TAG or tag not in _KNOWN_TAGS)
        )

    def _refuse_collection_key(self, node: yaml.Node, why: str | None = None) -> NoReturn:
        raise InputError(
            "a mapping key must be a plain value"
            + (
                " (agentv's YAML reader names a list or mapping key by its YAML text, `[ a ]`, which "
                f"the inspector cannot write exactly for this one: {why})"
                if why is not None
                else ""
            ),
            self.path,
            node.start_mark.line + 1,
            node.start_mark.column + 1,
        )

    def _constructed(self, node: yaml.Node) -> Any:
        """A scalar of a tag PyYAML's constructors read (`!!int`, `!!binary`, ...), or its error."""
        try:
            return self._construct.construct_object(node, deep=True)
        except yaml.YAMLError as error:
            raise InputError(
                f"invalid value: {error}", self.path, node.start_mark.line + 1, node.start_mark.column + 1
            ) from None
        except (ValueError, KeyError, OverflowError):
            # PyYAML's constructors fail as Python does on a text their tag cannot hold (`!!int x`).
            kind = node.tag.rsplit(":", 1)[-1]
            raise InputError(
                f"invalid value: {node.value!r} cannot be read as !!{kind}",
                self.path,
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            ) from None


_STR_TAG = "tag:yaml.org,2002:str"
# The scalar tags `yaml` knows (its core schema, and those it reads whenever written out).
_KNOWN_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str", "binary", "timestamp")
}
_IMPLICIT_TAGS = {
    f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "timestamp", "str", "value")
}


# `--profile auto` reads a file to choose its reader, which then reads it again: the last tree is
# kept so the second read is free. Trees are never changed after parsing (every step builds new
# nodes), so sharing one is safe.
_last_read: tuple[tuple[str, str, bool, bool], Node | None] | None = None


def forget_last_read() -> None:
    """Drop the kept tree, so the next read parses (a benchmark timing a whole render)."""
    global _last_read
    _last_read = None


def load_yaml(text: str, path: str, core: bool = False, agentv: bool = False) -> Node | None:
    """The document's tree, or None for an empty file. Raises InputError with line and column.

    `core` reads by YAML 1.2's core schema, repeated keys refused (promptfoo's and gambit's readers
    too); `agentv` (which implies it) also accepts and refuses what agentv 4 and 5's reader, the
    npm `yaml` package, does where libyaml parts from it. A list or mapping key is then named by
    its YAML text, as `yaml` names it (yaml_keys.py); the warning `yaml` logs for it goes to
    agentv's console and changes no value, and this reader, which returns the tree alone, gives
    none."""
    global _last_read
    core = core or agentv
    key = (path, text, core, agentv)
    last = _last_read
    if last is not None and last[0] == key:
        return last[1]
    try:
        if agentv and (_read_apart_unrefused(text) or _read_apart_maybe(text)):
            root = read_by_port(text, path)
        else:
            root = _parse_yaml(text, path, core, agentv)
    except (LimitExceeded, ControlCharacter):
        raise
    except InputError as error:
        if not agentv or len(text) > MAX_PORT_BYTES:
            raise
        root = _as_agentv_reads(error, text, path)
    _last_read = (key, root)
    return root


# The port of agentv's YAML library is plain Python, about 200 KB a second (a 540 KB suite: 2.7 s,
# where the reader takes 0.17 s), so it reads only what libyaml refuses or reads apart, and only in a
# document no larger than an eval file is; beyond, the reader's own error stands.
MAX_PORT_BYTES = 256 * 1024
# Before yaml's own words, which do not say they are about the file's YAML.
AGENTV_REFUSES = "invalid YAML: "


def read_by_port(text: str, path: str) -> Node | None:
    """The document's tree as the port of agentv's YAML library (yaml_js) reads it, or its first
    error in agentv's words; the reader's limits first."""
    check_yaml_nesting(text, path)
    return _as_agentv_reads(None, text, path)


# What libyaml may read apart from `yaml` in ways the reader does not follow, matched loosely (a
# match in a quoted string costs only the port's time, never a wrong value): a merge key, whose
# sources `yaml` names by String() (a null key is "null" there), and `-` or `?` then a blank inside
# a flow collection (a block collection, which `yaml` refuses there).
_MERGE_KEY = re.compile(r"<<[ \t]*:")
_FLOW_BLOCK_INDICATOR = re.compile(r"[\[{,][ \t\r\n]*[-?](?:[ \t\r\n,\]}]|$)|:[ \t]*-[ \t]*[,\]}]")


def _read_apart_maybe(text: str) -> bool:
    """Whether the text may hold what libyaml reads apart from `yaml` (above); such a text goes to
    the port up to MAX_PORT_BYTES, and beyond, libyaml's reading stands."""
    if len(text) > MAX_PORT_BYTES:
        return False
    return ("<<" in text and bool(_MERGE_KEY.search(text))) or bool(_FLOW_BLOCK_INDICATOR.search(text))


def _read_apart_unrefused(text: str) -> bool:
    """Whether libyaml reads the text apart from `yaml` without refusing it, so only the port reads
    it as agentv does: `&a: x` and `*a:` (`yaml`'s anchor and alias `a:`, libyaml's `a` on an empty
    key or as one) and `?x` inside a flow collection (`yaml`'s text, libyaml's explicit key)."""
    return ("&" in text and bool(_COLON_ANCHOR.search(text))) or (
        "?" in text and bool(_FLOW_QUESTION.search(text))
    )


def _as_agentv_reads(error: InputError | None, text: str, path: str) -> Node | None:
    """A document the reader refuses, read by the port of `yaml` (yaml_js) instead: libyaml stops
    at its own first error where `yaml` reads on and reports the document's first, and refuses
    some documents `yaml` reads. The port's tree where `yaml` reads the document, else its first
    error in agentv's words at agentv's place (_as_agentv_refuses)."""
    if len(text) > MAX_PORT_BYTES:
        raise error or InputError(
            "`&name:` anchors, `*name:` aliases and `?text` inside `[...]` or `{...}` are read as agentv reads them only in "
            f"files up to {MAX_PORT_BYTES // 1024} KB (libyaml reads them apart from agentv's YAML library)",
            path,
        )
    document = composed(text)
    found = document if isinstance(document, Refusal) else document_refusal(document, text)
    if found is not None:
        raise _as_agentv_refuses(error, found, path) from None
    assert not isinstance(document, Refusal)
    try:
        return port_tree.to_tree(document, text, _PortBuilder(path, text), MAX_DEPTH)
    except LimitExceeded:
        raise
    except InputError as refused:
        # A list or mapping key `yaml` reads and the inspector cannot name exactly: why, at the key.
        raise refused from None


def _as_agentv_refuses(error: InputError | None, found: Refusal, path: str) -> InputError:
    """The port's refusal in agentv's words and at agentv's place. Where `yaml` names no place
    (an alias to no anchor, a bad merge) the reader's place stands, if it read the document."""
    if error is None:
        return InputError(f"{AGENTV_REFUSES}{found.message}", path, found.line, found.column)
    ours = error.diagnostic
    message = f"{AGENTV_REFUSES}{found.message}"
    if found.line is None:
        return InputError(message, path, ours.line, ours.column, ours.likely_start)
    if ours.likely_start is None or ours.likely_start >= found.line:
        return InputError(message, path, found.line, found.column)
    # yaml's words name what is left open (a quote, a flow collection) but not where it opened.
    message += f" (it starts on line {ours.likely_start})"
    return InputError(message, path, found.line, found.column, ours.likely_start)


class _PortBuilder:
    """The reader's Nodes, values and key names for the port's tree (yaml_js/tree.py): a scalar's
    value as the reader gives the same text and tag (core_scalar's ints and floats, the tags
    `yaml` knows), a key's name as String() gives it."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.converter = _Converter(path, core=True)

    node = staticmethod(Node)

    def scalar(self, scalar: PortScalar, schema11: bool, line: int) -> Any:
        plain = yaml11_scalar if schema11 else core_scalar
        text, tag = scalar.text, scalar.tag
        if tag is None:
            return plain(text) if scalar.type in (None, "PLAIN") else text
        if tag in _SCHEMA_KINDS:
            return _tagged_scalar(tag, text, plain)
        if tag in (_STR_TAG, _TIMESTAMP_TAG, "!") or tag not in _KNOWN_TAGS:
            return text  # no timestamps in YAML 1.2; a tag `yaml` does not know is none
        mark = yaml.Mark(self.path, 0, line - 1, 0, "", 0)  # `!!binary`: PyYAML's error at its line
        return self.converter._constructed(yaml.ScalarNode(tag, text, mark, mark))

    def key(self, value: Any) -> str:
        return self.converter._key_text(value)

    def collection_key(self, key: Any, schema11: bool, at: tuple[int, int]) -> str:
        """A list or mapping key named by its YAML text as `yaml` writes it (yaml_keys.py)."""
        try:
            if schema11:
                raise yaml_keys.KeyNotWritten("in a document read by YAML 1.1's schema")
            tree = yaml_keys.port_key_tree(key)
            assert not isinstance(tree, yaml_keys.KeyScalar)  # a list or mapping, or an alias to one
            yaml_keys.refuse_unwritable(tree, self.text, 0)
            return yaml_keys.key_text(tree)
        except yaml_keys.KeyNotWritten as reason:
            raise InputError(
                "a mapping key must be a plain value (agentv's YAML reader names a list or mapping key "
                f"by its YAML text, `[ a ]`, which the inspector cannot write exactly for this one: {reason})",
                self.path,
                *at,
            ) from None

    def too_deep(self, line: int, column: int) -> NoReturn:
        raise LimitExceeded(
            f"the document is nested more than {MAX_DEPTH} levels deep", self.path, line, column
        )


def _parse_yaml(text: str, path: str, core: bool, agentv: bool = False) -> Node | None:
    check_yaml_nesting(text, path)  # before libyaml, which would overflow the C stack
    tabs: frozenset[tuple[int, int]] | None = frozenset() if agentv else None
    stand_ins = _TAB_STAND_IN not in text  # a block scalar's tab may be respelled as one
    colons_written = _COLON_STAND_IN in text
    first_error = None
    inserted: list[tuple[int, int]] = []  # (line, column) of each space put in, for the columns
    for _ in range(_MAX_RESPELLINGS + 1):
        try:
            root = _read_yaml(text, path, core, tabs, stand_ins)
        except InputError as error:
            raise (_unshifted(error, inserted) if inserted else error) from None
        except _Respelled as found:
            # What `yaml` reads where libyaml refuses it, spelled as libyaml reads it (the same
            # lines), and read again.
            first_error = first_error or found.error
            text, tabs = found.text, _tabs_after(found, tabs, inserted)
            continue
        return _stand_ins_put_back(root, text, stand_ins, colons_written, first_error)
    raise first_error or AssertionError("unreachable")


def _tabs_after(
    found: _Respelled, tabs: frozenset[tuple[int, int]] | None, inserted: list[tuple[int, int]]
) -> frozenset[tuple[int, int]] | None:
    """The places of the tabs made spaces, with this respelling's if it made one; a space put in
    is added to `inserted` (the columns of errors are given back in the text as written)."""
    if found.where is None:
        return tabs  # a character put in another's place
    if found.inserted is None:
        return (tabs or frozenset()) | {found.where}
    inserted.append(found.inserted)
    return tabs


def _stand_ins_put_back(
    root: Node | None, text: str, stand_ins: bool, colons_written: bool, first_error: InputError | None
) -> Node | None:
    """The tree read from the respelled text, with the characters respelled put back; or the first
    error, where `yaml` refuses what the respelling let libyaml read."""
    if stand_ins and first_error is not None and _TAB_STAND_IN in text and _holds(root, _TAB_STAND_IN):
        # A tab respelled for a block scalar that libyaml then read as something else (a
        # key, a plain value): `yaml` refuses that tab. The first error is the text's own.
        raise first_error
    if root is not None and _COLON_STAND_IN in text:
        if colons_written:
            if first_error is None:
                return root  # the file's own characters, nothing respelled
            raise first_error  # the file's own stand-ins could not be told from the respelled
        root = _colons_put_back(root)
    return root


def _put_back(text: str) -> str:
    return text.replace(_COLON_STAND_IN, ":")


def _colons_put_back(node: Node) -> Node:
    """The tree with each `:` respelled as a stand-in (in texts and keys) put back."""
    value = node.value
    if isinstance(value, str):
        return Node(_put_back(value), node.start_line, node.end_line, node.text_line)
    if isinstance(value, list):
        value = [_colons_put_back(item) for item in value]
    elif isinstance(value, dict):
        value = {_put_back(key): _colons_put_back(item) for key, item in value.items()}
    else:
        return node
    return Node(value, node.start_line, node.end_line, node.text_line)


def _holds(root: Node | None, character: str) -> bool:
    """Whether a key or a text of the tree holds the character."""
    if root is None:
        return False
    value = root.value
    if isinstance(value, str):
        return character in value
    if isinstance(value, dict):
        return any(character in key or _holds(item, character) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds(item, character) for item in value)
    return False


def _read_yaml(
    text: str, path: str, core: bool, tabs: frozenset[tuple[int, int]] | None, stand_ins: bool = False
) -> Node | None:
    try:
        return _from_events(text, path, core, tabs, stand_ins)
    except _Unusual:
        # Invalid or hostile input, or a shape the event reader leaves alone: the composer's path
        # says exactly what is wrong, and where, in the words it always has.
        return _compose_and_convert(text, path, core, tabs, stand_ins)


# A document `yaml` reads by YAML 1.1's schema: its first directive names that version.
_YAML_11 = re.compile(r"\A\ufeff?(?:[ \t]*(?:#[^\n]*)?\n)*%YAML[ \t]+1\.1[ \t\r\n#]")
# Each respelling takes a parse: a file needing more is read as it is, and refused.
_MAX_RESPELLINGS = 20
# A line's start up to a tab `yaml` takes for separation: block indicators (`-`, `?`, `:`).
_INDICATORS_BEFORE_TAB = re.compile(r"[ ]*(?:[-?:][ ]*)+")


def _offset(text: str, mark: Any) -> int:
    """A mark's index in the text (libyaml's do not count a byte-order mark)."""
    return mark.index + text.startswith("\ufeff")


def _unshifted(error: InputError, inserted: list[tuple[int, int]]) -> InputError:
    """The error at its place in the text as written, before the spaces put in."""
    where = error.diagnostic
    if where.line is None or where.column is None:
        return error
    shift = sum(1 for line, column in inserted if line == where.line - 1 and column < where.column - 1)
    if not shift:
        return error
    return type(error)(where.message, where.path, where.line, where.column - shift, where.likely_start)


class _Respelled(Exception):
    """The text respelled: a tab made a space at `where`, a space put in at `inserted`, or (both
    None) a character put in another's place."""

    def __init__(
        self, text: str, where: tuple[int, int] | None, inserted: tuple[int, int] | None, error: InputError
    ):
        super().__init__()
        self.text = text
        self.where = where
        self.inserted = inserted
        self.error = error


_Respelling = tuple[str, tuple[int, int] | None, tuple[int, int] | None]


def _respelled(text: str, error: yaml.MarkedYAMLError, stand_ins: bool = False) -> _Respelling | None:
    """_respelled_at the place libyaml stopped, else an anchor's name `yaml` reads and libyaml
    cuts short (`&a:`), wherever libyaml then stops."""
    respelled = _respelled_at(text, error, stand_ins)
    if respelled is None and error.problem_mark is not None:
        respelled = _anchor_respelled(text, None, error.problem_mark)
    return respelled


def _respelled_at(text: str, error: yaml.MarkedYAMLError, stand_ins: bool = False) -> _Respelling | None:
    """The text as libyaml reads what `yaml` reads where libyaml stopped: a space for a tab `yaml`
    takes for separation (right after a block indicator, `-\tvalue`, or on a line of nothing but
    blanks), a space after a `:` that ends a key in a flow collection (`{key:, other: 1}`)."""
    mark = error.problem_mark
    problem = error.problem or ""
    if mark is None:
        return None
    respell = _RESPELLING_BY_PROBLEM.get(problem)
    if respell is not None:
        return respell(text, error)
    if problem in ("found unknown directive name", "could not find expected directive name"):
        return _unknown_directive_respelled(text, error.context_mark)
    if problem.startswith("found a tab character where an indentation space") and stand_ins:
        return _block_scalar_tab_respelled(text, error)
    if "cannot start any token" in problem or "violates indentation" in problem:
        return _tab_respelled(text, mark, "violates indentation" in problem)
    return None


def _flow_key_colon_respelled(text: str, error: yaml.MarkedYAMLError) -> _Respelling | None:
    """A space after a `:` that ends a key in a flow collection (`{key:, other: 1}`)."""
    mark: Any = error.problem_mark  # _respelled_at found one
    at = _offset(text, mark)
    if text[at : at + 1] == ":" and text[at + 1 : at + 2] in (",", "]", "}"):
        where = (mark.line, mark.column + 1)
        return text[: at + 1] + " " + text[at + 1 :], where, where
    return None


def _missing_key_respelled(text: str, error: yaml.MarkedYAMLError) -> _Respelling | None:
    return _empty_key_respelled(text, error.problem_mark) or _colon_respelled(text, error.problem_mark)


def _anchor_name_respelled(text: str, error: yaml.MarkedYAMLError) -> _Respelling | None:
    context = error.context or ""
    if "anchor" in context or "alias" in context:
        return _anchor_respelled(text, error.context_mark)
    return None


def _after_last_document_respelled(text: str, error: yaml.MarkedYAMLError) -> _Respelling | None:
    if text[_offset(text, error.problem_mark) :].strip():
        return None
    return _trailing_directives_respelled(text)


def _tag_end_respelled(text: str, error: yaml.MarkedYAMLError) -> _Respelling | None:
    """`yaml` ends a tag at a flow indicator (`{k: !x}`, and inside a flow collection
    `[!{k: 1}]`); libyaml wants a blank after it."""
    if "tag" not in (error.context or ""):
        return None
    mark: Any = error.problem_mark  # _respelled_at found one
    at = _offset(text, mark)
    found = text[at : at + 1]
    if found in ("}", "]", ",") or (found in ("{", "[") and _in_flow(text, mark)):
        where = (mark.line, mark.column)
        return text[:at] + " " + text[at:], where, where
    if found == "#":
        # `yaml` takes a `#` into a tag (`!!flo#at`), which no schema knows: a tag libyaml
        # takes in, no schema knows either, in its place (the same columns).
        return text[:at] + ";" + text[at + 1 :], None, None
    return None


def _block_scalar_tab_respelled(text: str, error: yaml.MarkedYAMLError) -> _Respelling | None:
    """A block scalar's first text line may start with a tab after its indentation in `yaml`:
    libyaml reads a stand-in there, and block_text puts the tab back."""
    mark: Any = error.problem_mark  # _respelled_at found one
    at = _offset(text, mark)
    before = text[at - mark.column : at] if mark.line else ""
    if (
        text[at : at + 1] == "\t"
        and before.strip(" ") == ""
        and before
        and "block scalar" in (error.context or "")
    ):
        return text[:at] + _TAB_STAND_IN + text[at + 1 :], (mark.line, mark.column), None
    return None


# libyaml's words for where it stopped, and how the text is respelled for what `yaml` reads there.
_RESPELLING_BY_PROBLEM: dict[str, Callable[[str, yaml.MarkedYAMLError], _Respelling | None]] = {
    "found unexpected ':'": _flow_key_colon_respelled,
    "did not find expected key": _missing_key_respelled,
    "did not find expected node content": _missing_key_respelled,
    "did not find expected alphabetic or numeric character": _anchor_name_respelled,
    "did not find expected <document start>": _after_last_document_respelled,
    "did not find expected whitespace or line break": _tag_end_respelled,
}


def _in_flow(text: str, mark: Any) -> bool:
    """Whether a place libyaml stopped at is inside a flow collection (its tokens up to there)."""
    depth = 0
    try:
        for token in yaml.scan(text, Loader=_Loader):
            if (token.start_mark.line, token.start_mark.column) >= (mark.line, mark.column):
                break
            kind = type(token)
            if kind in (yaml.FlowSequenceStartToken, yaml.FlowMappingStartToken):
                depth += 1
            elif kind in (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken):
                depth -= 1
    except yaml.YAMLError:
        pass
    return depth > 0


def _unknown_directive_respelled(text: str, start: Any) -> _Respelling | None:
    """A directive `yaml` does not know (`%x`, `%`): it passes over it (a warning), libyaml
    refuses it; spelled as the comment `yaml` takes it for. Not where `yaml` refuses it too, and
    libyaml's error stands: inside a document (a plain value, which cannot start with `%`), or
    where what follows it is refused (_document_after_directive_refused)."""
    if start is None:
        return None
    lines = text.split("\n")
    at = _offset(text, start)
    if text[at : at + 1] != "%":
        return None
    before = start.line
    while before > 0 and (
        not lines[before - 1].strip(" \t\r\ufeff") or lines[before - 1].lstrip("\ufeff")[:1] in "#%"
    ):
        before -= 1
    inside_a_document = before > 0 and lines[before - 1].rstrip(" \t\r") != "..."
    if inside_a_document or _document_after_directive_refused(lines, start.line, before == 0):
        return None
    return text[:at] + "#" + text[at + 1 :], None, None


def _document_after_directive_refused(lines: list[str], directive: int, first: bool) -> bool:
    """Whether `yaml` refuses what follows a directive line (number `directive`, 0-based; `first`:
    before the first document): a document not opened by `---`, none at all in a first document,
    or a `...` that would end a second document."""
    for number in range(directive + 1, len(lines)):
        line = lines[number].rstrip("\r")
        if not line.strip(" \t") or line.lstrip(" \t")[:1] == "#" or line[:1] == "%":
            continue
        if line[:3] not in ("---", "...") or line[3:4] not in ("", " ", "\t"):
            return True
        return line[:3] == "..." and any(before.rstrip(" \t\r") == "..." for before in lines[:directive])
    return first


def _trailing_directives_respelled(text: str) -> _Respelling | None:
    """Directives after a document's end (`...`) with no document after them: `yaml` reads the
    file, libyaml wants a document; spelled as comments."""
    lines = text.split("\n")
    number = len(lines)
    while number > 0 and (not lines[number - 1].strip(" \t\r") or lines[number - 1][:1] in ("%", "#")):
        number -= 1
    if (
        number == 0
        or lines[number - 1].rstrip(" \t\r") != "..."
        or not any(line[:1] == "%" for line in lines[number:])
    ):
        return None
    tail = ["#" + line[1:] if line[:1] == "%" else line for line in lines[number:]]
    return "\n".join(lines[:number] + tail), None, None


def _empty_key_respelled(text: str, mark: Any) -> _Respelling | None:
    """`- : x`, `{a, : b}`: an empty key, which `yaml` reads as null and libyaml refuses, spelled
    as the null it is (`~`)."""
    at = _offset(text, mark)
    if text[at : at + 1] != ":" or text[at + 1 : at + 2] not in ("", " ", "\t", "\r", "\n", ",", "]", "}"):
        return None
    if at > 0 and text[at - 1] not in " \t\n,[{":
        return None
    where = (mark.line, mark.column)
    return text[:at] + "~" + text[at:], where, where


def _colon_respelled(text: str, mark: Any) -> _Respelling | None:
    """`[:x]`, `{a: :x}`: a plain scalar starting with `:` inside a flow collection, which `yaml`
    reads as text and libyaml refuses; its `:` spelled as a stand-in, put back once read."""
    at = _offset(text, mark)
    if text[at : at + 1] != ":" or text[at + 1 : at + 2] in (
        "",
        " ",
        "\t",
        "\r",
        "\n",
        ",",
        "[",
        "]",
        "{",
        "}",
    ):
        return None
    if not _in_flow(text, mark):
        return None
    return text[:at] + _COLON_STAND_IN + text[at + 1 :], None, None


def _anchor_respelled(text: str, start: Any, stop: Any = None) -> _Respelling | None:
    """`&a#`, `*a:`: `yaml` takes every character up to a blank or a flow indicator into an
    anchor's name, libyaml letters, digits, `-` and `_` (and stops, or ends the name at a `:`);
    the name spelled with `_` for each other character wherever it starts a node, when that names
    no other anchor of the file. `start`: the `&` or `*` libyaml stopped in; else the first name
    libyaml ends at a `:` (or `?`, `%`, `@`, a backquote) before the place it stopped (`stop`). (A plain text holding ` *a:` would be
    respelled too: not drawn, and no eval file has one.)"""
    if start is not None:
        at = _offset(text, start)
        found = _ANCHOR_NAME.match(text, at + 1)
        if text[at : at + 1] not in ("&", "*") or found is None:
            return None
        name = found.group()
    else:
        odd = _ODD_ANCHOR.search(text)
        if odd is None or odd.start() > _offset(text, stop):
            return None
        name = odd.group(2)
    respelled_name = _ANCHOR_OTHER.sub("_", name)
    if any(
        other != name and _ANCHOR_OTHER.sub("_", other) == respelled_name
        for other in _NODE_NAMES.findall(text)
    ):
        return None  # another name spelled alike
    occurrences = re.compile(_NODE_START + r"([&*])" + re.escape(name) + r"(?=[ \t\r\n,\[\]{}]|\Z)", re.M)
    return occurrences.sub(lambda each: each.group(1) + respelled_name, text), None, None


def _tab_respelled(text: str, mark: Any, in_plain_scalar: bool) -> _Respelling | None:
    line_start = 0
    for _ in range(mark.line):
        line_start = text.index("\n", line_start) + 1
    # libyaml's columns on the first line do not count a byte-order mark.
    column = mark.column + (mark.line == 0 and text.startswith("\ufeff"))
    line_end = text.find("\n", line_start)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if column >= len(line) or line[column] != "\t":
        return None
    rest = line.strip(" \t\r")
    if not rest or rest[0] == "#":
        column = line.index("\t")  # a blank or comment line: its tabs are blanks
    elif (
        in_plain_scalar
        or not _INDICATORS_BEFORE_TAB.fullmatch(line[:column])
        # `yaml` refuses a tab before an anchor or tag after `-` or `?`, not after a lone `:`
        or (line[column:].lstrip(" \t")[:1] in ("&", "!") and line[:column].strip(" ") != ":")
    ):
        return None
    at = line_start + column
    return text[:at] + " " + text[at + 1 :], (mark.line, column), None


class _Unusual(Exception):
    """The event reader met something it leaves to the composer's path: a YAML error, a limit, a
    repeated key or anchor, a key that is not a plain value, a second document."""


_MERGE_TAG = "tag:yaml.org,2002:merge"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


def _from_events(
    text: str,
    path: str,
    core: bool,
    tabs: frozenset[tuple[int, int]] | None = None,
    stand_ins: bool = False,
) -> Node | None:
    """The tree built straight from the parser's events, the way _compose_and_convert builds it but
    without composing yaml.Node objects first, resolving each scalar's tag in Python and walking the
    graph twice: on a 10 MB file that was three quarters of the time. An alias shares its anchor's
    Node (trees are never changed after parsing), its expanded size and depth counted as the
    composer's path counts them."""
    parser = _Loader(text)
    try:
        indents = None if tabs is None else _Indents(text, path, tabs, stand_ins)
        return _EventReader(path, core, indents).read(parser.get_event)
    except yaml.MarkedYAMLError as error:
        # What `yaml` reads and libyaml does not is respelled here, before the composer's path
        # (which stops at a repeated anchor, which `yaml` allows, before it reaches it).
        respelled = None if tabs is None else _respelled(text, error, stand_ins)
        if respelled is None:
            raise _Unusual from None
        raise _Respelled(*respelled, marked_error(text, path, error)) from None
    except yaml.YAMLError:
        raise _Unusual from None
    finally:
        parser.dispose()


class _AnyCharacter:
    """A set that holds every character."""

    def __contains__(self, character: object) -> bool:
        return True


_ANY_CHARACTER = _AnyCharacter()


class _EventReader(_Converter):
    """_Converter's rules (scalars, keys, merges, limits) applied to parser events, read by
    recursive descent: a mapping's loop takes a key then its value, a sequence's its items, so no
    state says what comes next. What the composer's path would count (the nodes it composes, what
    the aliases stand for) is counted per collection as it closes, not per value."""

    def __init__(self, path: str, core: bool, indents: _Indents | None = None):
        super().__init__(path, core, indents)
        self.resolvers = _Loader.yaml_implicit_resolvers
        self.wildcard = self.resolvers.get(None, [])
        self.key_names: dict[str, str] = {}  # each plain key's name by its text, as read before
        # First characters of an untagged plain scalar that may be other than its own text (the
        # rest, and every quoted scalar without a tag, are their text: _is_text's test).
        self.unsure_first: Any = (
            _ANY_CHARACTER  # YAML 1.1's schema: `yes`, `on`, `y` are not text
            if self.plain_scalar is yaml11_scalar
            else frozenset(
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
        self.end_mark: Any = None  # the end of the collection read last

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
        if self.indents is not None and self.indents.merge_problem is not None:
            raise self.indents.merge_problem
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
        if event.anchor is None and self.indents is None:
            return read(event, depth + 1)
        return self._collection(event, read, depth)

    def _collection(self, event: Any, read: Any, depth: int) -> tuple[Node, int]:
        """A collection with an anchor, or read by agentv's rules for indentation."""
        indents = self.indents
        if indents is not None and event.tag is not None and "!" in event.tag[1:]:
            indents.refuse_unresolvable_tag(event.start_mark)
        saved = (
            indents.enter(
                event.start_mark, event.flow_style, event.anchor is not None or event.tag is not None
            )
            if indents is not None
            else None
        )
        before = self.composed + self.expanded
        node, height = read(event, depth + 1)
        if indents is not None and saved is not None:
            indents.leave(saved, self.end_mark)
        if event.anchor is not None:
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
        self.end_mark = end.end_mark  # type: ignore[attr-defined]
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
            self._merge(value, node)
            height = max(height, below + 1, 1)
        self.composed += composed
        self.end_mark = event.end_mark  # where agentv's indentation rules look for a flow mapping
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
        self.end_mark = event.end_mark
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
        block = style == "|" or style == ">"
        if end <= start:
            if block and self.indents is not None:  # no text line, or only a last one of spaces
                value = self.indents.block_text(event.start_mark, mark, value)
            return Node(value, start, start, start)
        if self.indents is not None:
            self.indents.scalar(event.start_mark, mark, style)
            if block:
                value = self.indents.block_text(event.start_mark, mark, value)
            elif style == '"':
                value = self.indents.quoted_text(event.start_mark, mark, value)
        # A block scalar's text starts on the line after its `|` or `>`.
        return Node(value, start, end, start + block)

    def _anchor(self, anchor: str, node: Node, size: int, height: int) -> None:
        if anchor in self.anchors and self.indents is None:
            raise _Unusual  # the composer refuses a repeated anchor; `yaml` takes the later one
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
            if self.plain_scalar is not core_scalar:
                return self.plain_scalar(value)
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
            return self._key_text(self.plain_scalar(text))  # the schema's value, as _key finds it
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
        if self.indents is not None and event.tag is not None:
            if "!" in event.tag[1:]:
                self.indents.refuse_unresolvable_tag(event.start_mark)
            if tag in _SCHEMA_KINDS:
                return _tagged_scalar(tag, event.value, self.plain_scalar)
        if tag == _STR_TAG and (event.style or not self.core or (event.tag and self.indents is not None)):
            return event.value
        if self.core and not event.style and tag in _IMPLICIT_TAGS:
            return self.plain_scalar(event.value)
        return self._constructed_scalar(tag, event)

    def _constructed_scalar(self, tag: str, event: Any) -> Any:
        """A scalar of a tag PyYAML's constructors read (`!!int`, `!!binary`, ...)."""
        if tag == _TIMESTAMP_TAG or (self.indents is not None and tag not in _KNOWN_TAGS):
            return event.value  # no timestamps in YAML 1.2; a tag `yaml` does not know is none
        try:
            return self._construct.construct_object(
                yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style), deep=True
            )
        except (yaml.YAMLError, ValueError, KeyError, OverflowError):
            raise _Unusual from None  # the composer's path names the problem


def _compose_and_convert(
    text: str,
    path: str,
    core: bool,
    tabs: frozenset[tuple[int, int]] | None = None,
    stand_ins: bool = False,
) -> Node | None:
    """The composer's way: every node composed, the graph checked for alias bombs, then
    converted. Slower than _from_events, and the one whose errors and limits are the reference."""
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as error:
        refusal = marked_error(text, path, error)
        respelled = None if tabs is None else _respelled(text, error, stand_ins)
        raise refusal if respelled is None else _Respelled(*respelled, refusal) from None
    except yaml.reader.ReaderError as error:
        # The reader reports a character offset, not a line: turn it into line and column.
        before = text[: error.position]
        line = before.count("\n") + 1
        column = error.position - (before.rfind("\n") + 1) + 1
        raise ControlCharacter(
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
        indents = None if tabs is None else _Indents(text, path, tabs, stand_ins)
        converted = _Converter(path, core, indents).convert(root)
    except RecursionError:
        raise LimitExceeded(f"the document is nested more than {MAX_DEPTH} levels deep", path) from None
    if indents is not None and indents.merge_problem is not None:
        raise indents.merge_problem
    return converted


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
