"""Runs: an uploaded run stored as a bundle with its own link, or checked without storing, against
what its eval files render now (the run-check contract)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, Header, Router, Schema, Status
from ninja.errors import HttpError

from inspector.bundles.ingest import UploadError, refuse_oversized
from inspector.core.render_settings import SettingsError
from inspector.core.runs.model import RunError
from inspector.local import served_folder
from inspector.runs import check_queue, stored
from inspector.runs.uploads import check_upload, store_run

from .common import E400, E404, E413, E422, ErrorOut, absolute, get_bundle, manage_url, writes_from_this_site

router = Router(tags=["runs"])
router.add_decorator(writes_from_this_site(multipart=True), mode="view")

_PARTS = {
    "run": "The run: a run folder's files (with `run_paths`), a zip of it, a results JSONL or an "
    "Inspect AI log (.eval, .json).",
    "run_paths": "Each run file's path inside the run folder, in the order of `run` (multipart "
    "file names lose their folders).",
    "files": "The project's files to compare with (a .zip is unpacked); without them, the eval "
    "files the run kept.",
    "paths": "Each project file's path, in the order of `files`.",
}
_CHECK_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["run"],
                    "additionalProperties": False,
                    "properties": {
                        "run": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "description": _PARTS["run"],
                        },
                        "run_paths": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": _PARTS["run_paths"],
                        },
                        "files": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "description": _PARTS["files"],
                        },
                        "paths": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": _PARTS["paths"],
                        },
                        "profile": {
                            "type": "string",
                            "description": "Render the files with this profile "
                            "(default: the run's runner's).",
                        },
                    },
                }
            }
        },
    }
}


class RunCheckOut(Schema):
    runner: str
    runner_version: str | None
    profile: dict[str, str | None] = Field(
        description="run: the runner's profile; files: the one rendered with"
    )
    cases: list[dict[str, Any]] = Field(
        description="id, status (same, differs, not_in_run, not_in_files), "
        "eval_path, messages (the differing ones, word runs), cause "
        "([{path, line}]), graders ([{name, status, with_answer, ...}])"
    )
    summary: dict[str, Any]
    notes: list[str]
    errors: list[str]


class QueuedCheckOut(Schema):
    status: str = Field(description="queued, running, checked, refused or failed.")
    status_url: str = Field(description="Poll this (GET) until the status is checked, refused or failed.")


class RunCheckStatusOut(Schema):
    status: str = Field(description="queued, running, stored, checked, refused or failed.")
    detail: str = Field(description="Why it was refused or failed; empty otherwise.")
    result: RunCheckOut | None = Field(description="A check that stores nothing: its answer, once checked.")
    id: str | None = Field(description="A stored run: its bundle's id, once stored.")
    url: str | None = Field(description="A stored run: its page, once stored.")


class StoredRunOut(Schema):
    id: str = Field(description="The run's bundle.")
    url: str = Field(description="The run's page: share this link.")
    bundle_url: str = Field(description="The bundle page of the run's files and the project's.")
    manage_token: str | None = Field(
        description="Deletes the run (`DELETE /api/bundles/{id}`); shown once (null for a retry "
        "under an Idempotency-Key that stored it already)."
    )
    manage_url: str | None
    result: RunCheckOut | None = Field(description="The check under the run's own profile.")


class QueuedRunOut(Schema):
    status: str = Field(description="queued")
    status_url: str = Field(description="Poll this (GET) until the status is stored, refused or failed.")
    manage_token: str = Field(description="The stored run's manage token; shown once.")


def uploads(request: HttpRequest, part: str, paths_part: str) -> list[tuple[str, bytes]]:
    files = request.FILES.getlist(part)
    refuse_oversized([upload.size or 0 for upload in files])
    paths = request.POST.getlist(paths_part)
    if paths and len(paths) != len(files):
        raise UploadError(f"{len(paths)} {paths_part} for {len(files)} {part}: one per file, in order")
    return [
        (paths[number] if paths else upload.name or "", upload.read()) for number, upload in enumerate(files)
    ]


def _refused(error: Exception) -> HttpError:
    return HttpError(400, str(error))


@router.post(
    "/check",
    response={200: RunCheckOut, 202: QueuedCheckOut, **E400, **E413, **E422},
    openapi_extra=_CHECK_BODY,
    summary="Compare a run with what its eval files render now, storing nothing",
)
def check(request: HttpRequest):
    """Per case: same, differs (the messages' word runs and the source lines that caused them),
    not_in_run or not_in_files; each judge prompt rendered with the candidate's answer the run
    kept, against the judge request it kept. Nothing is stored (`POST /api/runs` stores the run
    with a link). Past RUN_CHECK_QUEUE_BYTES the queue's worker checks it: 202 with a status URL."""
    run_uploads, project_uploads = _posted(request)
    profile = request.POST.get("profile") or None
    if check_queue.should_queue(run_uploads, project_uploads):
        check_id = check_queue.enqueue_check(run_uploads, project_uploads, profile)
        return Status(202, {"status": "queued", "status_url": _status_url(request, check_id)})
    try:
        result = check_upload(run_uploads, project_uploads, profile)
    except RunError as error:
        raise _refused(error) from None
    return result.as_contract()


def _posted(request: HttpRequest) -> tuple[list[tuple[str, bytes]], list[tuple[str, bytes]]]:
    if (request.content_type or "") != "multipart/form-data":
        raise HttpError(400, "send multipart/form-data: run (and run_paths), files (and paths), profile")
    return uploads(request, "run", "run_paths"), uploads(request, "files", "paths")


def _status_url(request: HttpRequest, check_id: str) -> str:
    return absolute(request, reverse("api:run_check_status", kwargs={"check_id": check_id}))


def _run_links(request: HttpRequest, bundle_id: str) -> dict[str, str]:
    from inspector.views.runs import run_url

    return {
        "url": absolute(request, run_url(bundle_id)),
        "bundle_url": absolute(request, reverse("bundle", kwargs={"bundle_id": bundle_id})),
    }


@router.post(
    "",
    response={201: StoredRunOut, 202: QueuedRunOut, **E400, 403: ErrorOut, **E413, **E422},
    openapi_extra=_CHECK_BODY,
    summary="Store a run as a bundle with its own link, and check it",
)
def store(
    request: HttpRequest,
    idempotency_key: str | None = Header(None, alias="Idempotency-Key", min_length=16, max_length=255),
):
    """The run (and the project's files, if sent) stored as a bundle, as `POST /api/bundles`
    stores files: `url` is the run's page, shared with anyone who holds it; `manage_token`, shown
    once, deletes it (`DELETE /api/bundles/{id}`). `result` is the run's check under the run's own
    profile (`GET /api/runs/{id}?profile=` under another). With an `Idempotency-Key` (a random
    value of at least 16 characters), a retry of the same upload answers the same run, without its
    manage token, as `POST /api/bundles` does. Past RUN_CHECK_QUEUE_BYTES (without an
    Idempotency-Key) the run is stored off the request: 202 with the manage token and a status URL."""
    if served_folder.folder() is not None:
        raise HttpError(403, "uploads are off in local mode: this server shows a folder on disk")
    run_uploads, project_uploads = _posted(request)
    if not idempotency_key and check_queue.should_queue(run_uploads, project_uploads):
        check_id, token = check_queue.enqueue_store(run_uploads, project_uploads)
        return Status(
            202, {"status": "queued", "status_url": _status_url(request, check_id), "manage_token": token}
        )
    try:
        bundle, made_token, run = store_run(run_uploads, project_uploads, key=idempotency_key)
    except RunError as error:
        raise _refused(error) from None
    loaded = get_bundle(bundle.pk)
    try:
        result = stored.check_stored(loaded, None, run)["contract"]
    except (RunError, SettingsError):
        result = None  # stored all the same: GET /api/runs/{id} says why it cannot be checked
    return Status(
        201,
        {
            "id": bundle.pk,
            **_run_links(request, bundle.pk),
            "manage_token": made_token,
            "manage_url": manage_url(request, bundle.pk, made_token) if made_token else None,
            "result": result,
        },
    )


@router.get(
    "/checks/{check_id}",
    response={200: RunCheckStatusOut, **E404},
    url_name="run_check_status",
    summary="A queued run's progress and, once done, its check or its link",
)
def run_check_status(request: HttpRequest, check_id: str):
    found = check_queue.status(check_id)
    if found is None:
        raise HttpError(404, "no queued run check has this id")
    links = _run_links(request, found.bundle_id) if found.bundle_id else {}
    return {
        "status": found.state,
        "detail": found.detail,
        "result": found.checked,
        "id": found.bundle_id,
        "url": links.get("url"),
    }


@router.get(
    "/{bundle_id}",
    response={200: RunCheckOut, **E400, **E404, **E422},
    summary="A stored run's check",
)
def stored_check(request: HttpRequest, bundle_id: str, profile: str | None = None):
    """The run-check answer for a stored run (anyone with its link may read it), with its eval
    files rendered under `profile` (default: the run's runner's)."""
    loaded = get_bundle(bundle_id)
    if not loaded.record.run_root:
        raise HttpError(404, "this bundle is not a run")
    try:
        return stored.check_stored(loaded, profile or None)["contract"]
    except SettingsError as error:
        raise HttpError(400, str(error)) from None
    except RunError as error:
        raise HttpError(422, str(error)) from None
