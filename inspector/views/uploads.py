"""A queued upload's progress page (inspector/bundles/upload_queue.py): polled by htmx until the worker
has stored or refused it; then the manage page opens, the token coming from this address's
fragment as on the manage link."""

from __future__ import annotations

from typing import Protocol

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET
from django_htmx.middleware import HtmxDetails

from inspector.bundles import upload_queue

# The files an upload left out ride in the progress and manage pages' addresses: this many names.
LEFT_OUT_NAMED = 20


class Queued(Protocol):
    @property
    def state(self) -> str: ...  # queued, running, stored, refused or failed

    @property
    def bundle_id(self) -> str | None: ...

    @property
    def detail(self) -> str: ...


@require_GET
def upload_progress(request, upload_id: str) -> HttpResponse:
    found = upload_queue.status(upload_id)
    if found is None:
        raise Http404("No queued upload has this address.")
    return progress_page(request, found)


def progress_page(request, found: Queued, opens: str = "") -> HttpResponse:
    """The progress page of a queued upload or stored run; once stored, the manage page opens
    (with `opens`, a link inside the bundle, as the one to go on to)."""
    context = {
        "upload": found,
        "manage_action": reverse("manage", kwargs={"bundle_id": found.bundle_id}) if found.bundle_id else "",
        # What the upload left out, carried to the manage page as a stored upload's redirect does.
        "left_out": request.GET.getlist("left_out")[:LEFT_OUT_NAMED],
        "left_out_count": request.GET.get("left_out_count", ""),
        "opens": opens,
    }
    htmx: HtmxDetails | None = getattr(request, "htmx", None)
    template = "upload_progress.html#progress" if htmx else "upload_progress.html"
    response = render(request, template, context)
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


def progress_url(upload_id: str, token: str, query: str = "") -> str:
    """The progress page's address, the manage token in its fragment (never sent to the server)."""
    address = reverse("upload-progress", kwargs={"upload_id": upload_id})
    return address + (f"?{query}" if query else "") + f"#{token}"
