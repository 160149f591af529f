"""A file as numbered lines of highlighted HTML, by Pygments, with no Django: what the source pane
shows. Some lexers are quadratic on hostile shapes (reStructuredText's on "`a " repeated: 10 KB in
0.18 s, 40 KB in 2.1 s, 2 MB in over a minute), so the web process runs this in the bounded worker
(`presenters.highlight_lines`) and falls back to `plain_lines` past its deadline."""

from __future__ import annotations

import posixpath
from html import escape

from pygments import lex
from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound


def _css_class(token_type) -> str:
    while token_type not in STANDARD_TYPES:
        token_type = token_type.parent
    return STANDARD_TYPES[token_type]


def lexer_for(path: str):
    name = posixpath.basename(path)
    if name.lower().endswith(".deck.md"):
        name = name[:-8] + ".md"
    try:
        return get_lexer_for_filename(name, stripnl=False, stripall=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


def _run_html(css: str, text: str) -> str:
    # Whitespace ("w") goes unwrapped: its colour never shows, and its spans were a tenth of the
    # source pane's HTML (every indented YAML line starts with one).
    return f'<span class="{css}">{escape(text)}</span>' if css and css != "w" else escape(text)


_Runs = list[tuple[str, list[str]]]


def _add_token(lines: list[_Runs], css: str, value: str) -> None:
    """A token's text onto the lines, split at line ends. Neighbouring tokens of the same class
    share a run (which keeps prose-heavy files, one token per word, from tripling in size), its
    pieces joined once at the end: adding to a string held in a list copies it every time, which
    made 1.5 MB of backticks take minutes."""
    for index, part in enumerate(value.split("\n")):
        if index:
            lines.append([])
        if not part:
            continue
        runs = lines[-1]
        if runs and (runs[-1][0] == css or not part.strip()):
            runs[-1][1].append(part)
        else:
            runs.append((css, [part]))


def html_lines(path: str, text: str, plain: bool = False) -> tuple[str, ...]:
    """Each line's HTML ("\\n" for an empty one, so its row keeps its height). Tokens that span
    lines are split so every line is a self-contained fragment the page can mark and link.
    `plain`: the same lines escaped, with no lexer."""
    lines: list[_Runs] = [[]]
    tokens = [(None, text)] if plain else lex(text, lexer_for(path))
    for token_type, value in tokens:
        _add_token(lines, _css_class(token_type) if token_type is not None else "", value)
    if len(lines) > 1 and not lines[-1] and text.endswith("\n"):
        lines.pop()
    return tuple("".join(_run_html(css, "".join(parts)) for css, parts in runs) or "\n" for runs in lines)


def plain_lines(text: str) -> tuple[str, ...]:
    return html_lines("", text, plain=True)
