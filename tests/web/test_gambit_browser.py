"""A gambit deck's case page in a real Chromium at desktop and 390 px: the context input is chosen
from the deck's samples with a select, and the page shows gambit's context turn from that file."""

import pytest
from django.core.cache import cache
from playwright.sync_api import expect

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
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


def _settings_of(page, viewport, files: dict[str, bytes], deck: str, select: str):
    """The deck's case page (`<deck>/PROMPT.md`) with its settings open: the select asked for."""
    if viewport:
        page.set_viewport_size(viewport)
    cache.clear()
    bundle, _ = store_bundle(files, title=f"gambit {deck}")
    page.goto(addresses.case_url(bundle.pk, f"{deck}/PROMPT.md", deck))
    page.wait_for_selector("#rendered .msg")
    page.click("details.more-settings summary")
    found = page.locator(select)
    assert found.is_visible()
    return found


def _fits_the_screen(page, select) -> None:
    box = select.bounding_box()
    width = page.viewport_size["width"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_a_sample_chosen_in_the_select_becomes_the_context_turn(page, transactional_db, viewport):
    select = _settings_of(
        page,
        viewport,
        {
            "support/PROMPT.md": DECK.encode(),
            "support/samples/late-order.json": b'{\n  "orderId": "A-9",\n  "late": true\n}\n',
            "support/samples/new-customer.json": b'{"orderId": null}\n',
        },
        "support",
        "#gambit_context_sample",
    )
    with page.expect_response(lambda response: "gambit_context_sample=late-order" in response.url):
        select.select_option("late-order")
    page.wait_for_selector("#rendered .msg.role-tool")
    tool = page.locator("#rendered .msg.role-tool")
    # text_content, not inner_text: an off-screen card (content-visibility: auto) has no rendered text.
    assert '{"orderId":"A-9","late":true}' in tool.text_content()
    assert "gambit_context_sample=late-order" in page.url
    _fits_the_screen(page, select)
    page.locator("#gambit_context_sample").scroll_into_view_if_needed()
    name = "gambit-sample-390.png" if viewport else "gambit-sample.png"
    page.screenshot(path=str(SCREENSHOTS / name))


GRADER = """+++
label = "brevity"
contextSchema = "gambit://schemas/graders/contexts/turn.zod.ts"
[modelParams]
model = "openai/gpt-4o-mini"
+++

Grade the assistant message for brevity: 3 when it answers in one sentence, -3 when it rambles.
"""
SESSION = b"""{
  "runId": "run-7",
  "messages": [
    {"role": "user", "content": "Why is the sky blue?"},
    {"role": "assistant", "content": "Rayleigh scattering."},
    {"role": "user", "content": "And sunsets?"},
    {"role": "assistant", "content": "Longer paths scatter the blue away, leaving red."}
  ]
}
"""


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_a_conversation_chosen_in_the_select_is_graded_turn_by_turn(page, transactional_db, viewport):
    select = _settings_of(
        page,
        viewport,
        {
            "brevity/PROMPT.md": GRADER.encode(),
            "brevity/samples/sky.json": SESSION,
            "brevity/samples/empty.json": b"[]\n",
        },
        "brevity",
        "#gambit_conversation_sample",
    )
    # The deck graded turn by turn is other cases: the page moves to the first one's address.
    with page.expect_navigation(url=lambda url: "gambit_conversation_sample=sky" in url):
        select.select_option("sky")
    page.wait_for_selector("#rendered .msg.role-tool")
    assert "brevity@turn-1" in page.locator("header.topbar").inner_text()
    assert page.locator(".case-pos").inner_text() == "1 / 2"
    assert page.locator("#gambit_conversation_sample").input_value() == "sky"
    tool = page.locator("#rendered .msg.role-tool")
    tool.scroll_into_view_if_needed()  # cards off screen are not laid out (content-visibility)
    expect(tool).to_contain_text('"messageToGrade":{"role":"assistant","content":"Rayleigh scattering."}')
    # the graded message, traced to its line of the session file
    graded = tool.locator('.seg[data-path="brevity/samples/sky.json"][data-from="5"]')
    assert graded.count() == 2  # in the session, then as messageToGrade
    assert "brevity@turn-1" in page.url.replace("~40", "@")
    _fits_the_screen(page, select)
    tool.scroll_into_view_if_needed()
    name = "gambit-grade-sample-390.png" if viewport else "gambit-grade-sample.png"
    page.screenshot(path=str(SCREENSHOTS / name))
