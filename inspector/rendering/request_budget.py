"""One budget per request for the work it hands the bounded worker (renders, the listing of an
upload's documents, highlighting): every call shares it, so a request's documents one after another
cannot run past the server's own timeout, and a request past it answers with a message (the pages'
"busy, try again", the API's 422), never a worker killed by gunicorn."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from inspector.core import bounded


class RequestBudgetMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with bounded.budget(settings.REQUEST_BUDGET_SECONDS):
            return self.get_response(request)
