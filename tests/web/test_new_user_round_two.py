"""Issue 30, what a new user tripped on (round two): the answers the pages, the API and the CLI
give about one bundle agree."""

from __future__ import annotations

import re

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from tests.web.test_ledger_pages import lazy, ledger


def _short_case(name: str, system: str) -> str:
    return (
        f"  - id: {name}\n    criteria: ok\n    input:\n      - role: system\n"
        f"        content: {system}\n      - role: user\n        content: Question {name}?\n"
    )


@pytest.fixture
def two_files(db):
    """Two files whose cases share a short system prompt within each file, none across them."""
    shared = "You grade support replies for tone, warmth and brevity, one reply at a time."
    other = "Summarise the release notes below for a customer newsletter in plain words."
    files = {
        "evals/tone.yaml": "tests:\n" + "".join(_short_case(n, shared) for n in "abc"),
        "evals/notes.yaml": "tests:\n" + "".join(_short_case(n, other) for n in "de"),
    }
    bundle, _ = store_bundle({path: text.encode() for path, text in files.items()})
    return bundle


def test_the_bundle_ledger_finds_the_prefix_one_files_cases_share(client, two_files):
    panel = ledger(client, two_files)
    assert "No two cases share a prefix" not in panel
    found = re.search(r"<strong>(\d+)</strong> tokens, shared by <strong>3</strong> of 5 cases", panel)
    assert found, panel[panel.find('id="ledger-cache"') :][:600]
    page = client.get(addresses.case_url(two_files.pk, "evals/tone.yaml", "a")).content.decode()
    band = lazy(client, page, "cache-band-slot")
    assert f"share a {found.group(1)}-token prefix" in band


def test_the_api_ledger_of_the_bundle_and_of_the_file_agree(client, two_files):
    whole = client.get(f"/api/bundles/{two_files.pk}/ledger").json()["cache"]
    one = client.get(f"/api/bundles/{two_files.pk}/ledger", {"document": "evals/tone.yaml"}).json()["cache"]
    assert whole["cases_sharing"] == one["cases_sharing"] == 3
    assert whole["shared_prefix_tokens"] == one["shared_prefix_tokens"] > 0


def _open_on_case_page(client, bundle, case_id: str) -> int:
    page = client.get(
        f"/b/{bundle.pk}/review/panel/",
        {"document": "evals/suite.yaml", "case_id": case_id},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    return int(re.search(r'id="thread-count">(\d+) open', page).group(1))


def _row_counts(client, bundle) -> dict[str, int]:
    import json
    from html import unescape

    page = client.get(f"/b/{bundle.pk}/review/progress/", HTTP_HX_REQUEST="true").content.decode()
    rows = json.loads(unescape(re.search(r'data-rows="([^"]*)"', page).group(1)))
    return {key.split("\u0000")[1]: value[1] for key, value in rows.items()}


def test_a_bundle_row_counts_the_open_threads_its_case_page_shows(client, db):
    from inspector.rendering import cache as render_cache
    from tests.api.test_review import FILES

    render_cache.clear()  # the review write rate is per address: start a fresh window
    bundle, _ = store_bundle(FILES, title="suite")

    def thread(**fields):
        data = {
            "document": "evals/suite.yaml",
            "case_id": "first",
            "action": "thread",
            "body": "Hm",
            **fields,
        }
        assert client.post(f"/b/{bundle.pk}/review/", data).status_code in (200, 302, 303)

    thread(target="0")
    thread(target="1")
    # A line of the guideline both cases send: the case pages show it on both.
    thread(kind="line", path="evals/rules.instructions.md", start_line="3", end_line="3")
    shown = {case_id: _open_on_case_page(client, bundle, case_id) for case_id in ("first", "second")}
    assert shown == {"first": 3, "second": 1}
    assert _row_counts(client, bundle) == shown

    revision, _ = store_bundle(FILES, title="suite", parent=bundle)
    carried = {case_id: _open_on_case_page(client, revision, case_id) for case_id in ("first", "second")}
    assert carried == shown
    assert _row_counts(client, revision) == carried


def test_local_mode_shows_a_broken_files_located_error_with_its_source_in_place(tmp_path, db):
    from django.test import Client, override_settings

    from inspector.local import served_folder
    from tests.web.conftest import CONFIG, EVAL

    (tmp_path / "evals").mkdir()
    (tmp_path / ".agentv").mkdir()
    (tmp_path / "evals" / "tiny.yaml").write_bytes(EVAL)
    (tmp_path / "evals" / "notes.instructions.md").write_bytes(b"# Notes\n\nBe kind.\n")
    (tmp_path / ".agentv" / "config.yaml").write_bytes(CONFIG)
    client = Client(HTTP_HOST="127.0.0.1:8123")
    with override_settings(
        LOCAL_ROOT=str(tmp_path),
        LOCAL_WATCH=False,
        LOCAL_SHARE_TO=None,
        LOCAL_PORT=8123,
        LOCAL_SHARE_INCLUDE=(),
    ):
        (tmp_path / "evals" / "tiny.yaml").write_bytes(
            b"evalcases:\n  - id: first\n    input_messages: [oops\n"
        )
        served_folder.folder().changed()
        response = client.get("/b/local/evals/tiny.yaml/case/first/")
        page = response.content.decode()
    assert response.status_code == 400
    assert "evals/tiny.yaml:4:1: invalid YAML" in page
    assert "with these settings" not in page  # no setting was given: they are not the cause
    assert 'id="source-pane"' in page and 'data-path="evals/tiny.yaml"' in page
    assert "input_messages" in page  # the file itself, beside the error
    assert "Upload files" not in page and 'id="fix-on-disk"' in page  # uploads are off in local mode


def test_a_broken_stored_file_blames_the_settings_only_when_some_are_set(client, db):
    bundle, _ = store_bundle({"evals/broken.yaml": b"tests:\n  - id: a\n    input: [open\n"})
    url = addresses.case_url(bundle.pk, "evals/broken.yaml", "a")
    plain = client.get(url).content.decode()
    assert "This file cannot be rendered</h1>" in plain, plain[plain.find("<h1") :][:300]
    assert 'data-hl-from="3"' in plain  # the end-of-file error shown at the last line
    assert "Upload files" in plain
    with_settings = client.get(url, {"profile": "agentv-4"}).content.decode()
    assert "cannot be rendered with these settings" in with_settings and 'id="default-view"' in with_settings


def test_serve_prints_its_address_and_real_events_not_each_poll(tmp_path):
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request
    from pathlib import Path

    from inspector.management.commands.serve_folder import free_port
    from tests.web.conftest import CONFIG, EVAL

    (tmp_path / "evals").mkdir()
    (tmp_path / ".agentv").mkdir()
    (tmp_path / "evals" / "tiny.yaml").write_bytes(EVAL)
    (tmp_path / ".agentv" / "config.yaml").write_bytes(CONFIG)
    port = free_port()
    repo = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector.cli", "serve", str(tmp_path), "--port", str(port)],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        first = process.stdout.readline()
        assert first.startswith(f"Prompt Inspector: {base}/b/local/")
        for _ in range(300):  # a busy machine starts Django slowly
            try:
                urllib.request.urlopen(base + "/local/version", timeout=5).close()
                break
            except OSError:
                time.sleep(0.2)
        for _ in range(10):
            urllib.request.urlopen(base + "/local/version", timeout=5).close()
        urllib.request.urlopen(base + "/b/local/", timeout=30).close()
        try:
            urllib.request.urlopen(base + "/b/local/evals/nothing.yaml/case/x/", timeout=30)
        except urllib.error.HTTPError as refused:
            assert refused.code == 404
    finally:
        process.terminate()
        rest, _ = process.communicate(timeout=30)
    lines = [line for line in rest.splitlines() if line.strip()]
    assert "Starting development server" not in rest and "/local/version" not in rest
    # The one refusal, logged (Django's "Not Found" line; the server's request line may still be
    # on its way when the process is stopped).
    assert 1 <= len(lines) <= 2 and all("nothing.yaml" in line for line in lines), rest


def test_a_verdict_carries_into_a_revision_where_its_case_is_unchanged(client, db):
    from inspector.rendering import cache as render_cache
    from tests.api.test_review import FILES, SUITE

    render_cache.clear()
    bundle, _ = store_bundle(FILES, title="suite")
    for case_id, verdict in (("first", "ok"), ("second", "changes")):
        client.post(
            f"/b/{bundle.pk}/review/",
            {"document": "evals/suite.yaml", "case_id": case_id, "action": "verdict", "verdict": verdict},
        )
    # The revision changes the second case's text only.
    changed = SUITE.replace(b"second function", b"second function, and its tests")
    assert changed != SUITE
    revision, _ = store_bundle({**FILES, "evals/suite.yaml": changed}, title="suite", parent=bundle)
    progress = client.get(f"/b/{revision.pk}/review/progress/", HTTP_HX_REQUEST="true").content.decode()
    assert "Reviewed 1 of 2" in progress
    assert _row_verdicts(progress) == {"first": "ok"}
    panel = client.get(
        f"/b/{revision.pk}/review/panel/",
        {"document": "evals/suite.yaml", "case_id": "first"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert 'value="ok" checked' in panel and 'id="verdict-carried"' in panel
    filtered = client.get(f"/b/{revision.pk}/", {"verdict": "ok"}).content.decode()
    assert ">first</a>" in filtered and ">second</a>" not in filtered


def _row_verdicts(progress: str) -> dict[str, str]:
    import json
    from html import unescape

    rows = json.loads(unescape(re.search(r'data-rows="([^"]*)"', progress).group(1)))
    return {key.split("\u0000")[1]: value[0] for key, value in rows.items() if value[0]}


def test_the_case_page_says_why_a_file_is_a_guideline_and_the_pattern_line_says_what_it_decided(client, db):
    from tests.api.test_review import FILES

    bundle, _ = store_bundle(FILES, title="suite")
    page = client.get(addresses.case_url(bundle.pk, "evals/suite.yaml", "first")).content.decode()
    reason = "a guideline because it matches `**/*.instructions.md` (.agentv/config.yaml line 2)"
    assert f"Guideline <code>evals/rules.instructions.md</code> is in the system message: {reason}." in page
    # The segment's own label (shown when it is clicked) says it too.
    [title] = set(re.findall(r'<span class="seg k-guideline" title="([^"]*)"', page))
    assert title.endswith(" — " + reason)
    note = client.get(
        addresses.case_url(bundle.pk, "evals/suite.yaml", "first") + "line/",
        {"path": ".agentv/config.yaml", "line": "2"},
    ).content.decode()
    assert (
        "Line 2 is the guideline pattern `**/*.instructions.md`: it makes evals/rules.instructions.md "
        "a guideline of this case, so its text is in the system message."
    ) in note


def test_a_binary_file_where_nothing_renders_is_not_offered_in_the_editor(client, db):
    bundle, token = store_bundle({"evals/suite.yaml": b"tests:\x00\x01\x02 binary \x00"}, title="binary")
    page = client.post(f"/b/{bundle.pk}/manage/", {"token": token, "saved": "upload"}).content.decode()
    assert "looks like a binary file" in page and 'id="not-editable"' in page
    assert 'id="source-text"' not in page and 'id="save-revision"' not in page


def test_the_editor_opens_a_guideline_the_case_sends_previews_and_saves_it(client, db):
    from inspector.models import Bundle
    from tests.api.test_review import FILES, GUIDE

    bundle, _ = store_bundle(FILES, title="suite")
    base = addresses.case_url(bundle.pk, "evals/suite.yaml", "first")
    page = client.get(base).content.decode()
    assert 'data-edit-file="evals/rules.instructions.md"' in page  # offered beside the case's own file
    editor = client.get(base + "editor/", {"file": "evals/rules.instructions.md"}).content.decode()
    assert 'id="edited-file" value="evals/rules.instructions.md"' in editor
    assert "Point out bugs before style." in editor
    edited = GUIDE.decode().replace("Point out bugs before style.", "Name the failing input first.")
    fields = {"text": edited, "file": "evals/rules.instructions.md"}
    preview = client.post(base + "preview/", fields).content.decode()
    assert "Name the failing input first." in preview
    assert client.post(base + "revise/", fields).status_code == 303
    revision = Bundle.objects.get(parent=bundle)
    assert revision.file_map()["evals/rules.instructions.md"] == edited.encode()
    assert revision.file_map()["evals/suite.yaml"] == FILES["evals/suite.yaml"]
    # Only the bundle's own text files: a path outside it is refused.
    assert client.get(base + "editor/", {"file": "../etc/passwd"}).status_code == 404
