"""Globs as agentv reads them: fast-glob 3.3.3 (micromatch 4.0.8, picomatch 2.3.1, agentv's
bun.lock), called with `{ onlyFiles: true, absolute: true }` and its own matcher options
(`dot: false`, `posix: true`).

Beyond `*`, `?`, `**` and `{a,b}` (expanded first, as micromatch.braces does), this reads what
picomatch turns into a regular expression:

- character classes: `[ab]`, `[a-z]`, `[!a]` and `[^a]` (negated: never `/`). A class without a
  range or another regex character also matches its own text (`[ab].yaml` names the file
  `[ab].yaml` too). A class at a name's start may match a dotfile: only `*` and `?` keep away
  from them.
- extglobs: `@(a|b)` one of, `?(a|b)` at most one, `*(a|b)` any number, `+(a|b)` at least one,
  `!(a|b)` anything but (which, like a class, may match a dotfile).
- `+`, `@` and `!` not before `(` are plain characters.

Folders before the first glob are read as a literal path (glob-parent's base), so a `?` there
matches only a folder named with a `?`. What picomatch reads as something else again is refused as
not read (`GlobNotRead`): parentheses that open no extglob (a regular-expression group there),
POSIX classes (`[[:alpha:]]`), a `/`, `[`, `]` or brace inside a class or an extglob, `**` inside
a name, a `+` or `?` right after a class or an extglob (a quantifier there), a double quote and a
backslash; and, to bound the work, more than MAX_REPEATS repeats in a name or a repeating extglob
whose choices overlap. tests/oracle/test_fast_glob_differential.py checks the rest against fast-glob itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_NOT_DOT = r"(?!\.)"
_ONE_CHAR = r"(?=.)"
_STAR = r"[^/]*?"
# picomatch's REGEX_SPECIAL_CHARS: a class holding one of these matches as a class only.
_CLASS_SPECIAL = re.compile(r"[-*+?.^${}(|)\[\]]")
_EXTGLOB_KINDS = "@?*+!"
_LITERAL_INNER = re.compile(r"[A-Za-z0-9_.\- ]")


class GlobNotRead(ValueError):
    """A glob whose meaning to fast-glob the inspector does not reproduce."""


def has_magic(pattern: str) -> bool:
    """yaml-parser.ts hasGlobMagic: what makes a `tests` shorthand a glob."""
    return re.search(r"[*?\[\]{}()!+@]", pattern) is not None


def fast_glob_matcher(pattern: str) -> Callable[[str], bool]:
    """Whether fast-glob lists a path (relative, `/`-separated) for `pattern`; raises
    GlobNotRead for what it does not reproduce.

    Each pattern braces make is read from its own base folder, which glob-parent finds: the
    leading folders is-glob does not call a glob are a literal path, whatever they hold (so a
    `?` in a folder name matches only a folder named with a `?`)."""
    if "\\" in pattern:
        raise GlobNotRead("a backslash")
    readers = [(_literal_base(choice), re.compile(_translate(choice))) for choice in _expand_braces(pattern)]
    return lambda path: any(
        (not base or path.startswith(base + "/")) and regex.fullmatch(path) is not None
        for base, regex in readers
    )


def _literal_base(pattern: str) -> str:
    """glob-parent 5.1.2: drop the last name, then folders until what is left is no glob to
    is-glob 4.0.3 (strict) and holds no `{`, `[` or unclosed `(`."""
    folders = pattern.split("/")[:-1]
    while folders and _globby("/".join(folders)):
        folders.pop()
    return "/".join(folders)


def _globby(text: str) -> bool:
    return (
        "*" in text
        or "[" in text
        or "{" in text
        or re.search(r"[\].+)]\?", text) is not None
        or re.search(r"[@?!+*]\(.*\)", text) is not None  # is-extglob
        or re.search(r"\([^|)]*\|[^)]", text) is not None  # a (a|b) group
        or re.search(r"\([^)]+$", text) is not None
    )


def _expand_braces(pattern: str) -> list[str]:
    """micromatch.braces with `expand`: every `{a,b}` written out, left to right."""
    start = 0
    while (open_at := pattern.find("{", start)) != -1:
        close = brace_end(pattern, open_at)
        if close is None:
            start = open_at + 1
            continue
        head, tail = pattern[:open_at], pattern[close + 1 :]
        return [
            expanded
            for choice in brace_choices(pattern[open_at + 1 : close])
            for expanded in _expand_braces(head + choice + tail)
        ]
    if "}" in pattern or "{" in pattern:
        raise GlobNotRead("a brace that opens no choice")
    return [pattern]


def brace_end(pattern: str, start: int) -> int | None:
    """Where the `{...}` opened at `start` closes, when it holds a choice (a comma at its own
    level); None when it is no such brace (then a plain character)."""
    if pattern[start] != "{":
        return None
    depth, comma = 0, False
    for index in range(start, len(pattern)):
        char = pattern[index]
        depth += {"{": 1, "}": -1}.get(char, 0)
        comma = comma or (char == "," and depth == 1)
        if depth == 0:
            return index if comma else None
    return None


def brace_choices(inner: str) -> list[str]:
    choices, depth, start = [], 0, 0
    for index, char in enumerate(inner):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            choices.append(inner[start:index])
            start = index + 1
    return [*choices, inner[start:]]


def _translate(pattern: str) -> str:
    """picomatch's parse for one brace-free pattern, for the forms the module docstring names."""
    if '"' in pattern:
        raise GlobNotRead("a double quote (picomatch reads quoted text)")
    segments = pattern.split("/")
    out: list[str] = []
    for number, segment in enumerate(segments):
        if number:
            out.append("/")
        after = "".join("/" + later for later in segments[number + 1 :])
        if segment.startswith("***"):
            raise GlobNotRead("three or more `*` in a row")
        out.append(_GLOBSTAR if segment == "**" else _segment(segment, after))
    return _join_globstars("".join(out))


# `**` as a whole name: any number of names, none starting with a dot.
_GLOBSTAR = "\x00"


def _join_globstars(regex: str) -> str:
    regex = regex.replace(_GLOBSTAR + "/", f"(?:{_NOT_DOT}[^/]+/)*")
    # a trailing `/**` lists what is inside the folder, never a file in its place
    regex = regex.replace("/" + _GLOBSTAR, f"(?:/{_NOT_DOT}[^/]+)+")
    return regex.replace(_GLOBSTAR, f"(?:{_NOT_DOT}[^/]+(?:/{_NOT_DOT}[^/]+)*)?")


# Python's regular expressions backtrack as JavaScript's do, and a failing match costs about the
# name's length to the power of the unbounded repeats in it: four `*` over a 250-character name take
# seconds. A name may hold at most this many, and a repeating extglob only choices that cannot
# overlap, so a hostile bundle costs bounded work.
MAX_REPEATS = 3


def _segment(segment: str, after: str) -> str:
    """One name of the pattern; `after`: the rest of the pattern, from its next `/`."""
    _check_name(segment)
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char in _EXTGLOB_KINDS and segment.startswith("(", index + 1):
            close = _paren_end(segment, index + 1)
            rest = segment[close + 1 :] + after
            out.append(_extglob(char, segment[index + 2 : close], rest))
            index = close + 1
            continue
        if char in "()":
            raise GlobNotRead("parentheses that open no extglob")
        if char in "+?" and index and segment[index - 1] in "])":
            raise GlobNotRead(f"a `{char}` right after a class or an extglob (a regex quantifier there)")
        if char == "[":
            text, index = _bracket(segment, index, after)
            out.append(text)
            continue
        if char == "*":
            out.append(_star(segment, index))
            index += 1
            continue
        if char == "?":
            out.append("[^./]" if index == 0 else "[^/]")
            index += 1
            continue
        out.append(re.escape(char))
        index += 1
    return "".join(out)


def _check_name(segment: str) -> None:
    if "**" in segment:
        # picomatch's expression then crosses folders in some places and fast-glob's
        # folder-by-folder reading stops it in others
        raise GlobNotRead("`**` inside a name (a whole `**` between slashes is read)")
    if len(re.findall(r"\*|\+\(", segment)) > MAX_REPEATS:
        raise GlobNotRead(f"more than {MAX_REPEATS} `*` or repeating extglobs in one name")


def _bracket(segment: str, index: int, after: str) -> tuple[str, int]:
    """A `[` at `index`: a class up to its `]`, else a plain `[`; and where reading goes on."""
    close = segment.find("]", index + 1)
    if close != -1:
        return _class(segment[index + 1 : close]), close + 1
    if "]" in after:
        raise GlobNotRead("a character class across a `/`")
    return re.escape("["), index + 1  # never closed: a plain `[`


def _star(segment: str, index: int) -> str:
    """`*`: a name's start never matches a dotfile (nor `.` or `..` after a leading dot), and
    there it matches at least one character."""
    if index == 0:
        return _NOT_DOT + _ONE_CHAR + _STAR
    if index == 1 and segment[0] == ".":
        return r"(?!\.{0,1}(?:/|$))" + _ONE_CHAR + _STAR
    return _STAR


def _paren_end(segment: str, start: int) -> int:
    depth = 0
    for index in range(start, len(segment)):
        depth += {"(": 1, ")": -1}.get(segment[index], 0)
        if depth == 0:
            return index
    raise GlobNotRead("an extglob without its closing parenthesis")


def _class(inner: str) -> str:
    """A bracket expression: `!` or `^` first negates it (and then it never matches `/`)."""
    if any(char in inner for char in "[]/{}\\") or inner.startswith(":"):
        raise GlobNotRead("a character class holding [ ] / { } or a POSIX class")
    negated = inner[:1] in ("!", "^")
    body = inner[1:] if negated else inner
    if not body:
        raise GlobNotRead("an empty character class")
    escaped = body[:-1] + ("\\-" if body.endswith("-") else body[-1])
    if negated:
        return f"[^{escaped}/]"
    regex = f"[{escaped}]"
    if _CLASS_SPECIAL.search(escaped) is None:
        return f"(?:{re.escape('[' + body + ']')}|{regex})"
    return regex


def _extglob(kind: str, inner: str, rest: str) -> str:
    """`rest`: the pattern after the closing parenthesis."""
    choices = inner.split("|")
    for choice in choices:
        if any(not _LITERAL_INNER.fullmatch(char) and char not in "*?" for char in choice):
            raise GlobNotRead("an extglob holding more than names, `*` and `?`")
    if kind in "*+" and not _unambiguous(choices):
        raise GlobNotRead("a repeating extglob whose choices are not names with distinct first letters")
    body = "|".join(_inner(choice) for choice in choices)
    if kind == "@":
        return f"(?:{body})"
    if kind in "?*+":
        return f"(?:{body}){kind}"
    # `!(…)`: anything but the choices; at the end of the pattern, anything but them whole.
    if not rest or re.fullmatch(r"\)+", rest):
        return f"(?:(?!(?:{body})$)){_STAR}"
    if "*" in inner and re.fullmatch(r"\.[^/.]+", rest):
        raise GlobNotRead("`!(…*…)` followed by an extension")
    return f"(?:(?!(?:{body})){_STAR})"


def _inner(choice: str) -> str:
    return "".join(_STAR if char == "*" else ("[^/]" if char == "?" else re.escape(char)) for char in choice)


def _unambiguous(choices: list[str]) -> bool:
    """Choices a repeat can take in one way only: plain names, each starting with its own letter."""
    firsts = [choice[:1] for choice in choices]
    return all(choice and not any(char in choice for char in "*?") for choice in choices) and len(
        set(firsts)
    ) == len(firsts)
