"""The run page: upload a run (and, optionally, the project it is compared with) and see it as a
bundle of cases, each with its status, the messages' differences side by side as the diff page
shows them, the source lines that caused them and each judge prompt's status. Nothing is stored:
the answer is built from the upload; past RUN_CHECK_QUEUE_BYTES by the queue's worker
(inspector/runs/check_queue.py) while the check's own page polls."""

from __future__ import annotations

import json

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRefresh

from inspector.bundles.ingest import UploadError, refuse_oversized
from inspector.core.diff import MessageDiff
from inspector.core.options import PROFILES
from inspector.core.runs.compare import CaseCheck, RunCheck
from inspector.local import served_folder
from inspector.runs import check_queue
from inspector.runs.uploads import RunError, SettingsError, check_local, check_upload, local_runs

from .common import HtmxHttpRequest

STATUS_LABELS = {
    "same": "same",
    "differs": "differs",
    "not_in_run": "not in the run",
    "not_in_files": "not in the files",
}


def _sides(diffs: list[MessageDiff]) -> list[dict]:
    """The diff case page's view of each message (review/message_diffs.html)."""
    return [
        {
            "status": item.status,
            "old_index": item.old_index,
            "new_index": item.new_index,
            "role": item.new_role or item.old_role,
            "old": [(op, text) for op, text in item.words if op != "+"],
            "new": [(op, text) for op, text in item.words if op != "-"],
        }
        for item in diffs
    ]


def _case(number: int, check: CaseCheck) -> dict:
    anchor = f"case-{number}"
    return {
        "anchor": anchor,
        "id": check.id,
        "status": check.status,
        "label": STATUS_LABELS[check.status],
        "eval_path": check.eval_path,
        "note": check.note,
        "messages": _sides(check.messages),
        "cause": [f"{line.path}:{line.line}" for line in check.cause],
        "graders": [
            {
                "anchor": f"{anchor}-judge-{position}",
                "name": grader.name,
                "status": grader.status,
                "label": STATUS_LABELS[grader.status],
                "with_answer": grader.with_answer,
                "messages": _sides(grader.messages),
                "cause": [f"{line.path}:{line.line}" for line in grader.cause],
            }
            for position, grader in enumerate(check.graders, 1)
        ],
        **_kept(check),
    }


def _kept(check: CaseCheck) -> dict:
    """What the run kept of the case; with nothing to compare it with, its judge requests and raw
    requests too."""
    recorded = check.recorded
    if recorded is None:
        return {"sent": [], "answer": None, "kept_judges": [], "requests": []}
    alone = check.status == "not_in_files"
    return {
        "sent": [m.as_dict() for m in recorded.messages or []],
        "answer": recorded.answer,
        "kept_judges": [
            {"name": judge.name, "messages": [m.as_dict() for m in judge.messages]}
            for judge in recorded.judges
        ]
        if alone
        else [],
        "requests": [json.dumps(request, indent=2, ensure_ascii=False) for request in recorded.requests]
        if alone
        else [],
    }


def page_view(result: RunCheck) -> dict:
    """The page's context for a checked run; plain data, so the queue's worker can answer it."""
    contract = result.as_contract()
    return {
        "run": {"runner": result.run.runner, "runner_version": result.run.runner_version},
        "profile": contract["profile"],
        "summary": contract["summary"],
        "notes": contract["notes"],
        "errors": contract["errors"],
        "cases": [_case(number, check) for number, check in enumerate(result.cases, 1)],
        "differs": result.differs,
    }


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
