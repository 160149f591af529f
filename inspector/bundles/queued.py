"""What the queue says of a task, the same way for every kind of queued work: waiting, running,
failed, refused (the task answered with its reason), or done with its answer.

One queue, two backends, chosen by settings.TASKS: django-rq on Redis when there is one, else
django-tasks' database backend. The queued kinds enqueue through django-tasks and read their state
here, never knowing which backend runs them.

A worker killed in the middle of a task (SIGKILL, its machine gone) leaves the task "running" in
either backend: the database backend never looks again, rq only at a worker's next maintenance,
minutes later. So while a task runs, its worker renews a lease in the database (shared by every
server and worker, whichever backend runs) every third of QUEUE_LEASE_SECONDS, and a running task
whose lease has run out is reported failed. What the task had begun is not half-saved: a bundle is
stored in one transaction, and files it had staged are left to `manage.py sweep`."""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django.dispatch import receiver
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks.exceptions import TaskResultDoesNotExist
from django_tasks.signals import task_finished, task_started

from inspector.models import TaskLease

logger = logging.getLogger(__name__)

# The tasks this process runs now, each with its lease renewer: the event stops it.
_renewers: dict[str, tuple[threading.Event, threading.Thread]] = {}

_WAITING = {TaskResultStatus.READY: "queued", TaskResultStatus.RUNNING: "running"}


def task_state(task: Any, result_id: str, failed: str) -> tuple[str, dict, str] | None:
    """(state, answer, detail) of one queued task's result, None for an unknown id. The state is
    queued, running, failed (`failed` its detail), refused (the task's reason) or done."""
    try:
        result = task.get_result(result_id)
    except (TaskResultDoesNotExist, ValueError):  # ValueError: not even a UUID
        return None
    if result.status == TaskResultStatus.FAILED or _abandoned(result):
        return "failed", {}, failed
    if result.status in _WAITING:
        return _WAITING[result.status], {}, ""
    answer = result.return_value or {}
    if "refused" in answer:
        return "refused", answer, answer["refused"]
    return "done", answer, ""


def _abandoned(result: Any) -> bool:
    """A running task whose worker has not renewed its lease in time (nor started it in time,
    before the first renewal)."""
    if result.status != TaskResultStatus.RUNNING:
        return False
    renewed = TaskLease.objects.filter(task_id=str(result.id)).values_list("renewed_at", flat=True).first()
    heard: list[datetime] = [moment for moment in (renewed, result.started_at) if moment is not None]
    if not heard:
        return False
    return timezone.now() - max(heard) > timedelta(seconds=settings.QUEUE_LEASE_SECONDS)


def _renew(task_id: str, stop: threading.Event) -> None:
    try:
        while not stop.wait(settings.QUEUE_LEASE_SECONDS / 3):
            try:
                TaskLease.objects.update_or_create(task_id=task_id, defaults={"renewed_at": timezone.now()})
            except DatabaseError:
                # A renewal missed is not the task's failure; the next one may get through.
                logger.warning("could not renew the lease of task %s", task_id, exc_info=True)
    finally:
        connections.close_all()  # this thread's own connections


@receiver(task_started, dispatch_uid="inspector.queued.lease")
def _take_lease(sender: Any, task_result: Any, **kwargs: Any) -> None:  # noqa: ARG001 - a receiver's signature
    stop = threading.Event()
    renewer = threading.Thread(target=_renew, args=(str(task_result.id), stop), daemon=True)
    _renewers[str(task_result.id)] = (stop, renewer)
    renewer.start()


@receiver(task_finished, dispatch_uid="inspector.queued.lease-end")
def _end_lease(sender: Any, task_result: Any, **kwargs: Any) -> None:  # noqa: ARG001 - a receiver's signature
    task_id = str(task_result.id)
    running = _renewers.pop(task_id, None)
    if running is not None:
        stop, renewer = running
        stop.set()
        renewer.join(10)  # so that no renewal lands after the lease is gone
    TaskLease.objects.filter(task_id=task_id).delete()
