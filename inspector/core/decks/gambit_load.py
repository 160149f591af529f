"""A gambit 1.0 markdown deck (`PROMPT.md`, `*.deck.md`) and its cards (`*.card.md`) read the way
gambit-core 1.0.0-rc.2's `loadMarkdownDeck`/`loadMarkdownCard` read them: front matter removed,
embeds inlined where they stand, every card body and the deck body trimmed, each stretch of text
kept with the file and lines it came from. What gambit refuses is an InputError at its line."""

from __future__ import annotations

import bisect
import posixpath
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..bundle import Bundle, join
from ..js import js_string, js_trim_bounds
from ..model import Diagnostic, InputError
from ..plain import json_safe
from ..safe_parse import LimitExceeded, check_toml
from ..yaml_lines import load_yaml
from .gambit_core_files import InstalledGambitCore, is_installed_path
from .gambit_text import FrontMatterError, embeds, legacy_marker_text, split_front_matter

SNIPPETS = "gambit://snippets/"
SCHEMAS = "gambit://schemas/"
LEGACY_MARKERS = {
    "gambit://respond": "gambit://snippets/respond.md",
    "gambit://init": "gambit://snippets/context.md",
    "gambit://end": "gambit://snippets/end.md",
}
RESERVED_PREFIX = "gambit_"
BUILTIN_ACTION_NAMES = frozenset({"gambit_context", "gambit_init"})
TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_TOOL_NAME = 64
_TOML_AT = re.compile(r"^(?P<message>.*) \(at line (?P<line>\d+), column \d+\)$", re.DOTALL)
MAX_CARDS = 1000
MAX_DEPTH = 64  # cards inside cards; gambit has no limit, Python's stack does
MAX_CARD_CHARS = 10 * 1024 * 1024
# Folders a user's copy of gambit-core may sit in, inside an upload: its `snippets/` is looked up
# there (`gambit-core/snippets/context.md`, `node_modules/@bolt-foundry/gambit-core/snippets/...`).
GAMBIT_CORE_FOLDER = "gambit-core"


@dataclass(slots=True)
class Piece:
    text: str
    path: str
    first_line: int
    placeholder: bool = False  # text the inspector wrote where gambit's own text would stand

    @property
    def last_line(self) -> int:
        return self.first_line + self.text[:-1].count("\n")


@dataclass(slots=True)
class Reference:
    """An action, scenario, grader or external tool as the front matter declares it."""

    kind: str
    name: str
    path: str | None  # bundle path of the deck it points to (None for gambit:// or outside)
    target: str  # as written
    description: str | None
    declared_in: str
    line: int | None
    context_schema: str | None = None  # as written on the action itself
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Loaded:
    path: str
    attrs: dict[str, Any]
    pieces: list[Piece]
    cards: list[Loaded] = field(default_factory=list)
    actions: list[Reference] = field(default_factory=list)
    scenarios: list[Reference] = field(default_factory=list)
    graders: list[Reference] = field(default_factory=list)
    respond: bool = False
    allow_end: bool = False


class _Lines:
    def __init__(self, text: str):
        self._breaks = [index for index, char in enumerate(text) if char == "\n"]

    def line(self, offset: int) -> int:
        return bisect.bisect_left(self._breaks, offset) + 1


def key_line(text: str, key: str) -> int | None:
    """The first line of the front matter that declares `key` (`key =`, `key:`, `[key]`,
    `[[key]]`), for pointing at what gambit refused."""
    pattern = re.compile(
        rf"^[ \t]*(?:\[\[?[ \t]*{re.escape(key)}\b|{re.escape(key)}[ \t]*[=:])", re.MULTILINE
    )
    match = pattern.search(text)
    return None if match is None else text.count("\n", 0, match.start()) + 1


class Loader:
    def __init__(self, bundle: Bundle, installed: InstalledGambitCore | None = None):
        self.bundle = bundle
        self.installed = installed
        self.warnings: list[Diagnostic] = []
        self.cards_read = 0
        self.chars_read = 0
        self._deprecations: set[tuple[str, str]] = set()
        self._snippets: dict[str, str | None] = {}

    # -- files ------------------------------------------------------------------------------

    def read(self, path: str, from_path: str | None, line: int | None) -> str:
        if is_installed_path(path):
            text = None if self.installed is None else self.installed.text(path)
        else:
            decoded = self.bundle.text(path)
            text = None if decoded is None else decoded.text
        if text is None:
            raise InputError(
                f"embedded card not found: {path} (gambit stops loading the deck)", from_path or path, line
            )
        self.cards_read += 1
        self.chars_read += len(text)
        if self.cards_read > MAX_CARDS or self.chars_read > MAX_CARD_CHARS:
            raise LimitExceeded(
                "the deck's cards bring in more than "
                f"{MAX_CARDS} files or {MAX_CARD_CHARS // 2**20} MB (an embed bomb?)",
                from_path or path,
                line,
            )
        return text

    def front_matter(self, path: str, raw: str) -> tuple[dict[str, Any], int, str]:
        """(attributes, body offset, the file up to its body) or the error gambit gives; `key_line`
        finds a key's line of the file in the third."""
        try:
            front = split_front_matter(raw)
        except FrontMatterError as error:
            raise InputError(f"Failed to parse front matter in {path}: {error}", path, 1) from None
        if front.kind is None:
            return {}, 0, ""
        first = raw.count("\n", 0, front.text_start) + 1
        if front.kind == "toml":
            attrs = self._toml(front.text, path, first)
        elif front.kind == "yaml":
            try:
                node = load_yaml(front.text, path, core=True) if front.text.strip() else None
            except InputError as error:
                found = error.diagnostic
                raise InputError(
                    f"Failed to parse front matter in {path}: {found.message}",
                    path,
                    first + (found.line or 1) - 1,
                    found.column,
                ) from None
            attrs = node.plain() if node is not None else {}
        else:
            raise InputError("JSON front matter is not read by the inspector", path, 1)
        if not isinstance(attrs, dict):
            attrs = {}
        return attrs, front.body_start, raw[: front.body_start]

    @staticmethod
    def _toml(text: str, path: str, first_line: int) -> dict[str, Any]:
        check_toml(text, path)
        try:
            return json_safe(tomllib.loads(text))
        except tomllib.TOMLDecodeError as error:
            found = _TOML_AT.match(str(error))
            message, line = (found["message"], int(found["line"])) if found else (str(error), 1)
            if not found and str(error).endswith(" (at end of document)"):
                message, line = str(error)[: -len(" (at end of document)")], text.count("\n") + 1
            raise InputError(
                f"Failed to parse front matter in {path}: {message}", path, first_line + line - 1
            ) from None

    def deprecated(self, path: str, key: str, message: str, line: int | None) -> None:
        if (path, key) not in self._deprecations:
            self._deprecations.add((path, key))
            self.warnings.append(Diagnostic(message, path, line))

    # -- bodies -----------------------------------------------------------------------------

    def expand(
        self, path: str, raw: str, body_start: int, stack: tuple[str, ...]
    ) -> tuple[list[Piece], list[Loaded], bool, bool]:
        """The body with its embeds inlined, trimmed: pieces, embedded cards, and whether a legacy
        respond or end marker stood in it."""
        lines = _Lines(raw)
        pieces: list[Piece] = []
        cards: list[Loaded] = []
        respond = end = False
        cursor = body_start
        for embed in embeds(raw, body_start, len(raw)):
            if embed.start > cursor:
                pieces.append(Piece(raw[cursor : embed.start], path, lines.line(cursor)))
            cursor = embed.end
            line = lines.line(embed.start)
            target = embed.target
            if target in LEGACY_MARKERS:
                respond = respond or target == "gambit://respond"
                end = end or target == "gambit://end"
                pieces.append(self._legacy_marker(path, target, line))
                continue
            card = self.embed(path, target, line, stack)
            if card is not None:
                cards.append(card)
                pieces.extend(card.pieces)
        if len(raw) > cursor:
            pieces.append(Piece(raw[cursor:], path, lines.line(cursor)))
        return trim(pieces), cards, respond, end

    def _legacy_marker(self, path: str, target: str, line: int) -> Piece:
        deprecated = f'"{target}" is deprecated; use {LEGACY_MARKERS[target]} instead.'
        found = self._marker_text(target)
        if found is not None:
            self.warnings.append(Diagnostic(deprecated, path, line))
            return found
        self.warnings.append(
            Diagnostic(
                f"{deprecated} gambit puts its own built-in text here, written in gambit-core's "
                "src/markdown.ts, which the inspector does not copy: the message shows a placeholder. "
                "Upload gambit-core's src/markdown.ts and src/constants.ts (as gambit-core/src/...) or "
                "name an installed gambit-core (--gambit-core, GAMBIT_CORE_DIR) to see it",
                path,
                line,
            )
        )
        return Piece(f"[gambit's built-in text for {target}]", path, line, placeholder=True)

    def _marker_text(self, target: str) -> Piece | None:
        """A legacy marker's text as the gambit-core the user gave writes it in src/markdown.ts
        (an uploaded copy first, then the installed one), traced to that file's line."""
        for markdown_path, read in self._core_sources():
            markdown, constants = (
                read(markdown_path),
                read(markdown_path[: -len("markdown.ts")] + "constants.ts"),
            )
            if markdown is None or constants is None:
                continue
            found = legacy_marker_text(markdown, constants, target)
            if found is not None:
                return Piece(found[0], markdown_path, found[1])
        return None

    def _core_sources(self) -> list[tuple[str, Callable[[str], str | None]]]:
        sources: list[tuple[str, Callable[[str], str | None]]] = []
        uploaded = find_gambit_core_file(self.bundle, "src/markdown.ts")
        if uploaded is not None:

            def read_uploaded(path: str) -> str | None:
                decoded = self.bundle.text(path)
                return None if decoded is None else decoded.text

            sources.append((uploaded, read_uploaded))
        installed = self.installed
        if installed is not None:
            found = installed.locate_source("src/markdown.ts")
            if found is not None:
                sources.append((found, installed.text))
        return sources

    def embed(self, path: str, target: str, line: int, stack: tuple[str, ...]) -> Loaded | None:
        if target.startswith(SNIPPETS):
            return self.snippet(path, target, line, stack)
        if not target.endswith(".md"):
            self.warnings.append(
                Diagnostic(
                    f"{target} is a TypeScript card: gambit imports and runs it, the inspector does "
                    "not; its text and tools are missing here",
                    path,
                    line,
                )
            )
            return None
        resolved = join(posixpath.dirname(path), target)
        if resolved is None:
            raise InputError(f"embed {target!r} points outside the upload", path, line)
        if resolved in stack:
            raise InputError("Card/embed cycle detected: " + " -> ".join((*stack, resolved)), path, line)
        if len(stack) >= MAX_DEPTH:
            raise LimitExceeded(f"cards nested more than {MAX_DEPTH} deep", path, line)
        return self.card(resolved, self.read(resolved, path, line), stack + (resolved,))

    def snippet(self, path: str, target: str, line: int, stack: tuple[str, ...]) -> Loaded | None:
        name = target[len(SNIPPETS) :]
        if not name:
            raise InputError(f"Invalid gambit snippet specifier: {target}", path, line)
        if name not in self._snippets:
            found = find_gambit_core_file(self.bundle, f"snippets/{name}")
            if found is None and self.installed is not None:
                found = self.installed.locate(name)
            self._snippets[name] = found
        found = self._snippets[name]
        if found is None:
            self.warnings.append(Diagnostic(self._missing_snippet(target, name), path, line))
            placeholder = Loaded(
                path=path,
                attrs={},
                pieces=[Piece(f"[gambit snippet {name}: not in the upload]", path, line, placeholder=True)],
            )
            return placeholder
        if found in stack:
            raise InputError("Card/embed cycle detected: " + " -> ".join((*stack, found)), path, line)
        return self.card(found, self.read(found, path, line), stack + (found,))

    def _missing_snippet(self, target: str, name: str) -> str:
        where = ""
        if self.installed is not None:
            # The folder itself is not named: on a server it is the host's business.
            where = (
                f" The installed gambit-core has no snippets/{name}."
                if self.installed.usable
                else " The installed gambit-core named has no snippets/ folder: name "
                "gambit-core's own folder, the one holding snippets/ and src/."
            )
        return (
            f"{target} is gambit's own text, which the inspector does not copy: add "
            f"gambit-core's snippets/{name} to the upload (for example as "
            f"gambit-core/snippets/{name}), or name an installed gambit-core (--gambit-core "
            "on the command line, GAMBIT_CORE_DIR on a server), to see it; a placeholder "
            f"stands in its place.{where}"
        )

    def card(self, path: str, raw: str, stack: tuple[str, ...]) -> Loaded:
        attrs, body_start, front = self.front_matter(path, raw)
        if attrs.get("handlers"):
            raise InputError(
                f"Card at {path} cannot declare handlers (deck-only)", path, key_line(front, "handlers")
            )
        legacy = attrs.get("actionDecks")
        canonical = attrs.get("actions")
        actions = self.actions(
            canonical if canonical is not None else legacy, path, front, require_description=False
        )
        if legacy:
            self.deprecated(
                path,
                "actionDecks",
                f'card at {path} uses deprecated "actionDecks"; use "[[actions]]" instead.',
                key_line(front, "actionDecks"),
            )
        for old, new in (("inputSchema", "contextFragment"), ("outputSchema", "responseFragment")):
            if old in attrs:
                self.deprecated(
                    path,
                    old,
                    f'card at {path} uses deprecated "{old}"; rename to "{new}"',
                    key_line(front, old),
                )
        pieces, cards, respond, end = self.expand(path, raw, body_start, stack)
        loaded = Loaded(
            path,
            attrs,
            pieces,
            cards,
            actions,
            self.references(attrs.get("testDecks"), "scenario", path, front),
            self.references(attrs.get("graderDecks"), "grader", path, front),
        )
        loaded.respond = bool(attrs.get("respond")) or respond
        loaded.allow_end = bool(attrs.get("allowEnd")) or end
        return loaded

    # -- front matter lists -----------------------------------------------------------------

    def actions(self, entries: Any, path: str, front: str, require_description: bool) -> list[Reference]:
        if not isinstance(entries, list):
            return []
        line = key_line(front, "actions") or key_line(front, "actionDecks")
        return [
            _action(entry, path, line, require_description) for entry in entries if isinstance(entry, dict)
        ]

    def references(self, entries: Any, kind: str, path: str, front: str) -> list[Reference]:
        if not isinstance(entries, list):
            return []
        keys = {"scenario": ("scenarios", "testDecks"), "grader": ("graders", "graderDecks")}[kind]
        line = key_line(front, keys[0]) or key_line(front, keys[1])
        found = []
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            target = _js_string(entry.get("path")).strip()
            if not target:
                raise InputError("Deck reference must include a path", path, line)
            label = entry.get("label") if isinstance(entry.get("label"), str) else None
            description = entry.get("description")
            found.append(
                Reference(
                    kind,
                    label or target,
                    None if target.startswith("gambit://") else join(posixpath.dirname(path), target),
                    target,
                    description if isinstance(description, str) else None,
                    path,
                    line,
                )
            )
        return found


def _action(entry: dict[str, Any], path: str, line: int | None, require_description: bool) -> Reference:
    """One [[actions]] entry, checked as gambit's loader checks it: a name, a description (when
    required) and exactly one of a deck path or an execute target with both schemas."""
    name = _js_string(entry.get("name")).strip()
    if not name:
        raise InputError(f"Action deck must include a name ({path})", path, line)
    description = _text(entry.get("description"))
    if require_description and not description:
        raise InputError(f"Action deck must include a description ({path})", path, line)
    target_path = _text(entry.get("path"))
    execute = _text(entry.get("execute"))
    if bool(target_path) == bool(execute):
        raise InputError(f"Action deck must include exactly one of path or execute ({path})", path, line)
    if execute and not (entry.get("contextSchema") and entry.get("responseSchema")):
        raise InputError(
            f"Action execute target must include contextSchema and responseSchema ({path})", path, line
        )
    check_action_name(name, path, line)
    target = target_path or execute
    context_schema = entry.get("contextSchema")
    return Reference(
        "action",
        name,
        None if target.startswith("gambit://") else join(posixpath.dirname(path), target),
        target,
        description or None,
        path,
        line,
        context_schema if isinstance(context_schema, str) else None,
        {"execute": bool(execute)},
    )


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _js_string(value: Any) -> str:
    """JavaScript's String(value ?? "")."""
    return "" if value is None else js_string(value)


def check_action_name(name: str, path: str, line: int | None) -> None:
    if name.startswith(RESERVED_PREFIX) and name not in BUILTIN_ACTION_NAMES:
        raise InputError(f"Action name {name} is reserved", path, line)
    if not TOOL_NAME.fullmatch(name) or len(name) > MAX_TOOL_NAME:
        raise InputError(
            f"Action name {name} must match /^[A-Za-z_][A-Za-z0-9_]*$/ and be <= {MAX_TOOL_NAME} characters",
            path,
            line,
        )


def trim(pieces: list[Piece]) -> list[Piece]:
    """JavaScript's trim() on the joined text, keeping each piece's file and lines."""
    joined = "".join(piece.text for piece in pieces)
    start, end = js_trim_bounds(joined)
    result: list[Piece] = []
    offset = 0
    for piece in pieces:
        piece_start, piece_end = offset, offset + len(piece.text)
        offset = piece_end
        cut_start, cut_end = max(start, piece_start), min(end, piece_end)
        if cut_end <= cut_start:
            continue
        skipped = piece.text[: cut_start - piece_start]
        result.append(
            Piece(
                piece.text[cut_start - piece_start : cut_end - piece_start],
                piece.path,
                piece.first_line + skipped.count("\n"),
                piece.placeholder,
            )
        )
    return result


def find_gambit_core_file(bundle: Bundle, relative: str) -> str | None:
    """The upload's copy of a file of gambit-core (`snippets/x.md`), wherever the folder sits."""
    suffix = f"{GAMBIT_CORE_FOLDER}/{relative}"
    for path in bundle.paths():
        if path == suffix or path.endswith("/" + suffix):
            return path
    return None


def flatten(cards: list[Loaded]) -> list[Loaded]:
    flat: list[Loaded] = []
    for card in cards:
        flat.append(card)
        flat.extend(flatten(card.cards))
    return flat
