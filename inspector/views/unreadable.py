"""A case page whose file cannot be rendered: the located error with the file at that line, in
place of the page, and a title that blames the settings only when there are settings to blame."""

from __future__ import annotations

from inspector.bundles import loading
from inspector.cases import source_view
from inspector.core.model import InputError

from .common import RENDER_KEYS, PageSettings, Problem


def unreadable_file(
    loaded: loading.LoadedBundle, document: str, page: PageSettings, problem: InputError
) -> Problem:
    found = problem.diagnostic
    if any(key in page.params for key in RENDER_KEYS):
        title = "This file cannot be rendered with these settings"
    else:
        title = "This file cannot be rendered"
    path = found.path if found.path and loaded.files.exists(found.path) else document
    decoded = loaded.files.text(path)
    source = None
    if decoded is not None:
        line = found.line if path == found.path else None
        # From where the mistake likely starts (an open quote) to where it was noticed.
        highlight = (found.likely_start or line, line) if line else None
        source = source_view.SourcePane.build(
            loaded.record.pk, path, decoded.text, highlight, decoded.problem
        )
    return Problem(400, title, str(problem), source)
