"""Readiness: whether this app server can answer pages now, for a load balancer or an orchestrator
deciding where to send requests (/healthz only says the process answers)."""

from __future__ import annotations

import logging
import secrets

from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from inspector.bundles import blobstore

logger = logging.getLogger(__name__)


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _shared_cache() -> None:
    store = caches["renders"]
    probe = f"readyz:{secrets.token_hex(8)}"
    store.set(probe, b"1", 10)
    if store.get(probe) != b"1":
        raise RuntimeError("a value written was not read back")
    store.delete(probe)


def _file_storage() -> None:
    blobstore.check()


CHECKS = {"database": _database, "shared cache": _shared_cache, "file storage": _file_storage}


@require_GET
@never_cache
def readyz(request: HttpRequest) -> HttpResponse:  # noqa: ARG001 - a view's signature
    """200 when the database, the shared cache and the file storage all answer; else 503 naming the
    ones that did not (the reasons go to the log: they may hold addresses and names)."""
    failed = []
    for name, check in CHECKS.items():
        try:
            check()
        except Exception:  # noqa: BLE001 - any failure means not ready
            logger.exception("readiness: the %s does not answer", name)
            failed.append(name)
    if failed:
        return HttpResponse("not ready: " + ", ".join(failed) + "\n", status=503, content_type="text/plain")
    return HttpResponse("ready\n", content_type="text/plain")
