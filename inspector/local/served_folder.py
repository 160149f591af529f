"""Local mode: `prompt-inspector serve PATH` shows a folder on disk as the read-only bundle "local".

The folder is read through a DirectoryBundle, so nothing outside it is read and symlinks that leave
it are not followed, exactly as for the CLI. A watcher thread bumps a version on every change; the
version is part of the render cache key (a changed file is never served from an old render) and the
pages poll it to re-render in place.
"""

from __future__ import annotations

import threading
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from inspector.core.bundle import DirectoryBundle
from inspector.models import Bundle
from inspector.rendering import web_policy

LOCAL_BUNDLE_ID = "local"


class LocalFolder:
    def __init__(self, root: Path):
        self.root = root.resolve()
        self.files = DirectoryBundle(self.root)
        self.version = 0
        self._documents: tuple[int, tuple[str, ...]] | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        # An unsaved record: pages read its id and title; it has no manage token, so nothing can
        # delete or revise it, and no revisions.
        # Its "created" is when serving began: the API's summary of a bundle always has one.
        self.record = Bundle(
            pk=LOCAL_BUNDLE_ID, title=self.root.name or str(self.root), created=timezone.now()
        )

    def changed(self) -> None:
        with self._lock:
            self.version += 1

    def documents(self) -> tuple[str, ...]:
        version = self.version
        cached = self._documents
        if cached is not None and cached[0] == version:
            return cached[1]
        listed = tuple(web_policy.list_untrusted(self.files))
        self._documents = (version, listed)
        return listed

    def cache_id(self) -> str:
        # Two serve processes on one machine share the file cache: the root keeps them apart.
        return f"local:{self.root}:{self.version}"

    def watch(self) -> threading.Thread:
        thread = threading.Thread(target=self._watch, name="local-folder-watcher", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()

    def _watch(self) -> None:
        import watchfiles

        # Editors save by writing a temporary file and renaming it: one batch of events, one bump.
        for _changes in watchfiles.watch(
            self.root,
            stop_event=self._stop,
            debounce=150,
            step=50,
            watch_filter=_worth_watching,
            raise_interrupt=False,
        ):
            self.changed()


def _worth_watching(change: object, path: str) -> bool:  # noqa: ARG001 - watchfiles' filter signature
    parts = Path(path).parts
    return not any(part in (".git", "node_modules", ".venv", "__pycache__") for part in parts)


_folder: LocalFolder | None = None
_folder_lock = threading.Lock()


def folder() -> LocalFolder | None:
    """The served folder in local mode (settings.LOCAL_ROOT), else None."""
    global _folder
    root = settings.LOCAL_ROOT
    if not root:
        return None
    with _folder_lock:
        if _folder is None or _folder.root != Path(root).resolve():
            if _folder is not None:
                _folder.stop()
            _folder = LocalFolder(Path(root))
            if settings.LOCAL_WATCH:
                _folder.watch()
        return _folder


def served_hosts() -> tuple[str, ...] | None:
    """The Host values the served address answers to, or None when the port is not known (local
    mode set up by settings alone, as in tests): then any port of a loopback name."""
    port = settings.LOCAL_PORT
    return None if port is None else (f"127.0.0.1:{port}", f"localhost:{port}")


def is_served_host(host: str) -> bool:
    """A page served under another name is a DNS-rebinding attack: that name's site could read
    and post as if it were this machine."""
    known = served_hosts()
    if known is not None:
        return host in known
    name, _, port = host.rpartition(":")
    return name in ("127.0.0.1", "localhost") and port.isdigit()
