"""Guards for every parser call on uploaded text.

libyaml's C composer overflows the C stack (the process dies) on collections nested tens of
thousands deep, flow (`[[[`) or block (`- - -`, `? ? ?`); `json` raises RecursionError on deep
nesting; `tomllib` is quadratic in the depth of a dotted key; and YAML aliases let a few hundred
bytes describe a tree of billions of nodes. Each parser call on user text goes through these checks
first, so the usual hostile shapes are a clear InputError in milliseconds, never a crash. What the
guards cannot foresee is bounded by the worker process the render runs in (`bounded.py`).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from .model import InputError

MAX_NESTING = 500  # far beyond any honest eval file, deck or request body
# tomllib's work on a dotted key grows with the square of its depth: many keys each just under
# MAX_NESTING deep still take seconds. This budget (in segments squared) is about half a second.
MAX_DOTTED_WORK = 5_000_000
MAX_EXPANDED_NODES = 2_000_000
# Aliases may repeat honest blocks (a shared prompt in every case), but a tree that expands far
# beyond what the file itself composes is a bomb, even below MAX_EXPANDED_NODES.
EXPANSION_ALLOWANCE = 200_000
EXPANSION_FACTOR = 20
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
# Block collections opened on one line: `- - - x`, `? ? ? x`, `: - x`, with anchors or tags between.
# Nesting by indentation alone needs a line per level, so its depth is bounded by the file size.
# The lookahead is the shortest start of such a line (an indicator, blanks, a second indicator or
# an anchor or tag): it turns away an ordinary line (`  - role: user`) before the counted repeat,
# whose setup costs more than the test.
_OPENED_ON_ONE_LINE = (
    r"(?=[ \t]*[-?:][ \t]+[-?:&!])"
    r"[ \t]*(?:[-?:](?:[ \t]+(?:[&!][^ \t\n]*[ \t]+)*|(?=\n)|\Z))"
    "{" + str(MAX_NESTING + 1) + "}"
)
# Matched at the text's start, then searched for after a line break: a pattern starting with `^`
# (MULTILINE) is tried at every character, a literal `\n` only at each line's end (re scans for a
# literal first character in C). On a 500 KB eval file that was 6 ms, now a fraction of one.
_BLOCK_INDICATORS_FIRST_LINE = re.compile(_OPENED_ON_ONE_LINE)
_BLOCK_INDICATORS_LATER_LINE = re.compile("\n" + _OPENED_ON_ONE_LINE)
# A TOML dotted key (`a.b."c"`), in a key or a [header]. Starting only where a key can start keeps
# the scan linear.
_DOTTED_KEY = re.compile(
    r"""(?<![A-Za-z0-9_\-"'.])(?:(?:[A-Za-z0-9_-]++|"[^"\n]*+"|'[^'\n]*+')[ \t]*+\.[ \t]*+)++"""
)


class LimitExceeded(InputError):
    """The input is refused because reading it would cost too much (depth, size, time, memory),
    not because it is merely invalid. An upload holding such a file is not stored."""


def _too_deep(path: str | None, line: int | None = None) -> LimitExceeded:
    return LimitExceeded(f"the document is nested more than {MAX_NESTING} levels deep", path, line)


def check_nesting(text: str, path: str | None = None) -> None:
    """Refuse text whose brackets, or block collections opened on one line, nest deeper than
    MAX_NESTING. Brackets inside strings count too: a cheap over-estimate, and prose never nests
    hundreds of brackets deep."""
    if text.count("[") + text.count("{") > MAX_NESTING:
        depth = 0
        for char in _NOT_A_BRACKET.sub("", text):
            if char in "[{":
                depth += 1
                if depth > MAX_NESTING:
                    raise _too_deep(path)
            elif depth:
                depth -= 1
    # Each indicator but a line's last is followed by a blank: such a line is over 2 * MAX_NESTING
    # characters long, which splitting the text tells in half a search's time (and sooner than
    # counting the indicators, which a large file always has enough of).
    if len(max(text.split("\n"), key=len)) > 2 * MAX_NESTING:
        if _BLOCK_INDICATORS_FIRST_LINE.match(text):
            raise _too_deep(path, 1)
        found = _BLOCK_INDICATORS_LATER_LINE.search(text)
        if found:
            raise _too_deep(path, text.count("\n", 0, found.start()) + 2)


# What opens and closes a level as libyaml's scanner reads it (the composer recurses once per level).
_OPENS = (
    yaml.FlowSequenceStartToken,
    yaml.FlowMappingStartToken,
    yaml.BlockSequenceStartToken,
    yaml.BlockMappingStartToken,
)
_CLOSES = (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken, yaml.BlockEndToken)
_SCANNER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def check_yaml_nesting(text: str, path: str | None = None) -> None:
    """check_nesting for YAML, where a block scalar (`|`, `>`) is text: a prompt holding 500 `[`
    is not nested. Only text that check_nesting refuses is read again, by libyaml's scanner (which
    does not recurse), counting the levels the parser would open; text the scanner cannot read
    stays refused, as nothing shows its brackets are text."""
    try:
        check_nesting(text, path)
    except LimitExceeded as refused:
        _check_scanned_depth(text, path, refused)


def _check_scanned_depth(text: str, path: str | None, refused: LimitExceeded) -> None:
    scanner = _SCANNER(text)
    depth = 0
    try:
        while scanner.check_token():
            token = scanner.get_token()
            if isinstance(token, _OPENS):
                depth += 1
                if depth > MAX_NESTING:
                    raise _too_deep(path, token.start_mark.line + 1)
            elif isinstance(token, _CLOSES):
                depth -= 1
    except yaml.YAMLError:
        raise refused from None
    finally:
        scanner.dispose()


def check_toml(text: str, path: str | None = None) -> None:
    """check_nesting, plus TOML keys dotted more than MAX_NESTING deep (tomllib takes minutes and
    gigabytes on a key dotted 50,000 deep)."""
    check_nesting(text, path)
    if text.count(".") <= MAX_NESTING:
        return
    work = 0
    for found in _DOTTED_KEY.finditer(text):
        depth = found.group().count(".")
        work += depth * depth
        if depth > MAX_NESTING:
            raise LimitExceeded(
                f"a key is dotted more than {MAX_NESTING} levels deep",
                path,
                text.count("\n", 0, found.start()) + 1,
            )
        if work > MAX_DOTTED_WORK:
            raise LimitExceeded(
                "the keys are dotted too deep too often to read within the limits",
                path,
                text.count("\n", 0, found.start()) + 1,
            )


def check_expansion(node: Any, path: str | None = None) -> None:
    """Refuse a composed YAML tree whose aliases expand past MAX_EXPANDED_NODES values, or far
    past the number of values the file composes. Counted on the composed graph (each node once),
    before anything is converted."""
    sizes: dict[int, int] = {}

    def size(current: Any) -> int:
        known = sizes.get(id(current))
        if known is not None:
            return known
        total = 1
        value = current.value
        if isinstance(value, list):
            for item in value:
                children = item if isinstance(item, tuple) else (item,)
                for child in children:
                    total += size(child)
                    if total > MAX_EXPANDED_NODES:
                        raise _bomb(path)
        sizes[id(current)] = total
        return total

    if node is None:
        return
    try:
        expanded = size(node)
    except RecursionError:
        raise _too_deep(path) from None
    if expanded > EXPANSION_ALLOWANCE + EXPANSION_FACTOR * len(sizes):
        raise _bomb(path)


def _bomb(path: str | None) -> LimitExceeded:
    return LimitExceeded(
        "the YAML aliases expand to far more values than the file holds (an alias bomb?)", path
    )
