"""Stateless rendering: posted files in, rendered cases out, nothing stored."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router
from ninja.errors import HttpError

from inspector.bundles.ingest import UploadError, collect_files
from inspector.core import serialize
from inspector.core.agentv.guideline_reason import traced_case_detail
from inspector.core.bundle import MemoryBundle, normalize
from inspector.core.render_settings import SETTING_NAMES
from inspector.rendering import query_settings, web_policy

from .common import E400, E413, E422
from .schemas import RenderIn, RenderOut

router = Router(tags=["render"])


def _utf8(value: str, what: str) -> bytes:
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise UploadError(f"{what} is not valid Unicode (it holds a lone surrogate)") from None


def _files(body: RenderIn) -> dict[str, bytes]:
    if body.content is not None:
        if body.files:
            raise HttpError(400, "send either `content` (one file) or `files`, not both")
        name = body.filename or "eval.yaml"
        return collect_files([(name, _utf8(body.content, name[:80]))], expand_zips=False)
    if not body.files:
        raise HttpError(400, "send `content` (one file's text) or `files` ({path: text})")
    return collect_files(
        [(path, _utf8(text, path[:80])) for path, text in body.files.items()], expand_zips=False
    )


@router.post(
    "",
    response={200: RenderOut, **E400, **E413, **E422},
    by_alias=True,
    summary="Render posted files without storing them",
)
def render(request: HttpRequest, body: RenderIn):
    """For CI: post an eval file (`content` + `filename`) or a set of files (`files` + `path`, so
    that file references and guideline files resolve) and get every case's messages, segments,
    origins and warnings. Same limits as an upload; nothing is saved."""
    files = _files(body)
    bundle = MemoryBundle(files)
    documents = web_policy.list_untrusted(bundle)
    if body.path is not None:
        path = normalize(body.path)
        if not path or path not in files:
            raise HttpError(400, f"no file {body.path!r} among the posted files")
    elif documents:
        path = documents[0]
    elif len(files) == 1:
        path = next(iter(files))
    else:
        raise HttpError(400, "none of the posted files is an eval file or deck; name one with `path`")
    options = query_settings.parse_render_options(
        {name: value for name in SETTING_NAMES if (value := getattr(body, name)) is not None}
    )
    document = web_policy.render_untrusted(bundle, path, options)
    return {
        "path": path,
        "kind": document.kind,
        "profile": document.profile,
        "profile_reason": document.profile_reason,
        "documents": documents,
        "warnings": [serialize.diagnostic(item) for item in document.warnings],
        "cases": [
            traced_case_detail(bundle, path, case, options.guideline_patterns) for case in document.cases
        ],
        "conversions": document.conversions,
    }
