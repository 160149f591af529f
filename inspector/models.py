"""Stored bundles: immutable sets of files, addressed by an unguessable id.

File contents are stored once per distinct content (by SHA-256), so revisions and re-uploads of the
same corpus cost almost nothing: in the database, or in object storage (inspector/bundles/blobstore.py).
"""

import hashlib
import hmac
import secrets

from django.db import models

from inspector.bundles import blobstore
from inspector.core.bundle import MemoryBundle


def new_bundle_id() -> str:
    return secrets.token_urlsafe(16)  # 128 bits, 22 URL-safe characters


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Blob(models.Model):
    sha256 = models.CharField(primary_key=True, max_length=64)
    # NULL when the content is in object storage (STORAGE_URL), under blobstore.object_name.
    data = models.BinaryField(null=True)
    size = models.PositiveIntegerField()


class Bundle(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_bundle_id, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    title = models.CharField(max_length=200, blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="revisions"
    )
    # Only the hash of the private manage token is kept; the token itself is shown once.
    manage_token_hash = models.CharField(max_length=64, blank=True)
    # Name of the fixtures/ example this bundle was loaded from; empty for uploads.
    example = models.CharField(max_length=100, blank=True, db_index=True)
    # For API uploads sent with an Idempotency-Key: its hash, so a retry finds this bundle, and the
    # digest of the files, so a different upload under the same key is refused.
    idempotency_key_hash = models.CharField(max_length=64, null=True, blank=True, unique=True)
    content_digest = models.CharField(max_length=64, blank=True)
    # The manage-token holder can stop new comments and verdicts (existing ones stay readable).
    comments_locked = models.BooleanField(default=False)
    # A stored run (the run page, /b/<id>/run/): the folder of the bundle holding the run's files,
    # the rest of the bundle being the project's files it is compared with. Empty: not a run.
    run_root = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.title or self.id

    def check_manage_token(self, token: str) -> bool:
        return bool(self.manage_token_hash) and hmac.compare_digest(
            self.manage_token_hash, hash_token(token or "")
        )

    def file_map(self) -> dict[str, bytes]:
        rows = list(self.files.select_related("blob").order_by("path"))
        stored = blobstore.read(row.blob_id for row in rows if row.blob.data is None)
        return {
            row.path: bytes(row.blob.data) if row.blob.data is not None else stored[row.blob_id]
            for row in rows
        }

    def as_core_bundle(self) -> MemoryBundle:
        return MemoryBundle(self.file_map())


class BundleFile(models.Model):
    bundle = models.ForeignKey(Bundle, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=1024)
    blob = models.ForeignKey(Blob, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bundle", "path"], name="unique_path_per_bundle")]
        ordering = ["path"]


class TaskLease(models.Model):
    """A queued task's lease, renewed by its worker while the task runs (inspector/bundles/queued.py):
    in the database, which every app server and worker shares whichever queue backend runs."""

    task_id = models.CharField(max_length=64, primary_key=True)
    renewed_at = models.DateTimeField()


# Review threads, comments and verdicts live in their own module; imported here so Django finds them.
from inspector.review.models import Comment, Thread, Verdict, WriteCount  # noqa: E402

__all__ = ["Blob", "Bundle", "BundleFile", "Comment", "TaskLease", "Thread", "Verdict", "WriteCount"]
