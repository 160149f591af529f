"""A promptfoo config in Chromium: its prompt × provider matrix on the bundle page, scrolled
sideways inside its own box on a phone, each cell opening that evaluation, whose source pane shows
the prompt file line and the CSV row each stretch came from."""

import os

import pytest

from .test_promptfoo_page import ASK, CASES

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("PI_SHOTS")  # a folder to keep screenshots in, to look at them

# Five providers: wider than a phone.
CONFIG = b"""\
prompts:
  - file://prompts/ask.txt
  - "Tell me about {{ topic }}"
providers:
  - openai:chat:gpt-4o-mini
  - openai:chat:gpt-4.1
  - id: anthropic:messages:claude-3-5-haiku-latest
    label: haiku
  - id: anthropic:messages:claude-sonnet-4-20250514
    label: sonnet
  - openai:responses:o4-mini
tests: file://cases.csv
"""


def test_the_matrix_links_each_evaluation_and_scrolls_sideways_on_a_phone(page, transactional_db):
    from inspector.bundles.ingest import store_bundle
    from inspector.rendering import cache as render_cache

    render_cache.clear()
    files = {"suite/promptfooconfig.yaml": CONFIG, "suite/prompts/ask.txt": ASK, "suite/cases.csv": CASES}
    bundle, _ = store_bundle(files, title="promptfoo suite")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"/b/{bundle.pk}/")
        matrix = page.locator(".matrix-scroll")
        matrix.wait_for()
        assert page.locator(".matrix thead th.matrix-column").count() == 10
        assert page.locator(".matrix .matrix-row").count() == 2
        # The page keeps its width; the matrix scrolls inside its box.
        assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
        sideways = page.evaluate(
            "() => { const box = document.querySelector('.matrix-scroll'); return box.scrollWidth - box.clientWidth; }"
        )
        assert sideways > 0 or width > 390
        if SHOTS:
            matrix.scroll_into_view_if_needed()
            page.screenshot(path=f"{SHOTS}/promptfoo-matrix-{width}.png")
    page.locator(".matrix-row").nth(1).locator("a.matrix-cell").first.click()
    page.wait_for_selector("#rendered .msg")
    assert "test 1 · prompt 0 · openai:gpt-4o-mini" in page.title()
    # The prompt file's text opens the prompt file at its line; the var opens the CSV at its row.
    page.locator("#rendered .seg", has_text="Question about").first.click()
    page.wait_for_selector(
        '#source-pane[data-path="suite/prompts/ask.txt"][data-hl-from="1"][data-hl-to="3"]'
    )
    page.locator("#rendered .seg", has_text="snow").first.click()
    # Row 3 of the CSV: the header, then rain, then snow.
    page.wait_for_selector('#source-pane[data-path="suite/cases.csv"][data-hl-from="3"][data-hl-to="3"]')
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/promptfoo-case-390.png", full_page=False)
