"""Review on the pages: the case page's comment panel and verdict, the bundle page's progress, and
the one POST endpoint every review form sends to (htmx swaps the panel; without JavaScript the
browser is sent back to the case)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_POST

from inspector.bundles import loading, offline, offline_queue
from inspector.cases import addresses
from inspector.core import bounded
from inspector.core.model import RenderedCase
from inspector.core.options import RenderOptions
from inspector.diffs.comparison import diff_url
from inspector.review import service
from inspector.review.carried_verdicts import effective_verdicts
from inspector.review.case_counts import open_threads_by_case
from inspector.review.service import AnchorSpec, ReviewError

from .common import RENDER_KEYS, HtmxHttpRequest, PageSettings, Problem, loaded_or_404, settings_or_problem
from .local import as_shared
from .page_cache import VERDICT_FILTER

ROLE_LABELS = {
    "system": "system",
    "developer": "developer",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
}


def case_panel(
    request: HtmxHttpRequest,
    loaded: loading.LoadedBundle,
    document: str,
    case: RenderedCase,
    page: PageSettings,
    error: str | None = None,
) -> dict:
    """What templates/review/case_panel.html shows for one case."""
    key = service.request_key(request)
    placed = service.case_threads(loaded, document, case, page.options, key)
    verdict = effective_verdicts(loaded, page.options, document).get((document, case.id))
    carried_from = getattr(verdict, "carried_from", None)
    render_params = {k: v for k, v in page.params.items() if k in RENDER_KEYS}
    markers = [
        {
            k: v
            for k, v in service.placed_data(item).items()
            if k
            in (
                "id",
                "kind",
                "state",
                "resolved",
                "message_index",
                "start",
                "end",
                "path",
                "start_line",
                "end_line",
            )
        }
        for item in placed
    ]
    return {
        "post_url": reverse("review", kwargs={"bundle_id": loaded.record.pk}),
        "document": document,
        "case_id": case.id,
        "render_params": render_params,
        "next_url": addresses.case_url(loaded.record.pk, document, case.id, urlencode(render_params)),
        "threads": placed,
        "open_count": sum(not item.thread.resolved for item in placed),
        "verdict": verdict,
        "verdict_fingerprint": service.fingerprint(verdict.author_key_hash) if verdict else "",
        # Another key's verdict: this browser cannot change or clear it.
        "verdict_theirs": verdict is not None
        and not carried_from
        and not service.owns(key, verdict.author_key_hash),
        # Given on an earlier revision where the case rendered the same: a verdict here replaces it.
        "verdict_carried_url": addresses.case_url(carried_from, document, case.id) if carried_from else None,
        "locked": loaded.record.comments_locked or not service.is_stored(loaded.record),
        "folder": not service.is_stored(loaded.record),  # local mode: nothing can be written
        "author": request.COOKIES.get(service.AUTHOR_COOKIE, ""),
        "messages": [(index, message.role) for index, message in enumerate(case.messages)],
        "markers_json": json.dumps(markers),
        "error": error,
        "parent_diff_url": diff_url(
            "diff-case",
            page.params,
            old=loaded.record.parent_id,
            new=loaded.record.pk,
            document=document,
            case=case.id,
        )
        if loaded.record.parent_id
        else None,
    }


def file_panel(
    request: HtmxHttpRequest, loaded: loading.LoadedBundle, path: str, error: str | None = None
) -> dict:
    """The source page's comments: line threads on this file, and a form for a new one."""
    options = RenderOptions()
    placed = service.file_threads(loaded, path, options, service.request_key(request))
    return {
        "post_url": reverse("review", kwargs={"bundle_id": loaded.record.pk}),
        "file": path,
        "document": "",
        "case_id": "",
        "render_params": {},
        "threads": placed,
        "open_count": sum(not item.thread.resolved for item in placed),
        "locked": loaded.record.comments_locked or not service.is_stored(loaded.record),
        "folder": not service.is_stored(loaded.record),  # local mode: nothing can be written
        "author": request.COOKIES.get(service.AUTHOR_COOKIE, ""),
        "markers_json": json.dumps(
            [
                {
                    k: v
                    for k, v in service.placed_data(item).items()
                    if k in ("id", "kind", "state", "resolved", "path", "start_line", "end_line")
                }
                for item in placed
            ]
        ),
        "error": error,
    }


def _spec(post: Mapping[str, str], document: str, case_id: str) -> AnchorSpec:
    kind = post.get("kind") or "message"

    def number(name: str) -> int | None:
        value = post.get(name, "")
        if not value:
            return None
        if not value.isdigit() or len(value) > 9:
            raise ReviewError(400, f"{name} must be a whole number")
        return int(value)

    index = number("message_index")
    if index is None and kind == "message":
        index = number("target")
    return AnchorSpec(
        kind,
        document,
        case_id,
        index,
        number("start"),
        None,
        post.get("quote", ""),
        post.get("path", ""),
        number("start_line"),
        number("end_line"),
    )


def _act(
    request: HtmxHttpRequest,
    loaded: loading.LoadedBundle,
    options: RenderOptions,
    document: str,
    case_id: str,
) -> service.Reviewer | None:
    """Does what the form asks; answers the reviewer when a cookie must be set."""
    post, record = request.POST, loaded.record
    action = post.get("action", "")
    key = service.request_key(request)
    if action in ("thread", "reply", "verdict"):
        service.check_rate(request)
        person = service.reviewer(request, post.get("author", ""))
        if action == "thread":
            service.start_thread(
                loaded, _spec(post, document, case_id), options, post.get("body", ""), person
            )
        elif action == "reply":
            service.reply(
                record, service.thread_of(record, _id(post, "thread")), post.get("body", ""), person
            )
        else:
            service.set_verdict(
                loaded, document, case_id, post.get("verdict") or None, post.get("note", ""), options, person
            )
        return person
    if action in ("resolve", "reopen"):
        service.check_rate(request)
        service.set_resolved(record, service.thread_of(record, _id(post, "thread")), action == "resolve", key)
    elif action == "edit":
        service.check_rate(request)
        service.edit(record, service.comment_of(record, _id(post, "comment")), post.get("body", ""), key)
    elif action == "delete":
        service.delete(service.comment_of(record, _id(post, "comment")), key, None)
    else:
        raise ReviewError(400, "unknown review action")
    return None


def _id(post: Mapping[str, str], name: str) -> int:
    value = post.get(name, "")
    if not value.isdigit() or len(value) > 12:
        raise ReviewError(400, f"no such {name}")
    return int(value)


@require_POST
def review(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    loaded = loaded_or_404(bundle_id)
    page = settings_or_problem(request.POST)
    document, case_id = request.POST.get("document", ""), request.POST.get("case_id", "")
    error = None
    person = None
    try:
        person = _act(request, loaded, page.options, document, case_id)
    except ReviewError as problem:
        if not request.htmx:
            raise Problem(problem.status, "The review was not saved", str(problem)) from None
        error = str(problem)
    file = request.POST.get("file", "")
    if request.htmx:
        response = _panel_answer(request, loaded, page, file, error, person)
    elif file:
        response = redirect(
            reverse("review-panel", kwargs={"bundle_id": loaded.record.pk}) + "?" + urlencode({"file": file})
        )
    else:
        response = redirect(
            reverse("review-panel", kwargs={"bundle_id": loaded.record.pk})
            + "?"
            + urlencode(
                {
                    "document": document,
                    "case_id": case_id,
                    **{k: v for k, v in page.params.items() if k in RENDER_KEYS},
                }
            )
        )
    if person is not None:
        service.remember(response, person)
    return response


def _panel_answer(
    request: HtmxHttpRequest,
    loaded: loading.LoadedBundle,
    page: PageSettings,
    file: str,
    error: str | None,
    person: service.Reviewer | None,
) -> HttpResponse:
    """The review panel an htmx review answers with: the file's, or the case's."""
    document, case_id = request.POST.get("document", ""), request.POST.get("case_id", "")
    if file:
        if not loaded.files.exists(file):
            raise Problem(404, "No such file", "This bundle has no file at that path.")
        context = {"review": file_panel(request, loaded, file, error)}
        template = "review/file_panel.html"
    else:
        try:
            case = service.rendered_case(loaded, document, case_id, page.options)
        except ReviewError as problem:
            raise Problem(400, "No such case", str(problem)) from None
        context = {"review": case_panel(request, loaded, document, case, page, error)}
        template = "review/case_panel.html"
    if person is not None:  # the cookie that remembers the name arrives with this answer
        context["review"]["author"] = "" if person.name == "Anonymous" else person.name
    # htmx swaps 400 answers (base.html's config): the panel says what went wrong.
    return render(request, template, context, status=400 if error else 200)


def bundle_panel(request: HtmxHttpRequest, loaded: loading.LoadedBundle, page: PageSettings) -> dict:
    """The bundle page's review progress, with each case's verdict and open threads for the
    script that marks the rows (the rows themselves are part of the cached, shared page)."""
    progress = service.progress(loaded, page.options)
    key = service.request_key(request)
    threads = service.bundle_threads(loaded, page.options, key)
    rows: dict[str, list] = {}
    for (document, case_id), verdict in progress.by_case.items():
        rows[f"{document}\u0000{case_id}"] = [verdict.verdict, 0]
    for (document, case_id), count in open_threads_by_case(loaded, page.options, threads).items():
        if count:
            rows.setdefault(f"{document}\u0000{case_id}", ["", 0])[1] = count
    parent = loaded.record.parent_id
    return {
        "progress": progress,
        "rows_json": json.dumps(rows),
        "open_threads": sum(not t.thread.resolved and t.state != "outdated" for t in threads),
        "outdated_threads": [t for t in threads if t.state == "outdated"],
        "thread_total": len(threads),
        "parent_diff_url": diff_url("diff", page.params, old=parent, new=loaded.record.pk)
        if parent
        else None,
        "compare_url": diff_url("diff", page.params, new=loaded.record.pk),
        "offline_url": reverse("offline", kwargs={"bundle_id": loaded.record.pk}),
        "needs_changes_url": reverse("bundle", kwargs={"bundle_id": loaded.record.pk})
        + "?"
        + urlencode({**page.params, VERDICT_FILTER: "changes"}),
    }


@require_GET
def review_panel(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    """A case's (or with `file`, a file's) review panel. Pages load it after they arrive, so the
    pages stay cacheable; without JavaScript it is a page of its own."""
    loaded = loaded_or_404(bundle_id)
    file = request.GET.get("file")
    context: dict[str, object]
    if file is not None:
        if not loaded.files.exists(file):
            raise Http404("This bundle has no file at that path.")
        context = {
            "review": file_panel(request, loaded, file),
            "panel_template": "review/file_panel.html",
            "back_url": reverse("source", kwargs={"bundle_id": bundle_id, "path": file}),
            "back_label": file,
        }
    else:
        page = settings_or_problem(request.GET)
        document, case_id = request.GET.get("document", ""), request.GET.get("case_id", "")
        try:
            case = service.rendered_case(loaded, document, case_id, page.options)
        except ReviewError as problem:
            raise Problem(
                problem.status if problem.status in (400, 404) else 400, "No such case", str(problem)
            ) from None
        context = {
            "review": case_panel(request, loaded, document, case, page),
            "panel_template": "review/case_panel.html",
            "back_url": context_case_url(loaded, document, case_id, page),
            "back_label": case_id,
        }
    context["bundle"] = loaded.record
    if request.htmx:
        return render(request, str(context["panel_template"]), context)
    return render(request, "review/panel_page.html", context)


def context_case_url(loaded: loading.LoadedBundle, document: str, case_id: str, page: PageSettings) -> str:
    return addresses.case_url(
        loaded.record.pk,
        document,
        case_id,
        urlencode({k: v for k, v in page.params.items() if k in RENDER_KEYS}),
    )


@require_GET
def review_progress(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    """The bundle page's review progress, loaded after the (cached) page; a page without JS."""
    loaded = loaded_or_404(bundle_id)
    page = settings_or_problem(request.GET)
    context = {
        "review": bundle_panel(request, loaded, page),
        "bundle": loaded.record,
        "panel_template": "review/bundle_panel.html",
        "back_url": reverse("bundle", kwargs={"bundle_id": bundle_id}),
        "back_label": "cases",
    }
    if request.htmx:
        return render(request, "review/bundle_panel.html", context)
    return render(request, "review/panel_page.html", context)


@require_GET
def offline_copy(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    """The bundle as one HTML file that opens from disk: default settings, with its comments
    (those carried from earlier revisions included) and verdicts. With QUEUE_OFFLINE_COPIES on, a
    copy not kept yet is made by the queue's worker while a page polls (offline_queue)."""
    loaded = as_shared(loaded_or_404(bundle_id))
    inputs = offline_queue.copy_inputs(loaded)
    if settings.QUEUE_OFFLINE_COPIES and not loaded.read_only:
        made = offline_queue.kept(inputs)
        if made is None:
            return _offline_progress(request, inputs, bundle_id)
        if request.htmx:
            return _offline_ready(request, bundle_id)
        return _offline_file(made, loaded, bundle_id)
    try:
        made = offline.kept_copy(**inputs)
    except bounded.Busy as busy:
        raise Problem(503, "The offline copy could not be made now", str(busy)) from None
    return _offline_file(made, loaded, bundle_id)


def _offline_file(made: str, loaded: loading.LoadedBundle, bundle_id: str) -> HttpResponse:
    response = HttpResponse(made, content_type="text/html; charset=utf-8")
    name = addresses.file_stem(loaded.record.title or bundle_id)
    response["Content-Disposition"] = content_disposition_header(True, f"{name}.html") or ""
    return response


def _offline_progress(
    request: HtmxHttpRequest, inputs: dict, bundle_id: str, ready: bool = False
) -> HttpResponse:
    if not ready:
        offline_queue.enqueue(inputs, bundle_id)
    template = "offline_progress.html#progress" if request.htmx else "offline_progress.html"
    response = render(request, template, {"bundle_id": bundle_id, "title": inputs["title"], "ready": ready})
    response["Cache-Control"] = "no-store"
    return response


def _offline_ready(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    """The progress page's poll once the copy is kept: the page stops polling and shows the link
    (`ready`), which then asks once more to be sent to the file itself (a redirect, which htmx
    follows as a navigation: the download), so the polling cannot start it again and again."""
    if request.GET.get("fetch"):
        return HttpResponse(headers={"HX-Redirect": request.path})
    return _offline_progress(request, {"title": ""}, bundle_id, ready=True)
