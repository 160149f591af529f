"""The JSON API for scripts and CI (django-ninja): a thin layer over the same functions
the pages use (bundles/, rendering/, cases/). Every error is JSON `{"detail", "file", "line"}`; the
docs at /api/docs are served from ninja's own static files, so they work offline and under the
app's strict CSP."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFilesSent,
)
from django.http import Http404, HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from ninja import NinjaAPI
from ninja.errors import HttpError, ValidationError

from inspector.bundles.ingest import UnreadableUpload, UploadError
from inspector.core.model import InputError
from inspector.rendering.query_settings import SettingsError
from inspector.review.service import ReviewError

from .bundles import router as bundles_router
from .diff import router as diff_router
from .ledger import router as ledger_router
from .render import router as render_router
from .review import router as review_router
from .runs import router as runs_router
from .uploads import router as uploads_router

log = logging.getLogger(__name__)

# Answers the HTTP server gives before the app sees the request (gunicorn's defaults, as the README
# runs it), so they are not JSON; listed for every operation so the schema holds every answer.
SERVER_RESPONSES = {
    414: {
        "description": "The URL is too long for the server (gunicorn: a request line over "
        "4094 bytes). Answered by the server, as HTML. Send long settings, such "
        "as a system prompt, in the body of POST /api/render.",
        "content": {"text/html": {"schema": {"type": "string"}}},
    },
    431: {
        "description": "A header is too large for the server (gunicorn: over 8190 bytes). "
        "Answered by the server, as HTML.",
        "content": {"text/html": {"schema": {"type": "string"}}},
    },
}


# Answers of api.common.writes_from_this_site, before the operation runs: every write that stores.
_ERROR_JSON = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
GUARDED_WRITE_RESPONSES = {
    403: {
        "description": "A write from another site: an Origin that is neither this site nor in "
        "CSRF_TRUSTED_ORIGINS (or a wrong token).",
        "content": _ERROR_JSON,
    },
    415: {
        "description": "The body is not application/json (the upload: nor multipart/form-data).",
        "content": _ERROR_JSON,
    },
}
GUARDED_PREFIXES = ("/api/bundles", "/api/runs")
WRITES = ("post", "put", "patch", "delete")


class InspectorAPI(NinjaAPI):
    def get_openapi_schema(self, **kwargs):
        schema = super().get_openapi_schema(**kwargs)
        for path, operations in schema["paths"].items():
            for method, operation in operations.items():
                for status, answer in SERVER_RESPONSES.items():
                    operation["responses"].setdefault(status, answer)
                if path.startswith(GUARDED_PREFIXES) and method in WRITES:
                    for status, answer in GUARDED_WRITE_RESPONSES.items():
                        operation["responses"].setdefault(status, answer)
        return schema


api = InspectorAPI(
    title="Prompt Inspector API",
    version="1",
    urls_namespace="api",
    description="Render agentv eval files and sample decks into the exact messages a model receives, "
    "export provider requests and create share links. Errors are JSON: "
    '`{"detail": message, "file": path, "line": number}` (file and line where they apply).',
)
api.add_router("/bundles", bundles_router)
api.add_router("/bundles", ledger_router)
api.add_router("/render", render_router)
api.add_router("/bundles", review_router)
api.add_router("/diff", diff_router)
api.add_router("/runs", runs_router)
api.add_router("/uploads", uploads_router)


def error(
    request: HttpRequest, status: int, detail: str, file: str | None = None, line: int | None = None, **extra
) -> HttpResponse:
    return api.create_response(
        request, {"detail": detail, "file": file, "line": line, **extra}, status=status
    )


# Limit messages from ingest.collect_files that mean "too large" rather than "malformed".
_TOO_LARGE = ("is larger than", "unpacks to more than", "too many files")


@api.exception_handler(UploadError)
def upload_error(request, exc: UploadError):
    if isinstance(exc, UnreadableUpload):
        return error(request, 422, exc.message, exc.path, exc.line)
    status = 413 if any(phrase in exc.message for phrase in _TOO_LARGE) else 400
    return error(request, status, exc.message, exc.path)


@api.exception_handler(InputError)
def input_error(request, exc: InputError):
    item = exc.diagnostic
    if item.likely_start is not None:
        return error(request, 422, item.message, item.path, item.line, likely_start_line=item.likely_start)
    return error(request, 422, item.message, item.path, item.line)


@api.exception_handler(ReviewError)
def review_error(request, exc: ReviewError):
    return error(request, exc.status, str(exc))


@api.exception_handler(SettingsError)
def settings_error(request, exc: SettingsError):
    return error(request, 400, str(exc))


@api.exception_handler(ValidationError)
def validation_error(request, exc: ValidationError):
    problems = []
    for item in exc.errors:
        where = ".".join(str(part) for part in item.get("loc", ()))
        problems.append(f"{where}: {item.get('msg', 'invalid')}" if where else item.get("msg", "invalid"))
    errors = [
        {
            "loc": [str(part) for part in item.get("loc", ())],
            "msg": str(item.get("msg", "")),
            "type": str(item.get("type", "")),
        }
        for item in exc.errors
    ]
    return error(request, 422, "; ".join(problems) or "the request does not match the schema", errors=errors)


@api.exception_handler(Http404)
def not_found(request, exc: Http404):
    return error(request, 404, str(exc) or "not found")


@api.exception_handler(HttpError)
def http_error(request, exc: HttpError):
    return error(request, exc.status_code, str(exc))


@api.exception_handler(RequestDataTooBig)
def too_big(request, exc: RequestDataTooBig):
    return error(request, 413, "the request body is too large")


@api.exception_handler(TooManyFilesSent)
def too_many_files(request, exc: TooManyFilesSent):
    return error(request, 413, f"too many files: at most {settings.MAX_BUNDLE_FILES} per bundle")


@api.exception_handler(SuspiciousOperation)
def suspicious(request, exc: SuspiciousOperation):
    # Django raises these for malformed or abusive requests (too many fields or files, bad paths).
    log.warning("rejected API request: %s", exc)
    return error(request, 400, str(exc) or "the request was rejected")


@api.exception_handler(MultiPartParserError)
def bad_multipart(request, exc: MultiPartParserError):
    return error(request, 400, f"malformed multipart body: {exc}")


@api.exception_handler(BadRequest)
def bad_request(request, exc: BadRequest):
    return error(request, 400, str(exc) or "bad request")


__all__ = ["api"]
