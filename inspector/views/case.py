"""The case page: the source beside the messages, the export panel, editing and revisions."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from inspector.bundles import loading
from inspector.bundles.forms import RevisionForm
from inspector.bundles.ingest import UploadError, collect_files, store_bundle
from inspector.cases import addresses, files_panel, finding, highlighting, message_cards, source_view
from inspector.core import bounded
from inspector.core.agentv.guideline_reason import guideline_paths, pattern_line_note
from inspector.core.bundle import MemoryBundle
from inspector.core.export import (
    REGISTRY,
    ExportResult,
    export_case,
    render_code,
    with_cache_breakpoints,
)
from inspector.core.model import InputError, RenderedCase
from inspector.core.options import RenderOptions
from inspector.ledgers import panels, token_ledger
from inspector.rendering import document_views, query_settings, web_policy

from .common import (
    EXPORT_KEYS,
    FORMAT_SUFFIX,
    PROVIDER_LABELS,
    RENDER_KEYS,
    HtmxHttpRequest,
    PageSettings,
    Problem,
    batch_url,
    csrf_or_manage_token,
    error_page,
    format_labels,
    loaded_or_404,
    page_settings,
    settings_or_problem,
    settings_view,
    writable_or_problem,
)
from .guidelines import editable_files, explain_guidelines
from .page_cache import shared_page
from .unreadable import unreadable_file
from .upload import created, first_case_url

logger = logging.getLogger(__name__)


@dataclass
class CaseContext:
    loaded: loading.LoadedBundle
    document: str
    index: document_views.CaseIndex  # the document's case ids and profile, not its other cases
    case: RenderedCase
    page: PageSettings
    # Set for a case rendered from unsaved text (a preview): its document's cases, not stored.
    edited_cases: list[RenderedCase] | None = None

    @property
    def edited(self) -> bool:
        return self.edited_cases is not None


def case_or_problem(
    request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str, params: Mapping[str, str]
) -> CaseContext:
    """The case an address names, rendered with the address's settings; Http404 or Problem."""
    loaded = loaded_or_404(bundle_id)
    decoded_id = addresses.decode_case_id(case_id)
    if decoded_id is None:
        raise Http404("This case address is malformed.")
    if not loaded.files.exists(document):
        raise Http404("This bundle has no file at that path.")
    page = settings_or_problem(params)
    try:
        index = document_views.case_index(loaded, document, page.options)
    except bounded.Busy as busy:  # load or this request's budget, not the file: try again
        raise Problem(503, "The server is busy", str(busy)) from None
    except InputError as problem:
        raise unreadable_file(loaded, document, page, problem) from None
    case = index.case(decoded_id)
    if case is None and (sibling := _same_gambit_deck(index.ids, decoded_id)) is not None:
        case = index.case(sibling)
    if case is None:
        if request.htmx and request.GET:
            raise Problem(
                400,
                "No case with this id under these settings",
                f"{document} read this way has no case {decoded_id!r}.",
            )
        raise Http404(f"{document} has no case with this id.")
    # gambit sends the Responses form; a pasted request is first shown as its own API takes it.
    preferred = case.metadata.get("preferred_provider") or case.metadata.get("format")
    if "provider" not in page.params and preferred in PROVIDER_LABELS:
        page = replace(page, provider=preferred)
    return CaseContext(loaded, document, index, case, page)


_GRADED = re.compile(r"@(?:turn-\d+|reply-\d+|conversation)$")


def _same_gambit_deck(ids: tuple[str, ...], wanted: str) -> str | None:
    """A gambit deck given a conversation to grade or answer becomes one case per turn
    (`<deck>@turn-<n>`, `@reply-<n>`, `@conversation`) and one case again without it: the
    address of one form, opened with the settings of the other, shows the first of the other."""
    base = _GRADED.sub("", wanted)
    return next(
        (
            case_id
            for case_id in ids
            if case_id != wanted
            and (case_id == base or (case_id.startswith(base + "@") and _GRADED.search(case_id)))
        ),
        None,
    )


# Past this, the page shows the request's start and Download saves all of it (a 10,000-message
# request is megabytes of JSON: highlighting it took seconds and tripled the page).
EXPORT_INLINE_CHARS = 100_000


def _export_result(ctx: CaseContext) -> ExportResult:
    """The case's export, with cache breakpoints when the cache option is on."""
    page = ctx.page
    if page.provider in with_cache_breakpoints() and page.params.get("cache_breakpoints") == "1":
        if ctx.edited:
            found = token_ledger.unstored_ledger(
                ctx.edited_cases or [], ctx.document, page.provider, page.export
            )
        else:
            found = token_ledger.bundle_ledger(
                ctx.loaded, page.options, page.provider, page.export, ctx.document
            )
        return token_ledger.cached_export(found, ctx.case, page.export)
    return export_case(ctx.case, page.provider, page.export)


def _export_panel(ctx: CaseContext, case_link: str) -> dict:
    case, page = ctx.case, ctx.page
    result = _export_result(ctx)
    code = render_code(result, page.form)
    suffix = FORMAT_SUFFIX[page.form]
    shown = code
    if len(code) > EXPORT_INLINE_CHARS:
        shown = code[: code.rfind("\n", 0, EXPORT_INLINE_CHARS) + 1 or EXPORT_INLINE_CHARS]
    code_html = highlighting.highlight_block(f"payload.{suffix}", shown)
    query = page.query
    base = case_link.split("?")[0]
    return {
        "provider": page.provider,
        "provider_label": PROVIDER_LABELS[page.provider],
        "batch_key": REGISTRY[page.provider].batch.key_name,
        "format": page.form,
        "format_label": format_labels(page.provider)[page.form],
        "code": code,
        "code_html": code_html,
        "truncated_at": len(shown) if shown is not code else None,
        "size": len(code.encode()),
        "changes": [_note(item) for item in getattr(result, "changes", [])],
        "lints": [_note(item) for item in getattr(result, "lints", [])],
        # The skip notice above the messages says it once; the export's copy of it would repeat it.
        "warnings": [
            text
            for text in (str(getattr(item, "message", item)) for item in getattr(result, "warnings", []))
            if not (case.skipped and case.skipped in text)
        ],
        "download_url": f"{base}export/?{query}{'&' if query else ''}download=1",
        "filename": _download_name(case.id, page.provider, suffix),
        "cache_breakpoints": page.params.get("cache_breakpoints") == "1",
        "cache_option": page.provider in with_cache_breakpoints(),
    }


def _note(item) -> dict:
    index = getattr(item, "message_index", None)
    return {
        "message": str(getattr(item, "message", item)),
        "index": index,
        "anchor": f"m{index}" if index is not None else None,
    }


def _download_name(case_id: str, provider: str, suffix: str) -> str:
    return f"{addresses.file_stem(case_id)}.{provider}.{suffix}"


def _message_window(request: HtmxHttpRequest) -> tuple[int, int] | None:
    if request.GET.get("all_messages") == "1":
        return None  # without JavaScript, "show every message" is a plain link
    return 0, message_cards.FIRST_MESSAGES


def _duplicate_names(case: RenderedCase) -> dict | None:
    """For a case whose id the file uses more than once: what it is called where (the page, and
    each provider's batch file), so the renamed id leads back to this case."""
    written = case.metadata.get("id_as_written")
    if written is None:
        return None
    batch: dict[str, list[str]] = {}
    for spec in REGISTRY.values():
        batch.setdefault(spec.batch.custom_id(case.id, case.id), []).append(spec.label)
    return {
        "written": written,
        "here": case.id,
        "batch": [(name, ", ".join(labels)) for name, labels in batch.items()],
    }


def _case_context(request: HtmxHttpRequest, ctx: CaseContext) -> dict:
    bundle_id = ctx.loaded.record.pk
    page = ctx.page
    view = message_cards.case_view(
        bundle_id, ctx.case, page.provider, page.options.max_tokens, _message_window(request)
    )
    guideline_reasons = explain_guidelines(ctx.loaded, ctx.document, page.options, view)
    case_link = addresses.case_url(bundle_id, ctx.document, ctx.case.id, page.query)
    export = _export_panel(ctx, case_link)
    _add_lints(view, export["lints"])
    base = addresses.case_url(bundle_id, ctx.document, ctx.case.id)
    return _neighbours(ctx) | {
        "bundle": ctx.loaded.record,
        "document": ctx.document,
        "guideline_reasons": guideline_reasons,
        "editor_files": editable_files(ctx.document, ctx.case),
        "editor_path": ctx.document,
        "rendered_profile": ctx.index.profile,
        "profile_reason": ctx.index.profile_reason,
        "file_warnings": ctx.index.file_warnings,
        "case": view,
        "case_link": case_link,
        "base_url": base,
        "share_url": addresses.absolute_url(request, case_link),
        "bundle_url": reverse("bundle", kwargs={"bundle_id": bundle_id})
        + ("?" + page.query if page.query else "")
        + "#"
        + files_panel.document_anchor(ctx.document),
        "settings": settings_view(page),
        "gambit_samples": (ctx.case.metadata.get("gambit") or {}).get("samples") or [],
        "gambit_conversation_samples": (ctx.case.metadata.get("gambit") or {}).get("conversation_samples")
        or [],
        "params": page.params,
        "render_params": {k: v for k, v in page.params.items() if k in RENDER_KEYS},
        "export_params": {k: v for k, v in page.params.items() if k in EXPORT_KEYS},
        "export": export,
        "batch_url": batch_url(bundle_id, ctx.document, page),
        "render_query": page.render_query,
        "page_query": page.query,
        "duplicate_names": _duplicate_names(ctx.case),
        "preview_url": base + "preview/",
        "revise_url": base + "revise/",
        "cache_band_url": base + "cache-band/" + ("?" + page.query if page.query else ""),
    }


def _add_lints(view: message_cards.CaseView, lints: list[dict]) -> None:
    """Each lint that points at a message shown on its card."""
    by_card = {note["index"]: note["message"] for note in lints if note["index"] is not None}
    for card in view.cards:
        if card.index in by_card:
            card.lints.append(by_card[card.index])


def _neighbours(ctx: CaseContext) -> dict:
    """The case's place in its file and the links to the cases before and after it."""
    ids = ctx.index.ids
    position = ids.index(ctx.case.id)

    def neighbour(index: int) -> str:
        return addresses.case_url(ctx.loaded.record.pk, ctx.document, ids[index], ctx.page.query)

    return {
        "previous_url": neighbour(position - 1) if position > 0 else None,
        "next_url": neighbour(position + 1) if position + 1 < len(ids) else None,
        "position": position + 1,
        "case_total": len(ids),
    }


def _cache_band(ctx: CaseContext) -> dict:
    return panels.band_context(ctx.loaded, ctx.document, ctx.edited_cases, ctx.case, ctx.page)


def source_pane(
    loaded: loading.LoadedBundle, path: str, highlight: tuple[int, int] | None, whole: bool = False
) -> source_view.SourcePane:
    decoded = loaded.files.text(path)
    if decoded is None:
        raise Http404("This bundle has no file at that path.")
    return source_view.SourcePane.build(
        loaded.record.pk, path, decoded.text, highlight, decoded.problem, whole
    )


@require_GET
@shared_page
def case_page(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    ctx = case_or_problem(request, bundle_id, document, case_id, request.GET)
    context = _case_context(request, ctx)
    if addresses.decode_case_id(case_id) != ctx.case.id:
        # The deck's other form (graded turn by turn, or not): its own page, header and all.
        if not request.htmx:
            return redirect(context["case_link"])
        response = HttpResponse(status=204)
        response["HX-Redirect"] = context["case_link"]
        return response
    target = request.htmx.target if request.htmx else None
    # The case's own lines may live in another file than the document (a grader deck's samples
    # come from the TOML it embeds): show that file, so the highlighted lines hold the case.
    span = ctx.case.span
    source_path = span.path if span and ctx.loaded.files.exists(span.path) else document
    highlight = (span.start_line, span.end_line) if span and span.path == source_path else None
    context["case_source_path"] = source_path
    context["case_source_url"] = addresses.source_url(bundle_id, source_path, *(highlight or (None, None)))
    if target in ("export", "rendered"):
        partial = "case.html#export-panel" if target == "export" else "case.html#rendered"
        response = render(request, partial, context)
        if target == "rendered":
            # New settings (guideline patterns, profile) can change which files the case draws on.
            response.write(
                render_to_string(
                    "case.html#files-list",
                    {
                        **context,
                        "files_out_of_band": True,
                        "source": None,
                        "files": _case_files(ctx, bundle_id, source_path, context["case_source_url"]),
                    },
                    request,
                )
            )
        # The form sends every field, empty or default; the address bar gets the canonical link.
        response["HX-Push-Url"] = context["case_link"]
        return response
    context["source"] = source_pane(ctx.loaded, source_path, highlight)
    context["files"] = _case_files(ctx, bundle_id, source_path, context["case_source_url"])
    editor_text = _editor_text(ctx.loaded, document)
    # A large file is not sent twice (pane and textarea) on every view: its editor loads on demand.
    context["inline_editor"] = len(editor_text) <= INLINE_EDITOR_CHARS
    context["editor_text"] = editor_text if context["inline_editor"] else ""
    return render(request, "case.html", context)


def _case_files(
    ctx: CaseContext, bundle_id: str, source_path: str, case_source_url: str
) -> files_panel.CaseFiles:
    return files_panel.case_files(
        bundle_id,
        list(ctx.loaded.files.paths()),
        ctx.loaded.documents,
        ctx.case,
        source_path,
        case_source_url,
    )


def _editor_text(loaded: loading.LoadedBundle, document: str) -> str:
    decoded = loaded.files.text(document)
    return decoded.text if decoded is not None else ""


INLINE_EDITOR_CHARS = 100_000


@require_GET
def editor(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    ctx = case_or_problem(request, bundle_id, document, case_id, request.GET)
    writable_or_problem(ctx.loaded)
    context = _case_context(request, ctx)
    path = _edited_path(ctx.loaded, document, request.GET)
    context["editor_path"] = path
    context["editor_text"] = _editor_text(ctx.loaded, path)
    context["inline_editor"] = True
    return render(request, "case.html#editor-form", context)


def _edited_path(loaded: loading.LoadedBundle, document: str, params: Mapping[str, str]) -> str:
    """The file an editor edits: the case's own unless `file` names another text file of the
    bundle (a guideline the case sends)."""
    path = params.get("file") or document
    decoded = loaded.files.text(path) if loaded.files.exists(path) else None
    if decoded is None or (decoded.problem or "").startswith("looks like a binary"):
        raise Http404("No such text file in this bundle.")
    return path


@require_GET
@shared_page
def cache_band(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    """Where this case stands in its file's prompt-cache map, loaded after the page: the map needs
    every case of the file."""
    ctx = case_or_problem(request, bundle_id, document, case_id, request.GET)
    return render(request, "case_cache_band.html", _cache_band(ctx))


@require_GET
@shared_page
def line_note(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    """A source line that produced none of the case's text, in words (?path=&line=): another
    case's line links to that case, a key the tool never sends says who reads it instead."""
    ctx = case_or_problem(request, bundle_id, document, case_id, request.GET)
    path = request.GET.get("path", document)
    raw = request.GET.get("line", "")
    decoded = ctx.loaded.files.text(path)
    if decoded is None or not raw.isdigit() or len(raw) > 8:
        raise Http404("No such line in this bundle.")
    number = int(raw)
    try:
        lines = document_views.line_map(ctx.loaded, document, ctx.page.options)
    except InputError as problem:
        raise Problem(400, "This file cannot be rendered with these settings", str(problem)) from None
    note = lines.explain(path, number, decoded.text, ctx.case.id)
    decided = pattern_line_note(ctx.loaded.files, document, path, number, guideline_paths(ctx.case))
    if decided is not None:  # a pattern sends no text but decides which files are guidelines
        note = replace(note, text=decided)
    jump = None
    if note.jump_to is not None:
        jump = addresses.case_url(bundle_id, document, note.jump_to, ctx.page.query) + f"#L{number}"
    return render(
        request,
        "line_note.html",
        {
            "note": note,
            "jump": jump,
            "path": path,
            "line": number,
            "line_url": addresses.case_url(bundle_id, document, ctx.case.id) + "line/",
        },
    )


@require_GET
@shared_page
def case_messages(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    """The next chunk of a long conversation's message cards, loaded as the reader scrolls."""
    ctx = case_or_problem(request, bundle_id, document, case_id, request.GET)
    raw = request.GET.get("from", "")
    start = int(raw) if raw.isdigit() and len(raw) < 9 else 0
    view = message_cards.case_view(
        bundle_id,
        ctx.case,
        ctx.page.provider,
        ctx.page.options.max_tokens,
        (start, start + message_cards.MESSAGE_CHUNK),
    )
    explain_guidelines(ctx.loaded, ctx.document, ctx.page.options, view)
    result = export_case(ctx.case, ctx.page.provider, ctx.page.export)
    lints = {note.message_index: str(note.message) for note in result.lints if note.message_index is not None}
    for card in view.cards:
        if card.index in lints:
            card.lints.append(lints[card.index])
    base = addresses.case_url(bundle_id, ctx.document, ctx.case.id)
    return render(
        request,
        "case.html#message-cards",
        {
            "case": view,
            "base_url": base,
            "page_query": ctx.page.query,
            "export": {"provider_label": PROVIDER_LABELS[ctx.page.provider]},
        },
    )


@require_GET
def export_view(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    ctx = case_or_problem(request, bundle_id, document, case_id, request.GET)
    case_link = addresses.case_url(bundle_id, ctx.document, ctx.case.id, ctx.page.query)
    export = _export_panel(ctx, case_link)
    if request.GET.get("download"):
        content_type = "application/json" if ctx.page.form == "json" else "text/plain; charset=utf-8"
        response = HttpResponse(export["code"], content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{export["filename"]}"'
        return response
    return redirect(case_link)


def _edited_bundle(loaded: loading.LoadedBundle, document: str, text: str) -> dict[str, bytes]:
    files = {path: loaded.files.read(path) or b"" for path in loaded.files.paths()}
    files[document] = text.encode("utf-8")
    return files


def _edited_case_or_404(bundle_id: str, document: str, case_id: str) -> tuple[loading.LoadedBundle, str]:
    loaded = writable_or_problem(loaded_or_404(bundle_id))
    decoded_id = addresses.decode_case_id(case_id)
    if decoded_id is None or not loaded.files.exists(document):
        raise Http404("No such case.")
    return loaded, decoded_id


@require_POST
@csrf_or_manage_token
def preview(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    """The messages pane for edited, unsaved source text. Nothing is stored."""
    loaded, decoded_id = _edited_case_or_404(bundle_id, document, case_id)
    form = RevisionForm(request.POST)
    if not form.is_valid():
        return render(request, "preview_error.html", {"message": "The edited text is too long."})
    try:
        page = page_settings(request.POST)
    except query_settings.SettingsError as problem:
        return render(request, "preview_error.html", {"message": f"Bad settings: {problem}"})
    edited = _edited_path(loaded, document, request.POST)
    files = MemoryBundle(_edited_bundle(loaded, edited, form.cleaned_data["text"]))
    try:
        rendered = web_policy.render_files(files, document, page.options)
    except InputError as problem:
        found = problem.diagnostic
        # The editor marks the line and offers to jump there when the error is in the edited file.
        error_line = found.line if found.path == edited else None
        return render(request, "preview_error.html", {"message": str(problem), "error_line": error_line})
    except RecursionError:
        return render(request, "preview_error.html", {"message": "The file nests too deeply."})
    case = finding.find_case(rendered, decoded_id)
    if case is None:
        if not rendered.cases:
            return render(request, "preview_error.html", {"message": "The edited file has no cases."})
        case = rendered.cases[0]
    ctx = CaseContext(
        loaded, document, document_views.CaseIndex.outline(rendered), case, page, edited_cases=rendered.cases
    )
    context = _case_context(request, ctx)
    context["preview"] = True
    response = render(request, "case.html#rendered", context)
    # The address keeps following the settings while the edit is unsaved (the settings form's own
    # request, which would push it, is replaced by this preview): the saved case with them.
    response["HX-Replace-Url"] = addresses.case_url(bundle_id, document, decoded_id, page.query)
    return response


@require_POST
@csrf_or_manage_token
def revise(request: HtmxHttpRequest, bundle_id: str, document: str, case_id: str) -> HttpResponse:
    """Store a new bundle with the edited file replaced; the old bundle stays as it was."""
    loaded, decoded_id = _edited_case_or_404(bundle_id, document, case_id)
    form = RevisionForm(request.POST)
    if not form.is_valid():
        return error_page(request, 400, "Cannot save", "The edited text is too long.")
    page = settings_or_problem(request.POST)
    files = _edited_bundle(loaded, _edited_path(loaded, document, request.POST), form.cleaned_data["text"])
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
        first = addresses.case_url(bundle.pk, document, decoded_id, page.query)
        if not _case_exists(bundle.pk, document, decoded_id, page.options):
            first = first_case_url(bundle.pk)
    except Exception:
        # Stored already: the manage token must reach the user whatever rendering does.
        logger.exception("could not find the revised case of bundle %s", bundle.pk)
        first = None
    return created(bundle, token, first, parent=loaded.record)


def _case_exists(bundle_id: str, document: str, case_id: str, options: RenderOptions) -> bool:
    return finding.first_case(bundle_id, (document,), options, case_id) is not None


# ---------------------------------------------------------------------------------------------
# Source pane and batch
