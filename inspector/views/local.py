"""Local mode's own pages: the folder's version (the pages poll it to re-render) and Share, which
uploads the folder to the server named by `--share-to` only after the user has seen what goes."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request

from django.conf import settings
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods

from inspector import local
from inspector.ingest import UploadError, collect_files

from .common import HtmxHttpRequest, Problem

SHARE_TIMEOUT_SECONDS = 60


def served_or_404() -> local.LocalFolder:
    served = local.folder()
    if served is None:
        raise Http404("This server does not show a local folder.")
    return served


@require_GET
def local_version(request: HtmxHttpRequest) -> JsonResponse:
    response = JsonResponse({"version": served_or_404().version})
    response["Cache-Control"] = "no-store"
    return response


def _folder_files(served: local.LocalFolder) -> dict[str, bytes]:
    files = served.files
    return collect_files([(path, files.read(path) or b"") for path in files.paths()],
                         expand_zips=False)


@require_http_methods(["GET", "POST"])
def local_share(request: HtmxHttpRequest) -> HttpResponse:
    served = served_or_404()
    context: dict = {"share_to": settings.LOCAL_SHARE_TO, "root": str(served.root)}
    if settings.LOCAL_SHARE_TO is None:
        return render(request, "local_share.html", context)
    try:
        files = _folder_files(served)
    except UploadError as problem:
        context["error"] = f"This folder cannot be uploaded as it is: {problem}"
        return render(request, "local_share.html", context, status=400)
    context.update(count=len(files), size=sum(len(data) for data in files.values()),
                   paths=sorted(files)[:50])
    if request.method == "GET":
        return render(request, "local_share.html", context)
    try:
        context["shared"] = upload(settings.LOCAL_SHARE_TO, files, served.record.title)
    except ShareFailed as problem:
        context["error"] = str(problem)
        return render(request, "local_share.html", context, status=502)
    return render(request, "local_share.html", context)


class ShareFailed(Exception):
    pass


def upload(server: str, files: dict[str, bytes], title: str) -> dict:
    """POST the folder to the server's upload API (multipart, each file's path in a `paths` part)."""
    boundary = "prompt-inspector-" + secrets.token_hex(12)
    body = bytearray()

    def part(headers: str, data: bytes) -> None:
        body.extend(f"--{boundary}\r\n{headers}\r\n\r\n".encode())
        body.extend(data)
        body.extend(b"\r\n")

    for path, data in files.items():
        safe_name = path.rsplit("/", 1)[-1].replace('"', "_")
        part(f'Content-Disposition: form-data; name="files"; filename="{safe_name}"\r\n'
             f"Content-Type: application/octet-stream", data)
        part('Content-Disposition: form-data; name="paths"', path.encode())
    part('Content-Disposition: form-data; name="title"', title.encode())
    body.extend(f"--{boundary}--\r\n".encode())
    request = urllib.request.Request(
        f"{server}/api/bundles", data=bytes(body), method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                 "Idempotency-Key": secrets.token_urlsafe(16)})
    try:
        with urllib.request.urlopen(request, timeout=SHARE_TIMEOUT_SECONDS) as response:
            answer = json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise ShareFailed(f"{server} refused the upload ({error.code}): "
                          f"{_detail(error.read())}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise ShareFailed(f"could not reach {server}: {error}") from None
    except ValueError:
        raise ShareFailed(f"{server} did not answer as a Prompt Inspector server") from None
    if not isinstance(answer, dict) or "url" not in answer:
        raise ShareFailed(f"{server} did not answer as a Prompt Inspector server")
    return {"url": answer["url"], "manage_url": answer.get("manage_url"),
            "manage_token": answer.get("manage_token")}


def _detail(raw: bytes) -> str:
    try:
        answer = json.loads(raw)
    except ValueError:
        return raw[:200].decode("utf-8", "replace")
    return str(answer.get("detail", answer)) if isinstance(answer, dict) else str(answer)[:200]


def refuse_upload_in_local_mode() -> None:
    if local.folder() is not None:
        raise Problem(403, "Uploads are off in local mode",
                      "This server shows the folder on disk; use Share to upload it elsewhere.")
