"""POST /api/runs/check: the run-check contract for an uploaded run (the real agentv 4.42.4 run),
against the project's uploaded files or the eval files the run kept."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.runs.conftest import MEDIAN

pytestmark = pytest.mark.django_db


def zipped(folder: Path, skip: str | None = None) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder).as_posix()
            if path.is_file() and not (skip and relative.startswith(skip)):
                archive.writestr(f"{folder.name}/{relative}", path.read_bytes())
    return SimpleUploadedFile(f"{folder.name}.zip", buffer.getvalue(), "application/zip")


def test_the_project_uploaded_with_one_file_edited(agentv_run, tmp_path: Path) -> None:
    project, run, _ = agentv_run
    edited = tmp_path / "project"
    shutil.copytree(project, edited, ignore=shutil.ignore_patterns(".agentv", ".git"))
    (edited / "evals" / "snippets" / "median.py").write_text(MEDIAN.replace("// 2", "// 3"))
    answer = Client().post("/api/runs/check", {"run": zipped(run), "files": zipped(edited)})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    statuses = {case["id"]: case["status"] for case in body["cases"]}
    assert statuses == {"greet": "same", "review-median": "differs", "review-mean": "same"}
    median = next(case for case in body["cases"] if case["id"] == "review-median")
    assert median["cause"] == [{"path": "evals/snippets/median.py", "line": 3}]


def test_the_run_alone_is_compared_with_the_files_it_kept(agentv_run) -> None:
    _, run, _ = agentv_run
    answer = Client().post("/api/runs/check", {"run": zipped(run)})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["runner"] == "agentv"
    assert {case["eval_path"].rsplit("/", 2)[-2:][0] for case in body["cases"]} == {"task"}
    assert any("rewrites their file references" in note for note in body["notes"])
    # Without file references agentv's copy is the case as it ran.
    assert next(case for case in body["cases"] if case["id"] == "greet")["status"] == "same"


def test_what_is_not_a_run_is_a_400(agentv_run) -> None:
    upload = SimpleUploadedFile("notes.txt", b"hello", "text/plain")
    answer = Client().post("/api/runs/check", {"run": upload})
    assert answer.status_code == 400
    assert "not a run" in answer.json()["detail"]


def test_the_run_page_says_what_is_not_a_run() -> None:
    page = Client().post("/runs/", {"run": SimpleUploadedFile("x.txt", b"hi", "text/plain")})
    assert page.status_code == 400
    assert "not a run" in page.content.decode()


def test_serve_lists_the_folders_runs_and_checks_one_against_its_files(agentv_run) -> None:
    """`prompt-inspector serve` on the project: /runs/ names .agentv/results/<run>/ and checks it
    against the folder's files as they are now."""
    from django.test import override_settings

    project, run, _ = agentv_run
    served = "127.0.0.1:8765"
    with override_settings(
        LOCAL_ROOT=str(project),
        LOCAL_WATCH=False,
        LOCAL_SHARE_TO=None,
        LOCAL_PORT=8765,
        LOCAL_SHARE_INCLUDE=(),
    ):
        client = Client(HTTP_HOST=served)
        listing = client.get("/runs/").content.decode()
        assert ".agentv/results/run-1" in listing
        page = client.get("/runs/", {"run": ".agentv/results/run-1"})
        assert page.status_code == 200
        assert page.content.decode().count('<tr class="status-same">') == 3
        outside = client.get("/runs/", {"run": "../elsewhere"})
        assert outside.status_code == 400
        assert (
            client.post(
                "/runs/", {"run": zipped(run)}, headers={"Origin": "https://evil.example"}
            ).status_code
            == 403
        )
