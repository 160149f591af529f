"""What the pages and the JSON API both do, in one place: find a bundle, read render settings from a
request's parameters, render a document. Views and API endpoints stay thin wrappers around these."""

from __future__ import annotations

import hashlib
import pickle
import re
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar

from django.db.models import Count

from inspector import cache as render_cache
from inspector import local, untrusted
from inspector.core import bounded, collector
from inspector.core.bundle import Bundle as FileSet
from inspector.core.bundle import MemoryBundle
from inspector.core.export import FORMATS as EXPORT_FORMATS
from inspector.core.export import PROVIDERS
from inspector.core.lines import LineMap
from inspector.core.model import InputError, RenderedCase, RenderedDocument
from inspector.core.options import RenderOptions

# One settings parser for pages, API and CLI, re-exported for the web layer.
from inspector.core.render_settings import (  # noqa: F401
    MAX_PATTERNS,
    SettingsError,
    parse_render_options,
)
from inspector.core.safe_parse import LimitExceeded
from inspector.kept_render import PickledRender
from inspector.local import LOCAL_BUNDLE_ID
from inspector.models import Bundle
from inspector.presenters import RowSummary, row_summaries


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
# the shared, byte-bounded render cache (inspector.cache).
_files_cache: _LruCache[tuple[MemoryBundle, tuple[str, ...]]] = _LruCache(16)
ERROR_TIMEOUT = 600  # a refusal is cached for ten minutes, a render until it is culled


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


def load_bundle(bundle_id: str) -> LoadedBundle | None:
    # The id goes into a query: anything but the token alphabet (a NUL breaks PostgreSQL) is absent.
    if not bundle_id or not BUNDLE_ID.fullmatch(bundle_id):
        return None
    served = local.folder()
    if served is not None and bundle_id == LOCAL_BUNDLE_ID:
        return LoadedBundle(served.record, served.files, served.documents(), served.cache_id())
    held = _loaded_for_page.get()
    if held is not None and held.record.pk == bundle_id:
        return held
    # Always ask the database: another worker may have deleted the bundle. Its revisions are
    # counted in the same query: every page's key holds them (page_state).
    try:
        record = Bundle.objects.annotate(revision_count=Count("revisions")).get(pk=bundle_id)
    except Bundle.DoesNotExist:
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
    state = str(Bundle.objects.filter(parent_id=loaded.record.pk).count()
                if counted is None else counted)
    if verdicts:
        from inspector.review.models import Verdict

        # Exactly what a filtered page shows of them: which case has which verdict (not update times,
        # which workers with skewed clocks could write out of order; notes do not change the list).
        from inspector.review.service import lineage

        # An earlier revision's verdicts carry into this one (review/carried_verdicts.py).
        digest = hashlib.sha256()
        for row in (Verdict.objects.filter(bundle__in=lineage(loaded.record))
                    .order_by("bundle_id", "document", "case_id")
                    .values_list("bundle_id", "document", "case_id", "verdict")):
            digest.update(repr(row).encode())
        state += ":" + digest.hexdigest()
    return state


def forget_bundle(bundle_id: str) -> None:
    # Cached renders need no forgetting: load_bundle asks the database before any is read.
    _files_cache.forget(bundle_id)


def clear_caches() -> None:
    _files_cache.clear()
    render_cache.clear()


def _cached(key: str) -> object | None:
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
    hit = _cached(key)
    if hit is not None:
        return hit  # type: ignore[return-value]  # only renders are kept under this shape
    try:
        pickled = render_to_keep(loaded.files, path, options)
    except InputError as error:
        # A refusal costs as much as a render: keep it too, unless it only means "busy now".
        if not isinstance(error, bounded.Busy):
            found = error.diagnostic
            render_cache.put(key, ("error", (isinstance(error, LimitExceeded), (
                found.message, found.path, found.line, found.column, found.likely_start))),
                ERROR_TIMEOUT)
        raise
    render_cache.put(key, ("ok", pickled))
    return pickled


# Documents held for the rest of one request (holding_renders), by (cache id, path, options).
_held_renders: ContextVar[dict[tuple, RenderedDocument] | None] = ContextVar("held_renders",
                                                                             default=None)


@contextmanager
def holding_renders() -> Iterator[None]:
    """Within, each document rendered, or kept by an upload, is held: the upload's answer lists
    the cases it has just rendered without unpickling them back from the cache (twice: the
    documents, then their warnings). Let go of at the end, never kept by the process."""
    token = _held_renders.set({})
    try:
        yield
    finally:
        _held_renders.reset(token)


def render(loaded: LoadedBundle, path: str, options: RenderOptions) -> RenderedDocument:
    """Render a document of a stored bundle. Raises InputError for unusable input."""
    held = _held_renders.get()
    found = None if held is None else held.get((loaded.cache_id, path, options))
    if found is not None:
        return found
    pickled = render_entry(loaded, path, options)
    with collector.paused():  # unpickling makes a great many objects and frees none
        document = pickled.document()
    if held is not None:
        held[(loaded.cache_id, path, options)] = document
    return document


@dataclass(frozen=True)
class CaseIndex:
    """What a case page needs of its document without unpickling every case: the ids in order,
    how the file was read, and each case pickled on its own (loading the index copies bytes;
    only the case shown is unpickled)."""

    ids: tuple[str, ...]
    profile: str | None
    profile_reason: str | None
    cases: dict[str, bytes]

    @classmethod
    def of_parts(cls, pickled: PickledRender) -> CaseIndex:
        """A kept render is an index already: its cases are pickled one by one."""
        rest = pickle.loads(pickled.rest)  # noqa: S301 - our own cache
        return cls(pickled.ids, rest.profile, rest.profile_reason,
                   dict(zip(pickled.ids, pickled.cases, strict=True)))

    @classmethod
    def outline(cls, document: RenderedDocument) -> CaseIndex:
        """Ids and profile only, for a render that is shown once (an unsaved edit's preview)."""
        return cls(tuple(case.id for case in document.cases), document.profile,
                   document.profile_reason, {})

    def case(self, case_id: str) -> RenderedCase | None:
        blob = self.cases.get(case_id)
        return pickle.loads(blob) if blob is not None else None  # noqa: S301 - our own cache


@dataclass(frozen=True)
class Outline:
    """What the bundle page shows of a document, without its messages."""

    kind: str
    profile: str | None
    profile_reason: str | None
    warnings: tuple[str, ...]
    conversions: tuple[str, ...]
    rows: tuple[RowSummary, ...]

    @classmethod
    def of(cls, document: RenderedDocument) -> Outline:
        return cls(document.kind, document.profile, document.profile_reason,
                   tuple(warning.located() for warning in document.warnings),
                   tuple(document.conversions), row_summaries(document.cases))


# What pages read of a document besides the document itself and its case index, each cached on
# its own under its name: the bundle page unpickles no message at all.
VIEWS: dict[str, Callable[[RenderedDocument], object]] = {"outline": Outline.of,
                                                          "lines": LineMap.of}


def _view(loaded: LoadedBundle, path: str, options: RenderOptions, name: str) -> object:
    """A cached view of a document (VIEWS); raises InputError as render does."""
    if not loaded.files.exists(path):
        raise InputError("no such file in this bundle", path)
    key = render_cache.key(name, loaded.cache_id, path, options)
    hit = _cached(key)
    if hit is not None:
        return hit
    found = VIEWS[name](render(loaded, path, options))
    render_cache.put(key, ("ok", found))
    return found


def case_index(loaded: LoadedBundle, path: str, options: RenderOptions) -> CaseIndex:
    """The document's cases for one case page: a 1,000-case file costs one case's unpickling
    instead of a thousand (the render entry holds each case pickled on its own)."""
    pickled = render_entry(loaded, path, options)
    with collector.paused():
        return CaseIndex.of_parts(pickled)


def line_map(loaded: LoadedBundle, path: str, options: RenderOptions) -> LineMap:
    """Which lines of the document each case came from, for a click on a line (core/lines.py)."""
    return _view(loaded, path, options, "lines")  # type: ignore[return-value]


def outline(loaded: LoadedBundle, path: str, options: RenderOptions) -> Outline:
    """The bundle page's view of a document, without its messages."""
    return _view(loaded, path, options, "outline")  # type: ignore[return-value]


def keep_upload_renders(bundle_id: str, renders: dict[str, PickledRender],
                        options: RenderOptions) -> None:
    """The upload's check already rendered every document with default settings in the bounded
    worker, pickled the way the render cache keeps them: keep those renders, so the first view
    of any case is a cache hit, not a render."""
    held = _held_renders.get()
    with collector.paused():  # unpickling for the outline makes a great many objects
        for path, pickled in renders.items():
            render_cache.put(render_cache.key("render", bundle_id, path, options), ("ok", pickled))
            document = pickled.document()
            # The bundle page's outline now; the line map (a click on a source line) on first use.
            render_cache.put(render_cache.key("outline", bundle_id, path, options),
                             ("ok", Outline.of(document)))
            if held is not None:  # the upload's answer lists these cases next
                held[(bundle_id, path, options)] = document


def render_files(files: FileSet, path: str, options: RenderOptions) -> RenderedDocument:
    """Render a document of a file set, every case with its own id (the pages and API address
    cases by id)."""
    return render_untrusted(files, path, options, distinct_ids=True)


def render_policy() -> untrusted.RenderPolicy:
    """Where the web's renders of outside content run: the settings' limits (read from the same
    environment variables as the console commands' `RenderPolicy.from_environment`)."""
    from django.conf import settings

    return untrusted.RenderPolicy(
        bounded.Limits(memory_bytes=settings.RENDER_MEMORY_MB * 1024 * 1024,
                       cpu_seconds=settings.RENDER_CPU_SECONDS,
                       deadline_seconds=settings.RENDER_DEADLINE_SECONDS,
                       workers=settings.RENDER_WORKERS,
                       resident_bytes=settings.RENDER_RESIDENT_MB * 1024 * 1024),
        settings.RENDER_IN_PROCESS, settings.GAMBIT_CORE_DIR)


def render_untrusted(files: FileSet, path: str, options: RenderOptions | None,
                     distinct_ids: bool = False) -> RenderedDocument:
    """untrusted.render_untrusted under the settings' policy."""
    return untrusted.render_untrusted(files, path, options, render_policy(), distinct_ids)


def render_to_keep(files: FileSet, path: str, options: RenderOptions) -> PickledRender:
    """untrusted.render_to_keep under the settings' policy (keep_upload_renders keeps it)."""
    return untrusted.render_to_keep(files, path, options, render_policy())


def list_untrusted(files: FileSet) -> list[str]:
    """untrusted.list_untrusted under the settings' policy."""
    return untrusted.list_untrusted(files, render_policy())


def find_case(document: RenderedDocument, case_id: str) -> RenderedCase | None:
    for case in document.cases:
        if case.id == case_id:
            return case
    return None


def first_case(bundle_id: str, documents: tuple[str, ...] | None = None,
               options: RenderOptions | None = None, case_id: str | None = None
               ) -> tuple[str, str] | None:
    """(document, case id) of the first case the stored bundle shows — among `documents` when
    given, the one named `case_id` when given — or None. Unreadable files are passed over."""
    loaded = load_bundle(bundle_id)
    if loaded is None:
        return None
    for document in documents if documents is not None else loaded.documents:
        if document not in loaded.documents:
            continue
        try:
            ids = case_index(loaded, document, options or RenderOptions()).ids
        except InputError:
            continue
        if case_id is None and ids:
            return document, ids[0]
        if case_id is not None and case_id in ids:
            return document, case_id
    return None




def parse_export_settings(params: Mapping[str, str]):
    """ExportSettings from query parameters: model, max_output_tokens, temperature."""
    from inspector.core.export import ExportSettings

    model = (params.get("model") or "").strip() or None
    if model is not None and len(model) > 200:
        raise SettingsError("the model name is too long")
    max_output_tokens = None
    if params.get("max_output_tokens"):
        try:
            max_output_tokens = int(params["max_output_tokens"])
        except ValueError:
            raise SettingsError("max_output_tokens must be a whole number") from None
        if not 1 <= max_output_tokens <= 1_000_000:
            raise SettingsError("max_output_tokens must be between 1 and 1,000,000")
    temperature = None
    if params.get("temperature"):
        try:
            temperature = float(params["temperature"])
        except ValueError:
            raise SettingsError("temperature must be a number") from None
        if not 0 <= temperature <= 2:
            raise SettingsError("temperature must be between 0 and 2")
    return ExportSettings(model=model, max_tokens=max_output_tokens, temperature=temperature)


def parse_provider(value: str | None) -> str:
    provider = value or "openai-chat"
    if provider not in PROVIDERS:
        raise SettingsError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    return provider


def parse_export_format(value: str | None) -> str:
    form = value or "json"
    if form not in EXPORT_FORMATS:
        raise SettingsError(f"unknown format {form!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    return form


def absolute_url(request, path: str) -> str:
    """An absolute link for sharing: SITE_ROOT when set (behind a proxy that rewrites the host)."""
    from django.conf import settings

    if settings.SITE_ROOT:
        return settings.SITE_ROOT.rstrip("/") + path
    return request.build_absolute_uri(path)
