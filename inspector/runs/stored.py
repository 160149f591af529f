"""A stored run's check. A stored run never changes, so its check is a pure function of (bundle,
profile): made once, by the request that stored it, the queue's worker or the first visitor, and
kept in the render cache for the run's pages and the API alike."""

from __future__ import annotations

import contextlib

from inspector.bundles import loading
from inspector.core.render_settings import SettingsError
from inspector.core.runs.compare import RunCheck
from inspector.core.runs.model import Run, RunError
from inspector.models import Bundle
from inspector.rendering import cache as render_cache
from inspector.runs.page import page_view
from inspector.runs.uploads import check_laid_out, stored_upload


def _key(bundle_id: str, profile: str | None) -> str:
    return render_cache.key("run-check", bundle_id, profile or "")


def keep(bundle_id: str, profile: str | None, result: RunCheck) -> dict:
    """The check as its pages and the API read it: {"page": page_view, "contract": run-check's JSON}."""
    value = {"page": page_view(result), "contract": result.as_contract()}
    render_cache.put(_key(bundle_id, profile), value)
    return value


def check_stored(loaded: loading.LoadedBundle, profile: str | None, run: Run | None = None) -> dict:
    """RunError or SettingsError when the stored run cannot be checked (under these settings)."""
    kept = render_cache.get(_key(loaded.record.pk, profile))
    if kept is not None:
        return kept
    files = {path: loaded.files.read(path) or b"" for path in loaded.files.paths()}
    result = check_laid_out(stored_upload(loaded.record, files), profile, run)
    return keep(loaded.record.pk, profile, result)


def warm(bundle: Bundle, run: Run) -> None:
    """The check under the run's own profile, made where the run was stored, so no first visitor
    waits for it. A run that cannot be checked is stored all the same: its page says why."""
    loaded = loading.load_bundle(bundle.pk)
    if loaded is None:
        return
    with contextlib.suppress(RunError, SettingsError):
        check_stored(loaded, None, run)
