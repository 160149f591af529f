"""The case page's Files panel and line clicks in a real Chromium, at desktop and 390 px: the case's
file, its guideline and the bundle's other files are one click (or Enter) apart in the source pane;
a line of another case opens that case; a line that sends nothing says so in words; all under the
strict CSP, and as plain links without JavaScript."""

import re

import pytest
from django.core.cache import cache

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from tests.web.conftest import CONFIG, EVAL, SCREENSHOTS, until

pytestmark = pytest.mark.browser

DOCUMENT = "evals/tiny.yaml"
PHONE = {"width": 390, "height": 844}
# The tiny eval with a comment and a criteria block in its first case.
TEXT = EVAL.replace(
    b"    outcome: ok\n    input_messages:\n      - role: system",
    b"    outcome: ok\n    # reviewed by Ana\n    criteria: |\n      Brief and kind.\n"
    b"    input_messages:\n      - role: system",
    1,
)
CRITERIA_LINE = TEXT.decode().splitlines().index("      Brief and kind.") + 1
COMMENT_LINE = CRITERIA_LINE - 2
OTHER_CASE_LINE = TEXT.decode().splitlines().index("        content: Second case text.") + 1


@pytest.fixture
def bundle(transactional_db):
    cache.clear()
    found, _ = store_bundle(
        {
            DOCUMENT: TEXT,
            "evals/notes.instructions.md": b"# Notes\n\nBe kind.\n",
            ".agentv/config.yaml": CONFIG,
            "evals/README.txt": b"Read me.\n",
        },
        title="tiny",
    )
    return found


def open_case(page, bundle, viewport=None):
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(addresses.case_url(bundle.pk, DOCUMENT, "first"))
    page.wait_for_selector("#rendered .msg")


def click_line(page, number: int) -> None:
    page.locator(f"#source-pane #L{number} .text").click()


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_the_files_are_one_click_apart_in_the_source_pane(page, bundle, viewport):
    open_case(page, bundle, viewport)
    panel = page.locator("#files-panel")
    if viewport:  # a phone leads with the messages: the file list starts folded
        assert not panel.evaluate("panel => panel.open")
        panel.locator("summary").click()
    assert panel.locator("a[aria-current]").inner_text() == "tiny.yaml"
    assert panel.locator("li", has_text="tiny.yaml").locator(".file-role").inner_text() == "this case"
    assert (
        panel.locator("li", has_text="notes.instructions.md").locator(".file-role").inner_text()
        == "guideline"
    )
    assert panel.locator("li", has_text="README.txt").locator(".file-role").count() == 0

    panel.locator("a", has_text="notes.instructions.md").click()
    until(page, "document.getElementById('source-pane').dataset.path === 'evals/notes.instructions.md'")
    assert "Be kind." in page.inner_text("#source-pane")
    assert panel.locator("a[aria-current]").inner_text() == "notes.instructions.md"
    assert "/case/first" in page.url  # the case stays; only the pane changed
    name = "case-files-phone" if viewport else "case-files"
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))

    # The keyboard: the case's own file again, at the case's lines.
    panel.locator("a", has_text="tiny.yaml").focus()
    page.keyboard.press("Enter")
    until(page, f"document.getElementById('source-pane').dataset.path === '{DOCUMENT}'")
    until(page, "document.querySelector('#source-pane .line.hl').id === 'L3'")  # after htmx settles
    assert panel.locator("a[aria-current]").inner_text() == "tiny.yaml"
    assert page.csp_errors == []


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_a_line_that_sends_nothing_says_so_and_another_cases_line_opens_it(page, bundle, viewport):
    open_case(page, bundle, viewport)
    note = page.locator("#line-note")

    click_line(page, CRITERIA_LINE)
    note.wait_for(state="visible")
    assert re.fullmatch(
        rf"Line {CRITERIA_LINE} is `criteria`: agentv does not send it to the model; "
        r"graders read it\.",
        note.inner_text(),
    )
    assert note.is_visible()
    name = "case-line-note-phone" if viewport else "case-line-note"
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))

    click_line(page, COMMENT_LINE)
    until(page, f"document.getElementById('line-note').dataset.line === '{COMMENT_LINE}'")
    assert "is a comment: agentv does not send it to the model" in note.inner_text()

    # A line this case sends marks its text, and the note goes.
    click_line(page, CRITERIA_LINE + 3)
    assert page.locator("#rendered .seg.linked").count() >= 1
    assert note.is_hidden()

    click_line(page, OTHER_CASE_LINE)
    page.wait_for_url(re.compile(rf"/case/odd.*#L{OTHER_CASE_LINE}$"))
    page.wait_for_selector("#rendered .seg.linked")
    assert "Second case text." in page.locator("#rendered .seg.linked").first.inner_text()
    assert page.csp_errors == []


def test_without_javascript_the_files_are_plain_links(browser, live_server, bundle):
    context = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    try:
        page = context.new_page()
        open_case(page, bundle)
        page.locator("#files-panel a", has_text="notes.instructions.md").click()
        page.wait_for_url(re.compile(r"/source/evals/notes\.instructions\.md$"))
        assert "Be kind." in page.inner_text("#source-pane")
    finally:
        context.close()


def test_guideline_patterns_changed_in_place_relabel_the_files(page, bundle):
    open_case(page, bundle)
    role = page.locator("#files-panel li", has_text="notes.instructions.md").locator(".file-role")
    assert role.inner_text() == "guideline"
    page.click("details.more-settings summary")
    page.fill("#patterns", "no-such-file.md")
    page.check("input[name=patterns_mode][value=custom]")
    # No guideline now; the case's own `type: file` block still attaches the notes.
    until(
        page,
        "document.querySelector('#files-panel li.depth-1 a[data-path=\"evals/notes.instructions.md\"]')"
        ".parentElement.querySelector('.file-role').textContent === 'attached'",
    )
    assert page.locator("#files-panel a[aria-current]").inner_text() == "tiny.yaml"
    assert page.csp_errors == []
