"""The pages. Each view parses its input with services, builds a view model with presenters and
renders a template; htmx requests get the named partial of the same template."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.exceptions import RequestDataTooBig, TooManyFilesSent
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from inspector import presenters, services
from inspector.core.bundle import MemoryBundle
from inspector.core.export import REGISTRY, ExportSettings, batch_jsonl, export_case, render_code
from inspector.core.formats import INPUT_FORMATS
from inspector.core.model import InputError, RenderedCase, RenderedDocument
from inspector.core.options import PROFILES, RenderOptions
from inspector.forms import PasteForm, RevisionForm, uploads_from_request
from inspector.ingest import UploadError, collect_files, default_title, delete_bundle, store_bundle
from inspector.models import Bundle

RENDER_KEYS = ("profile", "patterns_mode", "patterns", "system_prompt", "max_tokens", "input_format")
EXPORT_KEYS = ("provider", "format", "model", "max_output_tokens", "temperature")
PROVIDER_LABELS = {spec.id: spec.label for spec in REGISTRY.values()}
logger = logging.getLogger(__name__)


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it (django-htmx's example app's type)."""

    htmx: HtmxDetails

FORMAT_LABELS = {"json": "JSON", "curl": "curl", "python": "Python", "typescript": "TypeScript"}
FORMAT_SUFFIX = {"json": "json", "curl": "sh", "python": "py", "typescript": "ts"}


def error_page(request: HtmxHttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "error.html", {"title": title, "message": message}, status=status)


def bad_request(request: HtmxHttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_page(request, 400, "Bad request", "The request could not be understood.")


def not_found(request: HtmxHttpRequest, exception: Exception | None = None) -> HttpResponse:
    # Only our own messages are shown: the URL resolver's Http404 carries the URL table.
    message = ""
    if isinstance(exception, Http404) and exception.args and isinstance(exception.args[0], str):
        message = exception.args[0]
    return error_page(request, 404, "Not found", message or "There is nothing at this address.")


def server_error(request: HtmxHttpRequest) -> HttpResponse:
    return error_page(request, 500, "Something went wrong",
                      "The server failed to show this page. Reload to try again.")


# ---------------------------------------------------------------------------------------------
# Upload, created, manage


def _examples() -> list[dict]:
    from inspector.examples import read_examples

    stored = {bundle.example: bundle for bundle in Bundle.objects.exclude(example="")}
    rows = []
    for example in read_examples():  # in the manifest's order
        bundle = stored.get(example.name)
        if bundle is not None:
            rows.append({"title": example.title, "description": example.description,
                         "url": _entry_url(bundle, example.entry)})
    return rows


def _entry_url(bundle: Bundle, entry: str) -> str:
    """The entry document's first case: an example should open on what the product is about."""
    loaded = services.load_bundle(bundle.pk)
    if loaded is not None and entry in loaded.documents:
        try:
            rendered = services.render(loaded, entry, RenderOptions())
        except InputError:
            rendered = None
        if rendered is not None and rendered.cases:
            return presenters.case_url(bundle.pk, entry, rendered.cases[0].id)
    return reverse("bundle", kwargs={"bundle_id": bundle.pk}) + "#" + presenters.document_anchor(entry)


@require_http_methods(["GET", "POST"])
def home(request: HtmxHttpRequest) -> HttpResponse:
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
        message = "; ".join(f"{name}: {' '.join(str(error) for error in errors)}"
                            for name, errors in form.errors.items())
        return _upload_error(request, form, message)
    try:
        uploads = uploads_from_request(form, files, folder_files)
        collected = collect_files(uploads)
        title = form.cleaned_data.get("title") or default_title([name for name, _ in uploads],
                                                                len(collected))
        bundle, token = store_bundle(collected, title=title)
    except UploadError as error:
        return _upload_error(request, form, str(error))
    return _created(request, bundle, token, first=None)


def _upload_error(request: HtmxHttpRequest, form: PasteForm, message: str) -> HttpResponse:
    return render(request, "home.html", {"form": form, "examples": _examples(), "upload_error": message},
                  status=400)


def _first_case_url(bundle_id: str) -> str | None:
    loaded = services.load_bundle(bundle_id)
    if loaded is None:
        return None
    for document in loaded.documents:
        try:
            rendered = services.render(loaded, document, RenderOptions())
        except InputError:
            continue
        if rendered.cases:
            return presenters.case_url(bundle_id, document, rendered.cases[0].id)
    return None


def _first_case_url_or_none(bundle_id: str) -> str | None:
    """The first case's link for the page that shows the manage token once. The bundle is already
    stored: no failure to render it may cost the uploader that token, so any error is logged and
    the page goes without the link (the bundle page shows each file's problem)."""
    try:
        return _first_case_url(bundle_id)
    except Exception:
        logger.exception("could not find the first case of bundle %s", bundle_id)
        return None


def _created(request: HtmxHttpRequest, bundle: Bundle, token: str, first: str | None,
             parent: Bundle | None = None) -> HttpResponse:
    """Send the uploader to the bundle's private manage page (303, so a reload cannot store the
    upload twice). That address carries the token; the database keeps only its hash."""
    params = {"saved": "revision" if parent else "upload"}
    if first is None and parent is None:
        first = _first_case_url_or_none(bundle.pk)
    if first:
        params["case"] = first
    url = manage_link(bundle.pk, token, urlencode(params))
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


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
    return reverse("manage", kwargs={"bundle_id": bundle_id}) + (f"?{query}" if query else "") \
        + f"#{token}"


def _private(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


def _managed_bundle(bundle_id: str, token: str) -> Bundle:
    bundle = Bundle.objects.filter(pk=bundle_id).first() if services.BUNDLE_ID.fullmatch(bundle_id) else None
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
        return _private(render(request, "manage_unlock.html", {
            "bundle_id": bundle_id, "saved": request.GET.get("saved", ""),
            "case": request.GET.get("case", "")}))
    token = request.POST.get("token", "")
    try:
        bundle = _managed_bundle(bundle_id, token)
    except Http404:
        return _private(error_page(request, 404, "Not found", "No bundle matches this manage "
                                   "link. It may have been deleted already."))
    if request.POST.get("action") == "delete":
        return _private(_delete(request, bundle))
    saved = request.POST.get("saved")
    first = _own_case_link(bundle, request.POST.get("case", "")) or _first_case_url_or_none(bundle.pk)
    return _private(render(request, "manage.html", {
        "bundle": bundle,
        "token": token,
        "saved": saved if saved in ("upload", "revision") else None,
        "share_url": services.absolute_url(request, reverse("bundle", kwargs={"bundle_id": bundle.pk})),
        "manage_url": services.absolute_url(request, manage_link(bundle.pk, token)),
        "first_case_url": services.absolute_url(request, first) if first else None,
        "file_count": bundle.files.count(),
    }))


def _delete(request: HtmxHttpRequest, bundle: Bundle) -> HttpResponse:
    delete_bundle(bundle)
    services.forget_bundle(bundle.pk)
    return render(request, "deleted.html", {"title": bundle.title})


@csrf_exempt
@require_http_methods(["GET", "POST"])
def manage_legacy(request: HtmxHttpRequest, bundle_id: str, token: str) -> HttpResponse:
    """Manage links handed out with the token in the path keep working: GET moves the token to the
    fragment, POST (a delete form loaded before the change) still deletes."""
    bundle = _managed_bundle(bundle_id, token)
    if request.method == "POST":
        return _private(_delete(request, bundle))
    query = request.GET.urlencode()
    return _private(HttpResponseRedirect(manage_link(bundle.pk, token, query)))


# ---------------------------------------------------------------------------------------------
# Settings from the query string


@dataclass
class PageSettings:
    options: RenderOptions
    params: dict[str, str]  # the render and export parameters the user set, for links and forms
    provider: str
    form: str
    export: ExportSettings

    @property
    def render_query(self) -> str:
        return urlencode({k: v for k, v in self.params.items() if k in RENDER_KEYS})

    @property
    def query(self) -> str:
        return urlencode(self.params)


def _page_settings(params: Mapping[str, str]) -> PageSettings:
    """Raises services.SettingsError for values the user must fix."""
    clean = {}
    for key in RENDER_KEYS + EXPORT_KEYS:
        value = params.get(key)
        if value is None:
            continue
        if key == "patterns" or value != "":
            clean[key] = value
    if clean.get("patterns_mode") == "config" or "patterns_mode" not in clean:
        clean.pop("patterns", None)
        clean.pop("patterns_mode", None)
    elif "patterns" not in clean:
        clean["patterns"] = ""
    # Defaults stay out of the URL so a plain link and a default view are the same page.
    for key, default in (("profile", "auto"), ("input_format", "auto"), ("provider", "openai-chat"),
                         ("format", "json")):
        if clean.get(key) == default:
            del clean[key]
    options = services.parse_render_options(clean)
    provider = services.parse_provider(clean.get("provider"))
    form = services.parse_export_format(clean.get("format"))
    export = services.parse_export_settings(clean)
    return PageSettings(options, clean, provider, form, export)


PANES = ("rendered", "export")


def _problem(request: HtmxHttpRequest, status: int, title: str, message: str) -> HttpResponse:
    """An error page, or, for an htmx swap of one pane, that pane saying what is wrong (htmx is
    configured to swap 400 answers), so a rejected setting never fails silently."""
    target = request.htmx.target if request.htmx else None
    if target in PANES:
        return render(request, "preview_error.html",
                      {"pane_id": target, "heading": f"{title}.", "message": message}, status=status)
    # The same address without its query string is the view with default settings.
    return render(request, "error.html", {"title": title, "message": message,
                                          "default_view_url": request.path if request.GET else None},
                  status=status)


def _settings_or_400(request: HtmxHttpRequest, params: Mapping[str, str]):
    try:
        return _page_settings(params), None
    except services.SettingsError as error:
        return None, _problem(request, 400, "Bad settings", str(error))


def _settings_view(page: PageSettings) -> dict:
    params = page.params
    return {
        "profiles": PROFILES,
        "input_formats": INPUT_FORMATS,
        "profile": page.options.profile,
        "input_format": page.options.input_format,
        "patterns_custom": "patterns_mode" in params,
        "patterns": params.get("patterns", ""),
        "system_prompt": params.get("system_prompt", ""),
        "max_tokens": params.get("max_tokens", ""),
        "providers": list(PROVIDER_LABELS.items()),
        "formats": list(FORMAT_LABELS.items()),
        "provider": page.provider,
        "format": page.form,
        "model": params.get("model", ""),
        "max_output_tokens": params.get("max_output_tokens", ""),
        "temperature": params.get("temperature", ""),
    }


# ---------------------------------------------------------------------------------------------
# Bundle page


def _loaded_or_404(bundle_id: str) -> services.LoadedBundle:
    loaded = services.load_bundle(bundle_id)
    if loaded is None:
        raise Http404("No bundle has this id. The link may be mistyped, or the bundle was deleted.")
    return loaded


@require_GET
def bundle_page(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:
    loaded = _loaded_or_404(bundle_id)
    page, error = _settings_or_400(request, request.GET)
    if error:
        return error
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
            conversions))
    for section in sections:
        section.anchor = presenters.document_anchor(section.path)
        section.batch_url = _batch_url(bundle_id, section.path, page)
    return render(request, "bundle.html", {
        "bundle": loaded.record,
        "tree": presenters.file_tree(bundle_id, loaded.files.paths(), loaded.documents),
        "sections": sections,
        "case_count": sum(len(s.cases) for s in sections),
        "batch_url": _batch_url(bundle_id, None, page),
        "share_url": services.absolute_url(request, request.get_full_path()),
        "revisions": list(loaded.record.revisions.order_by("created")[:20]),
    })


def _batch_url(bundle_id: str, document: str | None, page: PageSettings) -> str:
    params = dict(page.params)
    if document:
        params["document"] = document
    return reverse("batch", kwargs={"bundle_id": bundle_id}) + ("?" + urlencode(params) if params else "")


# ---------------------------------------------------------------------------------------------
# Case page


@dataclass
class CaseContext:
    loaded: services.LoadedBundle
    document: str
    rendered: RenderedDocument
    case: RenderedCase
    page: PageSettings


def _case_or_error(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str,
                   params: Mapping[str, str]) -> CaseContext | HttpResponse:
    loaded = _loaded_or_404(bundle_id)
    decoded_id = presenters.decode_case_id(case_id)
    if decoded_id is None:
        raise Http404("This case address is malformed.")
    if not loaded.files.exists(document):
        raise Http404("This bundle has no file at that path.")
    page, error = _settings_or_400(request, params)
    if error:
        return error
    try:
        rendered = services.render(loaded, document, page.options)
    except InputError as problem:
        return _problem(request, 400, "This file cannot be rendered with these settings", str(problem))
    case = services.find_case(rendered, decoded_id)
    if case is None:
        if request.htmx and request.GET:
            return _problem(request, 400, "No case with this id under these settings",
                            f"{document} read this way has no case {decoded_id!r}.")
        raise Http404(f"{document} has no case with this id.")
    return CaseContext(loaded, document, rendered, case, page)


def _export_panel(bundle_id: str, document: str, case: RenderedCase, page: PageSettings,
                  case_link: str) -> dict:
    result = export_case(case, page.provider, page.export)
    code = render_code(result, page.form, page.export)
    suffix = FORMAT_SUFFIX[page.form]
    code_html = presenters.highlight_block(f"payload.{suffix}", code)
    query = page.query
    base = case_link.split("?")[0]
    return {
        "provider": page.provider,
        "provider_label": PROVIDER_LABELS[page.provider],
        "batch_key": REGISTRY[page.provider].batch.key_name,
        "format": page.form,
        "format_label": FORMAT_LABELS[page.form],
        "code": code,
        "code_html": code_html,
        "changes": [_note(item) for item in getattr(result, "changes", [])],
        "lints": [_note(item) for item in getattr(result, "lints", [])],
        "warnings": [str(getattr(item, "message", item)) for item in getattr(result, "warnings", [])],
        "download_url": f"{base}export/?{query}{'&' if query else ''}download=1",
        "filename": _download_name(case.id, page.provider, suffix),
    }


def _note(item) -> dict:
    index = getattr(item, "message_index", None)
    return {"message": str(getattr(item, "message", item)), "index": index,
            "anchor": f"m{index}" if index is not None else None}


def _download_name(case_id: str, provider: str, suffix: str) -> str:
    return f"{presenters.file_stem(case_id)}.{provider}.{suffix}"


def _case_context(request: HtmxHttpRequest, ctx: CaseContext) -> dict:
    bundle_id = ctx.loaded.record.pk
    page = ctx.page
    view = presenters.case_view(bundle_id, ctx.case, page.provider, page.options.max_tokens)
    case_link = presenters.case_url(bundle_id, ctx.document, ctx.case.id, page.query)
    export = _export_panel(bundle_id, ctx.document, ctx.case, page, case_link)
    lint_cards = {note["index"]: note["message"] for note in export["lints"] if note["index"] is not None}
    for card in view.cards:
        if card.index in lint_cards:
            card.lints.append(lint_cards[card.index])
    ids = [case.id for case in ctx.rendered.cases]
    position = ids.index(ctx.case.id)
    neighbour = lambda i: presenters.case_url(bundle_id, ctx.document, ids[i], page.query)  # noqa: E731
    base = presenters.case_url(bundle_id, ctx.document, ctx.case.id)
    return {
        "bundle": ctx.loaded.record,
        "document": ctx.document,
        "rendered_profile": ctx.rendered.profile,
        "profile_reason": ctx.rendered.profile_reason,
        "case": view,
        "case_link": case_link,
        "base_url": base,
        "share_url": services.absolute_url(request, case_link),
        "bundle_url": reverse("bundle", kwargs={"bundle_id": bundle_id}) + (
            "?" + page.query if page.query else "") + "#" + presenters.document_anchor(ctx.document),
        "previous_url": neighbour(position - 1) if position > 0 else None,
        "next_url": neighbour(position + 1) if position + 1 < len(ids) else None,
        "position": position + 1,
        "case_total": len(ids),
        "settings": _settings_view(page),
        "params": page.params,
        "render_params": {k: v for k, v in page.params.items() if k in RENDER_KEYS},
        "export_params": {k: v for k, v in page.params.items() if k in EXPORT_KEYS},
        "export": export,
        "legend": [(kind, label) for kind, label in presenters.ORIGIN_LABELS.items()],
        "batch_url": _batch_url(bundle_id, ctx.document, page),
        "render_query": page.render_query,
        "preview_url": base + "preview/",
        "revise_url": base + "revise/",
    }


def _source_pane(loaded: services.LoadedBundle, path: str, highlight: tuple[int, int] | None,
                 whole: bool = False) -> presenters.SourcePane:
    decoded = loaded.files.text(path)
    if decoded is None:
        raise Http404("This bundle has no file at that path.")
    return presenters.SourcePane.build(loaded.record.pk, path, decoded.text, highlight, decoded.problem,
                                       whole)


@require_GET
def case_page(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    ctx = _case_or_error(request, bundle_id, document, case_id, request.GET)
    if isinstance(ctx, HttpResponse):
        return ctx
    context = _case_context(request, ctx)
    target = request.htmx.target if request.htmx else None
    if target in ("export", "rendered"):
        partial = "case.html#export-panel" if target == "export" else "case.html#rendered"
        response = render(request, partial, context)
        # The form sends every field, empty or default; the address bar gets the canonical link.
        response["HX-Push-Url"] = context["case_link"]
        return response
    # The case's own lines may live in another file than the document (a grader deck's samples
    # come from the TOML it embeds): show that file, so the highlighted lines hold the case.
    span = ctx.case.span
    source_path = span.path if span and ctx.loaded.files.exists(span.path) else document
    highlight = (span.start_line, span.end_line) if span and span.path == source_path else None
    context["source"] = _source_pane(ctx.loaded, source_path, highlight)
    context["case_source_path"] = source_path
    context["case_source_url"] = presenters.source_url(bundle_id, source_path, *(highlight or (None, None)))
    editor_text = _editor_text(ctx.loaded, document)
    # A large file is not sent twice (pane and textarea) on every view: its editor loads on demand.
    context["inline_editor"] = len(editor_text) <= INLINE_EDITOR_CHARS
    context["editor_text"] = editor_text if context["inline_editor"] else ""
    return render(request, "case.html", context)


def _editor_text(loaded: services.LoadedBundle, document: str) -> str:
    decoded = loaded.files.text(document)
    return decoded.text if decoded is not None else ""


INLINE_EDITOR_CHARS = 100_000


@require_GET
def editor(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    ctx = _case_or_error(request, bundle_id, document, case_id, request.GET)
    if isinstance(ctx, HttpResponse):
        return ctx
    context = _case_context(request, ctx)
    context["editor_text"] = _editor_text(ctx.loaded, document)
    context["inline_editor"] = True
    return render(request, "case.html#editor-form", context)


@require_GET
def export_view(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    ctx = _case_or_error(request, bundle_id, document, case_id, request.GET)
    if isinstance(ctx, HttpResponse):
        return ctx
    case_link = presenters.case_url(bundle_id, ctx.document, ctx.case.id, ctx.page.query)
    export = _export_panel(bundle_id, ctx.document, ctx.case, ctx.page, case_link)
    if request.GET.get("download"):
        content_type = "application/json" if ctx.page.form == "json" else "text/plain; charset=utf-8"
        response = HttpResponse(export["code"], content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{export["filename"]}"'
        return response
    return redirect(case_link)


def _edited_bundle(loaded: services.LoadedBundle, document: str, text: str) -> dict[str, bytes]:
    files = {path: loaded.files.read(path) or b"" for path in loaded.files.paths()}
    files[document] = text.encode("utf-8")
    return files


def _edited_case_or_404(bundle_id: str, document: str, case_id: str) -> tuple[services.LoadedBundle, str]:
    loaded = _loaded_or_404(bundle_id)
    decoded_id = presenters.decode_case_id(case_id)
    if decoded_id is None or not loaded.files.exists(document):
        raise Http404("No such case.")
    return loaded, decoded_id


@require_POST
def preview(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    """The messages pane for edited, unsaved source text. Nothing is stored."""
    loaded, decoded_id = _edited_case_or_404(bundle_id, document, case_id)
    form = RevisionForm(request.POST)
    if not form.is_valid():
        return render(request, "preview_error.html", {"message": "The edited text is too long."})
    try:
        page = _page_settings(request.POST)
    except services.SettingsError as problem:
        return render(request, "preview_error.html", {"message": f"Bad settings: {problem}"})
    files = MemoryBundle(_edited_bundle(loaded, document, form.cleaned_data["text"]))
    try:
        rendered = services.render_files(files, document, page.options)
    except InputError as problem:
        return render(request, "preview_error.html", {"message": str(problem)})
    except RecursionError:
        return render(request, "preview_error.html", {"message": "The file nests too deeply."})
    case = services.find_case(rendered, decoded_id)
    if case is None:
        if not rendered.cases:
            return render(request, "preview_error.html", {"message": "The edited file has no cases."})
        case = rendered.cases[0]
    ctx = CaseContext(loaded, document, rendered, case, page)
    context = _case_context(request, ctx)
    context["preview"] = True
    return render(request, "case.html#rendered", context)


@require_POST
def revise(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    """Store a new bundle with the edited file replaced; the old bundle stays as it was."""
    loaded, decoded_id = _edited_case_or_404(bundle_id, document, case_id)
    form = RevisionForm(request.POST)
    if not form.is_valid():
        return error_page(request, 400, "Cannot save", "The edited text is too long.")
    page, error = _settings_or_400(request, request.POST)
    if error:
        return error
    files = _edited_bundle(loaded, document, form.cleaned_data["text"])
    try:
        collected = collect_files(list(files.items()), expand_zips=False)
    except UploadError as problem:
        return error_page(request, 400, "Cannot save", str(problem))
    title = loaded.record.title
    if not title.endswith("(revised)"):
        title = f"{title} (revised)"
    try:
        bundle, token = store_bundle(collected, title=title, parent=loaded.record)
    except UploadError as problem:
        return error_page(request, 400, "Cannot save", str(problem))
    first: str | None
    try:
        first = presenters.case_url(bundle.pk, document, decoded_id, page.query)
        if not _case_exists(bundle.pk, document, decoded_id, page.options):
            first = _first_case_url(bundle.pk)
    except Exception:
        # Stored already: the manage token must reach the user whatever rendering does.
        logger.exception("could not find the revised case of bundle %s", bundle.pk)
        first = None
    return _created(request, bundle, token, first, parent=loaded.record)


def _case_exists(bundle_id: str, document: str, case_id: str, options: RenderOptions) -> bool:
    loaded = services.load_bundle(bundle_id)
    if loaded is None:
        return False
    try:
        rendered = services.render(loaded, document, options)
    except InputError:
        return False
    return services.find_case(rendered, case_id) is not None


# ---------------------------------------------------------------------------------------------
# Source pane and batch


@require_GET
def source(request: HtmxHttpRequest, bundle_id: str, path: str) -> HttpResponse:
    loaded = _loaded_or_404(bundle_id)
    pane = _source_pane(loaded, path, presenters.parse_line_range(request.GET.get("hl")),
                        whole=request.GET.get("all") == "1")
    context = {"bundle": loaded.record, "source": pane,
               "bundle_url": reverse("bundle", kwargs={"bundle_id": bundle_id})}
    if request.htmx:
        return render(request, "source.html#source-pane", context)
    return render(request, "source.html", context)


@require_GET
def healthz(request: HtmxHttpRequest) -> HttpResponse:
    """For load balancers, and the floor in benchmarks/bench_web.py."""
    return HttpResponse("ok", content_type="text/plain")


@require_GET
def batch(request: HtmxHttpRequest, bundle_id: str) -> HttpResponse:

    loaded = _loaded_or_404(bundle_id)
    page, error = _settings_or_400(request, request.GET)
    if error:
        return error
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
    loaded = _loaded_or_404(bundle_id)
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
