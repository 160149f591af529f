"""A grader deck's markdown with its embeds expanded (aibff's rules): the text pieces, where each
came from, and the TOML sample files it embeds."""

from __future__ import annotations

import bisect
import posixpath
import re
from dataclasses import dataclass

from ..bundle import Bundle, join
from ..model import (
    Diagnostic,
)
from ..safe_parse import LimitExceeded
from .samples import Sample, SampleFile

# aibff's embed pattern is `!\[.*?\]\((.*?)\)`: `![description](path)`, the path anything up to
# the first `)` on the line. `_embeds` finds the same matches without the regex's cubic backtracking
# on a line of `![](` with no `)`.
# aibff collapses the gaps its removed TOML embeds leave: three or more line breaks become two.
_BLANK_RUN = re.compile(r"\n\s*\n\s*\n")
_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\n.*?^\+\+\+[ \t]*(?:\n|\Z)\s*", re.DOTALL | re.MULTILINE)
# A heading's text is group 2 less its trailing blanks and `#`s, stripped in Python: the pattern
# `(.*?)[ \t#]*$` backtracks quadratically on a long run of them.
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*)$", re.MULTILINE)
MAX_EMBED_DEPTH = 32
# Embeds let a small deck read the same files over and over: a file that embeds another twice,
# thirty files deep, is a billion copies. Honest grader decks embed a handful of files, so past
# these budgets the deck is refused (in milliseconds) rather than left to the worker's limits.
MAX_EMBEDS = 1000
MAX_EMBEDDED_CHARS = 10 * 1024 * 1024


@dataclass(slots=True)
class _Piece:
    text: str
    path: str
    first_line: int

    @property
    def last_line(self) -> int:
        return self.first_line + self.text[:-1].count("\n")


@dataclass(slots=True)
class _TomlEmbed:
    path: str
    fragment: str
    from_path: str
    line: int


class Expansion:
    def __init__(self, bundle: Bundle, keep_front_matter: bool = False):
        self.bundle = bundle
        # aibff's deck.ts (July 19, 2025 on) sends front matter as part of the text; earlier
        # renderers, and seed 004's reading, drop it.
        self.keep_front_matter = keep_front_matter
        self.fragment_embeds: list[tuple[str, int, str]] = []  # (file, line, target) with a `#`
        self.pieces: list[_Piece] = []
        self.toml_embeds: list[_TomlEmbed] = []
        self.diagnostics: list[Diagnostic] = []
        self.embeds = 0
        self.chars = 0
        self.top_line = 1  # the line of the deck's own embed being followed

    def expand(self, path: str, text: str, fragment: str, chain: tuple[str, ...]) -> None:
        start, end = 0, len(text)
        front = None if self.keep_front_matter else _FRONT_MATTER.match(text)
        if front:
            start = front.end()
        if fragment:
            section = _section(text, start, fragment)
            if section is None:
                self.diagnostics.append(
                    Diagnostic(
                        f"no heading matches #{fragment} in {path}; the whole file is embedded",
                        chain[-2] if len(chain) > 1 else path,
                    )
                )
            else:
                start, end = section
        line_of = _LineIndex(text)
        cursor = start
        for embed_start, embed_end, target in _embeds(text, start, end):
            self._piece(text, cursor, embed_start, path, line_of)
            cursor = embed_end
            self._embed(path, target.strip(), line_of.line(embed_start), chain)
        self._piece(text, cursor, end, path, line_of)

    def _piece(self, text: str, start: int, end: int, path: str, line_of: _LineIndex) -> None:
        if end > start:
            self.pieces.append(_Piece(text[start:end], path, line_of.line(start)))

    def _charge(self, chain: tuple[str, ...], embeds: int = 0, chars: int = 0) -> None:
        """Count embeds and the text they read against the budgets; past them the deck is refused
        at the line of its own embed that led there."""
        self.embeds += embeds
        self.chars += chars
        if self.embeds > MAX_EMBEDS:
            problem = f"the deck has more than {MAX_EMBEDS} embeds, counting those in the files it embeds"
        elif self.chars > MAX_EMBEDDED_CHARS:
            problem = f"the deck's embeds bring in more than {MAX_EMBEDDED_CHARS // (1024 * 1024)} MB of text"
        else:
            return
        raise LimitExceeded(f"{problem} (an embed bomb?)", chain[0], self.top_line)

    def _embed(self, path: str, target: str, line: int, chain: tuple[str, ...]) -> None:
        if len(chain) == 1:
            self.top_line = line
        self._charge(chain, embeds=1)
        reference, _, fragment = target.partition("#")
        if fragment:
            self.fragment_embeds.append((path, line, target))
        resolved = join(posixpath.dirname(path), reference)
        if resolved is None:
            self.diagnostics.append(
                Diagnostic(
                    f"embed {target!r} points outside the bundle; it was left out",
                    path,
                    line,
                    severity="error",
                )
            )
            return
        if resolved.lower().endswith(".toml"):
            if not self.bundle.exists(resolved):
                self.diagnostics.append(
                    Diagnostic(
                        f"embedded file not found: {reference}; it was left out", path, line, severity="error"
                    )
                )
                return
            # Each TOML embed picks its samples from the whole file: charge its size.
            self._charge(chain, chars=len(self.bundle.read(resolved) or b""))
            self.toml_embeds.append(_TomlEmbed(resolved, fragment, path, line))
            return
        if resolved in chain:
            loop = " -> ".join(chain[chain.index(resolved) :] + (resolved,))
            self.diagnostics.append(
                Diagnostic(
                    f"embed loop: {loop}; the repeated embed was left out", path, line, severity="error"
                )
            )
            return
        if len(chain) >= MAX_EMBED_DEPTH:
            self.diagnostics.append(
                Diagnostic(
                    f"embeds nested more than {MAX_EMBED_DEPTH} deep; {reference} was left out",
                    path,
                    line,
                    severity="error",
                )
            )
            return
        decoded = self.bundle.text(resolved)
        if decoded is None:
            self.diagnostics.append(
                Diagnostic(
                    f"embedded file not found: {reference}; it was left out", path, line, severity="error"
                )
            )
            return
        self._charge(chain, chars=len(decoded.text))
        if decoded.problem:
            self.diagnostics.append(Diagnostic(f"{resolved} {decoded.problem}", path, line))
        self.expand(resolved, decoded.text, fragment, chain + (resolved,))


def _embeds(text: str, start: int, end: int):
    """(start, end, path) of each `![description](path)` in text[start:end], as aibff's pattern
    matches them. When an `![` has no `](` and then `)` after it on its line, no later `![` on that
    line has either, so the scan moves to the next line: linear, where the regex is cubic."""
    position, line_end = start, -1
    while True:
        bang = text.find("![", position, end)
        if bang < 0:
            return
        if bang > line_end:
            line_end = text.find("\n", bang, end)
            if line_end < 0:
                line_end = end
        bracket = text.find("](", bang + 2, line_end)
        closing = text.find(")", bracket + 2, line_end) if bracket >= 0 else -1
        if closing < 0:
            position = line_end + 1
            continue
        yield bang, closing + 1, text[bracket + 2 : closing]
        position = closing + 1


class _LineIndex:
    def __init__(self, text: str):
        self._breaks = [match.start() for match in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_left(self._breaks, offset) + 1


def _slug(heading: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return re.sub(r"\s", "-", slug)


def _section(text: str, start: int, fragment: str) -> tuple[int, int] | None:
    """Offsets of the markdown section whose heading's slug is `fragment`."""
    wanted = fragment.lower()
    headings = list(_HEADING.finditer(text, start))
    for index, heading in enumerate(headings):
        if _slug(heading.group(2).rstrip(" \t#")) != wanted:
            continue
        level = len(heading.group(1))
        for later in headings[index + 1 :]:
            if len(later.group(1)) <= level:
                return heading.start(), later.start()
        return heading.start(), len(text)
    return None


def collapse_blank_runs(pieces: list[_Piece]) -> list[_Piece]:
    """Apply aibff's blank-run collapse to the joined text while keeping each piece's lines."""
    joined = "".join(piece.text for piece in pieces)
    # Each run keeps its first and last line break; everything between them goes.
    cuts = [(match.start() + 1, match.end() - 1) for match in _BLANK_RUN.finditer(joined)]
    if not cuts:
        return pieces
    kept: list[tuple[int, int]] = []
    previous = 0
    for cut_start, cut_end in cuts:
        if cut_start > previous:
            kept.append((previous, cut_start))
        previous = cut_end
    kept.append((previous, len(joined)))

    result: list[_Piece] = []
    offset = 0
    index = 0
    for piece in pieces:
        piece_start, piece_end = offset, offset + len(piece.text)
        offset = piece_end
        while index < len(kept) and kept[index][1] <= piece_start:
            index += 1
        probe = index
        while probe < len(kept) and kept[probe][0] < piece_end:
            start, end = kept[probe]
            _append_slice(
                result, piece, max(start, piece_start) - piece_start, min(end, piece_end) - piece_start
            )
            probe += 1
    return result


def _append_slice(result: list[_Piece], piece: _Piece, start: int, end: int) -> None:
    if end <= start:
        return
    line = piece.first_line + piece.text.count("\n", 0, start)
    result.append(_Piece(piece.text[start:end], piece.path, line))


def selected(sample_file: SampleFile, fragment: str) -> tuple[list[Sample], list[str]]:
    """Which samples and contexts an embed brings in: all, or those its #fragment names."""
    if not fragment:
        return sample_file.samples, list(sample_file.contexts)
    head, _, name = fragment.partition(".")
    if head == "contexts":
        return [], [n for n in sample_file.contexts if not name or n == name]
    if head == "samples":
        return [s for s in sample_file.samples if not name or s.id == name], []
    # aibff's footnote links also name a sample directly: sources.deck.toml#happy-path-complete
    return [s for s in sample_file.samples if s.id == fragment], []


def embedded_sample_files(bundle: Bundle) -> set[str]:
    """The TOML sample files a `.deck.md` of the bundle embeds, directly or through the markdown
    files it embeds: their samples are the deck's, so listing them as documents of their own would
    show each sample twice (and the ledger count it twice)."""
    found: set[str] = set()
    seen: set[str] = set()
    waiting = [path for path in bundle.paths() if path.lower().endswith(".deck.md")]
    while waiting:
        path = waiting.pop()
        if path in seen:
            continue
        seen.add(path)
        decoded = bundle.text(path)
        if decoded is None:
            continue
        for _start, _end, target in _embeds(decoded.text, 0, len(decoded.text)):
            resolved = join(posixpath.dirname(path), target.partition("#")[0])
            if resolved is None or not bundle.exists(resolved):
                continue
            if resolved.lower().endswith(".toml"):
                found.add(resolved)
            elif resolved.lower().endswith(".md"):
                waiting.append(resolved)
    return found
