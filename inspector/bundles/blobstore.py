"""Where uploaded files' contents live: in the database (Blob.data, the default, so a clone needs
nothing) or, when STORAGE_URL names one, in object storage through django-storages (the "blobs"
storage), one object per distinct content, named by its SHA-256; the database then keeps only
the Blob row (hash and size).

The rule that keeps the two consistent: a Blob row exists only while its object does. An upload
writes objects while it holds the lock on every Blob row it references, before its transaction
commits; a delete removes an object while holding its row's lock, before the row goes. A process
killed in between leaves at most an object without a row (never read, and written again by the
next upload of that content), never a row without its object.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages

logger = logging.getLogger(__name__)

BLOBS_FOLDER = "blobs"
# Reads of one bundle's objects go out together: over a network each costs a round trip.
PARALLEL_READS = 8


def in_database() -> bool:
    return "blobs" not in settings.STORAGES


def storage() -> Storage:
    return storages["blobs"]


def object_name(sha256: str) -> str:
    # Two levels, so a folder-backed storage never holds millions of names in one folder.
    return f"{BLOBS_FOLDER}/{sha256[:2]}/{sha256}"


def row_data(data: bytes) -> bytes | None:
    """What a new Blob row keeps of its content: all of it, or nothing when it goes to storage."""
    return data if in_database() else None


def write(contents: dict[str, bytes], already_stored: Iterable[str] = ()) -> None:
    """Puts each content (by its SHA-256) into storage. `already_stored` are those whose rows
    existed: written again only if their object is missing (a delete whose transaction failed
    after removing it). The caller holds the lock on every row named."""
    if in_database():
        return
    store = storage()
    kept = set(already_stored)
    for sha256, data in contents.items():
        name = object_name(sha256)
        if sha256 in kept and store.exists(name):
            continue
        store.save(name, ContentFile(data))


def read(digests: Iterable[str]) -> dict[str, bytes]:
    """The contents of these stored objects, by SHA-256."""
    wanted = sorted(set(digests))
    if not wanted:
        return {}
    store = storage()

    def fetch(sha256: str) -> tuple[str, bytes]:
        return sha256, _read_object(store, object_name(sha256))

    if len(wanted) == 1:
        return dict(map(fetch, wanted))
    with ThreadPoolExecutor(min(PARALLEL_READS, len(wanted))) as pool:
        return dict(pool.map(fetch, wanted))


def _read_object(store: Storage, name: str) -> bytes:
    bucket = getattr(store, "bucket", None)
    if bucket is not None:
        # S3Storage: one GET. Its open() asks for the object's metadata twice first (a HEAD on
        # opening, another in the download), tripling the round trips of a cold bundle load.
        normalize = store._normalize_name  # type: ignore[attr-defined]  # S3Storage's own
        return bucket.Object(normalize(name)).get()["Body"].read()
    with store.open(name, "rb") as handle:
        return handle.read()


def remove(digests: Iterable[str]) -> None:
    """Removes these objects; the caller holds their rows' locks and deletes the rows next. An
    object the storage fails to remove is left (logged): an object without a row is harmless,
    while a failure raised here would roll the delete back onto objects already removed."""
    if in_database():
        return
    store = storage()
    for sha256 in digests:
        try:
            store.delete(object_name(sha256))
        except Exception:  # noqa: BLE001 - any storage failure: leave this one, remove the rest
            logger.exception("could not remove the stored object of blob %s; it is left unused", sha256)


def listing(folder: str) -> Iterator[tuple[str, datetime]]:
    """Every object under `folder` (its name, as read() and remove() take it) with the time it was
    last written; none without storage."""
    if in_database():
        return
    store = storage()
    bucket = getattr(store, "bucket", None)
    if bucket is not None:
        # S3Storage: one listing gives names and times; its listdir() and get_modified_time() would
        # cost a request per folder and per object.
        location = store.location  # type: ignore[attr-defined]  # S3Storage's own
        prefix = f"{location}/" if location else ""
        for summary in bucket.objects.filter(Prefix=f"{prefix}{folder}/"):
            yield summary.key.removeprefix(prefix), summary.last_modified
        return
    yield from _walk(store, folder)


def _walk(store: Storage, folder: str) -> Iterator[tuple[str, datetime]]:
    try:
        folders, files = store.listdir(folder)
    except FileNotFoundError:
        return
    for name in files:
        yield f"{folder}/{name}", store.get_modified_time(f"{folder}/{name}")
    for name in folders:
        yield from _walk(store, f"{folder}/{name}")


def check() -> None:
    """Raises unless the storage answers (readiness): a look for an object that need not exist."""
    if not in_database():
        storage().exists(object_name("0" * 64))
