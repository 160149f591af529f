"""Turning uploads into stored bundles: one set of checks for the upload page and the API.

Everything is checked before anything is written, and the write is one transaction, so a rejected
upload leaves nothing behind.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import logging
import random
import re
import secrets
import stat
import time
import unicodedata
import zipfile
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, OperationalError, transaction

from inspector.bundles import blobstore
from inspector.core.bundle import MemoryBundle, normalize, unread_binaries
from inspector.core.model import InputError
from inspector.core.options import RenderOptions
from inspector.core.safe_parse import LimitExceeded
from inspector.models import Blob, Bundle, BundleFile, hash_token
from inspector.rendering import upload_renders, web_policy
from inspector.rendering.kept_render import PickledRender

logger = logging.getLogger(__name__)


class UploadError(Exception):
    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        where = f"{path}:{line}" if path and line else path
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message
        self.path = path
        self.line = line


class UnreadableUpload(UploadError):
    """A file crashes the parser or exceeds a reading limit: refused, nothing stored."""


@dataclass(frozen=True)
class Limits:
    max_bytes: int
    max_files: int
    max_path_length: int
    max_zip_ratio: int

    @classmethod
    def from_settings(cls) -> Limits:
        return cls(
            settings.MAX_BUNDLE_BYTES,
            settings.MAX_BUNDLE_FILES,
            settings.MAX_PATH_LENGTH,
            settings.MAX_ZIP_RATIO,
        )


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


# Characters that show as nothing (zero-width) or reorder what follows (Unicode's Bidi_Control set):
# a name holding one passes for another name, or hides its real suffix.
_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _shown(name: str) -> str:
    """A name as a message can show it: two look-alikes must not read the same there too."""
    return name if name.isascii() else name.encode("ascii", "backslashreplace").decode("ascii")


class _Collector:
    def __init__(self, limits: Limits):
        self.limits = limits
        self.files: dict[str, bytes] = {}
        self.total = 0
        # Every path and folder so far, in NFC and lower case, as it was given: the first holder of
        # a look.
        self.looks: dict[str, str] = {}

    def add(self, raw_path: str, data: bytes) -> None:
        if len(raw_path) > self.limits.max_path_length:
            raise UploadError(
                f"path is longer than {self.limits.max_path_length} characters", raw_path[:80] + "…"
            )
        if any(ord(char) < 32 or ord(char) == 127 for char in raw_path):
            raise UploadError(
                "path contains a control character (a line break, tab or NUL)",
                raw_path.encode("unicode_escape").decode("ascii"),
            )
        if raw_path.startswith(("/", "\\")) or (len(raw_path) > 1 and raw_path[1] == ":"):
            raise UploadError("absolute paths are not allowed in a bundle", raw_path)
        path = normalize(raw_path)
        if path is None:
            raise UploadError("path escapes the bundle root", raw_path)
        if not path:
            raise UploadError("empty file name", raw_path or "(unnamed)")
        path = self._refuse_look_alikes(path)
        if path in self.files:
            raise UploadError("the same path appears twice in the upload", path)
        if len(self.files) >= self.limits.max_files:
            raise UploadError(f"too many files: at most {self.limits.max_files} per bundle")
        self.total += len(data)
        if self.total > self.limits.max_bytes:
            raise UploadError(f"the upload is larger than {_megabytes(self.limits.max_bytes)}")
        self.files[path] = data

    def _refuse_look_alikes(self, path: str) -> str:
        """The path in NFC, unless it looks like another path of the upload (or a folder of one):
        the same letters in another Unicode form or letter case, or hidden characters."""
        hidden = _INVISIBLE.search(path)
        if hidden is not None:
            raise UploadError(
                f"the name holds an invisible character (U+{ord(hidden.group()):04X}), "
                "which makes it look like another name; rename the file",
                _shown(path),
            )
        parts = path.split("/")
        for end in range(1, len(parts) + 1):
            name = "/".join(parts[:end])
            # lower(), not casefold(): case-insensitive file systems do not take "ss" for "ß".
            seen = self.looks.setdefault(unicodedata.normalize("NFC", name).lower(), name)
            if seen != name:
                raise UploadError(
                    f"{_shown(seen)} and {_shown(name)} look alike (they differ only in "
                    "letter case or in how accented letters are encoded); rename one"
                )
        return unicodedata.normalize("NFC", path)

    def add_zip(self, name: str, data: bytes) -> None:
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
            entries = archive.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
            raise UploadError(f"not a readable zip file ({error})", name) from None
        declared = 0
        for entry in entries:
            if entry.is_dir():
                continue
            if stat.S_ISLNK(entry.external_attr >> 16):
                raise UploadError(
                    "zip entry is a symbolic link; links are not allowed", f"{name}!{entry.filename}"
                )
            declared += entry.file_size
            if declared > self.limits.max_bytes - self.total:
                raise UploadError(f"the zip unpacks to more than {_megabytes(self.limits.max_bytes)}", name)
            if entry.compress_size and entry.file_size / entry.compress_size > self.limits.max_zip_ratio:
                raise UploadError(
                    f"zip entry compresses more than {self.limits.max_zip_ratio}:1 (a zip bomb?)",
                    f"{name}!{entry.filename}",
                )
        for entry in entries:
            if entry.is_dir():
                continue
            try:
                with archive.open(entry) as handle:
                    # Read one byte past the declared size: headers can lie about it.
                    content = handle.read(entry.file_size + 1)
            except (
                zipfile.BadZipFile,
                RuntimeError,
                NotImplementedError,
                OSError,
                EOFError,
                ValueError,
            ) as error:
                raise UploadError(f"cannot unpack this entry ({error})", f"{name}!{entry.filename}") from None
            if len(content) > entry.file_size:
                raise UploadError("zip entry is larger than its header says", f"{name}!{entry.filename}")
            self.add(entry.filename, content)


def default_title(names: list[str], count: int) -> str:
    """A bundle's title when the uploader gives none: the file, zip or folder they chose."""
    names = [name.replace("\\", "/") for name in names]
    if len(names) == 1:
        name = names[0].rsplit("/", 1)[-1]
        return name if count == 1 else f"{name} ({count} files)"
    tops = {name.split("/", 1)[0] for name in names}
    if len(tops) == 1 and "/" in names[0]:
        return f"{tops.pop()} ({count} files)"
    return f"{names[0].rsplit('/', 1)[-1]} and {len(names) - 1} more"


def refuse_oversized(declared_sizes: list[int], limits: Limits | None = None) -> None:
    """Refuse an upload from the sizes its parts declare, before any of it is read into memory.
    A zip may be a little larger than what it holds, so this allows twice the limit; the exact
    limit is checked by collect_files on the real bytes."""
    limits = limits or Limits.from_settings()
    if sum(declared_sizes) > limits.max_bytes * 2:
        raise UploadError(f"the upload is larger than {_megabytes(limits.max_bytes)}")


def collect_files(
    uploads: list[tuple[str, bytes]], limits: Limits | None = None, expand_zips: bool = True
) -> dict[str, bytes]:
    """Check and normalise uploaded (path, bytes) pairs; zip files are unpacked in place."""
    collector = _Collector(limits or Limits.from_settings())
    for path, data in uploads:
        if expand_zips and path.lower().endswith(".zip"):
            collector.add_zip(path, data)
        else:
            collector.add(path, data)
    if not collector.files:
        raise UploadError("the upload holds no files")
    return collector.files


LEFT_OUT_REASON = (
    "binary, and no text file of the upload names them, so nothing would read them: "
    "they are not stored or shared"
)


def without_unread_binaries(files: dict[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """The upload without the binary files nothing reads (core.bundle.unread_binaries), and those
    left out, which the upload's answer names."""
    left_out = unread_binaries(files)
    if not left_out:
        return files, []
    if len(left_out) == len(files):
        shown = ", ".join(_shown(path) for path in left_out[:5])
        raise UploadError(f"the upload holds only binary files, which nothing reads ({shown})")
    dropped = set(left_out)
    return {path: data for path, data in files.items() if path not in dropped}, left_out


def refuse_unreadable(files: dict[str, bytes]) -> dict[str, PickledRender]:
    """Render every document of the upload with default settings in the bounded worker; refuse the
    upload when one crashes the parser or exceeds a limit, so no stored bundle can ever take a
    worker down. Merely invalid files (a YAML syntax error) are kept: the user fixes them in the
    editor. Returns the renders, which the pages then use (upload_renders.keep_upload_renders)."""
    bundle = MemoryBundle(files)
    try:
        documents = web_policy.list_untrusted(bundle)
        # A .json file too hostile to sniff is not listed, but a later setting could render it.
        documents += [path for path in files if path.lower().endswith(".json") and path not in documents]
        renders = {}
        for path in documents:
            try:
                # Kept for the pages: distinct ids, pickled as the render cache keeps it.
                renders[path] = web_policy.render_to_keep(bundle, path, RenderOptions())
            except LimitExceeded:
                raise
            except InputError:
                continue
    except LimitExceeded as error:
        found = error.diagnostic
        raise UnreadableUpload(found.message, found.path, found.line) from None
    return renders


def store_bundle(
    files: dict[str, bytes],
    *,
    title: str = "",
    parent: Bundle | None = None,
    example: str = "",
    token_hash: str = "",
    run_root: str = "",
) -> tuple[Bundle, str]:
    """Save a checked file set as a new bundle, once every document in it has been rendered
    within the limits. Returns it with its private manage token; or, given the hash of one the
    uploader already holds (`token_hash`: a queued upload), with none. `run_root`: the folder
    holding a run's files (inspector/runs/uploads.py)."""
    renders = refuse_unreadable(files)
    bundle, token = _write_with_retries(
        files,
        title=title,
        parent=parent,
        example=example,
        manage_token=secrets.token_urlsafe(24),
        token_hash=token_hash,
        run_root=run_root,
    )
    _keep(bundle, renders)
    return bundle, token


def _keep(bundle: Bundle, renders: dict[str, PickledRender]) -> None:
    try:
        upload_renders.keep_upload_renders(bundle.pk, renders, RenderOptions())
    except Exception:  # the bundle is stored: a cache that cannot take the renders only costs time
        logger.exception("could not keep the upload's renders for bundle %s", bundle.pk)


class IdempotencyConflict(UploadError):
    """The Idempotency-Key was already used for a different upload."""


def content_digest(files: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    return digest.hexdigest()


def store_bundle_once(
    files: dict[str, bytes], *, title: str, key: str, run_root: str = ""
) -> tuple[Bundle, str, bool]:
    """store_bundle for a client that sends an Idempotency-Key: a retry of the same upload under the
    same key gets the same bundle and the same manage token (derived from the key and SECRET_KEY,
    so it is never stored), whether or not the first answer reached the client. Returns
    (bundle, token, created)."""
    key_hash = hash_token("idempotency:" + key)
    digest = content_digest(files)
    token = base64.urlsafe_b64encode(
        hmac.new(settings.SECRET_KEY.encode(), b"manage:" + key.encode(), hashlib.sha256).digest()[:24]
    ).decode()
    checked = False
    renders: dict[str, PickledRender] = {}
    for _ in range(3):
        existing = Bundle.objects.filter(idempotency_key_hash=key_hash).first()
        if existing is not None:
            if existing.content_digest != digest:
                raise IdempotencyConflict(
                    "this Idempotency-Key was already used for a different upload; send a new key"
                )
            return existing, token, False
        if not checked:
            renders = refuse_unreadable(files)
            checked = True
        try:
            bundle, _ = _write_bundle(
                files,
                title=title,
                parent=None,
                example="",
                manage_token=token,
                key_hash=key_hash,
                digest=digest,
                run_root=run_root,
            )
            _keep(bundle, renders)
            return bundle, token, True
        except IntegrityError:
            continue  # a concurrent retry stored it first, or a racing delete: look again
    raise UploadError("the upload could not be stored; try again")


def _retrying(action, *args, **options):
    """A delete racing an upload can take a blob it shares (IntegrityError) or hold SQLite's write
    lock (OperationalError); the transaction is rolled back whole, so wait a little and try again."""
    for attempt in range(RETRIES):
        try:
            return action(*args, **options)
        except (IntegrityError, OperationalError):
            if attempt == RETRIES - 1:
                raise UploadError("the database is busy; try again") from None
            time.sleep(min(0.5, 0.01 * 2**attempt) * (1 + random.random()))
    raise AssertionError("unreachable")  # pragma: no cover


RETRIES = 10


def _write_with_retries(files: dict[str, bytes], **options) -> tuple[Bundle, str]:
    return _retrying(_write_bundle, files, **options)


@transaction.atomic
def _write_bundle(
    files: dict[str, bytes],
    *,
    title: str,
    parent: Bundle | None,
    example: str,
    manage_token: str = "",
    key_hash: str | None = None,
    digest: str = "",
    token_hash: str = "",
    run_root: str = "",
) -> tuple[Bundle, str]:
    manage_token = "" if token_hash else manage_token or secrets.token_urlsafe(24)
    bundle = Bundle.objects.create(
        run_root=run_root,
        title=title[:200],
        parent=parent,
        example=example,
        manage_token_hash=token_hash or hash_token(manage_token),
        idempotency_key_hash=key_hash,
        content_digest=digest,
    )
    digests = {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}
    # Lock the blobs this bundle shares so a concurrent delete cannot remove one before we commit.
    existing = set(
        Blob.objects.select_for_update()
        .filter(sha256__in=set(digests.values()))
        .values_list("sha256", flat=True)
    )
    new_blobs = {}
    for path, data in files.items():
        digest_of_file = digests[path]
        if digest_of_file not in existing and digest_of_file not in new_blobs:
            new_blobs[digest_of_file] = Blob(
                sha256=digest_of_file, data=blobstore.row_data(data), size=len(data)
            )
    Blob.objects.bulk_create(new_blobs.values(), ignore_conflicts=True)
    # A blob another upload inserted meanwhile (our insert was skipped) is not locked yet: lock it
    # now, and put back any that a delete removed in between.
    present = set(
        Blob.objects.select_for_update().filter(sha256__in=set(new_blobs)).values_list("sha256", flat=True)
    )
    Blob.objects.bulk_create(blob for name, blob in new_blobs.items() if name not in present)
    # Every row this bundle references is locked now, so no delete can remove an object between
    # this write and the commit (blobstore's rule: no row without its object).
    blobstore.write({digests[path]: data for path, data in files.items()}, already_stored=existing)
    BundleFile.objects.bulk_create(
        BundleFile(bundle=bundle, path=path, blob_id=digests[path]) for path in sorted(files)
    )
    return bundle, manage_token


def delete_bundle(bundle: Bundle) -> None:
    try:
        _retrying(_delete_bundle, bundle)
    except UploadError:
        raise OperationalError("the database is busy; try again") from None


@transaction.atomic
def _delete_bundle(bundle: Bundle) -> None:
    digests = set(bundle.files.values_list("blob_id", flat=True))
    # Same lock as store_bundle: a blob a concurrent upload is about to share stays.
    list(Blob.objects.select_for_update().filter(sha256__in=digests).values_list("sha256", flat=True))
    bundle.delete()
    still_used = set(BundleFile.objects.filter(blob_id__in=digests).values_list("blob_id", flat=True))
    # Objects first, under the rows' locks, so no upload can reference one between its removal
    # and the rows' (blobstore's rule). If the commit then fails, rows are left whose object is
    # gone: the next upload sharing one writes it again (blobstore.write's already_stored).
    blobstore.remove(digests - still_used)
    Blob.objects.filter(sha256__in=digests - still_used).delete()
