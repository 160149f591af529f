"""Turning uploads into stored bundles: one set of checks for the upload page and the API.

Everything is checked before anything is written, and the write is one transaction, so a rejected
upload leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import io
import secrets
import stat
import zipfile
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from inspector.core.bundle import normalize
from inspector.models import Blob, Bundle, BundleFile, hash_token


class UploadError(Exception):
    def __init__(self, message: str, path: str | None = None):
        super().__init__(f"{path}: {message}" if path else message)
        self.message = message
        self.path = path


@dataclass(frozen=True)
class Limits:
    max_bytes: int
    max_files: int
    max_path_length: int
    max_zip_ratio: int

    @classmethod
    def from_settings(cls) -> Limits:
        return cls(settings.MAX_BUNDLE_BYTES, settings.MAX_BUNDLE_FILES, settings.MAX_PATH_LENGTH,
                   settings.MAX_ZIP_RATIO)


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


class _Collector:
    def __init__(self, limits: Limits):
        self.limits = limits
        self.files: dict[str, bytes] = {}
        self.total = 0

    def add(self, raw_path: str, data: bytes) -> None:
        if len(raw_path) > self.limits.max_path_length:
            raise UploadError(f"path is longer than {self.limits.max_path_length} characters",
                              raw_path[:80] + "…")
        if any(ord(char) < 32 or ord(char) == 127 for char in raw_path):
            raise UploadError("path contains a control character (a line break, tab or NUL)",
                              raw_path.encode("unicode_escape").decode("ascii"))
        if raw_path.startswith(("/", "\\")) or (len(raw_path) > 1 and raw_path[1] == ":"):
            raise UploadError("absolute paths are not allowed in a bundle", raw_path)
        path = normalize(raw_path)
        if path is None:
            raise UploadError("path escapes the bundle root", raw_path)
        if not path:
            raise UploadError("empty file name", raw_path or "(unnamed)")
        if path in self.files:
            raise UploadError("the same path appears twice in the upload", path)
        if len(self.files) >= self.limits.max_files:
            raise UploadError(f"too many files: at most {self.limits.max_files} per bundle")
        self.total += len(data)
        if self.total > self.limits.max_bytes:
            raise UploadError(f"the upload is larger than {_megabytes(self.limits.max_bytes)}")
        self.files[path] = data

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
                raise UploadError("zip entry is a symbolic link; links are not allowed",
                                  f"{name}!{entry.filename}")
            declared += entry.file_size
            if declared > self.limits.max_bytes - self.total:
                raise UploadError(f"the zip unpacks to more than {_megabytes(self.limits.max_bytes)}",
                                  name)
            if entry.compress_size and entry.file_size / entry.compress_size > self.limits.max_zip_ratio:
                raise UploadError(
                    f"zip entry compresses more than {self.limits.max_zip_ratio}:1 (a zip bomb?)",
                    f"{name}!{entry.filename}")
        for entry in entries:
            if entry.is_dir():
                continue
            try:
                with archive.open(entry) as handle:
                    # Read one byte past the declared size: headers can lie about it.
                    content = handle.read(entry.file_size + 1)
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError, EOFError,
                    ValueError) as error:
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


def collect_files(uploads: list[tuple[str, bytes]], limits: Limits | None = None,
                  expand_zips: bool = True) -> dict[str, bytes]:
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


@transaction.atomic
def store_bundle(files: dict[str, bytes], *, title: str = "", parent: Bundle | None = None,
                 example: str = "") -> tuple[Bundle, str]:
    """Save a checked file set as a new bundle. Returns it with its private manage token."""
    manage_token = secrets.token_urlsafe(24)
    bundle = Bundle.objects.create(title=title[:200], parent=parent, example=example,
                                   manage_token_hash=hash_token(manage_token))
    digests = {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}
    # Lock the blobs this bundle shares so a concurrent delete cannot remove one before we commit.
    existing = set(Blob.objects.select_for_update().filter(sha256__in=set(digests.values()))
                   .values_list("sha256", flat=True))
    new_blobs = {}
    for path, data in files.items():
        digest = digests[path]
        if digest not in existing and digest not in new_blobs:
            new_blobs[digest] = Blob(sha256=digest, data=data, size=len(data))
    Blob.objects.bulk_create(new_blobs.values(), ignore_conflicts=True)
    BundleFile.objects.bulk_create(
        BundleFile(bundle=bundle, path=path, blob_id=digests[path]) for path in sorted(files)
    )
    return bundle, manage_token


@transaction.atomic
def delete_bundle(bundle: Bundle) -> None:
    digests = set(bundle.files.values_list("blob_id", flat=True))
    # Same lock as store_bundle: a blob a concurrent upload is about to share stays.
    list(Blob.objects.select_for_update().filter(sha256__in=digests).values_list("sha256", flat=True))
    bundle.delete()
    still_used = set(BundleFile.objects.filter(blob_id__in=digests).values_list("blob_id", flat=True))
    Blob.objects.filter(sha256__in=digests - still_used).delete()
