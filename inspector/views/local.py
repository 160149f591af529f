"""Local mode's own pages: the folder's version (the pages poll it to re-render) and Share, which
uploads the folder to the server named by `--share-to` only after the user has seen what goes; and
the guard that keeps local mode read-only and answering only to its own address."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods

from inspector.bundles import loading
from inspector.bundles.ingest import UploadError, collect_files
from inspector.core.bundle import MemoryBundle
from inspector.local import served_folder, sharing
from inspector.rendering import web_policy

from .common import HtmxHttpRequest, Problem, problem_page

SHARE_TIMEOUT_SECONDS = 60


def served_or_404() -> served_folder.LocalFolder:
    served = served_folder.folder()
    if served is None:
        raise Http404("This server does not show a local folder.")
    return served


@require_GET
def local_version(request: HtmxHttpRequest) -> JsonResponse:
    response = JsonResponse({"version": served_or_404().version})
    response["Cache-Control"] = "no-store"
    return response


def checked_share_list(served: served_folder.LocalFolder) -> sharing.ShareList:
    """What Share sends, held to the upload page's limits (raises UploadError)."""
    listed = sharing.share_list(served, settings.LOCAL_SHARE_INCLUDE)
    collect_files(list(listed.files.items()), expand_zips=False)
    return listed


@require_http_methods(["GET", "POST"])
def local_share(request: HtmxHttpRequest) -> HttpResponse:
    served = served_or_404()
    context: dict = {"share_to": settings.LOCAL_SHARE_TO, "root": str(served.root)}
    if settings.LOCAL_SHARE_TO is None:
        return render(request, "local_share.html", context)
    try:
        listed = checked_share_list(served)
    except UploadError as problem:
        context["error"] = f"This folder cannot be uploaded as it is: {problem}"
        return render(request, "local_share.html", context, status=400)
    context.update(
        count=len(listed.files),
        size=listed.size,
        paths=sorted(listed.files),
        ignored=listed.ignored,
        secrets=listed.secrets,
        digest=listed.digest,
    )
    if request.method == "GET":
        return render(request, "local_share.html", context)
    # The user confirmed one list: anything else (a file added, removed or changed since) is not
    # what they agreed to send.
    if request.POST.get("digest") != listed.digest:
        context["error"] = (
            "The folder changed since its list was shown, so nothing was sent. "
            "Check the list below and confirm again."
        )
        return render(request, "local_share.html", context, status=409)
    try:
        context["shared"] = upload(settings.LOCAL_SHARE_TO, listed.files, served.record.title)
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
        part(
            f'Content-Disposition: form-data; name="files"; filename="{safe_name}"\r\n'
            f"Content-Type: application/octet-stream",
            data,
        )
        part('Content-Disposition: form-data; name="paths"', path.encode())
    part('Content-Disposition: form-data; name="title"', title.encode())
    body.extend(f"--{boundary}--\r\n".encode())
    request = urllib.request.Request(
        f"{server}/api/bundles",
        data=bytes(body),
        method="POST",
        headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Idempotency-Key": secrets.token_urlsafe(16),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=SHARE_TIMEOUT_SECONDS) as response:
            answer = json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise ShareFailed(f"{server} refused the upload ({error.code}): {_detail(error.read())}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise ShareFailed(f"could not reach {server}: {error}") from None
    except ValueError:
        raise ShareFailed(f"{server} did not answer as a Prompt Inspector server") from None
    if not isinstance(answer, dict) or "url" not in answer:
        raise ShareFailed(f"{server} did not answer as a Prompt Inspector server")
    return {
        "url": answer["url"],
        "manage_url": answer.get("manage_url"),
        "manage_token": answer.get("manage_token"),
    }


def _detail(raw: bytes) -> str:
    try:
        answer = json.loads(raw)
    except ValueError:
        return raw[:200].decode("utf-8", "replace")
    return str(answer.get("detail", answer)) if isinstance(answer, dict) else str(answer)[:200]


def as_shared(loaded: loading.LoadedBundle) -> loading.LoadedBundle:
    """The served folder as Share would send it (a stored bundle as it is): the offline copy
    offered in local mode holds no file that Share would leave out."""
    served = served_folder.folder()
    if served is None or not loaded.read_only:
        return loaded
    try:
        listed = checked_share_list(served)
    except UploadError as problem:
        raise Problem(400, "This folder cannot be copied as it is", str(problem)) from None
    files = MemoryBundle(listed.files)
    return loading.LoadedBundle(
        loaded.record,
        files,
        tuple(web_policy.list_untrusted(files)),
        f"{served.cache_id()}:shared:{listed.digest}",
    )


# Local mode writes nothing to its database. The one form it takes is Share's confirmation (which
# uploads elsewhere); POST /api/render and a run's check (/runs/, /api/runs/check) store nothing.
WRITES_TAKEN = ("/local/share", "/api/render", "/runs/", "/api/runs/check")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class LocalModeGuard:
    """In local mode: answer only to the served address, and refuse every write but Share's, and
    that one from any page but this server's own."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HtmxHttpRequest) -> HttpResponse:
        if served_folder.folder() is None:
            return self.get_response(request)
        refusal = _refusal(request)
        if refusal is None:
            return self.get_response(request)
        title, message = refusal
        if request.path_info.startswith("/api/"):
            return JsonResponse({"detail": f"{title}: {message}", "file": None, "line": None}, status=403)
        return problem_page(request, 403, title, message)


def _refusal(request: HttpRequest) -> tuple[str, str] | None:
    host = request.META.get("HTTP_HOST", "")
    if not served_folder.is_served_host(host):
        served = served_folder.served_hosts()
        where = " or ".join(served) if served else "127.0.0.1 or localhost"
        return (
            "Not this server's address",
            f"Local mode answers only at {where}, not at {host or 'no address'}: another name "
            "pointing at this machine would let its site read the folder.",
        )
    if request.method in SAFE_METHODS:
        return None
    if request.path_info not in WRITES_TAKEN:
        return (
            "Local mode is read-only",
            "This server shows the folder on disk: nothing is uploaded, edited, revised, "
            "reviewed or deleted here. Edit the files in your editor (the pages follow); "
            "use Share to upload the folder to another server.",
        )
    if not _same_origin(request, host):
        return (
            "Refused a request from another site",
            "Only this server's own pages (or a script without a browser) may post to it.",
        )
    return None


def _same_origin(request: HttpRequest, host: str) -> bool:
    origin = request.headers.get("Origin")
    if origin is not None and origin != f"http://{host}":
        return False
    # A browser that sends it says where the request came from; a script that does not is local.
    return request.headers.get("Sec-Fetch-Site") in (None, "same-origin", "none")


def refuse_upload_in_local_mode() -> None:
    if served_folder.folder() is not None:
        raise Problem(
            403,
            "Uploads are off in local mode",
            "This server shows the folder on disk; use Share to upload it elsewhere.",
        )
