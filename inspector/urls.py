from django.urls import path, register_converter

from inspector import views
from inspector.api import api
from inspector.views.health import readyz
from inspector.views.uploads import upload_progress


class CaseIdConverter:
    # Case ids arrive ~XX-escaped (see cases/addresses.encode_case_id), so one path segment holds any id.
    regex = r"[^/]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(CaseIdConverter, "caseid")

case = "b/<str:bundle_id>/<path:document>/case/<caseid:case_id>/"

urlpatterns = [
    path("", views.home, name="home"),
    path("api/", api.urls),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("uploads/<str:upload_id>/", upload_progress, name="upload-progress"),
    path("local/version", views.local_version, name="local-version"),
    path("local/share", views.local_share, name="local-share"),
    path("diff/", views.diff_page, name="diff"),
    path("diff/case/", views.diff_case_page, name="diff-case"),
    path("runs/", views.run_page, name="runs"),
    path("runs/checks/<str:check_id>/", views.run_check_page, name="run-check"),
    path("b/<str:bundle_id>/", views.bundle_page, name="bundle"),
    path("b/<str:bundle_id>/manage/", views.manage, name="manage"),
    path("b/<str:bundle_id>/run/", views.stored_run_page, name="run"),
    path("b/<str:bundle_id>/run/<int:number>/", views.stored_run_case, name="run-case"),
    path("b/<str:bundle_id>/manage/<str:token>/", views.manage_legacy, name="manage-legacy"),
    path("b/<str:bundle_id>/batch.jsonl", views.batch, name="batch"),
    path("b/<str:bundle_id>/ledger/", views.ledger_panel, name="ledger-panel"),
    path("b/<str:bundle_id>/review/", views.review, name="review"),
    path("b/<str:bundle_id>/review/panel/", views.review_panel, name="review-panel"),
    path("b/<str:bundle_id>/review/progress/", views.review_progress, name="review-progress"),
    path("b/<str:bundle_id>/offline.html", views.offline_copy, name="offline"),
    path(case, views.case_page, name="case"),
    path(case + "export/", views.export_view, name="export"),
    path(case + "messages/", views.case_messages, name="case-messages"),
    path(case + "cache-band/", views.cache_band, name="cache-band"),
    path(case + "line/", views.line_note, name="line-note"),
    path(case + "preview/", views.preview, name="preview"),
    path(case + "editor/", views.editor, name="editor"),
    path(case + "revise/", views.revise, name="revise"),
    path("b/<str:bundle_id>/source/<path:path>", views.source, name="source"),
    path("b/<str:bundle_id>/converted/<path:document>", views.converted, name="converted"),
]

handler400 = "inspector.views.bad_request"
handler404 = "inspector.views.not_found"
handler500 = "inspector.views.server_error"
