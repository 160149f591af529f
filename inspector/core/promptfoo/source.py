"""Reading a promptfoo config and the files it names, each value with its lines.

promptfoo resolves every `file://` reference against the config's folder (`cliState.basePath`);
here that folder is a bundle folder, and a reference that leaves the bundle is named, not read.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field

from ..bundle import Bundle, decode, join
from ..bundle import glob_paths as glob_paths  # moved to bundle.py, shared with agentv's globs
from ..model import Diagnostic, InputError
from ..yaml_lines import Node, check_size, from_plain, load_yaml

FILE_PREFIX = "file://"


@dataclass
class Source:
    """The bundle, the config's path and folder, and the warnings met while reading."""

    bundle: Bundle
    path: str
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.path)

    def warn(self, message: str, path: str | None = None, line: int | None = None) -> None:
        diagnostic = Diagnostic(message, path or self.path, line)
        if diagnostic not in self.warnings:
            self.warnings.append(diagnostic)

    def resolve(self, reference: str) -> str | None:
        """A `file://` reference (or a bare path) as a bundle path, relative to the config."""
        if reference.startswith(FILE_PREFIX):
            reference = reference[len(FILE_PREFIX) :]
        return join(self.folder, reference)

    def glob(self, pattern: str, line: int | None, path: str | None = None) -> list[str]:
        """The bundle's files a glob names (bundle.glob_paths); a glob it refuses is named at the
        line that writes it (in `path`, the config by default)."""
        try:
            return glob_paths(self.bundle, pattern)
        except InputError as error:
            raise InputError(error.diagnostic.message, path or self.path, line) from None

    def read_bytes(self, path: str) -> bytes | None:
        data = self.bundle.read(path)
        if data is not None:
            check_size(data, path)
        return data

    def read_text(self, path: str) -> str | None:
        data = self.read_bytes(path)
        return None if data is None else decode(data).text

    def require_text(self, reference: str, where: Node | None) -> tuple[str, str]:
        """The bundle path and text a reference names, or an InputError at `where`."""
        path = self.resolve(reference)
        text = self.read_text(path) if path is not None else None
        if path is None or text is None:
            raise InputError(
                f"promptfoo cannot read {reference!r}: no such file in the bundle",
                self.path,
                where.start_line if where is not None else None,
            )
        return path, text

    def tree(self, path: str, text: str) -> Node | None:
        """A YAML or JSON file's tree (JSON is read as YAML, which keeps its lines)."""
        if path.endswith(".jsonl"):
            raise InputError("a JSONL file holds one document per line", path, 1)
        try:
            return load_yaml(text, path, core=True)
        except InputError:
            if path.endswith(".json"):
                return from_plain(json.loads(text), 1)
            raise


def is_file_reference(value: object) -> bool:
    return isinstance(value, str) and value.startswith(FILE_PREFIX)


def jsonl_trees(text: str) -> list[Node]:
    """One tree per non-empty line, each on its line."""
    trees = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            trees.append(from_plain(json.loads(line), number))
    return trees
