"""gambit-core's snippets from a folder the server or the command line names (an installed
gambit-core: node_modules/@bolt-foundry/gambit-core, gambit's packages/gambit-core, a JSR cache
copy), read the way gambit-core's `resolveBuiltinSnippetPath` finds them: `snippets/<name>` under
that folder. Only files under its `snippets/` are read (a symlink leading elsewhere is not
followed), each at most MAX_SNIPPET_BYTES. Their text is traced to `INSTALLED/snippets/<name>`,
a path no upload can hold, so a reader can tell gambit's installed text from an uploaded copy."""

from __future__ import annotations

import hashlib
import posixpath
from pathlib import Path

from ..bundle import decode
from ..safe_parse import LimitExceeded

INSTALLED = "gambit-core (installed)"
MAX_SNIPPET_BYTES = 1024 * 1024
# gambit-core's source files that write the legacy markers' text (`gambit://init` and the like):
# the only files outside snippets/ that are read.
SOURCE_FILES = ("src/markdown.ts", "src/constants.ts")


def is_installed_path(path: str | None) -> bool:
    return bool(path) and str(path).startswith(INSTALLED + "/")


class InstalledGambitCore:
    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.snippets = (self.folder / "snippets").resolve()

    @property
    def usable(self) -> bool:
        return self.snippets.is_dir()

    def locate(self, name: str) -> str | None:
        """The traced path of snippet `name` when the folder holds it, else None."""
        path = f"{INSTALLED}/snippets/{name}"
        return path if self._file(path) is not None else None

    def locate_source(self, relative: str) -> str | None:
        """The traced path of one of SOURCE_FILES when the folder holds it, else None."""
        path = f"{INSTALLED}/{relative}"
        return path if self._file(path) is not None else None

    def text(self, path: str) -> str | None:
        """The text of a traced path (`INSTALLED/snippets/...` or one of SOURCE_FILES), or None
        when the folder has no such file."""
        found = self._file(path)
        if found is None:
            return None
        if found.stat().st_size > MAX_SNIPPET_BYTES:
            raise LimitExceeded(
                f"{found} is larger than {MAX_SNIPPET_BYTES // 1024} KB: not a gambit snippet", path
            )
        return decode(found.read_bytes()).text

    def _file(self, path: str) -> Path | None:
        if not is_installed_path(path):
            return None
        relative = posixpath.normpath(path[len(INSTALLED) + 1 :])
        if relative in SOURCE_FILES:
            inside = (self.folder / "src").resolve()
        elif relative.startswith("snippets/") and self.usable:
            inside = self.snippets
        else:
            return None
        try:
            # resolve() follows every link: what it lands on must still be inside its folder.
            target = (self.folder / relative).resolve()
            if not target.is_relative_to(inside) or not target.is_file():
                return None
        except (OSError, ValueError):  # a name the file system refuses (too long, a NUL byte)
            return None
        return target

    def digest(self) -> str:
        """What the folder's snippets are, for keys of renders made with them."""
        found = hashlib.sha256(str(self.folder.resolve()).encode())
        for relative in SOURCE_FILES:
            source = self._file(f"{INSTALLED}/{relative}")
            if source is not None and source.stat().st_size <= MAX_SNIPPET_BYTES:
                found.update(relative.encode() + b"\0" + source.read_bytes())
        if self.usable:
            for path in sorted(self.snippets.rglob("*")):
                resolved = path.resolve()
                if (
                    resolved.is_relative_to(self.snippets)
                    and resolved.is_file()
                    and resolved.stat().st_size <= MAX_SNIPPET_BYTES
                ):
                    found.update(path.relative_to(self.snippets).as_posix().encode() + b"\0")
                    found.update(resolved.read_bytes())
        return found.hexdigest()[:16]
