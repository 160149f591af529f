"""Django's error handlers and the health check."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from .common import error_page


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_page(request, 400, "Bad request", "The request could not be understood.")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    # Only our own messages are shown: the URL resolver's Http404 carries the URL table.
    message = ""
    if isinstance(exception, Http404) and exception.args and isinstance(exception.args[0], str):
        message = exception.args[0]
    return error_page(request, 404, "Not found", message or "There is nothing at this address.")


def server_error(request: HttpRequest) -> HttpResponse:
    return error_page(
        request, 500, "Something went wrong", "The server failed to show this page. Reload to try again."
    )


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers, and the floor in benchmarks/bench_web.py."""
    return HttpResponse("ok", content_type="text/plain")
