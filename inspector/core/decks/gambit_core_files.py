"""gambit-core's snippets from a folder the user names (an installed gambit-core, e.g.
node_modules/@bolt-foundry/gambit-core or gambit's packages/gambit-core), seen by the deck
loader as if uploaded under `gambit-core/snippets/`. Only `snippets/*.md` is read, once."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..bundle import Bundle
from ..model import InputError
from .gambit_load import GAMBIT_CORE_FOLDER

MAX_SNIPPET_BYTES = 1024 * 1024


class WithGambitCore(Bundle):
    def __init__(self, base: Bundle, folder: str | Path):
        snippets = Path(folder) / "snippets"
        if not snippets.is_dir():
            raise InputError(f"{folder} has no snippets/ folder: name gambit-core's own folder "
                             "(the one holding snippets/ and src/)")
        self.base = base
        self.extra = {
            f"{GAMBIT_CORE_FOLDER}/snippets/{path.name}": path.read_bytes()
            for path in sorted(snippets.glob("*.md"))
            if path.is_file() and path.stat().st_size <= MAX_SNIPPET_BYTES
        }

    def read(self, path: str) -> bytes | None:
        found = self.base.read(path)
        return found if found is not None else self.extra.get(path)

    def paths(self) -> Iterable[str]:
        return [*self.base.paths(), *(p for p in self.extra if not self.base.exists(p))]
