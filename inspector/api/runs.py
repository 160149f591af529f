"""Runs: an uploaded run set against what its eval files render now (the run-check contract)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, Router, Schema, Status
from ninja.errors import HttpError

from inspector.bundles.ingest import UploadError, refuse_oversized
from inspector.core.runs.model import RunError
from inspector.runs import check_queue
from inspector.runs.uploads import check_upload

from .common import E400, E404, E413, E422, absolute

router = Router(tags=["runs"])

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
    status: str = Field(description="queued, running, checked, refused or failed.")
    detail: str = Field(description="Why it was refused or failed; empty otherwise.")
    result: RunCheckOut | None = Field(description="The check's answer, once checked.")


def uploads(request: HttpRequest, part: str, paths_part: str) -> list[tuple[str, bytes]]:
    files = request.FILES.getlist(part)
    refuse_oversized([upload.size or 0 for upload in files])
    paths = request.POST.getlist(paths_part)
    if paths and len(paths) != len(files):
        raise UploadError(f"{len(paths)} {paths_part} for {len(files)} {part}: one per file, in order")
    return [
        (paths[number] if paths else upload.name or "", upload.read()) for number, upload in enumerate(files)
    ]


@router.post(
    "/check",
    response={200: RunCheckOut, 202: QueuedCheckOut, **E400, **E413, **E422},
    openapi_extra=_CHECK_BODY,
    summary="Compare a run with what its eval files render now",
)
def check(request: HttpRequest):
    """Per case: same, differs (the messages' word runs and the source lines that caused them),
    not_in_run or not_in_files; each judge prompt rendered with the candidate's answer the run
    kept, against the judge request it kept. Nothing is stored. Past RUN_CHECK_QUEUE_BYTES the
    queue's worker checks it: 202 with a status URL."""
    if (request.content_type or "") != "multipart/form-data":
        raise HttpError(400, "send multipart/form-data: run (and run_paths), files (and paths), profile")
    run_uploads = uploads(request, "run", "run_paths")
    project_uploads = uploads(request, "files", "paths")
    profile = request.POST.get("profile") or None
    if check_queue.should_queue(run_uploads, project_uploads):
        check_id = check_queue.enqueue(run_uploads, project_uploads, profile, for_page=False)
        url = absolute(request, reverse("api:run_check_status", kwargs={"check_id": check_id}))
        return Status(202, {"status": "queued", "status_url": url})
    try:
        result = check_upload(run_uploads, project_uploads, profile)
    except RunError as error:
        raise HttpError(400, str(error)) from None
    return result.as_contract()


@router.get(
    "/checks/{check_id}",
    response={200: RunCheckStatusOut, **E404},
    url_name="run_check_status",
    summary="A queued run check's progress and, once checked, its answer",
)
def run_check_status(request: HttpRequest, check_id: str):
    found = check_queue.status(check_id)
    if found is None:
        raise HttpError(404, "no queued run check has this id")
    return {"status": found.state, "detail": found.detail, "result": found.checked}
