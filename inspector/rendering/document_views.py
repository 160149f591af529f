"""What pages read of a stored document besides the document itself, each cached on its own: the case
pages' index of cases, the bundle page's outline, the source pane's line map."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass

from inspector.bundles.loading import LoadedBundle
from inspector.cases.bundle_rows import RowSummary, row_summaries
from inspector.core import collector, readers
from inspector.core.lines import LineMap
from inspector.core.model import InputError, RenderedCase, RenderedDocument
from inspector.core.options import RenderOptions
from inspector.rendering import cache as render_cache
from inspector.rendering import stored_renders
from inspector.rendering.kept_render import PickledRender


@dataclass(frozen=True)
class CaseIndex:
    """What a case page needs of its document without unpickling every case: the ids in order,
    how the file was read, and each case pickled on its own (loading the index copies bytes;
    only the case shown is unpickled)."""

    ids: tuple[str, ...]
    profile: str | None
    profile_reason: str | None
    cases: dict[str, bytes]
    # The file's own warnings (read as promptfoo's, a results file, a bare list of cases): a case
    # page opened from a link would otherwise never say them.
    file_warnings: tuple[str, ...] = ()

    @classmethod
    def of_parts(cls, pickled: PickledRender) -> CaseIndex:
        """A kept render is an index already: its cases are pickled one by one."""
        rest = pickle.loads(pickled.rest)  # noqa: S301 - our own cache
        return cls(
            pickled.ids,
            rest.profile,
            rest.profile_reason,
            dict(zip(pickled.ids, pickled.cases, strict=True)),
            _located(rest),
        )

    @classmethod
    def outline(cls, document: RenderedDocument) -> CaseIndex:
        """Ids and profile only, for a render that is shown once (an unsaved edit's preview)."""
        return cls(
            tuple(case.id for case in document.cases),
            document.profile,
            document.profile_reason,
            {},
            _located(document),
        )

    def case(self, case_id: str) -> RenderedCase | None:
        blob = self.cases.get(case_id)
        return pickle.loads(blob) if blob is not None else None  # noqa: S301 - our own cache


def _located(document: RenderedDocument) -> tuple[str, ...]:
    return tuple(warning.located() for warning in document.warnings)


@dataclass(frozen=True)
class Outline:
    """What the bundle page shows of a document, without its messages."""

    kind: str
    profile: str | None
    profile_reason: str | None
    warnings: tuple[str, ...]
    conversions: tuple[str, ...]
    rows: tuple[RowSummary, ...]
    sources: tuple[str, ...]  # the other files its cases are written in (core/readers.py)

    @classmethod
    def of(cls, document: RenderedDocument) -> Outline:
        return cls(
            document.kind,
            document.profile,
            document.profile_reason,
            _located(document),
            tuple(document.conversions),
            row_summaries(document.cases),
            readers.case_sources(document),
        )


# What pages read of a document besides the document itself and its case index, each cached on
# its own under its name: the bundle page unpickles no message at all.
VIEWS: dict[str, Callable[[RenderedDocument], object]] = {"outline": Outline.of, "lines": LineMap.of}


def _view(loaded: LoadedBundle, path: str, options: RenderOptions, name: str) -> object:
    """A cached view of a document (VIEWS); raises InputError as render does."""
    if not loaded.files.exists(path):
        raise InputError("no such file in this bundle", path)
    key = render_cache.key(name, loaded.cache_id, path, options)
    hit = stored_renders.cached_value(key)
    if hit is not None:
        return hit
    found = VIEWS[name](stored_renders.render(loaded, path, options))
    render_cache.put(key, ("ok", found))
    return found


def case_index(loaded: LoadedBundle, path: str, options: RenderOptions) -> CaseIndex:
    """The document's cases for one case page: a 1,000-case file costs one case's unpickling
    instead of a thousand (the render entry holds each case pickled on its own)."""
    pickled = stored_renders.render_entry(loaded, path, options)
    with collector.paused():
        return CaseIndex.of_parts(pickled)


def line_map(loaded: LoadedBundle, path: str, options: RenderOptions) -> LineMap:
    """Which lines of the document each case came from, for a click on a line (core/lines.py)."""
    return _view(loaded, path, options, "lines")  # type: ignore[return-value]


def outline(loaded: LoadedBundle, path: str, options: RenderOptions) -> Outline:
    """The bundle page's view of a document, without its messages."""
    return _view(loaded, path, options, "outline")  # type: ignore[return-value]


def outlines(loaded: LoadedBundle, options: RenderOptions) -> dict[str, Outline | InputError]:
    """Each document's outline, or why it has none: fetched once for the page's sections and for
    read_by alike."""
    found: dict[str, Outline | InputError] = {}
    for path in loaded.documents:
        try:
            found[path] = outline(loaded, path, options)
        except InputError as problem:
            found[path] = problem
    return found


def read_by(found: dict[str, Outline | InputError]) -> dict[str, str]:
    """The bundle's documents another one reads as its cases, with that reader (core/readers.py);
    a document that cannot be rendered reads nothing."""
    return readers.read_by(
        {path: item.sources if isinstance(item, Outline) else () for path, item in found.items()}
    )
