"""Source text as numbered lines of highlighted HTML, made in the bounded worker for long texts and
kept in the render cache; plain lines when that is refused or too slow."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe

from inspector.core import bounded, highlight
from inspector.core.model import InputError
from inspector.rendering import cache as render_cache
from inspector.rendering import stored_renders, web_policy


@dataclass(frozen=True)
class SourceLine:
    number: int
    html: SafeString


# Texts this short are highlighted in the web process: the worst lexer known (reStructuredText's,
# quadratic) takes a few milliseconds on them, less than the trip to the bounded worker.
_IN_PROCESS_CHARS = 4_000


# Texts longer than this are shown plain without trying: no lexer finishes them within the
# highlighting deadline (a 2.5 MB one-line YAML flow list took 3.1 s of CPU in the YAML lexer).
_HIGHLIGHT_LIMIT = 1_000_000


# Highlighting is also kept per worker for the files people re-open while clicking around; large
# texts are not, so that copy stays a few tens of megabytes per worker at most.
_CACHED_HIGHLIGHT_CHARS = 500_000


def highlight_lines(path: str, text: str) -> tuple[SourceLine, ...]:
    if len(text) > _CACHED_HIGHLIGHT_CHARS:
        return _highlight_lines(path, text)
    return _highlight_lines_cached(path, text)


@lru_cache(maxsize=64)
def _highlight_lines_cached(path: str, text: str) -> tuple[SourceLine, ...]:
    return _highlight_lines(path, text)


def _highlight_lines(path: str, text: str) -> tuple[SourceLine, ...]:
    """The file as numbered lines of highlighted HTML (core.highlight), made once per content and
    lexer (kept in the render cache for every worker) in the bounded worker; plain, escaped lines
    in the same layout when that is refused or runs past HIGHLIGHT_SECONDS."""
    return tuple(
        SourceLine(number, mark_safe(html)) for number, html in enumerate(_html_lines(path, text), start=1)
    )


def _html_lines(path: str, text: str) -> tuple[str, ...]:
    if len(text) > _HIGHLIGHT_LIMIT:
        return highlight.plain_lines(text)
    if len(text) <= _IN_PROCESS_CHARS or settings.RENDER_IN_PROCESS:
        return highlight.html_lines(path, text)
    lexer = highlight.lexer_for(path).name
    key = render_cache.key(
        "highlight", lexer, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    )
    kept = render_cache.get(key)
    if kept is not None:
        return kept
    try:
        lines = bounded.pool(web_policy.render_policy().limits).call(
            highlight.html_lines, path, text, path=path, seconds=settings.HIGHLIGHT_SECONDS
        )
    except bounded.Busy:
        return highlight.plain_lines(text)  # busy now (or this request's budget spent): not kept
    except (InputError, bounded.WorkerError):
        lines = highlight.plain_lines(text)
        render_cache.put(key, lines, stored_renders.ERROR_TIMEOUT)  # refused: kept like a render's refusal
        return lines
    render_cache.put(key, lines)
    return lines


# How far above a window the lexer may start, looking for a line that opens at column 0.
_WINDOW_LEAD = 200


def highlight_window(path: str, text: str, first: int, last: int) -> tuple[SourceLine, ...]:
    """Lines first..last highlighted without lexing the whole file (a 10,000-line file took half a
    second a view): the lexer starts at the nearest line above that begins at column 0, where a
    YAML, TOML or Markdown lexer has no state to carry over. A colour that still comes out wrong
    is harmless; the text and the line numbers are exact."""
    all_lines = text.split("\n")
    start = first
    for number in range(first, max(1, first - _WINDOW_LEAD) - 1, -1):
        candidate = all_lines[number - 1]
        if candidate and not candidate[0].isspace():
            start = number
            break
    chunk = "\n".join(all_lines[start - 1 : last]) + "\n"
    lines = highlight_lines(path, chunk)
    return tuple(
        SourceLine(line.number + start - 1, line.html) for line in lines[first - start : last - start + 1]
    )


def highlight_block(path: str, text: str) -> SafeString:
    """The text highlighted as one block for a <pre>, its lines exactly as in `text`: what is shown
    is what Copy puts on the clipboard and Download saves."""
    # highlight_lines gives an empty line a "\n" so a line's <div> keeps its height; in a block
    # that would double every blank line.
    lines = highlight_lines(path, text)
    return mark_safe("\n".join("" if line.html == "\n" else line.html for line in lines))
