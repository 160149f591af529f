"""The run page: upload a run (and, optionally, the project it is compared with) and see it as a
bundle of cases, each with its status, the messages' differences side by side as the diff page
shows them, the source lines that caused them and each judge prompt's status. Nothing is stored:
the answer is built from the upload."""

from __future__ import annotations

import json

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from inspector.bundles.ingest import UploadError, refuse_oversized
from inspector.core.diff import MessageDiff
from inspector.core.options import PROFILES
from inspector.core.runs.compare import CaseCheck, RunCheck
from inspector.local import served_folder
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


def _view(result: RunCheck) -> dict:
    contract = result.as_contract()
    return {
        "run": result.run,
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


def _checked(request: HtmxHttpRequest) -> RunCheck | None:
    """The run the request names: an upload (POST) or, in local mode, a run folder of the served
    folder (?run=), checked against the served folder's files now."""
    profile = request.POST.get("profile") or request.GET.get("profile") or None
    if request.method == "POST":
        return check_upload(_uploads(request, "run"), _uploads(request, "files"), profile)
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
        result = _checked(request)
    except (RunError, UploadError, SettingsError) as problem:
        context["problem"] = str(problem)
        return render(request, "runs/run.html", context, status=400)
    if result is not None:
        context.update(_view(result))
    return render(request, "runs/run.html", context)
