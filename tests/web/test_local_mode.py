"""Local mode (`prompt-inspector serve PATH`) through Django's client: the folder on disk is the
read-only bundle "local", a change is never served from an old render, nothing outside the folder is
read, and Share uploads only after the user has seen what goes."""

import os
from pathlib import Path

import pytest
from django.test import override_settings

from inspector import local
from tests.web.conftest import CONFIG, EVAL

CASE = "/b/local/evals/tiny.yaml/case/first/"


@pytest.fixture
def folder(tmp_path: Path, db):
    (tmp_path / "evals").mkdir()
    (tmp_path / ".agentv").mkdir()
    (tmp_path / "evals" / "tiny.yaml").write_bytes(EVAL)
    (tmp_path / "evals" / "notes.instructions.md").write_bytes(b"# Notes\n\nBe kind.\n")
    (tmp_path / ".agentv" / "config.yaml").write_bytes(CONFIG)
    with override_settings(LOCAL_ROOT=str(tmp_path), LOCAL_WATCH=False, LOCAL_SHARE_TO=None):
        yield tmp_path


def test_the_home_page_opens_the_served_folder(client, folder):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"] == "/b/local/"
    page = client.get("/b/local/").content.decode()
    assert "tiny.yaml" in page and f"local · {folder}" in page


def test_a_changed_file_is_never_served_from_an_old_render(client, folder):
    assert "Be kind." in client.get(CASE).content.decode()
    (folder / "evals" / "notes.instructions.md").write_bytes(b"# Notes\n\nBe very kind.\n")
    local.folder().changed()  # what the watcher does on the write
    assert "Be very kind." in client.get(CASE).content.decode()
    assert client.get("/local/version").json() == {"version": 1}


def test_a_broken_or_deleted_file_shows_its_located_error(client, folder):
    (folder / "evals" / "tiny.yaml").write_bytes(b"evalcases:\n  - id: first\n    input_messages: [oops\n")
    local.folder().changed()
    response = client.get(CASE)
    assert response.status_code == 400
    assert "evals/tiny.yaml:4:1: invalid YAML" in response.content.decode()
    assert "evals/tiny.yaml:4:1: invalid YAML" in client.get("/b/local/").content.decode()
    (folder / "evals" / "tiny.yaml").unlink()
    local.folder().changed()
    assert client.get(CASE).status_code == 404


def test_nothing_can_be_uploaded_edited_or_revised(client, folder):
    assert client.post("/", {"text": "x", "filename": "a.yaml"}).status_code == 403
    assert client.get(CASE + "editor/").status_code == 403
    revised = client.post(CASE + "revise/", {"text": "evalcases: []"})
    assert revised.status_code == 403 and "read-only" in revised.content.decode()
    assert client.post(CASE + "preview/", {"text": "evalcases: []"}).status_code == 403
    page = client.get(CASE).content.decode()
    assert 'id="editor"' not in page and 'href="/local/share"' in page
    assert (folder / "evals" / "tiny.yaml").read_bytes() == EVAL


def test_a_symlink_leaving_the_folder_is_not_followed(client, folder, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.md"
    outside.write_text("TOP SECRET")
    os.symlink(outside, folder / "evals" / "leak.instructions.md")
    local.folder().changed()
    assert "leak.instructions.md" not in client.get("/b/local/").content.decode()
    assert client.get("/b/local/source/evals/leak.instructions.md").status_code == 404
    assert "TOP SECRET" not in client.get(CASE).content.decode()


def test_without_a_share_server_share_explains_and_uploads_nothing(client, folder):
    page = client.get("/local/share").content.decode()
    assert "--share-to" in page and 'id="confirm-share"' not in page
    copy = client.get("/b/local/offline.html")
    assert copy.status_code == 200 and b"tiny.yaml" in copy.content and b"Be kind." in copy.content
    assert client.post("/local/share").status_code == 200


def test_share_shows_what_goes_then_uploads_it_to_the_server(client, folder, live_server):
    from inspector.models import Bundle

    with override_settings(LOCAL_SHARE_TO=live_server.url):
        asked = client.get("/local/share").content.decode()
        assert "Upload these 3 files" in asked and "evals/tiny.yaml" in asked
        assert Bundle.objects.count() == 0  # seeing the question uploads nothing
        done = client.post("/local/share")
    assert done.status_code == 200
    bundle = Bundle.objects.get()
    assert bundle.file_map()["evals/tiny.yaml"] == EVAL
    assert f"{live_server.url}/b/{bundle.pk}/" in done.content.decode()


def test_share_says_when_the_server_cannot_be_reached(client, folder):
    with override_settings(LOCAL_SHARE_TO="http://127.0.0.1:9"):
        response = client.post("/local/share")
    assert response.status_code == 502 and "could not reach http://127.0.0.1:9" in response.content.decode()


def test_without_local_mode_the_local_pages_do_not_exist(client, db):
    assert client.get("/local/version").status_code == 404
    assert client.get("/b/local/").status_code == 404


def test_a_served_folder_takes_no_verdicts_so_offers_no_filter_by_them(client, folder):
    page = client.get("/b/local/?verdict=changes").content.decode()
    assert 'id="verdict-filter"' not in page
    assert 'class="case-link">first<' in page and 'id="match-count"' not in page


def test_the_review_panel_says_a_folder_takes_no_comments_or_verdicts(client, folder):
    panel = client.get("/b/local/review/panel/", {"document": "evals/tiny.yaml", "case_id": "first"},
                       headers={"HX-Request": "true"})
    text = panel.content.decode()
    assert panel.status_code == 200, text[:300]
    assert 'id="review-folder"' in text and 'id="verdict-form"' not in text
