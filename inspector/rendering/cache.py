"""The render cache: the one owner of every value the web keeps between requests, shared by every
web worker, bounded in bytes (not entries: one 10 MB bundle's render outweighs thousands of small
ones). Each shape it keeps is declared in SHAPES with its version; every key carries both and a
digest of the whole package and its templates (source_version), so no entry outlives the code
that made it.

A case page comes from the browser's 304 (views/page_cache.py), this process's recent pages, the
shared page entry, or else is built from the document's render entry (one per document and
settings: kept_render.PickledRender, its cases pickled one by one, so the page unpickles one).

Entries go through Django's cache framework ("renders" alias). After a clone it is a folder of
files (`ByteBoundedFileCache`); a deployment points REDIS_URL (or CACHE_URL) at a Redis started
with `--maxmemory` and `--maxmemory-policy allkeys-lru`, which bounds the bytes the same way.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, Generic, TypeVar

from django.core.cache.backends.filebased import FileBasedCache

from inspector.core import collector


class ByteBoundedFileCache(FileBasedCache):
    """FileBasedCache that culls the least recently written files once the folder holds more than
    OPTIONS["MAX_BYTES"] (it otherwise counts entries only)."""

    def __init__(self, dir, params):  # noqa: A002 - Django's signature
        options = dict(params.get("OPTIONS") or {})
        self._max_bytes = int(options.pop("MAX_BYTES", 256 * 1024 * 1024))
        super().__init__(dir, {**params, "OPTIONS": options})

    def _write_content(self, file, timeout, value):
        # Entries arrive compressed (put): FileBasedCache compressed them again, at zlib's default
        # level, for nothing. Level 0 only frames them, in the format its reads expect.
        file.write(pickle.dumps(self.get_backend_timeout(timeout), self.pickle_protocol))
        file.write(zlib.compress(pickle.dumps(value, self.pickle_protocol), 0))

    def _cull(self):
        entries = []
        total = 0
        for name in self._list_cache_files():  # type: ignore[attr-defined]  # FileBasedCache's own
            try:
                found = os.stat(name)
            except FileNotFoundError:  # another worker culled it first
                continue
            entries.append((found.st_mtime, found.st_size, name))
            total += found.st_size
        if total <= self._max_bytes and len(entries) < self._max_entries:
            return
        entries.sort()
        # Cull to 80% so that not every write pays for a scan and a cull.
        goal = self._max_bytes * 0.8
        for _, size, name in entries:
            if total <= goal and len(entries) < self._max_entries:
                break
            self._delete(name)  # type: ignore[attr-defined]  # FileBasedCache's own
            total -= size


# Every shape kept in the render cache, with the version of its form. The source digest below
# already changes with any edit of the package or its templates; a shape's version is bumped when
# its form changes in a way that digest cannot see (a dependency's pickling, the key's parts).
# Kept per process only, so never outliving their code: the recent pages below, each bundle's
# files (bundles/loading.py) and ledgers (ledgers/token_ledger.py).
SHAPES: dict[str, int] = {
    "render": 1,  # a document: PickledRender (kept_render.py), or its refusal
    "outline": 1,  # document_views.Outline: the bundle page's rows of a document
    "lines": 1,  # core.lines.LineMap: which lines each case came from
    "page": 1,  # views/page_cache.py: a page's bytes cut at the CSRF token, and its headers
    "review-rate": 1,  # review/service.py: a client's writes in one minute
    "highlight": 1,  # highlighting.highlight_lines: a file's highlighted lines, by content and lexer
    "offline": 1,  # offline.kept_copy: a bundle's one-file copy, by bundle state and review
    "run-check": 1,  # runs/stored.py: a stored run's check (its page and contract), by profile
}
PACKAGE = Path(__file__).resolve().parent.parent  # the whole inspector package


def template_folders() -> list[Path]:
    """The folders Django reads templates from: pages are made of them."""
    from django.conf import settings

    entries: list[dict[str, Any]] = settings.TEMPLATES if settings.configured else []
    return [Path(folder) for entry in entries for folder in entry.get("DIRS", [])]


def source_files(package: Path = PACKAGE, templates: list[Path] | None = None) -> list[tuple[str, Path]]:
    """Every file that can make a cached value, named and in a stable order: each module of the
    package (its shell defines what is pickled, the core what is rendered) and each template."""
    found = [
        ("inspector/" + path.relative_to(package).as_posix(), path)
        for path in sorted(package.rglob("*.py"))
        if "__pycache__" not in path.parts
    ]
    for folder in template_folders() if templates is None else templates:
        found += [
            ("templates/" + path.relative_to(folder).as_posix(), path)
            for path in sorted(folder.rglob("*"))
            if path.is_file()
        ]
    return found


def source_version(files: list[tuple[str, Path]] | None = None) -> str:
    """A digest of the source that makes cached values: entries written by another version (a
    deployment before an upgrade, another checkout sharing the folder) are never read. No list of
    modules is kept by hand, so no edited file can be forgotten."""
    digest = hashlib.sha256()
    for name, path in source_files() if files is None else files:
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


_VERSION = source_version()


def _store():
    from django.core.cache import caches

    return caches["renders"]


@functools.cache
def _gambit_core_version(folder: str | None) -> str:
    """The installed gambit-core's snippets are inlined into renders: another folder, or another
    release in it (read once per process, as the source is), makes other renders."""
    from inspector.core.decks.gambit_core_files import InstalledGambitCore

    return "" if not folder else ":" + InstalledGambitCore(folder).digest()


def key(shape: str, *parts: object) -> str:
    """The key of a value of `shape` (one of SHAPES) named by `parts`, under this source."""
    from django.conf import settings

    version = _VERSION + _gambit_core_version(getattr(settings, "GAMBIT_CORE_DIR", None))
    return f"r:{version}:{shape}.{SHAPES[shape]}:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def get(name: str) -> Any:
    raw = _store().get(name)
    if raw is None:
        return None
    try:
        with collector.paused():
            return pickle.loads(zlib.decompress(raw))
    except Exception:  # noqa: BLE001 - a damaged entry is a miss
        return None


def put(name: str, value: object, timeout: int | None = None) -> None:
    """Store a value (for `timeout` seconds, or until culled) unless it alone would take more than
    an eighth of the budget."""
    from django.conf import settings

    with collector.paused():  # pickling a large render makes a tuple for every object in it
        raw = zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 1)
    if len(raw) <= settings.RENDER_CACHE_BYTES // 8:
        _store().set(name, raw, timeout)


V = TypeVar("V")


class LruCache(Generic[V]):
    """A small thread-safe LRU map, bounded by the total weight of its values (each weighs 1
    unless `weight` says otherwise), that can also forget the entries whose keys pass a test
    (functools' lru_cache can only forget everything)."""

    def __init__(self, size: int, weight: Callable[[V], int] | None = None):
        self.size = size
        self.weight = weight
        self.total = 0
        self.entries: OrderedDict[Hashable, V] = OrderedDict()
        self.lock = threading.Lock()

    def _weigh(self, value: V) -> int:
        return 1 if self.weight is None else self.weight(value)

    def get(self, key: Hashable) -> V | None:
        with self.lock:
            value = self.entries.get(key)
            if value is not None:
                self.entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> None:
        weight = self._weigh(value)
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.total -= self._weigh(old)
            self.entries[key] = value
            self.total += weight
            while self.total > self.size:
                _, dropped = self.entries.popitem(last=False)
                self.total -= self._weigh(dropped)

    def forget_where(self, test: Callable[[Hashable], bool]) -> None:
        with self.lock:
            for key in [key for key in self.entries if test(key)]:
                self.total -= self._weigh(self.entries.pop(key))

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.total = 0


# A page's key names everything it shows (the bundle, what it gained since, the address, the
# settings, the source version), so the bytes under a key never change and this process may keep
# them: a page visited again is answered without reading the shared cache's file and unpickling
# it (a warm case page of the 100-case benchmark in 0.32 ms instead of 0.72 ms, measured for
# issue 33).
RECENT_PAGE_BYTES = 16 * 1024 * 1024
# A page: its bytes in pieces (the caller's cut: views/page_cache.py cuts where each visitor's own
# CSRF token goes) and the headers it is answered with.
Page = tuple[tuple[bytes, ...], dict[str, str]]


def _page_bytes(page: Page) -> int:
    return sum(len(piece) for piece in page[0])


_recent_pages: LruCache[Page] = LruCache(RECENT_PAGE_BYTES, weight=_page_bytes)


def get_page(name: str) -> Page | None:
    """A page kept by `put_page` (here, or by another worker in the shared cache)."""
    found = _recent_pages.get(name)
    if found is None:
        found = get(name)
        if found is not None:
            _keep_page(name, found)
    return found


def put_page(name: str, page: Page) -> None:
    put(name, page)
    _keep_page(name, page)


def _keep_page(name: str, page: Page) -> None:
    if _page_bytes(page) <= RECENT_PAGE_BYTES // 8:  # one page must not push out most others
        _recent_pages.put(name, page)


def clear() -> None:
    _store().clear()
    _recent_pages.clear()
