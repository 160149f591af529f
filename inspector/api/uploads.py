"""Queued uploads (inspector/bundles/upload_queue.py): what the 202 answer says, and the status it links."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, Router, Schema, Status
from ninja.errors import HttpError

from inspector.bundles import upload_queue
from inspector.bundles.ingest import LEFT_OUT_REASON

from .common import E404, absolute, bundle_url
from .schemas import LeftOutOut

router = Router(tags=["bundles"])


def left_out_answer(left_out: list[str]) -> dict | None:
    return {"paths": left_out, "reason": LEFT_OUT_REASON} if left_out else None


class QueuedUploadOut(Schema):
    status: str = Field(description="queued, running, stored, refused or failed.")
    status_url: str = Field(description="Poll this (GET) until the status is stored, refused or failed.")
    manage_token: str = Field(
        description="Deletes the bundle once stored. Shown once; only its hash is kept."
    )
    left_out: LeftOutOut | None = Field(
        None, description="Binary files nothing reads, not stored (null when none was)."
    )


class UploadStatusOut(Schema):
    status: str = Field(description="queued, running, stored, refused or failed.")
    detail: str = Field(description="Why it was refused or failed; empty otherwise.")
    id: str | None = Field(description="The stored bundle's id, once stored.")
    url: str | None = Field(description="The stored bundle's share link, once stored.")


def status_url(request: HttpRequest, upload_id: str) -> str:
    return absolute(request, reverse("api:upload_status", kwargs={"upload_id": upload_id}))


def queued_answer(request: HttpRequest, files: dict[str, bytes], title: str, left_out: list[str]):
    """The 202 answer to an upload the queue stores: its status URL and the manage token of the
    bundle it will be."""
    upload_id, token = upload_queue.enqueue(files, title)
    return Status(
        202,
        {
            "status": "queued",
            "status_url": status_url(request, upload_id),
            "manage_token": token,
            "left_out": left_out_answer(left_out),
        },
    )


@router.get(
    "/{upload_id}",
    response={200: UploadStatusOut, **E404},
    url_name="upload_status",
    summary="A queued upload's progress",
)
def upload_status(request: HttpRequest, upload_id: str):
    found = upload_queue.status(upload_id)
    if found is None:
        raise HttpError(404, "no queued upload has this id")
    stored = found.bundle_id
    return {
        "status": found.state,
        "detail": found.detail,
        "id": stored,
        "url": bundle_url(request, stored) if stored else None,
    }
