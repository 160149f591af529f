"""The bundle page, a file's source, batch files and converted files."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from inspector import presenters, services
from inspector.core.export import batch_jsonl
from inspector.core.model import InputError, RenderedCase
from inspector.core.options import RenderOptions

from .case import source_pane
from .common import HtmxHttpRequest, batch_url, error_page, loaded_or_404, settings_or_problem


@require_GET
def bundle_page(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    loaded = loaded_or_404(bundle_id)
    page = settings_or_problem(request.GET)
    sections = []
    for document in loaded.documents:
        try:
            rendered = services.render(loaded, document, page.options)
        except InputError as problem:
            sections.append(presenters.DocumentSection(document, "", [], str(problem), []))
            continue
        rows = [presenters.case_row(bundle_id, document, case, page.query) for case in rendered.cases]
        conversions = [(name, reverse("converted", kwargs={"bundle_id": bundle_id, "document": document})
                        + "?" + urlencode({"name": name})) for name in rendered.conversions]
        sections.append(presenters.DocumentSection(
            document, rendered.kind, rows, None, [w.located() for w in rendered.warnings],
            conversions, rendered.profile, rendered.profile_reason))
    for section in sections:
        section.anchor = presenters.document_anchor(section.path)
        section.batch_url = batch_url(bundle_id, section.path, page)
    return render(request, "bundle.html", {
        "bundle": loaded.record,
        "tree": presenters.file_tree(bundle_id, loaded.files.paths(), loaded.documents),
        "sections": sections,
        "case_count": sum(len(s.cases) for s in sections),
        "batch_url": batch_url(bundle_id, None, page),
        "share_url": services.absolute_url(request, request.get_full_path()),
        "revisions": list(loaded.record.revisions.order_by("created")[:20]),
    })


@require_GET
def source(request: HtmxHttpRequest, bundle_id: str, path: str) -> HttpResponse:
    loaded = loaded_or_404(bundle_id)
    pane = source_pane(loaded, path, presenters.parse_line_range(request.GET.get("hl")),
                        whole=request.GET.get("all") == "1")
    context = {"bundle": loaded.record, "source": pane,
               "bundle_url": reverse("bundle", kwargs={"bundle_id": bundle_id})}
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
            cases.extend(services.render(loaded, path, page.options).cases)
        except InputError as problem:
            if document:
                return error_page(request, 400, "This file cannot be rendered", str(problem))
    if not cases:
        return error_page(request, 400, "Nothing to export", "No file in this bundle has cases.")
    body = batch_jsonl(cases, page.provider, page.export)
    stem = presenters.file_stem(document or loaded.record.title or "bundle")
    response = HttpResponse(body, content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(
        True, f"{stem}.{page.provider}.batch.jsonl") or ""
    return response


@require_GET
def converted(request: HtmxHttpRequest, bundle_id: str, document: str) -> HttpResponse:
    """A file the loader converted for the user, e.g. a legacy deck in the messages format."""
    loaded = loaded_or_404(bundle_id)
    if document not in loaded.documents:
        raise Http404("No such file in this bundle.")
    try:
        rendered = services.render(loaded, document, RenderOptions())
    except InputError as problem:
        return error_page(request, 400, "This file cannot be rendered", str(problem))
    name = request.GET.get("name", "")
    text = rendered.conversions.get(name)
    if text is None:
        raise Http404("This file has no converted form by that name.")
    response = HttpResponse(text, content_type="application/toml; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, name) or ""
    return response
