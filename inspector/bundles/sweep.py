"""Objects in the blob storage that nothing references, swept by `manage.py sweep`: a content
whose upload was killed after writing it (blobstore's rule leaves at most such an object), one a
delete failed to remove, and files staged for a queued upload whose worker never finished it; and
in the database, the leases such a worker left (inspector/bundles/queued.py).

Only objects older than the grace period are looked at, so files staged for an upload still
waiting in the queue stay. A content's object is removed only under the same lock an upload takes
on its Blob row: the sweep claims the row itself, inside a transaction, and gives up the object
when a row already stands there (an upload that had not committed when the listing was made holds
that row's lock, and the claim waits for it). A sweep killed midway leaves neither a claim nor a
row without its object: the transaction rolls back the claim of an object it removed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from inspector.bundles import blobstore
from inspector.bundles.upload_queue import STAGED_FOLDER
from inspector.models import Blob, TaskLease

DIGEST = re.compile(r"[0-9a-f]{64}")
# Digests looked up together, so that a large bucket costs a query per batch, not per object.
BATCH = 500


@dataclass
class Swept:
    contents: list[str] = field(default_factory=list)  # object names
    staged: list[str] = field(default_factory=list)
    leases: int = 0  # of killed workers' tasks


def sweep(grace: timedelta, dry_run: bool = False) -> Swept:
    """Removes (or with dry_run only lists) the unreferenced objects last written before `grace` ago."""
    swept = Swept()
    cutoff = timezone.now() - grace
    old = (name for name, written in blobstore.listing(blobstore.BLOBS_FOLDER) if written < cutoff)
    digests = sorted(filter(None, map(_digest_named, old)))
    for start in range(0, len(digests), BATCH):
        batch = digests[start : start + BATCH]
        referenced = set(Blob.objects.filter(sha256__in=batch).values_list("sha256", flat=True))
        for digest in sorted(set(batch) - referenced):
            if dry_run or _remove_unclaimed(digest):
                swept.contents.append(blobstore.object_name(digest))
    swept.staged = sorted(name for name, written in blobstore.listing(STAGED_FOLDER) if written < cutoff)
    leases = TaskLease.objects.filter(renewed_at__lt=cutoff)
    swept.leases = leases.count()
    if not dry_run:
        for name in swept.staged:
            blobstore.storage().delete(name)
        leases.delete()
    return swept


def _digest_named(name: str) -> str | None:
    # Only names of blobstore's own shape: whatever else is in the bucket is not ours to remove.
    digest = name.rsplit("/", 1)[-1]
    return digest if DIGEST.fullmatch(digest) and name == blobstore.object_name(digest) else None


@transaction.atomic
def _remove_unclaimed(digest: str) -> bool:
    """Claims the content's row and removes its object: False, leaving it, when a row stands."""
    claim, created = Blob.objects.get_or_create(sha256=digest, defaults={"data": None, "size": 0})
    if not created:
        return False
    blobstore.storage().delete(blobstore.object_name(digest))
    claim.delete()
    return True
