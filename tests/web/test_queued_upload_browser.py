"""A large upload from the page: its progress page polls (htmx) while the queue's worker stores it,
then opens the manage page with the token its address holds, as a manage link does."""

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
