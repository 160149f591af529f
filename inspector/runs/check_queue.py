"""Large run checks made off the request: past RUN_CHECK_QUEUE_BYTES (0, the default, never) a run
check is handed to the uploads' queue (django-tasks' database backend, run by `manage.py
db_worker`); the API answers 202 with a status URL and the page polls. The worker checks the run
exactly as the request would have, every render in its own bounded render workers. Nothing is
stored but the task's row: the uploads ride in it and the answer comes back in it."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from django.conf import settings
from django_tasks import task

from inspector.bundles.queued import task_state
from inspector.runs.page import page_view

Uploads = list[tuple[str, bytes]]


def should_queue(run_uploads: Uploads, project_uploads: Uploads) -> bool:
    limit = settings.RUN_CHECK_QUEUE_BYTES
    size = sum(len(data) for _, data in run_uploads + project_uploads)
    return bool(limit) and size >= limit


def _pack(uploads: Uploads) -> list[list[str]]:
    # Pairs, not a mapping: a run folder's files may repeat a name the API's paths then tell apart.
    return [[name, base64.b64encode(data).decode("ascii")] for name, data in uploads]


def _unpack(packed: list[list[str]]) -> Uploads:
    return [(name, base64.b64decode(text)) for name, text in packed]


@task()
def check_queued_run(run: list, files: list, profile: str | None, for_page: bool) -> dict:
    from inspector.core.render_settings import SettingsError
    from inspector.core.runs.model import RunError
    from inspector.runs.uploads import UploadError, check_upload

    try:
        result = check_upload(_unpack(run), _unpack(files), profile)
    except (RunError, UploadError, SettingsError) as refusal:
        return {"refused": str(refusal)}
    if for_page:
        return {"checked": page_view(result)}
    return {"checked": result.as_contract()}


def enqueue(run_uploads: Uploads, project_uploads: Uploads, profile: str | None, for_page: bool) -> str:
    """Queues the check: the id of its status."""
    result = check_queued_run.enqueue(_pack(run_uploads), _pack(project_uploads), profile, for_page)
    return str(result.id)


@dataclass(frozen=True)
class CheckStatus:
    state: str  # queued, running, checked, refused or failed
    checked: dict | None = None
    detail: str = ""


def status(check_id: str) -> CheckStatus | None:
    found = task_state(check_queued_run, check_id, "the run could not be checked; send it again")
    if found is None:
        return None
    state, answer, detail = found
    if state != "done":
        return CheckStatus(state, detail=detail)
    return CheckStatus("checked", checked=answer["checked"])
