"""Stored bundles: create (a share link), inspect, export, delete."""

from __future__ import annotations

import logging

import pydantic
from django.http import HttpRequest, HttpResponse
from ninja import Header, Query, Router, Status
from ninja.errors import HttpError, ValidationError

from inspector.bundles import loading, upload_queue
from inspector.bundles.ingest import (
    UploadError,
    collect_files,
    default_title,
    delete_bundle,
    refuse_oversized,
    store_bundle,
    store_bundle_once,
    without_unread_binaries,
)
from inspector.cases import addresses
from inspector.core import collector, serialize
from inspector.core.agentv.guideline_reason import traced_case_detail
from inspector.core.export import with_cache_breakpoints
from inspector.ledgers.token_ledger import export_with_cache_breakpoints
from inspector.local import served_folder
from inspector.rendering import query_settings, stored_renders

from .common import (
    E400,
    E404,
    E413,
    E422,
    bundle_url,
    case_url,
    document_summaries,
    export_params,
    find_case,
    get_bundle,
    manage_url,
    pick_document,
    render_options,
    writes_from_this_site,
)
from .schemas import (
    BundleCreatedOut,
    BundleJsonIn,
    BundleOut,
    CaseDetailOut,
    DocumentOut,
    ErrorOut,
    ExportQuery,
    PayloadOut,
    PayloadQuery,
    RenderQuery,
)
from .uploads import QueuedUploadOut, left_out_answer, queued_answer

logger = logging.getLogger(__name__)

router = Router(tags=["bundles"])
router.add_decorator(writes_from_this_site(multipart=True), mode="view")

_MULTIPART_BODY = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "items": {"type": "string", "format": "binary"},
            "description": "The files; a .zip is unpacked in place.",
        },
        "paths": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Each file's relative path, in the order of `files` (multipart "
            "file names lose their folders). Default: the file's name.",
        },
        "title": {"type": "string", "maxLength": 200},
    },
    "required": ["files"],
    "additionalProperties": False,
}
_CREATE_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {"schema": _MULTIPART_BODY},
            "application/json": {"schema": BundleJsonIn.model_json_schema()},
        },
    }
}


def _checked_text(value: str, what: str) -> str:
    # JSON can carry lone surrogates, which no database column or UTF-8 file can hold.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UploadError(f"{what} is not valid Unicode (it holds a lone surrogate)") from None
    return value


def _title(raw: str) -> str:
    title = _checked_text(raw, "the title").replace("\x00", "").strip()
    if len(title) > 200:
        raise UploadError("the title is longer than 200 characters")
    return title


def _refuse_confused_parts(request: HttpRequest) -> None:
    """The multipart schema: `files` are file parts, `paths` text parts, one `title` text part.
    Anything else is a 422 that says which part, not a guess."""
    problems = []
    for name in request.FILES:
        if name != "files":
            problems.append({"loc": [name], "msg": "must be a text part, not a file", "type": "string_type"})
    if "files" in request.POST:
        problems.append({"loc": ["files"], "msg": "must be file parts", "type": "missing"})
    if len(request.POST.getlist("title")) > 1:
        problems.append({"loc": ["title"], "msg": "give the title once", "type": "string_type"})
    # Multipart has no types: clients send a boolean or a null as the text `true`, `false` or
    # `null`. A file with that bare name is no honest upload's path, so it is the type confusion.
    if any(path in ("true", "false", "null") for path in request.POST.getlist("paths")):
        problems.append(
            {"loc": ["paths"], "msg": "must be file paths, not a boolean or null", "type": "string_type"}
        )
    for name in request.POST:
        if name not in ("paths", "title", "files"):
            problems.append(
                {"loc": [name], "msg": "unknown part; send files, paths and title", "type": "extra_forbidden"}
            )
    if problems:
        raise ValidationError(problems)


def _read_multipart(request: HttpRequest) -> tuple[dict[str, bytes], str]:
    _refuse_confused_parts(request)
    uploads = request.FILES.getlist("files")
    if not uploads:
        raise UploadError("send the files as multipart parts named `files`")
    refuse_oversized([upload.size or 0 for upload in uploads])
    paths = request.POST.getlist("paths")
    if paths and len(paths) != len(uploads):
        raise UploadError(
            f"{len(paths)} paths for {len(uploads)} files: send one `paths` value per file, in order, or none"
        )
    pairs = [
        (_checked_text(paths[i] if paths else upload.name or "", "a path"), upload.read())
        for i, upload in enumerate(uploads)
    ]
    files = collect_files(pairs)
    title = _title(request.POST.get("title", ""))
    return files, title or default_title([path for path, _ in pairs], len(files))


def _read_json(request: HttpRequest) -> tuple[dict[str, bytes], str]:
    try:
        body = BundleJsonIn.model_validate_json(request.body)
    except pydantic.ValidationError as exc:
        # Without the input: it may be bytes that are not even UTF-8.
        raise ValidationError(
            [
                dict(error)
                for error in exc.errors(include_url=False, include_input=False, include_context=False)
            ]
        ) from None
    pairs = [
        (_checked_text(path, "a path"), _checked_text(text, f"{path[:80]}").encode("utf-8"))
        for path, text in body.files.items()
    ]
    files = collect_files(pairs, expand_zips=False)
    return files, _title(body.title) or default_title([path for path, _ in pairs], len(files))


def _read_upload(request: HttpRequest) -> tuple[dict[str, bytes], str]:
    """The files and title of an upload, sent as multipart parts or as JSON."""
    content_type = request.content_type or ""
    if content_type == "multipart/form-data":
        return _read_multipart(request)
    if content_type == "application/json":
        return _read_json(request)
    raise HttpError(
        400,
        "send multipart/form-data (files, paths, title) or application/json "
        '({"files": {path: text}, "title": ...})',
    )


@router.post(
    "",
    response={201: BundleCreatedOut, 202: QueuedUploadOut, **E400, 403: ErrorOut, **E413, **E422},
    openapi_extra=_CREATE_BODY,
    summary="Store files as a bundle and get its share link",
)
def create_bundle(
    request: HttpRequest,
    idempotency_key: str | None = Header(None, alias="Idempotency-Key", min_length=16, max_length=255),
):
    """The same limits and checks as the upload page. The manage token in the answer is the only
    way to delete the bundle later; it is not shown again. With an `Idempotency-Key` (a random
    value of at least 16 characters, such as a UUID) a retry of the same upload with the same key
    answers the same bundle, without its manage token (`manage_token` and `manage_url` are null):
    whoever replays a key learns the bundle, never the token that deletes it. An upload of at
    least the server's UPLOAD_QUEUE_BYTES (without an Idempotency-Key) is stored off the request:
    the answer is 202 with the manage token and a status URL to poll."""
    if served_folder.folder() is not None:
        raise HttpError(403, "uploads are off in local mode: this server shows a folder on disk")
    files, title = _read_upload(request)
    files, left_out = without_unread_binaries(files)
    if not idempotency_key and upload_queue.should_queue(files):
        return queued_answer(request, files, title, left_out)
    # The collector paused while the upload's render is alive, and the render let go of before it
    # resumes: its million objects are freed without ever being walked (a 10 MB upload spent about
    # 0.2 s of CPU in collections that walked them and found nothing to free).
    with collector.paused(), stored_renders.holding_renders():
        manage_token: str | None
        if idempotency_key:
            record, manage_token, created = store_bundle_once(files, title=title, key=idempotency_key)
            manage_token = manage_token if created else None
        else:
            record, manage_token = store_bundle(files, title=title)
        loaded = get_bundle(record.pk)
        documents, warnings = _cases_and_warnings(request, loaded)
    return Status(
        201,
        {
            **_bundle_data(request, loaded),
            "manage_token": manage_token,
            "manage_url": manage_url(request, record.pk, manage_token) if manage_token else None,
            "cases": documents,
            "warnings": warnings,
            "left_out": left_out_answer(left_out),
        },
    )


def _cases_and_warnings(request: HttpRequest, loaded: loading.LoadedBundle) -> tuple[list, list]:
    """The upload answer's documents with their cases, and every warning in full."""
    options = query_settings.parse_render_options({})
    warnings = []
    try:
        documents = document_summaries(request, loaded, options)
        for document in documents:
            warnings.extend(document["warnings"])
            if document["error"] is None:
                # `cases` counts each case's warnings; the upload answer lists them in full.
                for case in stored_renders.render(loaded, document["path"], options).cases:
                    warnings.extend(serialize.diagnostic(item) for item in case.warnings)
    except Exception:
        # The bundle is stored: whatever rendering does, the answer must carry its manage token.
        logger.exception("could not summarise the cases of bundle %s", loaded.record.pk)
        documents = []
        warnings.append(
            {
                "message": "the files were stored, but listing their cases failed; "
                "GET the bundle's cases to retry",
                "path": None,
                "line": None,
                "column": None,
                "severity": "error",
            }
        )
    return documents, warnings


def _bundle_data(request: HttpRequest, loaded: loading.LoadedBundle) -> dict:
    record = loaded.record
    return {
        "id": record.pk,
        "title": record.title,
        "created": record.created,
        "parent": record.parent_id,
        "url": bundle_url(request, record.pk),
        "files": [
            {"path": path, "size": len(loaded.files.read(path) or b"")} for path in loaded.files.paths()
        ],
        "documents": list(loaded.documents),
    }


@router.get("/{bundle_id}", response={200: BundleOut, **E404}, summary="A bundle's files and documents")
def get_bundle_info(request: HttpRequest, bundle_id: str):
    return _bundle_data(request, get_bundle(bundle_id))


@router.get(
    "/{bundle_id}/cases",
    response={200: list[DocumentOut], **E400, **E404, **E422},
    summary="Each document with its cases",
)
def list_cases(request: HttpRequest, bundle_id: str, query: Query[RenderQuery]):
    """Message, omitted and warning counts follow the render settings (a token budget omits
    messages). A document that cannot be rendered is listed with its `error`."""
    loaded = get_bundle(bundle_id)
    options = render_options(query)
    paths = None if query.document is None else (pick_document(loaded, query.document),)
    return document_summaries(request, loaded, options, paths)


@router.get(
    "/{bundle_id}/cases/{case_id}",
    response={200: CaseDetailOut, **E400, **E404, **E422},
    by_alias=True,
    summary="A rendered case: messages, segments and their origins",
)
def get_case(request: HttpRequest, bundle_id: str, case_id: str, query: Query[RenderQuery]):
    """Every message the model receives, each split into segments that name the file and lines
    their text came from; omitted messages (flagged with the reason) and warnings included."""
    loaded = get_bundle(bundle_id)
    options = render_options(query)
    path, _, case = find_case(loaded, case_id, query.document, options)
    return {
        **traced_case_detail(loaded.files, path, case, options.guideline_patterns),
        "document": path,
        "url": case_url(request, loaded.record.pk, path, case.id),
    }


_PAYLOAD_RESPONSES = {
    "responses": {
        200: {
            "description": "JSON for format=json; runnable code as text for curl, python and typescript.",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    }
}


@router.get(
    "/{bundle_id}/cases/{case_id}/payload",
    response={200: PayloadOut, **E400, **E404, **E422},
    openapi_extra=_PAYLOAD_RESPONSES,
    summary="The provider request for a case, as JSON or as code",
)
def get_payload(request: HttpRequest, bundle_id: str, case_id: str, query: Query[PayloadQuery]):
    """format=json (default) answers JSON: the request body (`payload`), what was changed to fit
    the provider, lints for what the provider would reject, and warnings. format=curl, python or
    typescript answers the code that sends the request, as text/plain."""
    from inspector.core.export import export_case, render_code

    loaded = get_bundle(bundle_id)
    provider = query_settings.parse_provider(query.provider)
    form = query_settings.parse_export_format(query.format)
    export_settings = query_settings.parse_export_settings(export_params(query))
    options = render_options(query)
    path, _, case = find_case(loaded, case_id, query.document, options)
    if query.cache_breakpoints and provider not in with_cache_breakpoints():
        raise query_settings.SettingsError(
            "cache_breakpoints goes with provider=" + " or ".join(with_cache_breakpoints())
        )
    result = (
        export_with_cache_breakpoints(loaded, options, path, case, export_settings, provider)
        if query.cache_breakpoints
        else export_case(case, provider, export_settings)
    )
    if form != "json":
        return HttpResponse(render_code(result, form), content_type="text/plain; charset=utf-8")
    return {**result.as_contract(case.id), "provider": provider}


_BATCH_RESPONSES = {
    "responses": {
        200: {
            "description": "One provider batch request per line.",
            "content": {"application/jsonl": {"schema": {"type": "string"}}},
        }
    }
}


@router.get(
    "/{bundle_id}/batch",
    response={200: None, **E400, **E404, **E422},
    openapi_extra=_BATCH_RESPONSES,
    summary="Every case of a document as a batch JSONL file",
)
def get_batch(request: HttpRequest, bundle_id: str, query: Query[ExportQuery]):
    """The provider's batch input format, one line per case. `document` is required when the
    bundle holds several documents."""
    from inspector.core.export import batch_jsonl

    loaded = get_bundle(bundle_id)
    provider = query_settings.parse_provider(query.provider)
    export_settings = query_settings.parse_export_settings(export_params(query))
    path = pick_document(loaded, query.document)
    rendered = stored_renders.render(loaded, path, render_options(query))
    body = batch_jsonl(rendered.cases, provider, export_settings)
    response = HttpResponse(body, content_type="application/jsonl; charset=utf-8")
    name = addresses.file_stem(path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    response["Content-Disposition"] = f'inline; filename="{name}.{provider}.jsonl"'
    return response


# A manage token in the query string lands in access logs (the server's and every proxy's), so the
# header is the way; `?token=` still works for scripts written for it, and says it is deprecated
# (RFC 9745: the date it was deprecated).
QUERY_TOKEN_DEPRECATED = "@1795392000"  # 2026-11-23
_QUERY_TOKEN_HEADERS = {
    "Deprecation": {
        "description": "Only when the token came as `?token=`: that way is deprecated (since this date).",
        "schema": {"type": "string"},
    },
    "Link": {
        "description": "Only with Deprecation: where the deprecation is documented.",
        "schema": {"type": "string"},
    },
}
_DELETE_RESPONSES = {"responses": {204: {"headers": _QUERY_TOKEN_HEADERS}}}


@router.delete(
    "/{bundle_id}",
    response={204: None, 403: ErrorOut, **E404},
    openapi_extra=_DELETE_RESPONSES,
    summary="Delete a bundle with its manage token",
)
def delete(
    request: HttpRequest,
    response: HttpResponse,
    bundle_id: str,
    x_manage_token: str | None = Header(
        None, alias="X-Manage-Token", description="The manage token from the upload answer (`manage_token`)."
    ),
    token: str | None = Query(
        None,
        deprecated=True,
        description="Deprecated: the manage token in the query string lands in access "
        "logs; send X-Manage-Token. Still accepted, with a `Deprecation` header.",
    ),
):
    """Send the manage token from the upload answer in the X-Manage-Token header. `token` in the
    query string still works, but a query string lands in access logs: that answer carries
    `Deprecation` and `Link` headers."""
    loaded = get_bundle(bundle_id)
    if not loaded.record.check_manage_token(x_manage_token or token or ""):
        raise HttpError(403, "wrong manage token")
    delete_bundle(loaded.record)
    loading.forget_bundle(bundle_id)
    if token is not None:
        response["Deprecation"] = QUERY_TOKEN_DEPRECATED
        response["Link"] = '</api/docs>; rel="deprecation"; type="text/html"'
    return Status(204, None)
