"""The bundle page, a file's source, batch files and converted files."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from inspector.bundles import loading
from inspector.cases import addresses, bundle_rows, files_panel
from inspector.core import bounded, readers
from inspector.core.export import batch_jsonl
from inspector.core.model import InputError, RenderedCase
from inspector.core.options import RenderOptions
from inspector.ledgers import panels
from inspector.rendering import document_views, stored_renders
from inspector.review import service

from .case import source_pane
from .common import HtmxHttpRequest, batch_url, error_page, loaded_or_404, settings_or_problem
from .page_cache import VERDICT_FILTER, shared_page

# Past this many cases a document's rows come in pages, and the filter searches on the server.
PAGE_ROWS = 200
MAX_FILTER_CHARS = 200


def _page_start(request: HtmxHttpRequest, document: str) -> int:
    if request.GET.get("doc") != document:
        return 0
    raw = request.GET.get("offset", "")
    return int(raw) if raw.isdigit() and len(raw) < 9 else 0


def _paged_url(request: HtmxHttpRequest, document: str, start: int, anchor: str) -> str:
    params = request.GET.copy()
    params["doc"] = document
    params["offset"] = str(start)
    return f"?{params.urlencode()}#{anchor}"


def _section(
    request: HtmxHttpRequest,
    loaded: loading.LoadedBundle,
    document: str,
    outline: document_views.Outline | InputError,
    page,
    words: list[str],
    verdict: str,
    reader: str | None,
) -> bundle_rows.DocumentSection:
    bundle_id = loaded.record.pk
    anchor = files_panel.document_anchor(document)
    if isinstance(outline, InputError):
        if isinstance(outline, bounded.Busy):
            request.page_is_transient = True  # type: ignore[attr-defined]
        return bundle_rows.DocumentSection(document, "", [], str(outline), [], anchor=anchor, read_by=reader)
    matching = [row for row in outline.rows if row.matches(words)] if words else list(outline.rows)
    if verdict:
        found = service.verdicts_of(loaded, document, page.options)
        matching = [row for row in matching if found.get(row.id, "none") == verdict]
    sort = request.GET.get("sort", "")
    if sort in bundle_rows.ROW_SORTS:
        matching.sort(key=bundle_rows.ROW_SORTS[sort])  # stable: ties keep the file's order
    else:
        sort = ""
    start = min(_page_start(request, document), max(0, len(matching) - 1))
    start -= start % PAGE_ROWS
    shown = matching[start : start + PAGE_ROWS]
    conversions = [
        (
            name,
            reverse("converted", kwargs={"bundle_id": bundle_id, "document": document})
            + "?"
            + urlencode({"name": name}),
        )
        for name in outline.conversions
    ]
    rows = [bundle_rows.case_row(bundle_id, document, row, page.query) for row in shown]
    return bundle_rows.DocumentSection(
        document,
        outline.kind,
        rows,
        None,
        list(outline.warnings),
        conversions,
        outline.profile,
        outline.profile_reason,
        anchor=anchor,
        batch_url=batch_url(bundle_id, document, page),
        total=len(outline.rows),
        matching=len(matching),
        first=start + 1 if shown else 0,
        last=start + len(shown),
        previous_url=_paged_url(request, document, start - PAGE_ROWS, anchor) if start else None,
        next_url=(
            _paged_url(request, document, start + PAGE_ROWS, anchor)
            if start + PAGE_ROWS < len(matching)
            else None
        ),
        sort=sort,
        sort_urls=_sort_urls(request, anchor),
        matrix=bundle_rows.matrix_of(rows),
        read_by=reader,
    )


def _sort_urls(request: HtmxHttpRequest, anchor: str) -> dict[str, str]:
    """Links re-sorting the tables, each from its first page ("" is the file's order); they keep the
    filters."""
    urls = {}
    for name in ("", *bundle_rows.ROW_SORTS):
        params = request.GET.copy()
        for key in ("sort", "offset", "doc"):
            params.pop(key, None)
        if name:
            params["sort"] = name
        urls[name or "file"] = f"?{params.urlencode()}#{anchor}"
    return urls


def _filtered(sections: list[bundle_rows.DocumentSection]) -> list[bundle_rows.DocumentSection]:
    """While filtering, a file with no matching case is left out (its errors are not)."""
    return [section for section in sections if section.matching or section.error]


def _verdict_filter(request: HtmxHttpRequest, reviewable: bool) -> str:
    """The verdict the rows are filtered by, or "" for none."""
    # Filtering by verdict makes the page show review state: page_cache keys such pages by it.
    verdict = request.GET.get(VERDICT_FILTER, "")
    return verdict if reviewable and verdict in service.VERDICT_FILTERS else ""


@require_GET
@shared_page
def bundle_page(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    loaded = loaded_or_404(bundle_id)
    page = settings_or_problem(request.GET)
    search = request.GET.get("q", "")[:MAX_FILTER_CHARS]
    words = search.lower().split()
    reviewable = service.is_stored(loaded.record)  # a folder served read-only takes no verdicts
    verdict = _verdict_filter(request, reviewable)
    outlines = document_views.outlines(loaded, page.options)
    read = document_views.read_by(outlines)
    sections = [
        _section(request, loaded, document, outlines[document], page, words, verdict, read.get(document))
        for document in readers.reading_order(loaded.documents, read)
    ]
    # A file a suite reads is counted, and searched, in its suite's cases.
    suites = [section for section in sections if not section.read_by]
    filtering = bool(words or verdict)
    context = {
        "bundle": loaded.record,
        "tree": files_panel.file_tree(bundle_id, list(loaded.files.paths()), loaded.documents),
        "sections": _filtered(suites) if filtering else sections,
        "case_count": sum(section.matching for section in suites),
        "case_total": sum(section.total for section in suites),
        "search": search,
        "filtering": filtering,
        "verdict": verdict,
        "verdict_filters": service.VERDICT_FILTERS if reviewable else {},
        "paged": any(section.paged for section in sections),
        "batch_url": batch_url(bundle_id, None, page),
        "share_url": addresses.absolute_url(request, request.get_full_path()),
        "revisions": list(loaded.record.revisions.order_by("created")[:20]),
    }
    if request.htmx and request.htmx.target == "case-sections":
        return render(request, "bundle.html#case-sections", context)
    context["ledger_url"] = reverse("ledger-panel", kwargs={"bundle_id": bundle_id}) + (
        "?" + request.GET.urlencode() if request.GET else ""
    )
    return render(request, "bundle.html", context)


@require_GET
@shared_page
def ledger_panel(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    """The bundle's token ledger, loaded after the page: the whole suite's costs and cache map are
    computed here, so the bundle page itself paints at once."""
    loaded = loaded_or_404(bundle_id)
    page = settings_or_problem(request.GET)
    context = {"bundle": loaded.record, **panels.panel_context(loaded, page, request.GET.get("ledger_sort"))}
    return render(request, "ledger_panel.html" if request.htmx else "ledger_page.html", context)


@require_GET
@shared_page
def source(request: HtmxHttpRequest, bundle_id: str, path: str) -> HttpResponse:
    loaded = loaded_or_404(bundle_id)
    pane = source_pane(
        loaded, path, addresses.parse_line_range(request.GET.get("hl")), whole=request.GET.get("all") == "1"
    )
    context = {
        "bundle": loaded.record,
        "source": pane,
        "bundle_url": reverse("bundle", kwargs={"bundle_id": bundle_id}),
    }
    if request.htmx:
        return render(request, "source.html#source-pane", context)
    return render(request, "source.html", context)


@require_GET
def batch(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:

    loaded = loaded_or_404(bundle_id)
    page = settings_or_problem(request.GET)
    document = request.GET.get("document")
    if document is not None and document not in loaded.documents:
        raise Http404("This bundle has no such document.")
    cases: list[RenderedCase] = []
    for path in [document] if document else loaded.documents:
        try:
            cases.extend(stored_renders.render(loaded, path, page.options).cases)
        except InputError as problem:
            if document:
                return error_page(request, 400, "This file cannot be rendered", str(problem))
    if not cases:
        return error_page(request, 400, "Nothing to export", "No file in this bundle has cases.")
    body = batch_jsonl(cases, page.provider, page.export)
    stem = addresses.file_stem(document or loaded.record.title or "bundle")
    response = HttpResponse(body, content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = (
        content_disposition_header(True, f"{stem}.{page.provider}.batch.jsonl") or ""
    )
    return response


@require_GET
def converted(request: HtmxHttpRequest, bundle_id: str, document: str) -> HttpResponse:
    """A file the loader converted for the user, e.g. a legacy deck in the messages format."""
    loaded = loaded_or_404(bundle_id)
    if document not in loaded.documents:
        raise Http404("No such file in this bundle.")
    try:
        rendered = stored_renders.render(loaded, document, RenderOptions())
    except InputError as problem:
        return error_page(request, 400, "This file cannot be rendered", str(problem))
    name = request.GET.get("name", "")
    text = rendered.conversions.get(name)
    if text is None:
        raise Http404("This file has no converted form by that name.")
    response = HttpResponse(text, content_type="application/toml; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, name) or ""
    return response
