"""What every page shares: the request type, render settings from the query string, and
problems (bad settings, a file that cannot be rendered) raised by lookups and answered in one
place, ProblemMiddleware, as an error page or, for an htmx swap of one pane, that pane."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings as django_settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django_htmx.middleware import HtmxDetails

from inspector.bundles import loading
from inspector.core.export import REGISTRY, ExportSettings
from inspector.core.formats import INPUT_FORMATS
from inspector.core.options import PROFILES, RenderOptions
from inspector.core.render_settings import SETTING_NAMES
from inspector.local import served_folder
from inspector.rendering import query_settings

# The parser's settings and the page's own switch between the default and the edited patterns.
RENDER_KEYS = ("profile", "patterns_mode", *(name for name in SETTING_NAMES if name != "profile"))
EXPORT_KEYS = (
    "provider",
    "format",
    "model",
    "max_output_tokens",
    "temperature",
    "cache_breakpoints",
    "pricing",  # the ledger's: each case at its own model, or all at the provider
)
PROVIDER_LABELS = {spec.id: spec.label for spec in REGISTRY.values()}
FORMAT_LABELS = {"json": "JSON", "curl": "curl", "python": "Python", "typescript": "TypeScript"}
FORMAT_SUFFIX = {"json": "json", "curl": "sh", "python": "py", "typescript": "ts"}


def format_labels(provider: str) -> dict[str, str]:
    """The code forms as the menu names them for a provider: its shell form may be its own CLI."""
    shell = REGISTRY[provider].shell
    return FORMAT_LABELS | ({"curl": shell.label} if shell is not None else {})


PANES = ("rendered", "export")


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it (django-htmx's example app's type)."""

    htmx: HtmxDetails


class Problem(Exception):
    """Something the user must change (a setting, the file), raised where it is found."""

    def __init__(self, status: int, title: str, message: str, source: object | None = None):
        super().__init__(message)
        self.status = status
        self.title = title
        # The file at the line the problem names (presenters.SourcePane), shown beside it.
        self.source = source


class ProblemMiddleware:
    """Answers a Problem raised by any view, the same way everywhere."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HtmxHttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Problem):
            return problem_page(request, exception.status, exception.title, str(exception), exception.source)
        return None


def problem_page(
    request: HtmxHttpRequest, status: int, title: str, message: str, source: object | None = None
) -> HttpResponse:
    """An error page, or, for an htmx swap of one pane, that pane saying what is wrong (htmx is
    configured to swap 400 answers), so a rejected setting never fails silently."""
    target = request.htmx.target if request.htmx else None
    if target in PANES:
        return render(
            request,
            "preview_error.html",
            {"pane_id": target, "heading": f"{title}.", "message": message},
            status=status,
        )
    # The same address without its query string is the view with default settings.
    return render(
        request,
        "error.html",
        {
            "title": title,
            "message": message,
            "source": source,
            "default_view_url": request.path if request.GET else None,
        },
        status=status,
    )


def error_page(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "error.html", {"title": title, "message": message}, status=status)


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


def page_settings(params: Mapping[str, str]) -> PageSettings:
    """Raises query_settings.SettingsError for values the user must fix."""
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
    for key, default in (
        ("profile", "auto"),
        ("input_format", "auto"),
        ("provider", "openai-chat"),
        ("format", "json"),
        ("pricing", "configured"),
    ):
        if clean.get(key) == default:
            del clean[key]
    options = query_settings.parse_render_options(clean)
    provider = query_settings.parse_provider(clean.get("provider"))
    query_settings.parse_pricing(clean.get("pricing"))
    form = query_settings.parse_export_format(clean.get("format"))
    export = query_settings.parse_export_settings(clean)
    return PageSettings(options, clean, provider, form, export)


def settings_or_problem(params: Mapping[str, str]) -> PageSettings:
    try:
        return page_settings(params)
    except query_settings.SettingsError as error:
        raise Problem(400, "Bad settings", str(error)) from None


def settings_view(page: PageSettings) -> dict:
    params = page.params
    return {
        "profiles": PROFILES,
        "input_formats": INPUT_FORMATS,
        "profile": page.options.profile,
        "input_format": page.options.input_format,
        "grader_provider": page.options.grader_provider or "",
        "patterns_custom": "patterns_mode" in params,
        "patterns": params.get("patterns", ""),
        "system_prompt": params.get("system_prompt", ""),
        "gambit_context": params.get("gambit_context", ""),
        "gambit_context_sample": params.get("gambit_context_sample", ""),
        "gambit_message": params.get("gambit_message", ""),
        "gambit_conversation": params.get("gambit_conversation", ""),
        "gambit_conversation_sample": params.get("gambit_conversation_sample", ""),
        "max_tokens": params.get("max_tokens", ""),
        "providers": list(PROVIDER_LABELS.items()),
        "formats": list(format_labels(page.provider).items()),
        "provider": page.provider,
        "format": page.form,
        "model": params.get("model", ""),
        "max_output_tokens": params.get("max_output_tokens", ""),
        "temperature": params.get("temperature", ""),
    }


def loaded_or_404(bundle_id: str) -> loading.LoadedBundle:
    loaded = loading.load_bundle(bundle_id)
    if loaded is None:
        raise Http404("No bundle has this id. The link may be mistyped, or the bundle was deleted.")
    return loaded


def writable_or_problem(loaded: loading.LoadedBundle) -> loading.LoadedBundle:
    if loaded.read_only:
        raise Problem(
            403,
            "This folder is read-only here",
            "It is the folder on disk that `prompt-inspector serve` shows: edit its files in "
            "your editor and the pages follow within a second.",
        )
    return loaded


def csrf_or_manage_token(view):
    """Edits posted from the private manage page carry its token instead of a CSRF token (that
    page is no-referrer, so browsers send `Origin: null`, which Django's check refuses); a post
    without a valid token gets the usual CSRF check."""
    from functools import wraps

    from django.middleware.csrf import CsrfViewMiddleware
    from django.views.decorators.csrf import csrf_exempt

    from inspector.models import Bundle

    @csrf_exempt
    @wraps(view)
    def wrapper(request: HttpRequest, bundle_id: str, *args, **kwargs) -> HttpResponse:
        record = (
            Bundle.objects.filter(pk=bundle_id).first() if loading.BUNDLE_ID.fullmatch(bundle_id) else None
        )
        if record is None or not record.check_manage_token(request.POST.get("token", "")):
            refusal = CsrfViewMiddleware(view).process_view(request, None, (), {})  # type: ignore[arg-type]
            if refusal is not None:
                return refusal
        return view(request, bundle_id, *args, **kwargs)

    return wrapper


def local_mode(request: HttpRequest) -> dict:  # noqa: ARG001 - a context processor's signature
    """Template context for local mode (`prompt-inspector serve PATH`)."""
    served = served_folder.folder()
    if served is None:
        return {"local_mode": False}
    return {
        "local_mode": True,
        "local_root": str(served.root),
        "local_version_url": reverse("local-version"),
        "local_share_to": django_settings.LOCAL_SHARE_TO,
    }


def batch_url(bundle_id: str, document: str | None, page: PageSettings) -> str:
    params = dict(page.params)
    if document:
        params["document"] = document
    return reverse("batch", kwargs={"bundle_id": bundle_id}) + ("?" + urlencode(params) if params else "")
