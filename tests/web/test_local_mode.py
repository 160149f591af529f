"""Local mode (`prompt-inspector serve PATH`) through Django's client: the folder on disk is the
read-only bundle "local", a change is never served from an old render, nothing outside the folder is
read, and Share uploads only after the user has seen what goes."""

import os
from email.parser import BytesParser
from pathlib import Path

import pytest
from django.test import Client, override_settings

from inspector.local import served_folder
from tests.recording import RecordingServer
from tests.web.conftest import CONFIG, EVAL

CASE = "/b/local/evals/tiny.yaml/case/first/"
PORT = 8123  # what `serve` sets LOCAL_PORT to; nothing listens on it in these tests
SERVED = f"127.0.0.1:{PORT}"


@pytest.fixture
def client():
    """A browser on the served address (local mode answers to no other Host)."""
    return Client(HTTP_HOST=SERVED)


@pytest.fixture
def folder(tmp_path: Path, db):
    (tmp_path / "evals").mkdir()
    (tmp_path / ".agentv").mkdir()
    (tmp_path / "evals" / "tiny.yaml").write_bytes(EVAL)
    (tmp_path / "evals" / "notes.instructions.md").write_bytes(b"# Notes\n\nBe kind.\n")
    (tmp_path / ".agentv" / "config.yaml").write_bytes(CONFIG)
    with override_settings(
        LOCAL_ROOT=str(tmp_path),
        LOCAL_WATCH=False,
        LOCAL_SHARE_TO=None,
        LOCAL_PORT=PORT,
        LOCAL_SHARE_INCLUDE=(),
    ):
        yield tmp_path


def test_the_home_page_opens_the_served_folder(client, folder):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"] == "/b/local/"
    page = client.get("/b/local/").content.decode()
    assert "tiny.yaml" in page and f"local · {folder}" in page


def test_a_changed_file_is_never_served_from_an_old_render(client, folder):
    assert "Be kind." in client.get(CASE).content.decode()
    (folder / "evals" / "notes.instructions.md").write_bytes(b"# Notes\n\nBe very kind.\n")
    served_folder.folder().changed()  # what the watcher does on the write
    assert "Be very kind." in client.get(CASE).content.decode()
    assert client.get("/local/version").json() == {"version": 1}


def test_a_broken_or_deleted_file_shows_its_located_error(client, folder):
    (folder / "evals" / "tiny.yaml").write_bytes(b"evalcases:\n  - id: first\n    input_messages: [oops\n")
    served_folder.folder().changed()
    response = client.get(CASE)
    assert response.status_code == 400
    assert "evals/tiny.yaml:4:1: invalid YAML" in response.content.decode()
    assert "evals/tiny.yaml:4:1: invalid YAML" in client.get("/b/local/").content.decode()
    (folder / "evals" / "tiny.yaml").unlink()
    served_folder.folder().changed()
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
    served_folder.folder().changed()
    assert "leak.instructions.md" not in client.get("/b/local/").content.decode()
    assert client.get("/b/local/source/evals/leak.instructions.md").status_code == 404
    assert "TOP SECRET" not in client.get(CASE).content.decode()


def test_without_a_share_server_share_explains_and_uploads_nothing(client, folder):
    page = client.get("/local/share").content.decode()
    assert "--share-to" in page and 'id="confirm-share"' not in page
    copy = client.get("/b/local/offline.html")
    assert copy.status_code == 200 and b"tiny.yaml" in copy.content and b"Be kind." in copy.content
    assert client.post("/local/share").status_code == 200


def sent_files(recorded) -> dict[str, bytes]:
    """The files of Share's multipart upload, by the path each `paths` part gives it."""
    message = BytesParser().parsebytes(
        b"Content-Type: " + recorded.headers["content-type"].encode() + b"\r\n\r\n" + recorded.raw
    )
    parts = [
        (part.get_param("name", header="content-disposition"), part.get_payload(decode=True))
        for part in message.get_payload()
    ]
    contents = [data for name, data in parts if name == "files"]
    paths = [data.decode() for name, data in parts if name == "paths"]
    assert len(contents) == len(paths)
    return dict(zip(paths, contents, strict=True))


SHARED = {
    "url": "https://inspector.example/b/abc/",
    "manage_url": "https://inspector.example/b/abc/manage/#t",
}


def test_share_shows_what_goes_then_uploads_it_to_the_server(client, folder):
    from inspector.models import Bundle

    with RecordingServer(SHARED) as server, override_settings(LOCAL_SHARE_TO=server.url):
        asked = client.get("/local/share")
        page = asked.content.decode()
        assert "Upload these 3 files" in page and "evals/tiny.yaml" in page
        assert server.take() == []  # seeing the question uploads nothing
        done = client.post("/local/share", {"digest": asked.context["digest"]})
        (recorded,) = server.take()
    assert done.status_code == 200 and SHARED["url"] in done.content.decode()
    assert recorded.path == "/api/bundles"
    # What went is a real upload: the server's own API stores it as it was on disk.
    with override_settings(LOCAL_ROOT=None):
        stored = Client().generic(
            "POST", "/api/bundles", recorded.raw, content_type=recorded.headers["content-type"]
        )
    assert stored.status_code == 201, stored.content[:300]
    bundle = Bundle.objects.get()
    assert bundle.file_map() == {
        "evals/tiny.yaml": EVAL,
        "evals/notes.instructions.md": b"# Notes\n\nBe kind.\n",
        ".agentv/config.yaml": CONFIG,
    }


def test_share_says_when_the_server_cannot_be_reached(client, folder):
    with override_settings(LOCAL_SHARE_TO="http://127.0.0.1:9"):
        response = client.post("/local/share", {"digest": client.get("/local/share").context["digest"]})
    assert response.status_code == 502 and "could not reach http://127.0.0.1:9" in response.content.decode()


def test_without_local_mode_the_local_pages_do_not_exist(client, db):
    assert client.get("/local/version").status_code == 404
    assert client.get("/b/local/").status_code == 404


def test_a_served_folder_takes_no_verdicts_so_offers_no_filter_by_them(client, folder):
    page = client.get("/b/local/?verdict=changes").content.decode()
    assert 'id="verdict-filter"' not in page
    assert 'class="case-link">first<' in page and 'id="match-count"' not in page


def test_the_review_panel_says_a_folder_takes_no_comments_or_verdicts(client, folder):
    panel = client.get(
        "/b/local/review/panel/",
        {"document": "evals/tiny.yaml", "case_id": "first"},
        headers={"HX-Request": "true"},
    )
    text = panel.content.decode()
    assert panel.status_code == 200, text[:300]
    assert 'id="review-folder"' in text and 'id="verdict-form"' not in text


# -- Local mode takes no upload or write of any kind, and answers only to its own address --------


def _stored_bundle():
    from inspector.bundles.ingest import store_bundle

    with override_settings(LOCAL_ROOT=None):
        bundle, token = store_bundle({"evals/tiny.yaml": EVAL, ".agentv/config.yaml": CONFIG})
    return bundle, token


def test_the_api_takes_no_upload_in_local_mode_not_even_a_no_cors_post_from_a_website(client, folder):
    from inspector.models import Bundle

    # What a `fetch(..., {mode: "no-cors", body: formData})` from any website sends.
    website = client.post(
        "/api/bundles",
        {"files": [_upload("a.yaml", EVAL)], "paths": ["a.yaml"]},
        headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
    )
    script = client.post("/api/bundles", {"files": [_upload("a.yaml", EVAL)], "paths": ["a.yaml"]})
    as_json = client.post(
        "/api/bundles", {"files": {"a.yaml": EVAL.decode()}}, content_type="application/json"
    )
    for answer in (website, script, as_json):
        assert answer.status_code == 403 and "read-only" in answer.json()["detail"]
    assert Bundle.objects.count() == 0


def _upload(name: str, data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, data)


def test_no_write_reaches_a_bundle_stored_in_the_local_database(client, folder):
    """Local mode shows no stored bundle, but its database may hold some (an earlier `serve`): no
    review, edit or delete reaches them either."""
    from inspector.models import Bundle
    from inspector.review.models import Thread

    bundle, token = _stored_bundle()
    base = f"/b/{bundle.pk}/"
    writes = [
        client.post(
            f"/api/bundles/{bundle.pk}/threads",
            {"document": "evals/tiny.yaml", "case_id": "first", "body": "hi", "anchor": {"kind": "case"}},
            content_type="application/json",
        ),
        client.delete(f"/api/bundles/{bundle.pk}", headers={"X-Manage-Token": token}),
        client.post(
            base + "review/",
            {"action": "comment", "document": "evals/tiny.yaml", "case_id": "first", "body": "hi"},
        ),
        client.post(base + "manage/", {"token": token, "action": "delete"}),
        client.post(base + "evals/tiny.yaml/case/first/revise/", {"text": "evalcases: []"}),
        client.post(base + "evals/tiny.yaml/case/first/preview/", {"text": "evalcases: []"}),
    ]
    for answer in writes:
        assert answer.status_code == 403, answer.content[:300]
        assert "read-only" in answer.content.decode()
    assert Bundle.objects.filter(pk=bundle.pk).exists() and Bundle.objects.count() == 1
    assert Thread.objects.count() == 0
    assert client.get(base).status_code == 200  # reading it is still allowed


def test_a_page_served_under_another_name_is_refused(client, folder):
    """DNS rebinding: evil.example resolves to 127.0.0.1 after the page loaded, so its script reads
    and posts to this server with `Host: evil.example:PORT`. Refused even where Django's
    ALLOWED_HOSTS would let the name in."""
    with override_settings(ALLOWED_HOSTS=["*"]):
        for host in (f"evil.example:{PORT}", "127.0.0.1:9999", "localhost", f"127.0.0.1.evil.example:{PORT}"):
            answer = Client(HTTP_HOST=host).get("/b/local/")
            assert answer.status_code == 403 and "tiny.yaml" not in answer.content.decode(), host
            assert Client(HTTP_HOST=host).get("/api/bundles/local").status_code == 403
        assert Client(HTTP_HOST=f"localhost:{PORT}").get("/b/local/").status_code == 200
    assert client.get("/b/local/").status_code == 200


def test_share_and_render_refuse_a_request_from_another_site(client, folder):
    with RecordingServer(SHARED) as server, override_settings(LOCAL_SHARE_TO=server.url):
        digest = client.get("/local/share").context["digest"]
        refused = [
            client.post("/local/share", {"digest": digest}, headers={"Origin": "https://evil.example"}),
            client.post("/local/share", {"digest": digest}, headers={"Origin": f"http://localhost:{PORT}"}),
            client.post("/local/share", {"digest": digest}, headers={"Sec-Fetch-Site": "same-site"}),
            client.post("/local/share", {"digest": digest}, headers={"Origin": "null"}),
        ]
        assert [answer.status_code for answer in refused] == [403] * 4
        assert server.take() == []
        same_origin = client.post(
            "/local/share",
            {"digest": digest},
            headers={"Origin": f"http://{SERVED}", "Sec-Fetch-Site": "same-origin"},
        )
        assert same_origin.status_code == 200 and len(server.take()) == 1
    render = {"files": {"a.yaml": EVAL.decode()}, "path": "a.yaml"}
    assert (
        client.post(
            "/api/render", render, content_type="application/json", headers={"Origin": "https://evil.example"}
        ).status_code
        == 403
    )
    assert client.post("/api/render", render, content_type="application/json").status_code == 200


def test_the_api_summarises_the_served_folder(client, folder):
    answer = client.get("/api/bundles/local")
    assert answer.status_code == 200, answer.content[:300]
    summary = answer.json()
    assert summary["id"] == "local" and summary["parent"] is None and summary["created"]
    assert {item["path"]: item["size"] for item in summary["files"]}["evals/tiny.yaml"] == len(EVAL)
    assert summary["documents"] == ["evals/tiny.yaml"]
    assert client.get("/api/bundles/local/cases").status_code == 200


def test_without_local_mode_the_local_bundle_is_a_404_with_a_message(db):
    answer = Client().get("/api/bundles/local")
    assert answer.status_code == 404 and answer.json()["detail"]


# -- Share sends exactly what it listed ----------------------------------------------------------

PRIVATE_KEY = (
    b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
)


@pytest.fixture
def crowded(folder):
    """The folder of the issue: 66 files, some ignored by git at several levels, some secrets."""
    for index in range(50):
        (folder / "evals" / f"extra{index:02}.instructions.md").write_bytes(b"# Extra %d\n" % index)
    (folder / ".gitignore").write_bytes(b"*.log\nbuild/\n")
    (folder / "evals" / ".gitignore").write_bytes(b"drafts/\n!keep.log\n")
    (folder / ".git" / "info").mkdir(parents=True)
    (folder / ".git" / "info" / "exclude").write_bytes(b"scratch.md\n")
    (folder / "run.log").write_bytes(b"log")
    (folder / "evals" / "keep.log").write_bytes(b"kept by a negation one level down")
    (folder / "build").mkdir()
    (folder / "build" / "out.txt").write_bytes(b"BUILD OUTPUT")
    (folder / "evals" / "drafts").mkdir()
    (folder / "evals" / "drafts" / "wip.md").write_bytes(b"DRAFT TEXT")
    (folder / "scratch.md").write_bytes(b"SCRATCH TEXT")
    (folder / ".env").write_bytes(b"API_KEY=sk-live-123\n")
    (folder / ".env.production").write_bytes(b"API_KEY=sk-live-456\n")
    (folder / "zz_private").mkdir()
    (folder / "zz_private" / "id_ed25519").write_bytes(PRIVATE_KEY)
    (folder / "zz_private" / "id_rsa").write_bytes(b"not even a key, but the name says so")
    (folder / "server.pem").write_bytes(b"cert")
    (folder / "tls.key").write_bytes(b"key")
    (folder / "evals" / "notes.txt").write_bytes(b"see below\n" + PRIVATE_KEY)
    served_folder.folder().changed()
    return folder


LISTED = {
    ".gitignore",
    "evals/.gitignore",
    "evals/keep.log",
    "evals/tiny.yaml",
    "evals/notes.instructions.md",
    ".agentv/config.yaml",
} | {f"evals/extra{index:02}.instructions.md" for index in range(50)}
NOT_LISTED = {
    "run.log",
    "build/out.txt",
    "evals/drafts/wip.md",
    "scratch.md",
    ".env",
    ".env.production",
    "zz_private/id_ed25519",
    "zz_private/id_rsa",
    "server.pem",
    "tls.key",
    "evals/notes.txt",
}


def test_share_lists_every_file_it_sends_and_sends_no_other(client, crowded):
    with RecordingServer(SHARED) as server, override_settings(LOCAL_SHARE_TO=server.url):
        asked = client.get("/local/share")
        page = asked.content.decode()
        files = page[page.index('id="share-files"') : page.index("</ul>", page.index('id="share-files"'))]
        assert f"Upload these {len(LISTED)} files" in page
        assert {path for path in LISTED if f"<code>{path}</code>" in files} == LISTED
        assert not [path for path in NOT_LISTED if f"<code>{path}</code>" in files]
        secrets = page[page.index('id="share-secrets"') :]
        for path in (
            ".env",
            ".env.production",
            "zz_private/id_ed25519",
            "zz_private/id_rsa",
            "server.pem",
            "tls.key",
            "evals/notes.txt",
        ):
            assert f"<code>{path}</code>" in secrets, path
        assert "--share-include PATH" in page and "sk-live" not in page
        client.post("/local/share", {"digest": asked.context["digest"]})
        (recorded,) = server.take()
    sent = sent_files(recorded)
    assert set(sent) == LISTED
    assert not [
        marker
        for marker in (b"sk-live", b"PRIVATE KEY", b"DRAFT", b"SCRATCH", b"BUILD")
        if marker in recorded.raw
    ]


def test_a_file_named_with_share_include_is_sent_although_it_looks_secret(client, crowded):
    with (
        RecordingServer(SHARED) as server,
        override_settings(LOCAL_SHARE_TO=server.url, LOCAL_SHARE_INCLUDE=(".env", "scratch.md")),
    ):
        asked = client.get("/local/share")
        client.post("/local/share", {"digest": asked.context["digest"]})
        (recorded,) = server.take()
    sent = sent_files(recorded)
    assert set(sent) == LISTED | {".env", "scratch.md"}
    assert sent[".env"] == b"API_KEY=sk-live-123\n" and b"sk-live-456" not in recorded.raw


@pytest.mark.parametrize("change", ["added", "edited", "removed"])
def test_share_sends_nothing_when_the_folder_changed_after_its_list_was_shown(client, crowded, change):
    with RecordingServer(SHARED) as server, override_settings(LOCAL_SHARE_TO=server.url):
        digest = client.get("/local/share").context["digest"]
        if change == "added":
            (crowded / "evals" / "late.md").write_bytes(b"never shown")
        elif change == "edited":
            (crowded / "evals" / "extra00.instructions.md").write_bytes(b"changed since")
        else:
            (crowded / "evals" / "extra00.instructions.md").unlink()
        answer = client.post("/local/share", {"digest": digest})
        assert answer.status_code == 409 and "nothing was sent" in answer.content.decode()
        assert client.post("/local/share").status_code == 409  # no digest: no list was confirmed
        assert server.take() == []
        # The answer shows the new list; confirming that one sends it.
        assert client.post("/local/share", {"digest": answer.context["digest"]}).status_code == 200
        assert len(server.take()) == 1


def test_the_offline_copy_holds_only_what_share_would_send(client, crowded):
    copy = client.get("/b/local/offline.html")
    assert copy.status_code == 200 and b"Be kind." in copy.content and b"Extra 49" in copy.content
    for marker in (
        b"sk-live",
        b"PRIVATE KEY",
        b"DRAFT TEXT",
        b"SCRATCH TEXT",
        b"BUILD OUTPUT",
        b"zz_private",
    ):
        assert marker not in copy.content, marker


def test_share_include_names_a_file_of_the_served_folder(tmp_path, monkeypatch):
    from inspector.cli.console import UsageError
    from inspector.management.commands.serve_folder import named_in_folder

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".env").write_bytes(b"x")
    monkeypatch.chdir(tmp_path / "sub")
    assert named_in_folder(tmp_path, ".env") == "sub/.env"
    assert named_in_folder(tmp_path, str(tmp_path / "sub" / ".env")) == "sub/.env"
    with pytest.raises(UsageError, match="not in the served folder"):
        named_in_folder(tmp_path / "other", ".env")
    with pytest.raises(UsageError, match="no such file"):
        named_in_folder(tmp_path, "missing")


def test_share_follows_the_ignore_rules_of_the_repository_the_folder_is_in(client, tmp_path, db):
    """Serving a repository's subfolder: the .gitignore files above it and the repository's
    info/exclude (here a worktree's, which is its main repository's) leave files out too."""
    main = tmp_path / "main"
    (main / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (main / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    (main / ".git" / "info").mkdir()
    (main / ".git" / "info" / "exclude").write_bytes(b"*.scratch\n")
    repository = tmp_path / "wt"
    served = repository / "suites" / "tiny"
    (served / "evals").mkdir(parents=True)
    (repository / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'wt'}\n")
    (repository / ".gitignore").write_bytes(b"*.draft.md\nsuites/tiny/private/\n")
    (repository / "suites" / ".gitignore").write_bytes(b"!keep.draft.md\n")
    (served / "evals" / "tiny.yaml").write_bytes(EVAL)
    (served / "evals" / "wip.draft.md").write_bytes(b"DRAFT")
    (served / "evals" / "keep.draft.md").write_bytes(b"kept by the negation one level down")
    (served / "evals" / "notes.scratch").write_bytes(b"SCRATCH")
    (served / "private").mkdir()
    (served / "private" / "p.md").write_bytes(b"PRIVATE")
    with (
        RecordingServer(SHARED) as server,
        override_settings(
            LOCAL_ROOT=str(served),
            LOCAL_WATCH=False,
            LOCAL_PORT=PORT,
            LOCAL_SHARE_TO=server.url,
            LOCAL_SHARE_INCLUDE=(),
        ),
    ):
        asked = client.get("/local/share")
        assert set(asked.context["ignored"]) == {"evals/wip.draft.md", "evals/notes.scratch", "private/p.md"}
        client.post("/local/share", {"digest": asked.context["digest"]})
        (recorded,) = server.take()
    assert set(sent_files(recorded)) == {"evals/tiny.yaml", "evals/keep.draft.md"}


def test_a_link_in_the_folder_to_a_secret_or_an_ignored_file_is_not_sent(client, crowded):
    os.symlink("../.env", crowded / "evals" / "context.md")
    os.symlink("../build/out.txt", crowded / "evals" / "output.md")
    served_folder.folder().changed()
    with RecordingServer(SHARED) as server, override_settings(LOCAL_SHARE_TO=server.url):
        asked = client.get("/local/share")
        assert "evals/context.md" in dict(asked.context["secrets"])
        assert "as .env" in dict(asked.context["secrets"])["evals/context.md"]
        assert "evals/output.md" in asked.context["ignored"]
        client.post("/local/share", {"digest": asked.context["digest"]})
        (recorded,) = server.take()
    assert set(sent_files(recorded)) == LISTED and b"sk-live" not in recorded.raw
