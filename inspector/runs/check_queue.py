"""Large runs stored and checked off the request: past RUN_CHECK_QUEUE_BYTES (0, the default,
never) a run upload goes to the uploads' queue (django-tasks' database backend, run by `manage.py
db_worker`). Its files are laid out as the run's bundle and staged as queued uploads stage theirs
(bundles/upload_queue.stage: object storage, or the task's row without one), then removed.

A run stored from the page or `POST /api/runs`: the uploader gets the manage token at once and the
queue only its hash; the worker stores the run as a bundle, makes its check and answers the
bundle's id. `POST /api/runs/check` stores nothing: the worker checks the staged files and answers
the check."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.conf import settings
from django_tasks import task

from inspector.bundles import upload_queue
from inspector.bundles.queued import task_state
from inspector.models import hash_token

Uploads = list[tuple[str, bytes]]


def should_queue(run_uploads: Uploads, project_uploads: Uploads) -> bool:
    limit = settings.RUN_CHECK_QUEUE_BYTES
    size = sum(len(data) for _, data in run_uploads + project_uploads)
    return bool(limit) and size >= limit


@task()
def queued_run(staged: dict, run_root: str, title: str, profile: str | None, token_hash: str) -> dict:
    """`token_hash` given: store the run and answer its bundle's id; else answer its check."""
    from inspector.bundles.ingest import UploadError, store_bundle
    from inspector.core.render_settings import SettingsError
    from inspector.core.runs.model import RunError
    from inspector.runs import stored
    from inspector.runs.uploads import RunUpload, check_laid_out, read_upload

    try:
        upload = RunUpload(upload_queue.unstage(staged), run_root, title)
        run = read_upload(upload)
        if not token_hash:
            return {"checked": check_laid_out(upload, profile, run).as_contract()}
        bundle, _ = store_bundle(upload.files, title=title, run_root=run_root, token_hash=token_hash)
    except (RunError, UploadError, SettingsError) as refusal:
        return {"refused": str(refusal)}
    finally:
        upload_queue.discard(staged)
    stored.warm(bundle, run)
    return {"bundle_id": bundle.pk}


def _enqueue(run_uploads: Uploads, project_uploads: Uploads, profile: str | None, token_hash: str) -> str:
    from inspector.runs.uploads import lay_out

    upload = lay_out(run_uploads, project_uploads)
    staged = upload_queue.stage(upload.files)
    return str(queued_run.enqueue(staged, upload.run_root, upload.title, profile, token_hash).id)


def enqueue_store(run_uploads: Uploads, project_uploads: Uploads) -> tuple[str, str]:
    """Queues the run's storing: the id of its status, and the bundle's manage token."""
    token = secrets.token_urlsafe(24)
    return _enqueue(run_uploads, project_uploads, None, hash_token(token)), token


def enqueue_check(run_uploads: Uploads, project_uploads: Uploads, profile: str | None) -> str:
    """Queues a check that stores nothing: the id of its status."""
    return _enqueue(run_uploads, project_uploads, profile, "")


@dataclass(frozen=True)
class CheckStatus:
    state: str  # queued, running, stored, checked, refused or failed
    checked: dict | None = None  # a check that stores nothing: its answer
    bundle_id: str | None = None  # a stored run: its bundle
    detail: str = ""


def status(check_id: str) -> CheckStatus | None:
    found = task_state(queued_run, check_id, "the run could not be checked; send it again")
    if found is None:
        return None
    state, answer, detail = found
    if state != "done":
        return CheckStatus(state, detail=detail)
    if "bundle_id" in answer:
        return CheckStatus("stored", bundle_id=answer["bundle_id"])
    return CheckStatus("checked", checked=answer["checked"])
