"""Offline copies made off the request: with QUEUE_OFFLINE_COPIES on, a copy not yet kept in the
render cache is made by the queue's worker (inspector/bundles/queued.py, in its own bounded render
workers) while the page polls; the copy is then answered from the cache like any kept one."""

from __future__ import annotations

from django_tasks import task

from inspector.bundles import loading, offline
from inspector.core.options import RenderOptions
from inspector.rendering import cache as render_cache
from inspector.rendering import stored_renders
from inspector.review import service

# A copy asked for again while its task waits is not queued twice within this many seconds.
PENDING_SECONDS = 600


def copy_inputs(loaded: loading.LoadedBundle) -> dict:
    """What offline.kept_copy makes the bundle's copy of: default settings, its comments (those
    carried from earlier revisions included) and verdicts."""
    options = RenderOptions()
    threads = [service.placed_data(item) for item in service.bundle_threads(loaded, options, None)]
    verdicts = [
        {
            "document": v.document,
            "case_id": v.case_id,
            "verdict": v.verdict,
            "note": v.note,
            "author": v.author,
            "author_fingerprint": service.fingerprint(v.author_key_hash),
        }
        for v in loaded.record.verdicts.all()
    ]
    return {
        "bundle_key": f"{loaded.cache_id}:{loading.page_state(loaded)}",
        "title": loaded.record.title,
        "files": loaded.files,
        "render": lambda path: stored_renders.render(loaded, path, options),
        "documents": loaded.documents,
        "threads": threads,
        "verdicts": verdicts,
    }


def _copy_key(inputs: dict) -> str:
    return offline.copy_key(inputs["bundle_key"], inputs["title"], inputs["threads"], inputs["verdicts"])


def kept(inputs: dict) -> str | None:
    return render_cache.get(_copy_key(inputs))


@task()
def make_offline_copy(bundle_id: str) -> None:
    loaded = loading.load_bundle(bundle_id)
    if loaded is not None:  # deleted meanwhile: nothing to make
        offline.kept_copy(**copy_inputs(loaded))


def enqueue(inputs: dict, bundle_id: str) -> None:
    pending = render_cache.key("offline", "pending", _copy_key(inputs))
    if render_cache.get(pending) is None:
        render_cache.put(pending, True, PENDING_SECONDS)
        make_offline_copy.enqueue(bundle_id)
