"""An upload's renders, made by its check, kept as the render cache keeps them."""

from __future__ import annotations

from inspector.core import collector
from inspector.core.options import RenderOptions
from inspector.rendering import cache as render_cache
from inspector.rendering.document_views import Outline
from inspector.rendering.kept_render import PickledRender
from inspector.rendering.stored_renders import HELD_RENDERS


def keep_upload_renders(bundle_id: str, renders: dict[str, PickledRender], options: RenderOptions) -> None:
    """The upload's check already rendered every document with default settings in the bounded
    worker, pickled the way the render cache keeps them: keep those renders, so the first view
    of any case is a cache hit, not a render."""
    held = HELD_RENDERS.get()
    with collector.paused():  # unpickling for the outline makes a great many objects
        for path, pickled in renders.items():
            render_cache.put(render_cache.key("render", bundle_id, path, options), ("ok", pickled))
            document = pickled.document()
            # The bundle page's outline now; the line map (a click on a source line) on first use.
            render_cache.put(
                render_cache.key("outline", bundle_id, path, options), ("ok", Outline.of(document))
            )
            if held is not None:  # the upload's answer lists these cases next
                held[(bundle_id, path, options)] = document
