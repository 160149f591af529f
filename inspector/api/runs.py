"""Runs: an uploaded run set against what its eval files render now (the run-check contract)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Field, Router, Schema
from ninja.errors import HttpError

from inspector.bundles.ingest import UploadError, refuse_oversized
from inspector.core.runs.model import RunError
from inspector.runs.uploads import check_upload

from .common import E400, E413, E422

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
    response={200: RunCheckOut, **E400, **E413, **E422},
    openapi_extra=_CHECK_BODY,
    summary="Compare a run with what its eval files render now",
)
def check(request: HttpRequest):
    """Per case: same, differs (the messages' word runs and the source lines that caused them),
    not_in_run or not_in_files; each judge prompt rendered with the candidate's answer the run
    kept, against the judge request it kept. Nothing is stored."""
    if (request.content_type or "") != "multipart/form-data":
        raise HttpError(400, "send multipart/form-data: run (and run_paths), files (and paths), profile")
    try:
        result = check_upload(
            uploads(request, "run", "run_paths"),
            uploads(request, "files", "paths"),
            request.POST.get("profile") or None,
        )
    except RunError as error:
        raise HttpError(400, str(error)) from None
    return result.as_contract()
