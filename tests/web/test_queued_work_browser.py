"""Work the queue does, seen from the pages: a large upload's progress page polls (htmx) while the
worker stores it, then opens the manage page with the token its address holds, as a manage link
does; an offline copy's page polls while the worker makes it, then the download starts once."""

import pytest
from django.test import override_settings

from tests.api.test_queued_uploads import SUITE, run_worker

pytestmark = pytest.mark.browser


def test_a_queued_upload_moves_on_to_its_manage_page_by_itself(page):
    with override_settings(UPLOAD_QUEUE_BYTES=20):
        page.goto("/")
        page.click("details.paste summary")
        page.fill("#id_filename", "suite.yaml")
        page.fill("#id_text", SUITE)
        page.click("#upload-form button[type=submit]")
        page.wait_for_url("**/uploads/**")
        assert page.locator("#upload-progress h1").inner_text() == "Storing your upload"
        run_worker()
        page.wait_for_url("**/manage/**")
    assert "/manage/" in page.input_value("#manage-url")
    assert page.csp_errors == []


def test_a_queued_offline_copy_downloads_by_itself_once_made(page):
    from inspector.bundles.ingest import store_bundle
    from inspector.rendering import cache as render_cache

    render_cache.clear()
    bundle, _ = store_bundle({"evals/suite.yaml": SUITE.encode()}, title="trip")
    with override_settings(QUEUE_OFFLINE_COPIES=True):
        page.goto(f"/b/{bundle.pk}/offline.html")
        assert page.locator("#offline-progress h1").inner_text() == "Making the offline copy"
        with page.expect_download() as download:
            run_worker()
        assert download.value.suggested_filename == "trip.html"
        assert page.locator("#offline-progress h1").inner_text() == "The offline copy is ready"
    assert page.csp_errors == []
