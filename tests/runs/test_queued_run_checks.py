"""Runs past RUN_CHECK_QUEUE_BYTES are answered 202 (the page: the upload's progress page, polled) and
made by the queue's worker (`manage.py db_worker`, run here for the tasks waiting) exactly as the
request would have made them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client, override_settings
from django_tasks_db.models import DBTaskResult

from inspector.models import Bundle, hash_token
from tests.runs.conftest import MEDIAN
from tests.runs.test_run_check_api import zipped


def run_worker() -> None:
    call_command("db_worker", "--batch", "--no-startup-delay", verbosity=0)


def edited_project(project: Path, tmp_path: Path) -> Path:
    edited = tmp_path / "project"
    shutil.copytree(project, edited, ignore=shutil.ignore_patterns(".agentv", ".git"))
    (edited / "evals" / "snippets" / "median.py").write_text(MEDIAN.replace("// 2", "// 3"))
    return edited


@pytest.mark.django_db(transaction=True)
def test_a_large_api_check_is_queued_then_answered_as_the_request_would(agentv_run, tmp_path) -> None:
    project, run, _ = agentv_run
    edited = edited_project(project, tmp_path)
    client = Client()
    direct = client.post("/api/runs/check", {"run": zipped(run), "files": zipped(edited)}).json()
    with override_settings(RUN_CHECK_QUEUE_BYTES=20):
        answer = client.post("/api/runs/check", {"run": zipped(run), "files": zipped(edited)})
    assert answer.status_code == 202, answer.content
    status_path = answer.json()["status_url"].removeprefix("http://testserver")
    assert client.get(status_path).json() == {
        "status": "queued",
        "detail": "",
        "result": None,
        "id": None,
        "url": None,
    }
    run_worker()
    done = client.get(status_path).json()
    assert done["status"] == "checked" and done["result"] == direct


@pytest.mark.django_db(transaction=True)
def test_a_queued_check_of_what_is_not_a_run_is_refused_with_the_reason() -> None:
    client = Client()
    with override_settings(RUN_CHECK_QUEUE_BYTES=2):
        answer = client.post("/api/runs/check", {"run": SimpleUploadedFile("x.txt", b"hi", "text/plain")})
    run_worker()
    refused = client.get(answer.json()["status_url"].removeprefix("http://testserver")).json()
    assert refused["status"] == "refused" and "not a run" in refused["detail"] and refused["result"] is None


@pytest.mark.django_db
def test_small_checks_and_unknown_ids_are_as_before() -> None:
    client = Client()
    upload = SimpleUploadedFile("x.txt", b"hi", "text/plain")
    with override_settings(RUN_CHECK_QUEUE_BYTES=10_000):
        assert client.post("/api/runs/check", {"run": upload}).status_code == 400
    assert client.get("/api/runs/checks/not-an-id").status_code == 404
    assert client.get("/api/runs/checks/7d1f6c1e-5a8e-4c8e-9d53-0f1e2d3c4b5a").status_code == 404
    assert client.get("/runs/checks/7d1f6c1e-5a8e-4c8e-9d53-0f1e2d3c4b5a/").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_large_run_from_the_page_is_stored_by_the_worker_then_its_manage_page_opens_on_it(
    agentv_run, tmp_path
) -> None:
    project, run, _ = agentv_run
    edited = edited_project(project, tmp_path)
    client = Client()
    with override_settings(RUN_CHECK_QUEUE_BYTES=20):
        sent = client.post("/runs/", {"run": zipped(run), "files": zipped(edited)})
    assert sent.status_code == 303
    page_path, _, token = sent["Location"].partition("#")
    assert token and not Bundle.objects.exists()
    # The files wait staged as a queued upload's do, not in the task's arguments one by one.
    (row,) = DBTaskResult.objects.all()
    staged = row.args_kwargs["args"][0]
    assert set(staged) == {"files"} and any(path.startswith("run/") for path in staged["files"])
    waiting = client.get(page_path).content.decode()
    assert 'id="upload-progress"' in waiting and f'hx-get="{page_path}"' in waiting
    run_worker()
    (record,) = Bundle.objects.all()
    assert record.run_root == "run/" and record.manage_token_hash == hash_token(token)
    stored = client.get(page_path).content.decode()
    assert f'action="/b/{record.pk}/manage/"' in stored and f'value="/b/{record.pk}/run/"' in stored
    html = client.get(f"/b/{record.pk}/run/").content.decode()
    assert html.count('<tr class="status-differs">') == 1 and html.count('<tr class="status-same">') == 2
    median = client.get(f"/b/{record.pk}/run/2/").content.decode()
    assert "<code>evals/snippets/median.py:3</code>" in median
    assert "<del>2</del>" in median and "<ins>3</ins>" in median


@pytest.mark.django_db(transaction=True)
def test_a_large_run_from_the_api_answers_its_link_once_stored(agentv_run) -> None:
    _, run, _ = agentv_run
    client = Client()
    with override_settings(RUN_CHECK_QUEUE_BYTES=20):
        answer = client.post("/api/runs", {"run": zipped(run)})
    assert answer.status_code == 202, answer.content
    body = answer.json()
    status_path = body["status_url"].removeprefix("http://testserver")
    run_worker()
    done = client.get(status_path).json()
    assert done["status"] == "stored" and done["url"] == f"http://testserver/b/{done['id']}/run/"
    assert Bundle.objects.get(pk=done["id"]).check_manage_token(body["manage_token"])
    assert client.get(f"/api/runs/{done['id']}").json()["runner"] == "agentv"
