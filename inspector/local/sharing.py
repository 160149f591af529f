"""Share in local mode: exactly which files of the served folder leave the machine (what git ignores
and what looks like a secret stay)."""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

import pathspec

from inspector.bundles.ingest import content_digest
from inspector.local.served_folder import LocalFolder

# A name is refused when its last part matches; content when it holds a private key.
_SECRET_NAMES = re.compile(r"\.env.*|id_(?:rsa|dsa|ecdsa|ed25519)|.*\.pem|.*\.key", re.IGNORECASE)


_PRIVATE_KEY = re.compile(rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")


def secret_reason(path: str, data: bytes) -> str | None:
    """Why a file looks like a secret (its name, or a private key in it), or None."""
    if _SECRET_NAMES.fullmatch(posixpath.basename(path)):
        return "its name is a secret's (.env*, a private key, *.pem, *.key)"
    if _PRIVATE_KEY.search(data):
        return "it holds a private key"
    return None


class GitIgnored:
    """What git would leave out of the folder: `.git/info/exclude`, then every `.gitignore` from the
    repository's top down to the folder's deepest (each one's patterns relative to its own folder,
    the deeper one deciding). The folder may be part of a repository: the ignore files above it
    count too, and are the only files outside it that local mode reads."""

    def __init__(self, served: LocalFolder, paths: list[str]):
        # (the folder inside the served one it rules, the served folder's path from its own folder)
        self.specs: list[tuple[str, str, pathspec.GitIgnoreSpec]] = []
        top = _repository_top(served.root)
        if top is not None:
            exclude = _git_dir(top) / "info" / "exclude"
            if exclude.is_file():
                self.specs.append(("", _below(top, served.root), _spec(exclude.read_bytes())))
            for folder in reversed(served.root.parents):
                if folder.is_relative_to(top):
                    ignore = folder / ".gitignore"
                    if ignore.is_file():
                        self.specs.append(("", _below(folder, served.root), _spec(ignore.read_bytes())))
        ignore_files = sorted(
            (path for path in paths if posixpath.basename(path) == ".gitignore"),
            key=lambda path: path.count("/"),
        )
        for path in ignore_files:
            if self.ignored(path):
                continue  # git never reads a .gitignore inside an ignored folder
            self.specs.append((posixpath.dirname(path), "", _spec(served.files.read(path) or b"")))

    def ignored(self, path: str) -> bool:
        verdict = False
        for inside, outside, spec in self.specs:
            if inside and not path.startswith(inside + "/"):
                continue
            found = spec.check_file(outside + (path[len(inside) + 1 :] if inside else path))
            if found.include is not None:
                verdict = found.include
        return verdict


def _repository_top(root: Path) -> Path | None:
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _git_dir(top: Path) -> Path:
    """The repository's git folder: `.git`, or where a worktree's or submodule's `.git` file points
    (a worktree's info/exclude is its main repository's)."""
    marker = top / ".git"
    if marker.is_dir():
        return marker
    try:
        pointed = marker.read_text().strip().removeprefix("gitdir:").strip()
        git_dir = (top / pointed).resolve()
        common = git_dir / "commondir"
        return (git_dir / common.read_text().strip()).resolve() if common.is_file() else git_dir
    except (OSError, UnicodeDecodeError):
        return marker


def _below(folder: Path, root: Path) -> str:
    """The served root's path from `folder`, as a prefix of its files' paths."""
    relative = root.relative_to(folder).as_posix()
    return "" if relative == "." else relative + "/"


def _spec(data: bytes) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", "replace").splitlines())


def _names(root: Path, path: str) -> tuple[str, ...]:
    """The path, and the path of the file it links to when that is another (the folder's files
    never link outside it)."""
    real = os.path.realpath(root / path)
    target = Path(real).relative_to(root).as_posix() if Path(real).is_relative_to(root) else path
    return (path,) if target == path else (path, target)


@dataclass(frozen=True)
class ShareList:
    """The files Share sends, read once: `files` is what goes, byte for byte."""

    files: dict[str, bytes]
    ignored: tuple[str, ...]  # left out by .gitignore or .git/info/exclude
    secrets: tuple[tuple[str, str], ...]  # (path, why) left out until named with --share-include
    digest: str  # of every path and content that goes: the confirmation carries it

    @property
    def size(self) -> int:
        return sum(len(data) for data in self.files.values())


def share_list(served: LocalFolder, included: tuple[str, ...] = ()) -> ShareList:
    """The folder's files minus what git ignores and what looks like a secret; a path the user
    named (`--share-include`) goes whatever it looks like."""
    named = {path.strip("/") for path in included}
    paths = served.files.paths()
    ignored_by_git = GitIgnored(served, paths)
    files: dict[str, bytes] = {}
    ignored: list[str] = []
    secrets: list[tuple[str, str]] = []
    for path in paths:
        # A link in the folder is sent as its target's content: the target's name counts too.
        names = _names(served.root, path)
        if path not in named and any(ignored_by_git.ignored(name) for name in names):
            ignored.append(path)  # not read: an ignored folder may hold gigabytes
            continue
        data = served.files.read(path)
        if data is None:
            continue  # removed while listing
        reason = (
            None
            if path in named
            else next((found for name in names if (found := secret_reason(name, data)) is not None), None)
        )
        if reason is not None:
            secrets.append((path, reason if names[-1] == path else f"{reason}, as {names[-1]}"))
            continue
        files[path] = data
    return ShareList(files, tuple(ignored), tuple(secrets), content_digest(files))
