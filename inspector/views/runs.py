"""The run pages. `/runs/`: upload a run (and, optionally, the project it is compared with); it is
stored as a bundle (inspector/runs/uploads.py) and the uploader lands on its manage page, as for
any upload. `/b/<id>/run/`: the stored run's cases, each with its status, and
`/b/<id>/run/<n>/`: one case's messages side by side as the diff page shows them, the source lines
that caused the differences and each judge prompt's status; both are shared pages of the bundle.
In local mode `/runs/?run=` checks a run folder of the served folder against its files now, and
stores nothing. Past RUN_CHECK_QUEUE_BYTES the queue's worker stores and checks the run while the
upload's progress page polls (inspector/runs/check_queue.py)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from inspector.bundles import loading
from inspector.bundles.ingest import UploadError, refuse_oversized
from inspector.core.options import PROFILES
from inspector.local import served_folder
from inspector.runs import check_queue, stored
from inspector.runs.page import page_view
from inspector.runs.uploads import RunError, SettingsError, check_local, local_runs, store_run

from .common import HtmxHttpRequest, loaded_or_404
from .local import refuse_upload_in_local_mode
from .page_cache import shared_page
from .upload import manage_link
from .uploads import progress_page


def _uploads(request: HtmxHttpRequest, part: str) -> list[tuple[str, bytes]]:
    files = request.FILES.getlist(part)
    refuse_oversized([upload.size or 0 for upload in files])
    return [(upload.name or "", upload.read()) for upload in files]


def run_url(bundle_id: str, profile: str | None = None) -> str:
    url = reverse("run", kwargs={"bundle_id": bundle_id})
    return url + (f"?{urlencode({'profile': profile})}" if profile else "")


def _see_other(url: str) -> HttpResponse:
    """303, so a reload cannot store the upload twice."""
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def _stored(request: HtmxHttpRequest) -> HttpResponse:
    """The upload stored (or queued): on to the manage page, which links the run's page."""
    run_uploads, project_uploads = _uploads(request, "run"), _uploads(request, "files")
    profile = request.POST.get("profile") or None
    if check_queue.should_queue(run_uploads, project_uploads):
        check_id, token = check_queue.enqueue_store(run_uploads, project_uploads)
        return _see_other(reverse("run-check", kwargs={"check_id": check_id}) + f"#{token}")
    bundle, made_token, run = store_run(run_uploads, project_uploads)
    assert made_token is not None  # the page sends no Idempotency-Key: every upload makes its token
    stored.warm(bundle, run)
    query = urlencode({"saved": "upload", "case": run_url(bundle.pk, profile)})
    return _see_other(manage_link(bundle.pk, made_token, query))


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
        if request.method == "POST":
            if served is not None:
                refuse_upload_in_local_mode()
            return _stored(request)
        if served is not None and request.GET.get("run"):
            profile = request.GET.get("profile") or None
            context.update(page_view(check_local(served.root, request.GET["run"], profile)))
    except (RunError, UploadError, SettingsError) as problem:
        context["problem"] = str(problem)
        return render(request, "runs/run.html", context, status=400)
    return render(request, "runs/run.html", context)


@require_GET
def run_check_page(request: HtmxHttpRequest, check_id: str) -> HttpResponse:
    """A queued run's progress, polled by htmx; once stored, its manage page opens on the run."""
    found = check_queue.status(check_id)
    if found is None or found.state == "checked":  # "checked": the API's check, which stored nothing
        raise Http404("No queued run has this address.")
    return progress_page(request, found, run_url(found.bundle_id) if found.bundle_id else "")


def _stored_run(request: HtmxHttpRequest, bundle_id: str) -> tuple[loading.LoadedBundle, dict | None, dict]:
    """The run, its check (None when it cannot be checked: the context says why) and the context
    every run page shares."""
    loaded = loaded_or_404(bundle_id)
    if not loaded.record.run_root:
        raise Http404("This bundle is not a run.")
    profile = request.GET.get("profile") or None
    context: dict = {
        "bundle": loaded.record,
        "run_url": run_url(bundle_id, profile),
        "bundle_url": reverse("bundle", kwargs={"bundle_id": bundle_id}),
        "profile_query": f"?{urlencode({'profile': profile})}" if profile else "",
    }
    try:
        checked = stored.check_stored(loaded, profile)
    except (RunError, SettingsError) as problem:
        context["problem"] = str(problem)
        return loaded, None, context
    context.update(checked["page"])
    return loaded, checked, context


@require_GET
@shared_page
def stored_run_page(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    _, checked, context = _stored_run(request, bundle_id)
    return render(request, "runs/stored.html", context, status=200 if checked else 422)


@require_GET
@shared_page
def stored_run_case(request: HtmxHttpRequest, bundle_id: str, number: int) -> HttpResponse:
    _, checked, context = _stored_run(request, bundle_id)
    if checked is None:
        return render(request, "runs/stored.html", context, status=422)
    cases = context["cases"]
    if not 1 <= number <= len(cases):
        raise Http404(f"This run has {len(cases)} cases.")
    context.update(
        case=cases[number - 1],
        previous=number - 1 if number > 1 else None,
        next=number + 1 if number < len(cases) else None,
    )
    return render(request, "runs/stored_case.html", context)
