"""A stored document's one render entry (kept_render.py: rendered in the bounded worker, its cases
pickled one by one), kept in the render cache with its refusal, and the documents a request holds."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from inspector.bundles.loading import LoadedBundle
from inspector.core import bounded, collector
from inspector.core.model import InputError, RenderedDocument
from inspector.core.options import RenderOptions
from inspector.core.safe_parse import LimitExceeded
from inspector.rendering import cache as render_cache
from inspector.rendering import web_policy
from inspector.rendering.kept_render import PickledRender

ERROR_TIMEOUT = 600  # a refusal is cached for ten minutes, a render until it is culled


def cached_value(key: str) -> object | None:
    """A cached value, or the cached refusal raised again; None on a miss."""
    hit = render_cache.get(key)
    if hit is None:
        return None
    kind, value = hit
    if kind == "ok":
        return value
    limit, (message, where, line, column, start) = value
    raise (LimitExceeded if limit else InputError)(message, where, line, column, likely_start=start)


def render_entry(loaded: LoadedBundle, path: str, options: RenderOptions) -> PickledRender:
    """A document's one render entry (kept_render.py: its cases pickled one by one), from the
    render cache, or made in the bounded worker and kept; its refusal raised, and kept too."""
    if not loaded.files.exists(path):
        raise InputError("no such file in this bundle", path)
    key = render_cache.key("render", loaded.cache_id, path, options)
    hit = cached_value(key)
    if hit is not None:
        return hit  # type: ignore[return-value]  # only renders are kept under this shape
    try:
        pickled = web_policy.render_to_keep(loaded.files, path, options)
    except InputError as error:
        # A refusal costs as much as a render: keep it too, unless it only means "busy now".
        if not isinstance(error, bounded.Busy):
            found = error.diagnostic
            render_cache.put(
                key,
                (
                    "error",
                    (
                        isinstance(error, LimitExceeded),
                        (found.message, found.path, found.line, found.column, found.likely_start),
                    ),
                ),
                ERROR_TIMEOUT,
            )
        raise
    render_cache.put(key, ("ok", pickled))
    return pickled


# Documents held for the rest of one request (holding_renders), by (cache id, path, options).
HELD_RENDERS: ContextVar[dict[tuple, RenderedDocument] | None] = ContextVar("held_renders", default=None)


@contextmanager
def holding_renders() -> Iterator[None]:
    """Within, each document rendered, or kept by an upload, is held: the upload's answer lists
    the cases it has just rendered without unpickling them back from the cache (twice: the
    documents, then their warnings). Let go of at the end, never kept by the process."""
    token = HELD_RENDERS.set({})
    try:
        yield
    finally:
        HELD_RENDERS.reset(token)


def render(loaded: LoadedBundle, path: str, options: RenderOptions) -> RenderedDocument:
    """Render a document of a stored bundle. Raises InputError for unusable input."""
    held = HELD_RENDERS.get()
    found = None if held is None else held.get((loaded.cache_id, path, options))
    if found is not None:
        return found
    pickled = render_entry(loaded, path, options)
    with collector.paused():  # unpickling makes a great many objects and frees none
        document = pickled.document()
    if held is not None:
        held[(loaded.cache_id, path, options)] = document
    return document
