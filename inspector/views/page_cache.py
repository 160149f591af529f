"""Pages of a bundle are pure functions of (bundle, address, settings): a bundle never changes
once stored. So a page is built once, kept in the shared render cache, and answered from there —
with a strong ETag, so a browser's repeat visit is a 304 that builds nothing.

What varies per visitor is kept out of the cached bytes: the CSRF token is rendered as a
placeholder, the page is kept cut at each, and the pieces are joined with the visitor's own token
per request (and the cookie set with it); the host and htmx's headers are part of the key. What a
bundle gains after it is stored (revisions) is part of the key through `loading.page_state`, and
so are verdicts for a page filtered by them.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from functools import wraps
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified, QueryDict
from django.middleware.csrf import get_token
from django.utils.cache import patch_vary_headers

from inspector.bundles import loading
from inspector.cases.addresses import parse_line_range
from inspector.core import bounded
from inspector.rendering import cache as render_cache
from inspector.rendering.query_settings import SettingsError

from .common import EXPORT_KEYS, RENDER_KEYS, page_settings

# The bundle page's filter by verdict: the one parameter that makes a page show review state.
VERDICT_FILTER = "verdict"
# Random per process, so no uploaded text can hold it: a kept page is cut at every occurrence, and
# a fixed string in a file would have been replaced by each visitor's token. A page is cut in the
# process that built it, so no other process needs to know it.
CSRF_PLACEHOLDER = f"csrf-{secrets.token_hex(16)}"
# What the shared pages read besides the settings (the case page's all_messages, the line note's
# path and line, the message chunks' from, the bundle page's filter, sort and paging, the ledger's
# sort, the source page's lines and whole file). Any other parameter (?utm_source=...) changes
# nothing on a page, so it is dropped before the key is made and before the view runs: it can
# neither build a page again nor end up in one.
PAGE_PARAMETERS = frozenset(
    {
        "all_messages",
        "path",
        "line",
        "from",
        "q",
        "doc",
        "offset",
        "sort",
        VERDICT_FILTER,
        "ledger_sort",
        "hl",
        "all",
    }
)
SETTINGS_PARAMETERS = frozenset(RENDER_KEYS + EXPORT_KEYS)
KEPT_HEADERS = ("Content-Type", "HX-Push-Url")
# Browsers revalidate every time (a deleted bundle must stop showing); a match costs no rendering.
CACHE_CONTROL = "private, no-cache"


def cacheable_csrf(request: HttpRequest) -> dict:
    """Context processor: while a page is built for the cache, {% csrf_token %} writes the
    placeholder instead of this visitor's token."""
    return {"csrf_token": CSRF_PLACEHOLDER} if getattr(request, "building_shared_page", False) else {}


def _page_query(request: HttpRequest) -> str:
    """The query string as the page reads it: its own parameters, and the settings as the settings
    parser keeps them (defaults and empty values left out), in one order."""
    own = sorted(
        (key, value)
        for key, values in request.GET.lists()
        if key in PAGE_PARAMETERS
        for value in values
        if key != "hl"
    )
    lines = parse_line_range(request.GET.get("hl"))
    if lines is not None:  # as the source page reads it: anything else marks no line
        own.append(("hl", f"{lines[0]}-{lines[1]}"))
    given: dict[str, str] = {
        key: str(value) for key, value in request.GET.items() if key in SETTINGS_PARAMETERS
    }
    try:
        chosen = page_settings(given).params
    except SettingsError:
        chosen = given  # the view answers its own 400, which is not kept
    return urlencode(sorted(own + list(chosen.items())))


def _only_page_parameters(request: HttpRequest) -> None:
    query = _page_query(request)
    request.GET = QueryDict(query)
    request.META["QUERY_STRING"] = query


def _key(request: HttpRequest, loaded: loading.LoadedBundle) -> str:
    query = request.GET.urlencode()
    # Verdicts go into the key only of pages filtered by one, not of every page: a review writes a
    # verdict every few seconds, and each would otherwise drop every cached page of the bundle (each
    # case under each settings) just while reviewers read it most. An unfiltered page holds no review
    # state (its badges come from the progress panel loaded after it), so its key need not change.
    verdicts = bool(request.GET.get(VERDICT_FILTER))
    return render_cache.key(
        "page",
        loaded.cache_id,
        loading.page_state(loaded, verdicts=verdicts),
        request.path,
        query,
        request.headers.get("HX-Request"),
        request.headers.get("HX-Target"),
        request.get_host(),
        request.scheme,
    )


def shared_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """For GET views taking `bundle_id`: answer from the cache, or build and keep a 200 answer
    (unless the view set `request.page_is_transient`: it showed a "busy, try again"; or a bounded
    call was refused as busy meanwhile, e.g. a source pane shown plain for want of time)."""

    @wraps(view)
    def wrapper(request: HttpRequest, bundle_id: str, *args, **kwargs) -> HttpResponse:
        loaded = loading.load_bundle(bundle_id)
        if loaded is None or request.method != "GET":
            return view(request, bundle_id, *args, **kwargs)  # its own 404, 405
        _only_page_parameters(request)
        key = _key(request, loaded)
        etag = f'"{hashlib.sha256(key.encode()).hexdigest()[:32]}"'
        if etag in request.headers.get("If-None-Match", ""):
            return _finish(HttpResponseNotModified(), etag)
        kept = render_cache.get_page(key)
        if kept is None:
            request.building_shared_page = True  # type: ignore[attr-defined]
            try:
                with loading.page_loaded(loaded):  # the view's load_bundle: no second query
                    response = view(request, bundle_id, *args, **kwargs)
            finally:
                request.building_shared_page = False  # type: ignore[attr-defined]
            if (
                response.status_code != 200
                or response.streaming
                or getattr(request, "page_is_transient", False)
                or bounded.was_busy()
            ):
                return _with_token(request, response)
            # Cut once here, joined per answer: a join is one copy, where finding and replacing
            # the placeholders in 150 KiB took 27 us a request.
            kept = (
                tuple(response.content.split(CSRF_PLACEHOLDER.encode())),
                {name: response[name] for name in KEPT_HEADERS if response.has_header(name)},
            )
            render_cache.put_page(key, kept)
        pieces, headers = kept
        answer = HttpResponse(pieces[0] if len(pieces) == 1 else get_token(request).encode().join(pieces))
        for name, value in headers.items():
            answer[name] = value
        return _finish(answer, etag)

    return wrapper


def _with_token(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """A page answered without being kept: its placeholders replaced by the visitor's token."""
    placeholder = CSRF_PLACEHOLDER.encode()
    if not response.streaming and placeholder in response.content:
        response.content = response.content.replace(placeholder, get_token(request).encode())
    return response


def _finish(response: HttpResponse, etag: str) -> HttpResponse:
    response["ETag"] = etag
    response["Cache-Control"] = CACHE_CONTROL
    patch_vary_headers(response, ("HX-Request", "HX-Target", "Cookie"))
    return response
