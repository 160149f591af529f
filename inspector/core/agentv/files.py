"""File references and guidelines, resolved the way agentv does it, inside the bundle only.

A reference is tried against the eval file's folder, each parent up to the root, then the root; the
first file that exists wins. A leading `/` means "relative to those folders". A reference that would
leave the bundle is never read: it is reported like a missing file, with the reason.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pathspec
import yaml

from ..bundle import Bundle, decode, join, parent_folders
from ..model import InputError
from ..safe_parse import check_yaml_nesting

DEFAULT_PATTERNS: tuple[str, ...] = ()  # with no .agentv/config.yaml nothing is a guideline


class FromConfig(tuple):
    """Patterns `config_patterns` found (not set by the user): a release may look them up its own way."""

    __slots__ = ()


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


def resolve(
    bundle: Bundle,
    eval_path: str,
    reference: str,
    cache: dict[str, ResolvedFile | Missing] | None = None,
    *,
    exact: bool = False,
) -> ResolvedFile | Missing:
    """`exact`: as agentv 0.10-3.8 do it, the value is not trimmed and leading `/` and `\\` are
    dropped (`trimLeadingSeparators`); otherwise surrounding whitespace and leading `/` go."""
    key = f"{eval_path}\0{reference}\0{exact}"
    if cache is not None and key in cache:
        return cache[key]
    written = reference
    if exact:
        display = reference.lstrip("/\\") or reference
    else:
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
        return (
            f"file reference {missing.written!r} points outside the bundle; it was not read "
            f"and the block is dropped"
        )
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


_UNREADABLE = object()


def _configs(bundle: Bundle, eval_path: str):
    """Each `.agentv/config.yaml` from the eval file's folder up to the root, nearest first, as
    (path, parsed value), the value _UNREADABLE when the file is not YAML."""
    for folder in parent_folders(eval_path):
        config_path = f"{folder}/.agentv/config.yaml" if folder else ".agentv/config.yaml"
        data = bundle.read(config_path)
        if data is None:
            continue
        try:
            text = decode(data).text
            check_yaml_nesting(text, config_path)
            config = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (yaml.YAMLError, InputError, RecursionError):
            config = _UNREADABLE
        yield config_path, config


def config_patterns(bundle: Bundle, eval_path: str) -> tuple[tuple[str, ...], str | None]:
    """guideline_patterns from the nearest .agentv/config.yaml and that file's path."""
    for config_path, config in _configs(bundle, eval_path):
        if config is _UNREADABLE:
            return FromConfig(DEFAULT_PATTERNS), config_path
        patterns = config.get("guideline_patterns") if isinstance(config, dict) else None
        if isinstance(patterns, list):
            return FromConfig(str(item) for item in patterns if isinstance(item, str)), config_path
        return FromConfig(DEFAULT_PATTERNS), config_path
    return FromConfig(DEFAULT_PATTERNS), None


def release_config_patterns(
    bundle: Bundle, eval_path: str, *, require_schema: bool, check_version_keys: bool
) -> tuple[tuple[str, ...], str | None]:
    """guideline_patterns as agentv 0.10.1 / 3.8.0 `loadConfig` finds them.

    From the eval file's folder up to the root, the first `.agentv/config.yaml` that is usable wins;
    an unreadable one, one that is not a mapping, one without `$schema: agentv-config-v2` (0.10,
    `require_schema`) or with an invalid `guideline_patterns` (not a list, or not all strings) is
    skipped and the search goes on upward. 3.8 (`check_version_keys`) also skips a config whose
    `required_version` is not a string or whose `eval_patterns` is not a list of strings. A usable
    config without `guideline_patterns` means no guidelines.
    """
    for config_path, config in _configs(bundle, eval_path):
        if not isinstance(config, dict):  # unreadable ones too
            continue
        if require_schema and config.get("$schema") != "agentv-config-v2":
            continue
        if check_version_keys and not _version_keys_valid(config):
            continue
        if "guideline_patterns" not in config:
            return DEFAULT_PATTERNS, config_path
        patterns = config["guideline_patterns"]
        if _strings(patterns):
            return tuple(patterns), config_path
    return DEFAULT_PATTERNS, None


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _version_keys_valid(config: dict) -> bool:
    """agentv 3.8 skips a config whose required_version or eval_patterns it cannot use."""
    if "required_version" in config and not isinstance(config["required_version"], str):
        return False
    return "eval_patterns" not in config or _strings(config["eval_patterns"])


# ---- micromatch (picomatch 2.3), as agentv 0.10-3.8 match guideline patterns -------------------
# micromatch.isMatch(path, patterns) with default options: any pattern matches. `*` and `?` stay
# inside one folder; `**` as a whole segment spans folders; no wildcard matches a name starting with
# "." (a pattern must spell the dot); a pattern without "/" matches at the root only; `{a,b}` is an
# alternation; a leading "!" negates; a path equal to the pattern's text always matches. Extglobs
# (`@(a|b)`) and POSIX classes are taken literally here.

_GLOBSTAR = r"(?:(?:(?!(?:^|\/)\.).)*?)"


def _braces(pattern: str) -> list[str]:
    """`a{b,c}d` -> [abd, acd] (the first top-level group, then recursively)."""
    depth, start, escaped = 0, 0, False
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
            continue
        if char == "\\":
            escaped = True
        elif char == "{":
            start = index if depth == 0 else start
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth:
                continue
            options, level, current = [], 0, ""
            for item in pattern[start + 1 : index]:
                if item == "," and level == 0:
                    options.append(current)
                    current = ""
                    continue
                level += (item == "{") - (item == "}")
                current += item
            options.append(current)
            if len(options) < 2:
                return [pattern]
            head, tail = pattern[:start], pattern[index + 1 :]
            return [expanded for option in options for expanded in _braces(head + option + tail)]
    return [pattern]


def _segment(segment: str, first: bool) -> str:
    out, index = [], 0
    while index < len(segment):
        char = segment[index]
        at_start = index == 0
        if char == "\\" and index + 1 < len(segment):
            out.append(re.escape(segment[index + 1]))
            index += 2
            continue
        if char == "*":
            while index + 1 < len(segment) and segment[index + 1] == "*":
                index += 1
            out.append(_star(segment, at_start, first))
            index += 1
            continue
        if char == "?":
            out.append(r"[^.\/]" if at_start else r"[^/]")
            index += 1
            continue
        end = segment.find("]", index + 2) if char == "[" else -1
        if end != -1:
            out.append(_bracket(segment, index, end))
            index = end + 1
            continue
        out.append(re.escape(char))
        index += 1
    return "".join(out)


def _star(segment: str, at_start: bool, first: bool) -> str:
    """A run of `*`: no wildcard matches a name's leading dot."""
    if at_start and first and segment.startswith("**") and len(segment) > 2:
        return r"(?!\.)" + _GLOBSTAR  # `**.md` at the very start spans folders
    if at_start:
        return r"(?!\.)(?=.)[^/]*?"
    return r"[^/]*?"


def _bracket(segment: str, start: int, end: int) -> str:
    """A `[...]` class; picomatch also matches its text taken literally."""
    body = segment[start + 1 : end]
    if body.startswith("^"):
        return f"[^{body[1:]}/]"
    return f"(?:{re.escape(segment[start : end + 1])}|[{body}])"


@lru_cache(maxsize=1024)
def _micromatch_regex(pattern: str) -> tuple[re.Pattern[str] | None, bool]:
    negated = False
    while pattern.startswith("!") and not pattern.startswith("!("):
        negated, pattern = not negated, pattern[1:]
    if pattern.startswith("./"):
        pattern = pattern[2:]
    alternatives = [_path_regex(expanded) for expanded in _braces(pattern)]
    try:
        return re.compile("|".join(f"(?:{item})" for item in alternatives)), negated
    except re.error:
        return None, negated


def _path_regex(pattern: str) -> str:
    """One brace-free pattern, segment by segment (a run of `**` segments is one)."""
    collapsed: list[str] = []
    for segment in pattern.split("/"):
        if segment == "**" and collapsed and collapsed[-1] == "**":
            continue
        collapsed.append(segment)
    last = len(collapsed) - 1
    out = ""
    for index, segment in enumerate(collapsed):
        if segment == "**":
            out += _globstar(index, last)
            continue
        if index and collapsed[index - 1] != "**":
            out += r"\/"
        out += _segment(segment, index == 0)
    return out


def _globstar(index: int, last: int) -> str:
    """A `**` segment, which takes the slashes around it."""
    if last == 0:
        return r"(?!\.)" + _GLOBSTAR + r"\/?"
    if index == 0:
        return r"(?:" + _GLOBSTAR + r"\/)?"
    if index == last:
        return r"(?:\/(?!\.)" + _GLOBSTAR + r"|$)"
    return r"(?:\/(?!\.)" + _GLOBSTAR + r"\/|\/)"


def micromatch(path: str, patterns: tuple[str, ...]) -> bool:
    """micromatch.isMatch(path, patterns) as agentv 0.10-3.8 call it (backslashes become `/`)."""
    path = path.replace("\\", "/")
    if not path:
        return False
    for pattern in patterns:
        if not pattern:
            continue
        if path == pattern:
            return True
        regex, negated = _micromatch_regex(pattern)
        if regex is None:
            continue
        if (regex.fullmatch(path) is not None) != negated:
            return True
    return False


def is_guideline(path: str, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    # micromatch (agentv's matcher) does not let `**` enter dot-folders.
    if any(part.startswith(".") for part in path.split("/")[:-1]):
        return False
    return _spec(patterns).match_file(path)
