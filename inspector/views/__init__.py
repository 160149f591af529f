"""The pages, by area: upload and manage, the bundle page, the case page, errors. Each view parses
its input (rendering/query_settings.py), loads the bundle (bundles/) and its renders (rendering/),
builds a view model (cases/, ledgers/, diffs/) and renders a template; htmx requests get the named
partial of the same template. Lookups raise (Http404, or Problem for what the user must change) and
ProblemMiddleware answers them in one place."""

from .bundle import batch, bundle_page, converted, ledger_panel, source
from .case import cache_band, case_messages, case_page, editor, export_view, line_note, preview, revise
from .diff import diff_case_page, diff_page
from .errors import bad_request, healthz, not_found, server_error
from .local import local_share, local_version
from .review import offline_copy, review, review_panel, review_progress
from .runs import run_check_page, run_page, stored_run_case, stored_run_page
from .upload import home, manage, manage_legacy, manage_link

__all__ = [
    "bad_request",
    "batch",
    "cache_band",
    "ledger_panel",
    "bundle_page",
    "case_messages",
    "case_page",
    "converted",
    "diff_case_page",
    "diff_page",
    "editor",
    "export_view",
    "healthz",
    "home",
    "line_note",
    "local_share",
    "local_version",
    "manage",
    "manage_legacy",
    "manage_link",
    "not_found",
    "offline_copy",
    "preview",
    "review",
    "stored_run_case",
    "stored_run_page",
    "review_panel",
    "review_progress",
    "revise",
    "run_check_page",
    "run_page",
    "server_error",
    "source",
]
