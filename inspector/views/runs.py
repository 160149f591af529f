"""The run page: upload a run (and, optionally, the project it is compared with) and see it as a
bundle of cases, each with its status, the messages' differences side by side as the diff page
shows them, the source lines that caused them and each judge prompt's status. Nothing is stored:
the answer is built from the upload; past RUN_CHECK_QUEUE_BYTES by the queue's worker
(inspector/runs/check_queue.py) while the check's own page polls."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRefresh

from inspector.bundles.ingest import UploadError, refuse_oversized
from inspector.core.options import PROFILES
from inspector.core.runs.compare import RunCheck
from inspector.local import served_folder
from inspector.runs import check_queue
from inspector.runs.page import page_view
from inspector.runs.uploads import RunError, SettingsError, check_local, check_upload, local_runs

from .common import HtmxHttpRequest


def _uploads(request: HtmxHttpRequest, part: str) -> list[tuple[str, bytes]]:
    files = request.FILES.getlist(part)
    refuse_oversized([upload.size or 0 for upload in files])
    return [(upload.name or "", upload.read()) for upload in files]


Posted = tuple[list[tuple[str, bytes]], list[tuple[str, bytes]]]


def _posted(request: HtmxHttpRequest) -> Posted | None:
    """The run and the project's files uploaded; read once, as reading empties them."""
    if request.method != "POST":
        return None
    return _uploads(request, "run"), _uploads(request, "files")


def _checked(request: HtmxHttpRequest, posted: Posted | None) -> RunCheck | None:
    """The run the request names: an upload (POST) or, in local mode, a run folder of the served
    folder (?run=), checked against the served folder's files now."""
    profile = request.POST.get("profile") or request.GET.get("profile") or None
    if posted is not None:
        return check_upload(*posted, profile)
    served = served_folder.folder()
    if served is not None and request.GET.get("run"):
        return check_local(served.root, request.GET["run"], profile)
    return None


@require_http_methods(["GET", "POST"])
def run_page(request: HtmxHttpRequest) -> HttpResponse:
    served = served_folder.folder()
    context: dict = {
        "profiles": PROFILES,
        "chosen": request.POST.get("profile", ""),
        "local_runs": local_runs(served.root) if served is not None else [],
        "shown_run": request.GET.get("run", ""),
    }
    try:
        posted = _posted(request)
        queued = _queued(request, posted)
        if queued:
            return _see_other(reverse("run-check", kwargs={"check_id": queued}))
        result = _checked(request, posted)
    except (RunError, UploadError, SettingsError) as problem:
        context["problem"] = str(problem)
        return render(request, "runs/run.html", context, status=400)
    if result is not None:
        context.update(page_view(result))
    return render(request, "runs/run.html", context)


def _see_other(url: str) -> HttpResponse:
    """303, so a reload of the check's page cannot queue the upload again."""
    response = redirect(url)
    response.status_code = 303
    return response


def _queued(request: HtmxHttpRequest, posted: Posted | None) -> str | None:
    """The queued check's id when the upload is past RUN_CHECK_QUEUE_BYTES."""
    if posted is None:
        return None
    run_uploads, project_uploads = posted
    if not check_queue.should_queue(run_uploads, project_uploads):
        return None
    profile = request.POST.get("profile") or None
    return check_queue.enqueue(run_uploads, project_uploads, profile, for_page=True)


@require_GET
def run_check_page(request: HtmxHttpRequest, check_id: str) -> HttpResponse:
    """A queued check: polled by htmx while it waits; once done, the page reloads into the result."""
    found = check_queue.status(check_id)
    if found is None:
        raise Http404("No queued run check has this address.")
    waiting = found.state in ("queued", "running")
    if request.htmx and not waiting:
        return HttpResponseClientRefresh()
    context: dict = {"profiles": PROFILES, "chosen": "", "local_runs": [], "check": found}
    if found.state == "checked":
        context.update(found.checked or {})
    elif not waiting:
        context["problem"] = found.detail
    response = render(request, "runs/run.html", context)
    response["Cache-Control"] = "no-store"
    return response
