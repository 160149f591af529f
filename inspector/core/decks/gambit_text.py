"""The text rules gambit-core 1.0 applies to a markdown deck or card, ported so that offsets (and so
line numbers) survive: JavaScript's `trim()`, @std/front-matter 1.0.9's `extract` (the `any`
flavour gambit imports), and gambit's embed pattern `!\\[[^\\]]*\\]\\(([^)]+)\\)`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..js import JS_SPACE_CLASS, js_trim_bounds

# JavaScript's `\s` (Python's differs: it takes \x1c-\x1f and misses \ufeff, which would shift
# where a trimmed body starts).
_WS = f"[{JS_SPACE_CLASS}]*"

_BOM = "\ufeff?"
_NEWLINE = "\r?\n"
_FRONT = "(?P<front>.+?)"
_BODY = "(?:\r?\n(?P<body>.+))?"
_HEADERS = {
    "yaml": (f"{_BOM}(?:---yaml|= yaml =|---)", "(?:= yaml =|---)"),
    "toml": (f"{_BOM}(?:---toml|\\+\\+\\+|= toml =)", "(?:---|\\+\\+\\+|= toml =)"),
    "json": (f"{_BOM}(?:---json|= json =)", "(?:---|= json =)"),
}
# @std/front-matter's RECOGNIZE_* and EXTRACT_* patterns, in the order `any` tries them.
RECOGNIZE = {
    name: re.compile(f"^{header}{_WS}{_NEWLINE}", re.IGNORECASE)
    for name, (header, _footer) in _HEADERS.items()
}
EXTRACT = {
    name: re.compile(
        f"^{header}{_WS}{_NEWLINE}{_WS}(?:{_FRONT}{_WS}{_NEWLINE})?{footer}{_WS}{_BODY}$",
        re.IGNORECASE | re.DOTALL,
    )
    for name, (header, footer) in _HEADERS.items()
}
_DELIMITER_START = re.compile(f"^(\\+\\+\\+|---){_WS}(\r?\n|$)")


@dataclass(frozen=True, slots=True)
class FrontMatter:
    kind: str | None  # "toml", "yaml", "json" or None when the file has none
    text: str  # the front matter's own text
    text_start: int  # offset of that text in the file
    body_start: int  # offset where the body begins


class FrontMatterError(ValueError):
    pass


def split_front_matter(raw: str) -> FrontMatter:
    """Where the front matter and the body are, as @std/front-matter's `extract` finds them, or
    a FrontMatterError (with the library's message) when a file opens like front matter but is not
    closed; a file that does not open with a delimiter is all body."""
    kind = next((name for name, pattern in RECOGNIZE.items() if pattern.match(raw)), None)
    if kind is None:
        if starts_with_delimiter(raw):
            raise FrontMatterError("Unsupported front matter format")
        return FrontMatter(None, "", 0, 0)
    match = EXTRACT[kind].match(raw)
    if match is None:
        raise FrontMatterError("Unexpected end of input")
    front_start = match.start("front") if match.group("front") is not None else match.end()
    body_start = match.start("body") if match.group("body") is not None else len(raw)
    return FrontMatter(kind, match.group("front") or "", front_start, body_start)


def starts_with_delimiter(raw: str) -> bool:
    """gambit's startsWithFrontMatterDelimiter: the file means to open with front matter."""
    text = raw[1:] if raw.startswith("\ufeff") else raw
    start, _ = js_trim_bounds(text)
    return bool(_DELIMITER_START.match(text[start:]))


@dataclass(frozen=True, slots=True)
class Embed:
    start: int
    end: int
    target: str


def embeds(text: str, start: int, end: int) -> Iterator[Embed]:
    """Each match of gambit's `!\\[[^\\]]*\\]\\(([^)]+)\\)` in text[start:end], in order, without
    the regex's quadratic retries on a long run of `![` with no `]` (the pattern may span lines)."""
    position = start
    while True:
        bang = text.find("![", position, end)
        if bang < 0:
            return
        close = text.find("]", bang + 2, end)
        if close < 0:
            return  # no `]` left: no later `![` can match either
        # Every `![` between bang and close reaches the same `]`, so they fail or succeed alike.
        if close + 1 >= end or text[close + 1] != "(":
            position = close + 1
            continue
        paren = text.find(")", close + 2, end)
        if paren < 0:
            return
        if paren == close + 2:
            position = close + 1
            continue
        yield Embed(bang, paren + 1, text[close + 2 : paren])
        position = paren + 1


# gambit-core's src/markdown.ts writes each legacy marker's text as a constant,
# `const INIT_TEXT = `...`.trim();`, naming gambit's tools by src/constants.ts's
# `export const GAMBIT_TOOL_CONTEXT = "gambit_context";`.
LEGACY_MARKER_CONSTANTS = {
    "gambit://init": "INIT_TEXT",
    "gambit://respond": "RESPOND_TEXT",
    "gambit://end": "END_TEXT",
}
_STRING_CONSTANT = re.compile(r'^export const (\w+) = "([^"\\\n]*)";', re.MULTILINE)
_TEMPLATE_PART = re.compile(r"\\(.)|\$\{\s*(\w+)\s*\}", re.DOTALL)


def legacy_marker_text(markdown: str, constants: str, marker: str) -> tuple[str, int] | None:
    """The text gambit-core puts where `marker` stands, and the line of markdown.ts it starts on;
    None when the source does not write it the way 1.0 does (the template is then not evaluated
    here rather than guessed)."""
    name = LEGACY_MARKER_CONSTANTS[marker]
    found = re.search(rf"^const {name} = `((?:[^`\\]|\\.)*)`\.trim\(\);", markdown, re.MULTILINE | re.DOTALL)
    if found is None:
        return None
    values = dict(_STRING_CONSTANT.findall(constants))
    unknown = False

    def evaluate(part: re.Match[str]) -> str:
        nonlocal unknown
        escaped, variable = part.group(1), part.group(2)
        if escaped is not None:
            unknown = unknown or escaped not in "`\\$"
            return escaped
        unknown = unknown or variable not in values
        return values.get(variable, "")

    text = _TEMPLATE_PART.sub(evaluate, found.group(1))
    if unknown:
        return None
    lead, _ = js_trim_bounds(found.group(1))
    start, end = js_trim_bounds(text)
    return text[start:end], markdown.count("\n", 0, found.start(1) + lead) + 1
