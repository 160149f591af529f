"""A gambit deck's case page in a real Chromium at desktop and 390 px: the context input is chosen
from the deck's samples with a select, and the page shows gambit's context turn from that file."""

import pytest
from django.core.cache import cache

from inspector import presenters
from inspector.ingest import store_bundle
from tests.web.conftest import SCREENSHOTS

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DECK = """+++
label = "support"
[modelParams]
model = "openai/gpt-4o-mini"
+++

You help customers with their orders. Read the order in the context before answering.
"""


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_a_sample_chosen_in_the_select_becomes_the_context_turn(page, transactional_db, viewport):
    if viewport:
        page.set_viewport_size(viewport)
    cache.clear()
    bundle, _ = store_bundle({
        "support/PROMPT.md": DECK.encode(),
        "support/samples/late-order.json": b'{\n  "orderId": "A-9",\n  "late": true\n}\n',
        "support/samples/new-customer.json": b'{"orderId": null}\n'}, title="gambit samples")
    page.goto(presenters.case_url(bundle.pk, "support/PROMPT.md", "support"))
    page.wait_for_selector("#rendered .msg")
    page.click("details.more-settings summary")
    select = page.locator("#gambit_context_sample")
    assert select.is_visible()
    with page.expect_response(lambda response: "gambit_context_sample=late-order" in response.url):
        select.select_option("late-order")
    page.wait_for_selector("#rendered .msg.role-tool")
    tool = page.locator("#rendered .msg.role-tool")
    assert '{"orderId":"A-9","late":true}' in tool.inner_text()
    assert "gambit_context_sample=late-order" in page.url
    box = select.bounding_box()
    width = page.viewport_size["width"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width  # the select fits the screen
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    page.locator("#gambit_context_sample").scroll_into_view_if_needed()
    name = "gambit-sample-390.png" if viewport else "gambit-sample.png"
    page.screenshot(path=str(SCREENSHOTS / name))
