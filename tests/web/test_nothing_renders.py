"""An upload where nothing renders lands on its manage page with the located error, the file at
that line and an editor ready; the fix is previewed as it is typed and saved as a revision."""

import re

from django.test import Client

from inspector.bundles.ingest import store_bundle
from inspector.models import Bundle

BROKEN = b"tests:\n  - id: first\n    input: [unclosed\n  - id: second\n    input: fine\n"
FIXED = "tests:\n  - id: first\n    input: closed now\n  - id: second\n    input: fine\n"


def manage_page(client, bundle, token):
    return client.post(f"/b/{bundle.pk}/manage/", {"token": token, "saved": "upload"}).content.decode()


def test_the_error_its_line_and_the_editor_are_on_the_landing_page(client, db):
    bundle, token = store_bundle({"evals/broken.yaml": BROKEN}, title="broken")
    page = manage_page(client, bundle, token)
    assert 'id="nothing-renders"' in page
    assert re.search(r'class="notice error problem">evals/broken\.yaml:4:\d+: invalid YAML', page)
    assert 'data-path="evals/broken.yaml"' in page and 'data-hl-from="4"' in page
    assert 'id="source-text"' in page and "[unclosed" in page


def test_the_fix_previews_then_saves_as_a_revision_with_the_manage_token(db):
    bundle, token = store_bundle({"evals/broken.yaml": BROKEN}, title="broken")
    browser = Client(enforce_csrf_checks=True)  # the manage page sends no CSRF token: its own
    page = manage_page(browser, bundle, token)
    preview_url = re.search(r'hx-post="([^"]+preview/)"', page).group(1)
    revise_url = re.search(r'action="([^"]+revise/)" id="revise-form"', page).group(1)
    preview = browser.post(preview_url, {"token": token, "text": FIXED})
    assert preview.status_code == 200 and "closed now" in preview.content.decode()
    saved = browser.post(revise_url, {"token": token, "text": FIXED})
    assert saved.status_code == 303
    revision = Bundle.objects.get(parent=bundle)
    assert revision.file_map()["evals/broken.yaml"] == FIXED.encode()


def test_without_the_token_an_edit_still_needs_its_csrf_token(db):
    bundle, _ = store_bundle({"evals/broken.yaml": BROKEN}, title="broken")
    browser = Client(enforce_csrf_checks=True)
    url = f"/b/{bundle.pk}/evals/broken.yaml/case/_/revise/"
    assert browser.post(url, {"token": "wrong", "text": FIXED}).status_code == 403
    assert not Bundle.objects.filter(parent=bundle).exists()


def test_an_upload_with_no_eval_file_says_so(client, db):
    bundle, token = store_bundle({"notes/readme.txt": b"hello"}, title="notes")
    page = manage_page(client, bundle, token)
    assert "no file is an eval file, deck or provider request" in page and "notes/readme.txt" in page


def test_a_bundle_that_renders_has_no_such_panel(client, db):
    bundle, token = store_bundle({"evals/ok.yaml": FIXED.encode()}, title="ok")
    assert 'id="nothing-renders"' not in manage_page(client, bundle, token)


import pytest  # noqa: E402 - the browser part of this module

from tests.web.conftest import SCREENSHOTS, replace_editor_text  # noqa: E402


@pytest.mark.browser
def test_a_broken_upload_is_fixed_from_where_it_lands(browser, live_server, db, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_bytes(BROKEN)
    for width in (1280, 390):
        page = browser.new_page(viewport={"width": width, "height": 900}, base_url=live_server.url)
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on(
            "console",
            lambda message, errors=errors: (
                "Content Security Policy" in message.text and errors.append(message.text)
            ),
        )
        page.goto("/")
        page.set_input_files("#files", str(broken))
        page.click("#upload-form button[type=submit]")
        page.wait_for_selector("#nothing-renders")
        assert "invalid YAML" in page.inner_text("#nothing-renders")
        assert page.locator("#source-pane .line.hl").count() >= 1
        replace_editor_text(page, FIXED)
        page.wait_for_selector("#rendered >> text=closed now")
        if width == 390:
            page.screenshot(path=str(SCREENSHOTS / "nothing-renders-390.png"), full_page=True)
        else:
            page.screenshot(path=str(SCREENSHOTS / "nothing-renders.png"))
        page.click("#save-revision")
        page.wait_for_selector("#open-case")
        assert errors == []
        page.close()
