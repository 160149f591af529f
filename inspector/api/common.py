"""Helpers both routers share: looking bundles up, reading settings, building page links."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse

from inspector.bundles import loading
from inspector.cases import addresses, finding
from inspector.core import serialize
from inspector.core.model import InputError, RenderedCase, RenderedDocument
from inspector.core.options import RenderOptions
from inspector.core.render_settings import SETTING_NAMES
from inspector.rendering import query_settings, stored_renders

from .schemas import ErrorOut

# Stored ids are secrets.token_urlsafe; anything else cannot exist, and some databases refuse
# characters like NUL in a query, so such ids stop here as a plain 404.
E400 = {400: ErrorOut}
E404 = {404: ErrorOut}
E422 = {422: ErrorOut}
E413 = {413: ErrorOut}


def get_bundle(bundle_id: str) -> loading.LoadedBundle:
    loaded = loading.load_bundle(bundle_id)
    if loaded is None:
        raise Http404("no bundle with this id")
    return loaded


def render_options(query) -> RenderOptions:
    """The page's settings from a RenderQuery, through the same parser the page uses."""
    return query_settings.parse_render_options(
        {name: value for name in SETTING_NAMES if (value := getattr(query, name, None)) is not None}
    )


def export_params(query) -> Mapping[str, str]:
    return {
        name: str(value)
        for name in ("model", "max_output_tokens", "temperature")
        if (value := getattr(query, name, None)) is not None
    }


absolute = addresses.absolute_url


def bundle_url(request: HttpRequest, bundle_id: str) -> str:
    return absolute(request, reverse("bundle", kwargs={"bundle_id": bundle_id}))


def manage_url(request: HttpRequest, bundle_id: str, token: str) -> str:
    from inspector.views import manage_link

    return absolute(request, manage_link(bundle_id, token))


def case_url(request: HttpRequest, bundle_id: str, document: str, case_id: str) -> str:
    return absolute(request, addresses.case_url(bundle_id, document, case_id))


def case_urls(request: HttpRequest, bundle_id: str, document: str) -> Callable[[str], str]:
    """case_url for the cases of one document, the site's root found once: build_absolute_uri
    parsed and re-quoted each of a 14,000-case upload's links (0.5 s). A path from
    addresses.case_url is already quoted, so it only needs the root in front; one with dot
    segments (which the request's URL would resolve) still goes the long way."""
    root = absolute(request, "/")[:-1]

    def url(case_id: str) -> str:
        path = addresses.case_url(bundle_id, document, case_id)
        if path.startswith("/") and not path.startswith("//") and "/." not in path:
            return root + path
        return absolute(request, path)

    return url


def case_summary(case: RenderedCase, url: str) -> dict:
    return {
        "id": case.id,
        "url": url,
        "message_count": len(case.sent_messages),
        "omitted_count": len(case.omitted_messages),
        "warning_count": len(case.warnings),
        "skipped": case.skipped,
    }


def document_summaries(
    request, loaded: loading.LoadedBundle, options: RenderOptions, paths: tuple[str, ...] | None = None
) -> list[dict]:
    """Each document with its cases; a document that cannot be rendered carries its error."""
    bundle_id = loaded.record.pk
    result: list[dict[str, Any]] = []
    for path in paths if paths is not None else loaded.documents:
        try:
            document = stored_renders.render(loaded, path, options)
        except InputError as exc:
            item = exc.diagnostic
            result.append(
                {
                    "path": path,
                    "kind": None,
                    "cases": [],
                    "warnings": [],
                    "error": {
                        "detail": item.message,
                        "file": item.path,
                        "line": item.line,
                        "likely_start_line": item.likely_start,
                    },
                }
            )
            continue
        url = case_urls(request, bundle_id, path)
        result.append(
            {
                "path": path,
                "kind": document.kind,
                "profile": document.profile,
                "profile_reason": document.profile_reason,
                "cases": [case_summary(case, url(case.id)) for case in document.cases],
                "warnings": [serialize.diagnostic(item) for item in document.warnings],
                "error": None,
                "conversions": document.conversions,
            }
        )
    return result


def pick_document(loaded: loading.LoadedBundle, document: str | None) -> str:
    """The document a whole-document request (batch) reads: the named one or the only one."""
    if document is not None:
        if not loaded.files.exists(document):
            raise Http404(f"no file {document!r} in this bundle")
        return document
    if len(loaded.documents) == 1:
        return loaded.documents[0]
    if not loaded.documents:
        raise Http404("this bundle holds no eval file or deck")
    raise query_settings.SettingsError(
        f"this bundle holds {len(loaded.documents)} documents; pick one "
        f"with document= (one of {', '.join(loaded.documents[:20])})"
    )


def find_case(
    loaded: loading.LoadedBundle, case_id: str, document: str | None, options: RenderOptions
) -> tuple[str, RenderedDocument, RenderedCase]:
    """The case with this id; an id that is not found as written is tried ~XX-decoded, as the
    pages write ids that hold a slash (a~2Fb for a/b)."""
    try:
        return _find_case(loaded, case_id, document, options)
    except Http404:
        decoded = addresses.decode_case_id(case_id) if "~" in case_id else None
        if decoded is None or decoded == case_id:
            raise
        return _find_case(loaded, decoded, document, options)


def _find_case(
    loaded: loading.LoadedBundle, case_id: str, document: str | None, options: RenderOptions
) -> tuple[str, RenderedDocument, RenderedCase]:
    if document is not None:
        path = pick_document(loaded, document)
        rendered = stored_renders.render(loaded, path, options)
        case = finding.find_case(rendered, case_id)
        if case is None:
            raise Http404(f"no case {case_id!r} in {path}")
        return path, rendered, case
    first_error: InputError | None = None
    for path in loaded.documents:
        try:
            rendered = stored_renders.render(loaded, path, options)
        except InputError as exc:
            first_error = first_error or exc
            continue
        case = finding.find_case(rendered, case_id)
        if case is not None:
            return path, rendered, case
    if first_error is not None and len(loaded.documents) == 1:
        # The only document is broken: its error says more than "not found".
        raise first_error
    raise Http404(f"no case {case_id!r} in this bundle")


# ---------------------------------------------------------------------------------------------
# Cross-site writes

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CROSS_SITE_FETCH = frozenset({"cross-site", "same-site"})


def writes_from_this_site(*, multipart: bool = False) -> Callable:
    """A router decorator (mode "view") that refuses a write a page of another site, or of another
    port of this host, could make a browser send: one whose Origin is neither this site nor in
    CSRF_TRUSTED_ORIGINS (browsers send Origin with every cross-origin POST, form or fetch), and
    one whose body is not JSON (text/plain and form bodies need no CORS preflight; JSON does). A
    script sends no Origin and passes. `multipart`: the upload also takes multipart/form-data,
    which a cross-site form can send, so there only the Origin check stands between."""

    def decorator(run: Callable) -> Callable:
        @wraps(run)
        def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method in WRITE_METHODS:
                refusal = cross_site_refusal(request, multipart=multipart)
                if refusal is not None:
                    return refusal
            return run(request, *args, **kwargs)

        return checked

    return decorator


def cross_site_refusal(request: HttpRequest, *, multipart: bool) -> HttpResponse | None:
    origin = request.META.get("HTTP_ORIGIN")
    if origin is not None and not trusted_origin(request, origin):
        return _refusal(
            403,
            f"a write from another site ({origin[:100]}) is refused: the API "
            "takes writes from this site's pages and from scripts (which send no Origin)",
        )
    if origin is None and request.META.get("HTTP_SEC_FETCH_SITE") in CROSS_SITE_FETCH:
        return _refusal(403, "a write from another site is refused")
    has_body = (
        request.META.get("CONTENT_LENGTH") not in (None, "", "0") or "HTTP_TRANSFER_ENCODING" in request.META
    )  # chunked: a body of no stated length
    content_type = request.content_type or ""
    allowed = ("application/json", "multipart/form-data") if multipart else ("application/json",)
    if has_body and content_type not in allowed:
        return _refusal(415, f"send the body as {' or '.join(allowed)}, not {content_type or 'untyped'}")
    return None


def trusted_origin(request: HttpRequest, origin: str) -> bool:
    """This site's own origin, or one CSRF_TRUSTED_ORIGINS names (`https://*.example.com` included,
    as Django's CSRF check reads it)."""
    try:
        own = f"{request.scheme}://{request.get_host()}"
    except Exception:  # noqa: BLE001 - a Host outside ALLOWED_HOSTS: nothing is this site
        own = None
    if origin == own:
        return True
    parts = urlsplit(origin)
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        if trusted == origin:
            return True
        if "*" in trusted:
            scheme, _, host = trusted.partition("://*")
            if parts.scheme == scheme and parts.netloc.endswith(host):
                return True
    return False


def _refusal(status: int, detail: str) -> HttpResponse:
    return JsonResponse({"detail": detail, "file": None, "line": None}, status=status)
