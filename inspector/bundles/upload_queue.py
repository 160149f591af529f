"""Large uploads stored off the request: past UPLOAD_QUEUE_BYTES (0, the default, never) an API
upload is handed to the queue (inspector/bundles/queued.py: django-rq or the database) and
answered 202 with a status URL; the worker checks and stores it exactly as the request would have,
every document rendered in its own bounded render workers.

The uploader gets the manage token at once; the queue is given only its hash. The files wait in
the object storage (STORAGE_URL) under staged/, or without one in the task itself, and are
removed once the bundle is stored or refused (those of a task whose worker was killed by `manage.py
sweep`)."""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django_tasks import task

from inspector.bundles import blobstore
from inspector.bundles.queued import task_state
from inspector.models import hash_token

STAGED_FOLDER = "staged"


def should_queue(files: dict[str, bytes]) -> bool:
    limit = settings.UPLOAD_QUEUE_BYTES
    return bool(limit) and sum(map(len, files.values())) >= limit


def stage(files: dict[str, bytes]) -> dict[str, object]:
    document = {path: base64.b64encode(data).decode("ascii") for path, data in files.items()}
    if blobstore.in_database():
        return {"files": document}
    name = f"{STAGED_FOLDER}/{secrets.token_hex(16)}.json"
    blobstore.storage().save(name, ContentFile(json.dumps(document).encode()))
    return {"object": name}


def unstage(staged: dict) -> dict[str, bytes]:
    if "object" in staged:
        with blobstore.storage().open(staged["object"], "rb") as handle:
            document = json.loads(handle.read())
    else:
        document = staged["files"]
    return {path: base64.b64decode(text) for path, text in document.items()}


def discard(staged: dict) -> None:
    if "object" in staged:
        blobstore.storage().delete(staged["object"])


@task()
def store_queued_upload(staged: dict, title: str, token_hash: str) -> dict[str, str]:
    from inspector.bundles.ingest import UploadError, store_bundle

    try:
        bundle, _ = store_bundle(unstage(staged), title=title, token_hash=token_hash)
    except UploadError as refusal:
        return {"refused": str(refusal)}
    finally:
        discard(staged)
    return {"bundle_id": bundle.pk}


def enqueue(files: dict[str, bytes], title: str) -> tuple[str, str]:
    """Queues the upload: the id of its status, and the bundle's manage token."""
    token = secrets.token_urlsafe(24)
    result = store_queued_upload.enqueue(stage(files), title, hash_token(token))
    return str(result.id), token


@dataclass(frozen=True)
class UploadStatus:
    state: str  # queued, running, stored, refused or failed
    bundle_id: str | None = None
    detail: str = ""


def status(upload_id: str) -> UploadStatus | None:
    found = task_state(store_queued_upload, upload_id, "the upload could not be stored; send it again")
    if found is None:
        return None
    state, answer, detail = found
    if state != "done":
        return UploadStatus(state, detail=detail)
    return UploadStatus("stored", bundle_id=answer["bundle_id"])
