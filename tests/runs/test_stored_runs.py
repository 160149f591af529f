"""A run uploaded on the page or through `POST /api/runs` is stored as a bundle (the same checks,
content-addressed blobs, share link and manage token as any upload) with a page of its own: its
cases with their status, each case opening its diff. Every rule of the authority model is checked
through the page and the API. The run is the real agentv 4.42.4 run of conftest.py."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from inspector.models import Blob, Bundle, hash_token
from tests.runs.conftest import MEDIAN
from tests.runs.test_run_check_api import zipped

pytestmark = pytest.mark.django_db


def edited_project(project: Path, tmp_path: Path) -> Path:
    edited = tmp_path / "project"
    shutil.copytree(project, edited, ignore=shutil.ignore_patterns(".agentv", ".git"))
    (edited / "evals" / "snippets" / "median.py").write_text(MEDIAN.replace("// 2", "// 3"))
    return edited


def stored_from_page(client: Client, run: Path, project: Path) -> tuple[str, str, str]:
    """(bundle id, manage token, the run page's link the manage page opens on)."""
    sent = client.post("/runs/", {"run": zipped(run), "files": zipped(project)})
    assert sent.status_code == 303, sent.content
    location = urlsplit(sent["Location"])
    bundle_id = re.fullmatch(r"/b/([^/]+)/manage/", location.path).group(1)
    return bundle_id, location.fragment, parse_qs(location.query)["case"][0]


def test_the_page_stores_the_run_and_its_link_lists_cases_each_opening_its_diff(agentv_run, tmp_path) -> None:
    project, run, _ = agentv_run
    owner = Client()
    bundle_id, token, run_link = stored_from_page(owner, run, edited_project(project, tmp_path))
    record = Bundle.objects.get(pk=bundle_id)
    assert record.run_root == "run/" and record.manage_token_hash == hash_token(token)
    assert run_link == f"/b/{bundle_id}/run/"
    paths = set(record.files.values_list("path", flat=True))
    # Stored as uploaded: the project zip's folder and the run's under run/.
    assert "project/evals/snippets/median.py" in paths and "run/run-1/index.jsonl" in paths

    reader = Client()  # a link holder: no token, no cookie
    listing = reader.get(run_link)
    assert listing.status_code == 200
    html = listing.content.decode()
    rows = re.findall(r'<tr class="status-(\w+)"><td><a href="([^"]+)">([^<]+)</a>', html)
    assert [(status, name) for status, _, name in rows] == [
        ("same", "greet"),
        ("differs", "review-median"),
        ("same", "review-mean"),
    ]
    median = reader.get(rows[1][1])
    assert median.status_code == 200
    case_html = median.content.decode()
    assert "<code>evals/snippets/median.py:3</code>" in case_html
    assert "<del>2</del>" in case_html and "<ins>3</ins>" in case_html
    assert 'rel="prev"' in case_html and 'rel="next"' in case_html
    assert reader.get(f"/b/{bundle_id}/run/9/").status_code == 404
    assert reader.get(f"/b/{bundle_id}/").status_code == 200  # the files, as any bundle's
    # The API reads the same check by the same link.
    contract = reader.get(f"/api/runs/{bundle_id}").json()
    assert {case["id"]: case["status"] for case in contract["cases"]} == {
        "greet": "same",
        "review-median": "differs",
        "review-mean": "same",
    }


def test_the_manage_page_opens_on_the_run_and_only_the_token_deletes_it(agentv_run, tmp_path) -> None:
    project, run, _ = agentv_run
    client = Client()
    bundle_id, token, _ = stored_from_page(client, run, edited_project(project, tmp_path))
    manage = f"/b/{bundle_id}/manage/"
    assert client.post(manage, {"token": "wrong"}).status_code == 404
    page = client.post(manage, {"token": token}).content.decode()
    assert f'id="open-case" href="http://testserver/b/{bundle_id}/run/"' in page
    assert "Open the run" in page
    unconfirmed = client.post(manage, {"token": token, "action": "delete"})
    assert 'id="delete-refused"' in unconfirmed.content.decode()
    assert client.get(f"/b/{bundle_id}/run/").status_code == 200
    assert client.post(manage, {"token": token, "action": "delete", "confirm": "yes"}).status_code == 200
    assert client.get(f"/b/{bundle_id}/run/").status_code == 404
    assert client.get(f"/api/runs/{bundle_id}").status_code == 404
    assert not Bundle.objects.exists() and not Blob.objects.exists()


def test_the_api_stores_a_run_with_its_link_and_token(agentv_run, tmp_path) -> None:
    project, run, _ = agentv_run
    client = Client()
    made = client.post("/api/runs", {"run": zipped(run), "files": zipped(edited_project(project, tmp_path))})
    assert made.status_code == 201, made.content
    body = made.json()
    bundle_id = body["id"]
    assert body["url"] == f"http://testserver/b/{bundle_id}/run/"
    assert body["manage_url"] == f"http://testserver/b/{bundle_id}/manage/#{body['manage_token']}"
    assert body["result"] == client.get(f"/api/runs/{bundle_id}").json()
    assert body["result"]["summary"]["differs"] == 1
    # The stored check under another profile is the same run rendered differently, not stored again.
    assert client.get(f"/api/runs/{bundle_id}", {"profile": "agentv-5"}).status_code == 200
    assert client.get(f"/api/runs/{bundle_id}", {"profile": "nonsense"}).status_code == 400
    delete = f"/api/bundles/{bundle_id}"
    assert client.delete(delete).status_code == 403
    assert client.delete(delete, headers={"X-Manage-Token": "wrong"}).status_code == 403
    assert client.delete(delete, headers={"X-Manage-Token": body["manage_token"]}).status_code == 204
    assert client.get(f"/api/runs/{bundle_id}").status_code == 404


def test_the_same_run_twice_is_two_links_over_the_same_blobs(agentv_run) -> None:
    _, run, _ = agentv_run
    client = Client()
    first = client.post("/api/runs", {"run": zipped(run)}).json()
    blobs = Blob.objects.count()
    second = client.post("/api/runs", {"run": zipped(run)}).json()
    assert first["id"] != second["id"] and first["manage_token"] != second["manage_token"]
    assert Blob.objects.count() == blobs  # content-addressed: stored once
    # Without the project, the eval files the run kept are what it is compared with.
    assert {case["eval_path"].split("/")[-2] for case in second["result"]["cases"]} == {"task"}


def test_a_retry_under_an_idempotency_key_is_the_same_run_and_never_shows_its_token(agentv_run) -> None:
    project, run, _ = agentv_run
    client = Client()
    headers = {"Idempotency-Key": "run-upload-key-0001"}
    first = client.post("/api/runs", {"run": zipped(run)}, headers=headers)
    assert first.status_code == 201, first.content
    again = client.post("/api/runs", {"run": zipped(run)}, headers=headers)
    assert again.status_code == 201, again.content
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["manage_token"] is None and again.json()["manage_url"] is None
    assert again.json()["result"] == first.json()["result"]
    assert Bundle.objects.count() == 1
    # The run's page is the run's: it was stored as a run, not as plain files.
    assert client.get(first.json()["url"]).status_code == 200
    token = first.json()["manage_token"]
    deleted = client.delete(f"/api/bundles/{first.json()['id']}", headers={"X-Manage-Token": token})
    assert deleted.status_code == 204
    other = client.post("/api/runs", {"run": zipped(run)}, headers={"Idempotency-Key": "run-upload-key-0002"})
    reused = client.post(
        "/api/runs",
        {"run": zipped(run), "files": zipped(project)},
        headers={"Idempotency-Key": "run-upload-key-0002"},
    )
    assert other.status_code == 201 and reused.status_code == 400
    assert "Idempotency-Key" in reused.json()["detail"]


def test_what_is_not_a_run_stores_nothing_and_says_so() -> None:
    client = Client()
    page = client.post("/runs/", {"run": SimpleUploadedFile("x.txt", b"hi", "text/plain")})
    assert page.status_code == 400 and "not a run" in page.content.decode()
    answer = client.post("/api/runs", {"run": SimpleUploadedFile("notes.txt", b"hi", "text/plain")})
    assert answer.status_code == 400 and "not a run" in answer.json()["detail"]
    broken = client.post(
        "/api/runs", {"run": SimpleUploadedFile("index.jsonl", b'{"test_id": ', "text/plain")}
    )
    assert broken.status_code == 400 and "index.jsonl" in broken.json()["detail"]
    assert not Bundle.objects.exists() and not Blob.objects.exists()


def test_writes_from_another_site_are_refused(agentv_run) -> None:
    _, run, _ = agentv_run
    evil = {"Origin": "https://evil.example"}
    assert Client().post("/api/runs", {"run": zipped(run)}, headers=evil).status_code == 403
    assert Client(enforce_csrf_checks=True).post("/runs/", {"run": zipped(run)}).status_code == 403
    assert not Bundle.objects.exists()


def test_a_bundle_that_is_not_a_run_has_no_run_page() -> None:
    made = (
        Client()
        .post(
            "/api/bundles",
            {"files": {"e.yaml": "tests:\n  - id: a\n    input: hi\n"}},
            content_type="application/json",
        )
        .json()
    )
    assert Client().get(f"/b/{made['id']}/run/").status_code == 404
    assert Client().get(f"/api/runs/{made['id']}").status_code == 404
    assert Client().get("/b/no-such-bundle/run/").status_code == 404
    assert Client().get("/api/runs/no-such-bundle").status_code == 404
