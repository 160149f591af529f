"""What the queue says of a task, the same way for every kind of queued work: waiting, running,
failed, refused (the task answered with its reason), or done with its answer."""

from __future__ import annotations

from typing import Any

from django_tasks.base import TaskResultStatus
from django_tasks.exceptions import TaskResultDoesNotExist


def task_state(task: Any, result_id: str, failed: str) -> tuple[str, dict, str] | None:
    """(state, answer, detail) of one queued task's result, None for an unknown id. The state is
    queued, running, failed (`failed` its detail), refused (the task's reason) or done."""
    try:
        result = task.get_result(result_id)
    except (TaskResultDoesNotExist, ValueError):  # ValueError: not even a UUID
        return None
    if result.status == TaskResultStatus.READY:
        return "queued", {}, ""
    if result.status == TaskResultStatus.RUNNING:
        return "running", {}, ""
    if result.status == TaskResultStatus.FAILED:
        return "failed", {}, failed
    answer = result.return_value or {}
    if "refused" in answer:
        return "refused", answer, answer["refused"]
    return "done", answer, ""
