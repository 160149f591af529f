"""A stored bundle loaded for a request: its record and files (kept per process, bundles are
immutable), or local mode's folder; what of it can change after it was stored (page_state)."""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar

from django.db import DEFAULT_DB_ALIAS
from django.db.models import Count

from inspector.core.bundle import Bundle as FileSet
from inspector.core.bundle import MemoryBundle
from inspector.local import served_folder
from inspector.local.served_folder import LOCAL_BUNDLE_ID
from inspector.models import Bundle
from inspector.rendering import cache as render_cache
from inspector.rendering.web_policy import list_untrusted
from inspector.review.lineage import lineage
from inspector.review.models import Verdict


@dataclass(frozen=True)
class LoadedBundle:
    """A stored bundle with its files in memory, ready for the core."""

    record: Bundle
    files: FileSet  # a MemoryBundle, or in local mode the folder itself
    documents: tuple[str, ...]
    # What renders are cached under: the bundle id, or in local mode the folder's version.
    cache_id: str = ""

    @property
    def read_only(self) -> bool:
        return self.record.pk == LOCAL_BUNDLE_ID and not self.record.manage_token_hash


V = TypeVar("V")
BUNDLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class _LruCache(render_cache.LruCache[V]):
    """An LRU map whose keys name a bundle (the id, or a tuple starting with it)."""

    def forget(self, bundle_id: str) -> None:
        self.forget_where(lambda key: _bundle_of(key) == bundle_id)


def _bundle_of(key: Hashable) -> str:
    return str(key[0] if isinstance(key, tuple) else key)


# Bundles are immutable, so their files can be kept by id for the life of the process. A bundle holds
# up to MAX_BUNDLE_BYTES: sixteen of them bound each worker's file cache. Renders and refusals go to
# the shared, byte-bounded render cache (inspector.rendering.cache).
_files_cache: _LruCache[tuple[MemoryBundle, tuple[str, ...]]] = _LruCache(16)


# The bundle a shared page has loaded, for the view it runs on a miss: one load a request.
_loaded_for_page: ContextVar[LoadedBundle | None] = ContextVar("loaded_for_page", default=None)


@contextmanager
def page_loaded(loaded: LoadedBundle) -> Iterator[None]:
    """While a page is built for `loaded` (views/page_cache.py), load_bundle of its id answers it
    again instead of asking the database a second time."""
    token = _loaded_for_page.set(loaded)
    try:
        yield
    finally:
        _loaded_for_page.reset(token)


@functools.cache
def _bundle_query(alias: str) -> str:
    """The ORM's own SQL for a bundle with its revisions counted, compiled once per database:
    compiling it took 190 of the 260 us a warm page spent asking for the bundle."""
    query = Bundle.objects.using(alias).annotate(revision_count=Count("revisions")).filter(pk="")
    sql, params = query.query.get_compiler(using=alias).as_sql()
    assert params == ("",), params  # the id is the query's one parameter
    return sql


def load_bundle(bundle_id: str) -> LoadedBundle | None:
    # The id goes into a query: anything but the token alphabet (a NUL breaks PostgreSQL) is absent.
    if not bundle_id or not BUNDLE_ID.fullmatch(bundle_id):
        return None
    served = served_folder.folder()
    if served is not None and bundle_id == LOCAL_BUNDLE_ID:
        return LoadedBundle(served.record, served.files, served.documents(), served.cache_id())
    held = _loaded_for_page.get()
    if held is not None and held.record.pk == bundle_id:
        return held
    # Always ask the database: another worker may have deleted the bundle. Its revisions are
    # counted in the same query: every page's key holds them (page_state).
    record = next(iter(Bundle.objects.raw(_bundle_query(DEFAULT_DB_ALIAS), [bundle_id])), None)
    if record is None:
        forget_bundle(bundle_id)
        return None
    cached = _files_cache.get(bundle_id)
    if cached is None:
        files = record.as_core_bundle()
        cached = (files, tuple(list_untrusted(files)))
        _files_cache.put(bundle_id, cached)
    files, documents = cached
    return LoadedBundle(record, files, documents, record.pk)


def page_state(loaded: LoadedBundle, *, verdicts: bool = False) -> str:
    """What a stored bundle's pages show that can change after it was stored: its revisions, and
    (for a page that shows them: `verdicts`) its verdicts."""
    if loaded.read_only:
        return ""
    counted = getattr(loaded.record, "revision_count", None)  # counted by load_bundle
    state = str(Bundle.objects.filter(parent_id=loaded.record.pk).count() if counted is None else counted)
    if verdicts:
        # Exactly what a filtered page shows of them: which case has which verdict (not update times,
        # which workers with skewed clocks could write out of order; notes do not change the list).
        # An earlier revision's verdicts carry into this one (review/carried_verdicts.py).
        digest = hashlib.sha256()
        for row in (
            Verdict.objects.filter(bundle__in=lineage(loaded.record))
            .order_by("bundle_id", "document", "case_id")
            .values_list("bundle_id", "document", "case_id", "verdict")
        ):
            digest.update(repr(row).encode())
        state += ":" + digest.hexdigest()
    return state


def forget_bundle(bundle_id: str) -> None:
    # Cached renders need no forgetting: load_bundle asks the database before any is read.
    _files_cache.forget(bundle_id)


def clear_caches() -> None:
    _files_cache.clear()
    render_cache.clear()
