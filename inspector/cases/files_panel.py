"""The bundle's files as a tree, and the case page's Files panel: which files a case uses and how."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace

from inspector.cases.addresses import source_url
from inspector.core.model import OriginKind, RenderedCase


@dataclass(frozen=True)
class TreeRow:
    name: str
    path: str
    depth: int
    is_folder: bool
    is_document: bool
    url: str = ""
    role: str = ""  # on the case page: what the file is to the case shown ("this case", "guideline", ...)


def document_anchor(path: str) -> str:
    return "doc-" + re.sub(r"[^A-Za-z0-9_-]", "-", path)


def file_tree(bundle_id: str, paths: list[str], documents: tuple[str, ...]) -> list[TreeRow]:
    rows: list[TreeRow] = []
    seen_folders: set[str] = set()
    document_set = set(documents)
    for path in sorted(paths, key=lambda p: (posixpath.dirname(p).split("/"), p)):
        parts = path.split("/")
        for depth in range(len(parts) - 1):
            folder = "/".join(parts[: depth + 1])
            if folder not in seen_folders:
                seen_folders.add(folder)
                rows.append(TreeRow(parts[depth] + "/", folder, depth, True, False))
        is_document = path in document_set
        url = "#" + document_anchor(path) if is_document else source_url(bundle_id, path)
        rows.append(TreeRow(parts[-1], path, len(parts) - 1, False, is_document, url))
    return rows


FILE_ROLES = {OriginKind.GUIDELINE: "guideline", OriginKind.FILE: "attached", OriginKind.DECK: "deck"}


# Past this, the case page's Files panel lists the files the case uses and its own folder's, and
# links the bundle page for the rest: every case page of a 2,000-file bundle carried them all.
FILES_PANEL_LIMIT = 150


@dataclass(frozen=True)
class CaseFiles:
    rows: list[TreeRow]
    total: int  # files in the bundle
    hidden: int  # left out of the rows (see FILES_PANEL_LIMIT)


def case_files(
    bundle_id: str,
    paths: list[str],
    documents: tuple[str, ...],
    case: RenderedCase,
    source_path: str,
    case_source_url: str,
) -> CaseFiles:
    """The bundle's file tree beside a case: every file opens in the source pane (the case's own
    file at the case's lines), and the files the case's messages draw on say what they are to it."""
    roles: dict[str, str] = {}
    for message in case.messages:
        for segment in message.segments:
            origin = segment.origin
            if origin.path and origin.kind in FILE_ROLES:
                roles.setdefault(origin.path, FILE_ROLES[origin.kind])
    roles[source_path] = "this case"
    shown = paths
    if len(paths) > FILES_PANEL_LIMIT:
        folder = posixpath.dirname(source_path)
        neighbours = sorted(path for path in paths if posixpath.dirname(path) == folder)
        shown = sorted({path for path in paths if path in roles} | set(neighbours[:FILES_PANEL_LIMIT]))
    rows = []
    for row in file_tree(bundle_id, shown, documents):
        if row.is_folder:
            rows.append(row)
            continue
        url = case_source_url if row.path == source_path else source_url(bundle_id, row.path)
        rows.append(replace(row, url=url, role=roles.get(row.path, "")))
    return CaseFiles(rows, len(paths), len(paths) - len(shown))
