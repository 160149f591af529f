"""Bundles: the read-only set of files a render may look at.

Every file reference resolves inside a bundle and nowhere else. Paths are posix, relative to the
bundle root, with no leading slash and no `..`; anything that would leave the root is refused here,
once, so loaders never need their own checks.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .fast_glob import MAX_REPEATS, brace_choices, brace_end, fast_glob_matcher
from .model import InputError


def normalize(path: str) -> str | None:
    """Bundle-relative form of a path written relative to the root, or None if it escapes it."""
    path = path.replace("\\", "/")
    normal = posixpath.normpath("/" + path.lstrip("/"))
    if normal == "/":
        return ""
    # normpath("/" + "../x") gives "/x"; detect escapes from the raw parts instead.
    depth = 0
    for part in path.lstrip("/").split("/"):
        if part in ("", "."):
            continue
        depth += -1 if part == ".." else 1
        if depth < 0:
            return None
    return normal.lstrip("/")


def join(folder: str, reference: str) -> str | None:
    """Resolve `reference` against a bundle folder; None when the result leaves the bundle."""
    if not folder:
        return normalize(reference)
    return normalize(f"{folder}/{reference}")


def parent_folders(path: str) -> list[str]:
    """The folders holding `path`, nearest first, ending with the root ("")."""
    folders = []
    folder = posixpath.dirname(path)
    while folder:
        folders.append(folder)
        folder = posixpath.dirname(folder)
    folders.append("")
    return folders


@dataclass(frozen=True, slots=True)
class DecodedText:
    text: str
    problem: str | None = None  # why the text may not be what the author meant
    problem_line: int | None = None  # the line of the first undecodable byte


def decode(data: bytes) -> DecodedText:
    """UTF-8 text with CRLF turned into LF, as agentv reads files."""
    problem = line = None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            pass
        else:
            return DecodedText(
                text.replace("\r\n", "\n"),
                "is UTF-16, not UTF-8: it is shown decoded, "
                "but agentv reads UTF-8 and would see garbled text",
            )
    if looks_binary(data):
        problem = "looks like a binary file (it contains NUL bytes)"
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        text = data.decode("utf-8", errors="replace")
        if problem is None:
            problem = f"is not valid UTF-8 (byte {error.start}); undecodable bytes were replaced with U+FFFD"
            line = data.count(b"\n", 0, error.start) + 1
    return DecodedText(text.replace("\r\n", "\n"), problem, line)


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


# A binary file named like one of these is a text file gone wrong (saved as UTF-16 without a BOM,
# say): it stays, so its page can say why it cannot be read.
TEXT_EXTENSIONS = (".yaml", ".yml", ".json", ".jsonl", ".md", ".toml", ".txt", ".csv", ".j2", ".njk")
# Where a file name may stand in a text file: a YAML value, a `file://` reference, a quoted JSON
# string, a markdown link. Cut at what cannot be part of a path reference (glob characters stay).
_NAME_TOKEN = re.compile(r"[^\s\"'`()<>{},;:=|]+")
_GLOB = re.compile(r"[*?\[]")


def unread_binaries(files: Mapping[str, bytes]) -> list[str]:
    """The binary files of an upload that nothing can read: every reader (an agentv `type: image`
    or `type: file` block, a promptfoo `file://` var or glob) reaches a file by a name or a glob
    written in a text file, so a binary file no text file names or matches is never sent (a
    `.DS_Store`, a build's output). Sorted."""
    binaries = [
        path
        for path, data in files.items()
        if looks_binary(data) and not path.lower().endswith(TEXT_EXTENSIONS)
    ]
    if not binaries:
        return []
    texts = [decode(data).text for data in files.values() if not looks_binary(data)]
    names: set[str] = set()
    globs: set[str] = set()
    for text in texts:
        for token in _NAME_TOKEN.findall(text):
            name = posixpath.basename(token)
            (globs if _GLOB.search(name) else names).add(name)
    return sorted(path for path in binaries if not _named(posixpath.basename(path), names, globs, texts))


def _named(name: str, names: set[str], globs: set[str], texts: list[str]) -> bool:
    if name in names or any(fnmatch.fnmatchcase(name, glob) for glob in globs):
        return True
    # A name the token pattern cuts (a space, a colon): looked for as it is.
    return _NAME_TOKEN.fullmatch(name) is None and any(name in text for text in texts)


class Bundle:
    """A read-only file tree. Subclasses supply `read` and `paths`."""

    def read(self, path: str) -> bytes | None:
        raise NotImplementedError

    def paths(self) -> Iterable[str]:
        raise NotImplementedError

    def exists(self, path: str) -> bool:
        return self.read(path) is not None

    def paths_under(self, folder: str) -> list[str]:
        """The paths inside `folder` (a bundle path, no trailing slash), sorted."""
        prefix = folder + "/"
        return sorted(path for path in self.paths() if path.startswith(prefix))

    def text(self, path: str) -> DecodedText | None:
        data = self.read(path)
        return None if data is None else decode(data)


class MemoryBundle(Bundle):
    def __init__(self, files: Mapping[str, bytes]):
        self._files: dict[str, bytes] = {}
        for path, data in files.items():
            normal = normalize(path)
            if normal:
                self._files[normal] = data

    def read(self, path: str) -> bytes | None:
        normal = normalize(path)
        return None if normal is None else self._files.get(normal)

    def exists(self, path: str) -> bool:
        normal = normalize(path)
        return normal is not None and normal in self._files

    def paths(self) -> list[str]:
        return sorted(self._files)


class DirectoryBundle(Bundle):
    """A folder on disk, read lazily. Symlinks that point outside the root are not followed."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root).resolve()
        self._root_text = str(self.root)
        self._inside = os.path.join(self._root_text, "")  # the root with its separator

    def _disk_path(self, path: str) -> Path | None:
        found = self._real_path(path)
        return None if found is None else Path(found)

    def _real_path(self, path: str) -> str | None:
        """The file's path with every symlink resolved, when that lies inside the root. (Strings,
        not Paths: a suite reads hundreds of files, and Path.resolve and Path.parents made a Path
        per step.)"""
        normal = normalize(path)
        if not normal:
            return None
        candidate = os.path.realpath(os.path.join(self._root_text, normal))
        inside = candidate.startswith(self._inside) or candidate == self._root_text
        return candidate if inside else None

    def read(self, path: str) -> bytes | None:
        real_path = self._real_path(path)
        if real_path is None:
            return None
        try:
            # Non-blocking: a FIFO would hold the open (and the render) until a writer came.
            descriptor = os.open(real_path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return None  # gone, a folder, or unreadable: as is_file() said before
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return None
            with open(descriptor, "rb", closefd=False) as file:
                return file.read()
        finally:
            os.close(descriptor)

    def exists(self, path: str) -> bool:
        disk_path = self._disk_path(path)
        return disk_path is not None and disk_path.is_file()

    def paths(self) -> list[str]:
        return self._walk(self.root)

    def paths_under(self, folder: str) -> list[str]:
        # Only that folder is walked: a deck's samples/ in a large repository costs its own files.
        start = self._disk_path(folder)
        return [] if start is None or not start.is_dir() else self._walk(start)

    def _walk(self, start: Path) -> list[str]:
        found = []
        for folder, dirs, files in os.walk(start):
            dirs[:] = [name for name in dirs if name not in (".git", "node_modules", ".venv")]
            for name in files:
                relative = Path(folder, name).relative_to(self.root).as_posix()
                if self._disk_path(relative) is not None:
                    found.append(relative)
        return sorted(found)

    def relative(self, path: str | os.PathLike[str]) -> str | None:
        """Bundle path of a file on disk, or None when it lies outside the root."""
        absolute = Path(path).resolve()
        if self.root not in absolute.parents:
            return None
        return absolute.relative_to(self.root).as_posix()


def glob_paths(bundle: Bundle, pattern: str) -> list[str]:
    """The bundle's files a glob names, sorted: how promptfoo's (node-glob) and agentv's
    (fast-glob) `file://` globs are read. `*` stays within a folder, `**` crosses folders, `{a,b}`
    picks either; no wildcard matches a name starting with `.` (both libraries' `dot: false`), a
    name written with its dot does. A name with more than fast_glob.MAX_REPEATS `*` is refused
    (InputError): matching it costs the name's length to the power of its stars."""
    for name in pattern.split("/"):
        if name.replace("**", "").count("*") > MAX_REPEATS:
            raise InputError(
                f"this glob is not read by the inspector (more than {MAX_REPEATS} `*` in one name): {pattern}"
            )
    matcher = re.compile(_glob_regex(pattern))
    return sorted(path for path in bundle.paths() if matcher.fullmatch(path))


def fast_glob_paths(bundle: Bundle, pattern: str) -> list[str]:
    """The bundle's files fast-glob lists for a pattern, sorted, as agentv 5 reads its globs
    (fast_glob.py: classes and extglobs too). Raises fast_glob.GlobNotRead."""
    listed = fast_glob_matcher(pattern)
    return sorted(path for path in bundle.paths() if listed(path))


_NOT_DOT = "(?!\\.)"  # a wildcard at a name's start never matches a dotfile
_GLOB_TOKENS = {
    "**/": f"(?:{_NOT_DOT}[^/]+/)*",
    "**": f"(?:{_NOT_DOT}[^/]+(?:/{_NOT_DOT}[^/]+)*)?",
    "*": "[^/]*",
    "?": "[^/]",
}


def _glob_regex(pattern: str, name_start: bool = True) -> str:
    """`name_start`: the pattern begins a name (not the inside of a brace after other text)."""
    parts = []
    index = 0
    while index < len(pattern):
        at_name_start = (index == 0 and name_start) or (index > 0 and pattern[index - 1] == "/")
        token = next((token for token in _GLOB_TOKENS if pattern.startswith(token, index)), None)
        if token is not None:
            parts.append((_NOT_DOT if at_name_start and token in ("*", "?") else "") + _GLOB_TOKENS[token])
            index += len(token)
            continue
        close = brace_end(pattern, index)
        if close is not None:
            choices = brace_choices(pattern[index + 1 : close])
            parts.append("(?:" + "|".join(_glob_regex(choice, at_name_start) for choice in choices) + ")")
            index = close + 1
            continue
        parts.append(re.escape(pattern[index]))
        index += 1
    return "".join(parts)
