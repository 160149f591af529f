"""A checked run as the run page shows it: plain data, so the queue's worker can keep it for the
page that polls."""

from __future__ import annotations

import json

from inspector.core.diff import MessageDiff
from inspector.core.runs.compare import CaseCheck, RunCheck

STATUS_LABELS = {
    "same": "same",
    "differs": "differs",
    "not_in_run": "not in the run",
    "not_in_files": "not in the files",
}


def message_sides(diffs: list[MessageDiff]) -> list[dict]:
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
        "number": number,
        "id": check.id,
        "status": check.status,
        "label": STATUS_LABELS[check.status],
        "eval_path": check.eval_path,
        "note": check.note,
        "messages": message_sides(check.messages),
        "cause": [f"{line.path}:{line.line}" for line in check.cause],
        "graders": [
            {
                "anchor": f"{anchor}-judge-{position}",
                "name": grader.name,
                "status": grader.status,
                "label": STATUS_LABELS[grader.status],
                "with_answer": grader.with_answer,
                "messages": message_sides(grader.messages),
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
