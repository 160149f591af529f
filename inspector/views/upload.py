"""Uploading a bundle, and the private page that manages (deletes) it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.exceptions import RequestDataTooBig, TooManyFilesSent
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from inspector.bundles import loading, upload_queue
from inspector.bundles.forms import PasteForm, uploads_from_request
from inspector.bundles.ingest import (
    LEFT_OUT_REASON,
    UploadError,
    collect_files,
    default_title,
    delete_bundle,
    store_bundle,
    without_unread_binaries,
)
from inspector.cases import addresses, files_panel, finding, source_view
from inspector.local import served_folder
from inspector.models import Bundle
from inspector.rendering import stored_renders

from .common import HtmxHttpRequest, error_page
from .local import refuse_upload_in_local_mode
from .moderation import moderate, moderation_panel
from .uploads import LEFT_OUT_NAMED, progress_url

logger = logging.getLogger(__name__)


def _examples() -> list[dict]:
    from inspector.bundles.examples import read_examples

    stored = {bundle.example: bundle for bundle in Bundle.objects.exclude(example="")}
    rows = []
    for example in read_examples():  # in the manifest's order
        bundle = stored.get(example.name)
        if bundle is not None:
            rows.append(
                {
                    "title": example.title,
                    "description": example.description,
                    "url": _entry_url(bundle, example.entry),
                }
            )
    return rows


def _entry_url(bundle: Bundle, entry: str) -> str:
    """The entry document's first case: an example should open on what the product is about."""
    found = finding.first_case(bundle.pk, (entry,))
    if found is not None:
        return addresses.case_url(bundle.pk, *found)
    return reverse("bundle", kwargs={"bundle_id": bundle.pk}) + "#" + files_panel.document_anchor(entry)


@require_http_methods(["GET", "POST"])
def home(request: HtmxHttpRequest) -> HttpResponse:
    if served_folder.folder() is not None:
        if request.method == "GET":
            return redirect("bundle", bundle_id=served_folder.LOCAL_BUNDLE_ID)
        refuse_upload_in_local_mode()
    if request.method == "GET":
        return render(request, "home.html", {"form": PasteForm(), "examples": _examples()})
    try:
        form = PasteForm(request.POST)
        files = request.FILES.getlist("files")
        folder_files = request.FILES.getlist("folder")
    except TooManyFilesSent:
        return _upload_error(request, PasteForm(), "too many files in one upload")
    except RequestDataTooBig:
        return _upload_error(request, PasteForm(), "the upload is too large")
    if not form.is_valid():
        message = "; ".join(
            f"{name}: {' '.join(str(error) for error in errors)}" for name, errors in form.errors.items()
        )
        return _upload_error(request, form, message)
    try:
        uploads = uploads_from_request(form, files, folder_files)
        collected, left_out = without_unread_binaries(collect_files(uploads))
        title = form.cleaned_data.get("title") or default_title([name for name, _ in uploads], len(collected))
        if upload_queue.should_queue(collected):
            return _queued(collected, title, left_out)
        bundle, token = store_bundle(collected, title=title)
    except UploadError as error:
        return _upload_error(request, form, str(error))
    return created(bundle, token, first=None, left_out=left_out)


def _queued(files: dict[str, bytes], title: str, left_out: list[str]) -> HttpResponse:
    """Off to the progress page of the queued upload (303, as `created`)."""
    response = HttpResponseRedirect(
        progress_url(*upload_queue.enqueue(files, title), urlencode(left_out_params(left_out), doseq=True))
    )
    response.status_code = 303
    return response


def _upload_error(request: HtmxHttpRequest, form: PasteForm, message: str) -> HttpResponse:
    return render(
        request, "home.html", {"form": form, "examples": _examples(), "upload_error": message}, status=400
    )


def first_case_url(bundle_id: str) -> str | None:
    found = finding.first_case(bundle_id)
    return addresses.case_url(bundle_id, *found) if found is not None else None


def _first_case_url_or_none(bundle_id: str) -> str | None:
    """The first case's link for the page that shows the manage token once. The bundle is already
    stored: no failure to render it may cost the uploader that token, so any error is logged and
    the page goes without the link (the bundle page shows each file's problem)."""
    try:
        return first_case_url(bundle_id)
    except Exception:
        logger.exception("could not find the first case of bundle %s", bundle_id)
        return None


def left_out_params(left_out: list[str]) -> dict[str, str | list[str]]:
    """The files an upload left out, as the progress and manage pages' addresses carry them: the
    first LEFT_OUT_NAMED names, then the count."""
    if not left_out:
        return {}
    return {"left_out": left_out[:LEFT_OUT_NAMED], "left_out_count": str(len(left_out))}


def created(
    bundle: Bundle,
    token: str,
    first: str | None,
    parent: Bundle | None = None,
    left_out: list[str] | None = None,
) -> HttpResponse:
    """Send the uploader to the bundle's private manage page (303, so a reload cannot store the
    upload twice). That address carries the token; the database keeps only its hash."""
    params: dict[str, str | list[str]] = {"saved": "revision" if parent else "upload"}
    if first is None and parent is None:
        first = _first_case_url_or_none(bundle.pk)
    if first:
        params["case"] = first
    params.update(left_out_params(left_out or []))
    url = manage_link(bundle.pk, token, urlencode(params, doseq=True))
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


@dataclass
class LeftOut:
    names: list[str]
    more: int  # left out but not named
    reason: str = LEFT_OUT_REASON

    @property
    def total(self) -> int:
        return len(self.names) + self.more


def _left_out(request: HtmxHttpRequest) -> LeftOut | None:
    names = request.POST.getlist("left_out")[:LEFT_OUT_NAMED]
    if not names:
        return None
    count = request.POST.get("left_out_count", "")
    total = int(count) if count.isdigit() and len(count) < 9 else len(names)
    return LeftOut(names, max(0, total - len(names)))


def _opening_link(bundle: Bundle) -> str | None:
    """Where the manage page sends the owner: a run's page, else the first case."""
    if bundle.run_root:
        return reverse("run", kwargs={"bundle_id": bundle.pk})
    return _first_case_url_or_none(bundle.pk)


def _own_case_link(bundle: Bundle, link: str) -> str | None:
    """A case link passed back from the upload, only if it is a path inside this bundle (it goes
    into an href: no other site, no javascript: URL)."""
    prefix = reverse("bundle", kwargs={"bundle_id": bundle.pk})
    if link.startswith(prefix) and "//" not in link and "\\" not in link:
        return link
    return None


def manage_link(bundle_id: str, token: str, query: str = "") -> str:
    """The private manage address. The token rides in the fragment, which browsers never send: it
    reaches no access log and no Referer. The page's script posts it (manage_unlock.html)."""
    return reverse("manage", kwargs={"bundle_id": bundle_id}) + (f"?{query}" if query else "") + f"#{token}"


def _unlock_page(request: HtmxHttpRequest, bundle_id: str, token: str = "") -> HttpResponse:
    return _private(
        render(
            request,
            "manage_unlock.html",
            {
                "bundle_id": bundle_id,
                "saved": request.GET.get("saved", ""),
                "case": request.GET.get("case", ""),
                "left_out": request.GET.getlist("left_out")[:LEFT_OUT_NAMED],
                "left_out_count": request.GET.get("left_out_count", ""),
                "token": token,
                "manage_action": reverse("manage", kwargs={"bundle_id": bundle_id}),
            },
        )
    )


def _private(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


def _managed_bundle(bundle_id: str, token: str) -> Bundle:
    bundle = Bundle.objects.filter(pk=bundle_id).first() if loading.BUNDLE_ID.fullmatch(bundle_id) else None
    if bundle is None or not bundle.check_manage_token(token):
        raise Http404("No bundle matches this manage link. It may have been deleted already.")
    return bundle


# No CSRF check: every POST carries the manage token, which a forging site cannot know, and
# no-referrer makes the browser send `Origin: null`, which Django's check refuses.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def manage(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    """GET: a page that posts the token from the address's fragment (or asks for it). POST with the
    token: the manage page itself, or with action=delete, the deletion."""
    if request.method == "GET":
        # `?token=` (old scripts and bookmarks): answered with the token in the page's form, which
        # posts it, so the token is in no further address than the one already requested.
        return _unlock_page(request, bundle_id, request.GET.get("token", ""))
    token = request.POST.get("token", "")
    try:
        bundle = _managed_bundle(bundle_id, token)
    except Http404:
        return _private(
            error_page(
                request,
                404,
                "Not found",
                "No bundle matches this manage link. It may have been deleted already.",
            )
        )
    delete_refused = False
    if request.POST.get("action") == "delete":
        # One click must not delete a bundle every reviewer holds: the box says what it costs.
        if request.POST.get("confirm") == "yes":
            return _private(_delete(request, bundle))
        delete_refused = True
    moderation_notice = moderate(request, bundle, token)
    saved = request.POST.get("saved")
    first = _own_case_link(bundle, request.POST.get("case", "")) or _opening_link(bundle)
    return _private(
        render(
            request,
            "manage.html",
            {
                "bundle": bundle,
                "token": token,
                "saved": saved if saved in ("upload", "revision") else None,
                "left_out": _left_out(request) if saved == "upload" else None,
                "share_url": addresses.absolute_url(
                    request, reverse("bundle", kwargs={"bundle_id": bundle.pk})
                ),
                "manage_url": addresses.absolute_url(request, manage_link(bundle.pk, token)),
                "first_case_url": addresses.absolute_url(request, first) if first else None,
                "file_count": bundle.files.count(),
                "moderation": moderation_panel(bundle, moderation_notice),
                "delete_refused": delete_refused,
                # An upload where nothing renders: the error, its line and the editor, here at once.
                "nothing_renders": _nothing_renders(bundle) if first is None else None,
            },
        )
    )


@dataclass
class NothingRenders:
    """Why no case of an upload renders, and where to start fixing it."""

    problems: list[str]
    path: str | None = None  # the first file with a located problem, shown at that line
    source: source_view.SourcePane | None = None
    text: str = ""
    preview_url: str = ""
    revise_url: str = ""
    # A binary file is shown with why it cannot be read, never put in the text editor.
    editable: bool = True


def _nothing_renders(bundle: Bundle) -> NothingRenders | None:
    from inspector.core.model import InputError
    from inspector.core.options import RenderOptions

    loaded = loading.load_bundle(bundle.pk)
    if loaded is None:
        return None
    problems: list[str] = []
    located = None
    for document in loaded.documents:
        try:
            rendered = stored_renders.render(loaded, document, RenderOptions())
        except InputError as error:
            problems.append(str(error))
            found = error.diagnostic
            if located is None and found.path and loaded.files.exists(found.path):
                located = (found.path, found.line, found.likely_start)
            continue
        if rendered.cases:
            return None
        problems.append(f"{document}: no cases")
        located = located or (document, None, None)
    if not loaded.documents:
        problems.append(
            "no file is an eval file, deck or provider request the inspector reads "
            f"(files: {', '.join(sorted(loaded.files.paths())[:10])})"
        )
    panel = NothingRenders(problems)
    if located is not None:
        _show_located(panel, loaded, *located)
    return panel


def _show_located(
    panel: NothingRenders, loaded: loading.LoadedBundle, path: str, line: int | None, start: int | None
) -> None:
    """The file at the problem's line beside the editor (a binary file without it)."""
    decoded = loaded.files.text(path)
    problem = decoded.problem if decoded is not None else None
    panel.path = path
    panel.text = decoded.text if decoded is not None else ""
    panel.editable = decoded is not None and not (problem or "").startswith("looks like a binary")
    # From where the mistake likely starts (an open quote) to where the parser noticed it.
    panel.source = source_view.SourcePane.build(
        loaded.record.pk, path, panel.text, (start or line, line) if line else None, problem
    )
    # Any case id: with no case to show, preview and revise fall back to the file's first.
    base = reverse("case", kwargs={"bundle_id": loaded.record.pk, "document": path, "case_id": "_"})
    panel.preview_url, panel.revise_url = base + "preview/", base + "revise/"


def _delete(request: HtmxHttpRequest, bundle: Bundle) -> HttpResponse:
    delete_bundle(bundle)
    loading.forget_bundle(bundle.pk)
    return render(request, "deleted.html", {"title": bundle.title})


@csrf_exempt
@require_http_methods(["GET", "POST"])
def manage_legacy(request: HtmxHttpRequest, bundle_id: str, token: str) -> HttpResponse:
    """Manage links handed out with the token in the path keep working: GET answers the page that
    posts the token (filled in) to the manage page, so no further address, Location header or
    Referer carries it; POST (a delete form loaded before the change) still deletes."""
    bundle = _managed_bundle(bundle_id, token)
    if request.method == "POST":
        return _private(_delete(request, bundle))
    return _unlock_page(request, bundle.pk, token)
