"""File references and guidelines, resolved the way agentv does it, inside the bundle only.

A reference is tried against the eval file's folder, each parent up to the root, then the root; the
first file that exists wins. A leading `/` means "relative to those folders". A reference that would
leave the bundle is never read: it is reported like a missing file, with the reason.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from functools import lru_cache

import pathspec
import yaml

from ..bundle import Bundle, decode, join, parent_folders
from ..model import InputError
from ..safe_parse import check_nesting

DEFAULT_PATTERNS: tuple[str, ...] = ()  # with no .agentv/config.yaml nothing is a guideline


@dataclass(frozen=True, slots=True)
class ResolvedFile:
    written: str  # the reference as the case wrote it
    display: str  # as agentv names it in headers: the reference less a leading "/"
    path: str  # bundle path
    text: str  # UTF-8 with CRLF turned into LF
    problem: str | None = None  # undecodable or binary content


@dataclass(frozen=True, slots=True)
class Missing:
    written: str
    tried: tuple[str, ...]
    escaped: bool  # the reference leaves the bundle


def resolve(bundle: Bundle, eval_path: str, reference: str,
            cache: dict[str, ResolvedFile | Missing] | None = None) -> ResolvedFile | Missing:
    key = f"{eval_path}\0{reference}"
    if cache is not None and key in cache:
        return cache[key]
    written = reference
    stripped = reference.strip()
    display = stripped.lstrip("/") if stripped.startswith("/") else stripped
    tried: list[str] = []
    escaped = False
    found: ResolvedFile | Missing | None = None
    for folder in parent_folders(eval_path):
        candidate = join(folder, display)
        if candidate is None:
            escaped = True
            tried.append(posixpath.join(folder, display) if folder else display)
            continue
        if candidate in tried:
            continue
        tried.append(candidate)
        data = bundle.read(candidate)
        if data is not None:
            decoded = decode(data)
            found = ResolvedFile(written, display, candidate, decoded.text, decoded.problem)
            break
    if found is None:
        found = Missing(written, tuple(tried), escaped)
    if cache is not None:
        cache[key] = found
    return found


def missing_message(missing: Missing) -> str:
    if missing.escaped and all(".." in item or item.startswith("/") for item in missing.tried):
        return (f"file reference {missing.written!r} points outside the bundle; it was not read "
                f"and the block is dropped")
    tried = "; ".join(missing.tried)
    reason = "File not found"
    if missing.escaped:
        reason += " (some candidates lie outside the bundle and were not read)"
    return f"{reason}: {missing.written} — the block is dropped. Tried: {tried}"


def unusable_patterns(patterns: tuple[str, ...]) -> list[str]:
    """Patterns gitwildmatch cannot compile (a trailing backslash, a lone "!")."""
    bad = []
    for pattern in patterns:
        try:
            pathspec.PathSpec.from_lines("gitignore", [pattern])
        except ValueError:
            bad.append(pattern)
    return bad


@lru_cache(maxsize=256)
def _spec(patterns: tuple[str, ...]) -> pathspec.PathSpec:
    # An unusable pattern matches nothing rather than failing the whole render; the loader warns.
    bad = set(unusable_patterns(patterns))
    return pathspec.PathSpec.from_lines("gitignore", [p for p in patterns if p not in bad])


def config_patterns(bundle: Bundle, eval_path: str) -> tuple[tuple[str, ...], str | None]:
    """guideline_patterns from the nearest .agentv/config.yaml and that file's path."""
    for folder in parent_folders(eval_path):
        config_path = f"{folder}/.agentv/config.yaml" if folder else ".agentv/config.yaml"
        data = bundle.read(config_path)
        if data is None:
            continue
        try:
            text = decode(data).text
            check_nesting(text, config_path)
            config = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (yaml.YAMLError, InputError, RecursionError):
            return DEFAULT_PATTERNS, config_path
        patterns = config.get("guideline_patterns") if isinstance(config, dict) else None
        if isinstance(patterns, list):
            return tuple(str(item) for item in patterns if isinstance(item, str)), config_path
        return DEFAULT_PATTERNS, config_path
    return DEFAULT_PATTERNS, None


def is_guideline(path: str, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    # micromatch (agentv's matcher) does not let `**` enter dot-folders.
    if any(part.startswith(".") for part in path.split("/")[:-1]):
        return False
    return _spec(patterns).match_file(path)
