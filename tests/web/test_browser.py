"""The inspector in a real Chromium (Playwright, Debian's build): upload, inspect, link, export,
edit, share. Screenshots of the main pages go to docs/screenshots/."""

import json
import re

import pytest

from tests.web.conftest import (
    SCREENSHOTS,
    SIMPLE,
    folder_files,
    replace_editor_text,
    settled,
    zip_bytes,
)

pytestmark = pytest.mark.browser


def upload_simple(page, tmp_path) -> str:
    """Upload the simple test bundle as a zip; return the share link."""
    archive = tmp_path / "simple.zip"
    archive.write_bytes(zip_bytes(folder_files(SIMPLE)))
    page.goto("/")
    page.set_input_files("#files", str(archive))
    page.click("button[type=submit]")
    page.wait_for_selector("#share-url")
    return page.input_value("#share-url")


def open_example_case(page, share_url):
    page.goto(share_url)
    page.click("a.case-link >> nth=0")
    page.wait_for_selector("#source-pane")


def test_upload_inspect_link_export_edit_and_share(page, context, browser, live_server, tmp_path):
    from inspector.bundles.examples import load_examples

    load_examples()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.goto("/")
    page.screenshot(path=str(SCREENSHOTS / "home.png"))
    share_url = upload_simple(page, tmp_path)
    manage_url = page.input_value("#manage-url")
    assert "/manage/" in manage_url

    # Bundle page: files, cases, filter, keyboard.
    page.goto(share_url)
    assert page.locator(".case-row").count() >= 2
    page.screenshot(path=str(SCREENSHOTS / "bundle.png"))
    page.fill("#case-filter", "zzz-nothing-matches")
    assert page.locator(".case-row:visible").count() == 0
    page.keyboard.press("Escape")
    assert page.input_value("#case-filter") == ""
    assert page.locator(".case-row:visible").count() == page.locator(".case-row").count()
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("j")
    page.keyboard.press("j")
    selected = page.locator(".case-row.selected a.case-link").get_attribute("href")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(re.escape(selected.split("?")[0])))

    # Case page: the case's lines highlighted on the left, role cards on the right.
    page.goto(share_url)
    case_link = page.locator("a.case-link", has_text="python").first
    case_link.click()
    page.wait_for_selector("#source-pane .line.hl")
    assert page.locator(".msg").count() >= 2
    page.screenshot(path=str(SCREENSHOTS / "case.png"))

    # Clicking a guideline segment shows that file on the left with its lines highlighted.
    guideline = page.locator(".seg.k-guideline").first
    path = guideline.get_attribute("data-path")
    start = guideline.get_attribute("data-from")
    guideline.click()
    page.wait_for_selector(f'#source-pane[data-path="{path}"]')
    # htmx settles swapped elements with their old attributes first, so wait for the highlight.
    page.wait_for_selector(f"#source-pane #L{start}.hl")
    assert path.endswith(".instructions.md")
    assert page.locator("#back-to-case").is_visible()

    # Clicking a source line highlights what it produced.
    page.locator(f"#source-pane #L{start} .text").click()
    assert page.locator(".seg.linked").count() >= 1

    # And the way back to the case's own file.
    page.click("#back-to-case")
    page.wait_for_selector('#source-pane[data-path="evals/coding/example-eval.yaml"]')
    page.wait_for_selector("#source-pane .line.hl")
    assert not page.locator("#back-to-case").is_visible()

    # The case line that references the guideline file marks the guideline's text as well.
    via_line = guideline.get_attribute("data-via-from")
    page.locator(f"#source-pane #L{via_line} .text").click()
    assert page.locator(".seg.k-guideline.linked").count() >= 1
    # ... and the address names that line, so a shared link marks the same text when opened.
    assert page.url.endswith(f"#L{via_line}")
    shared_line = page.url
    page.goto("about:blank")
    page.goto(shared_line)
    page.wait_for_selector(".seg.k-guideline.linked")

    # Switching the profile re-renders the messages and lands in the URL.
    page.select_option("#profile", "agentv-0.10")
    page.wait_for_url(re.compile(r"profile=agentv-0\.10"))
    page.wait_for_selector("#rendered")
    settled(page)  # the new export panel's menus work once it has settled

    # Switching provider and form re-renders the export panel and lands in the URL.
    page.select_option("#provider", "anthropic")
    page.wait_for_selector('#export-code[data-provider="anthropic"]')
    page.wait_for_url(re.compile(r"provider=anthropic"))
    settled(page)
    page.locator(".segmented span", has_text="Python").click()
    page.wait_for_selector('#export-code[data-provider="anthropic"][data-format="python"]')
    settled(page)
    page.locator(".segmented span", has_text="JSON").click()
    page.wait_for_selector('#export-code[data-format="json"]')
    page.locator("#export").scroll_into_view_if_needed()
    page.locator("#export").screenshot(path=str(SCREENSHOTS / "export.png"))

    # Copy the payload and read it back from the clipboard.
    page.click("#copy-payload")
    page.wait_for_selector("#copy-payload.done")
    copied = page.evaluate("navigator.clipboard.readText()")
    payload = json.loads(copied)
    assert payload["messages"] and "max_tokens" in payload
    assert copied.strip() == page.locator("#export-code").text_content().strip()

    # The Share button copies a link that reproduces the same view in a fresh browser context.
    page.click("#share")
    page.wait_for_selector("#share.done")
    shared_url = page.evaluate("navigator.clipboard.readText()")
    assert shared_url == page.url and "provider=anthropic" in shared_url
    fresh = browser.new_context(base_url=live_server.url)
    other = fresh.new_page()
    other.goto(shared_url)
    assert other.locator("#profile").input_value() == "agentv-0.10"
    assert other.locator("#export-code").get_attribute("data-provider") == "anthropic"
    assert other.locator(".msg").count() == page.locator(".msg").count()
    fresh.close()

    # Edit in place: the messages re-render as you type, then save a revision.
    before_url = page.url
    page.click("#editor summary")
    text = page.input_value("#source-text")
    first_user = page.locator(".msg.role-user .content").first.text_content()
    marker = "EDITED-IN-BROWSER"
    assert "median function" in text
    replace_editor_text(page, text.replace("median function", marker, 1))
    page.wait_for_selector(f"#rendered:has-text('{marker}')")
    assert "Preview of your unsaved edit" in page.locator("#rendered").text_content()
    # A settings change while editing re-renders the edit, not the saved file.
    with page.expect_response(lambda response: "/preview/" in response.url) as preview:
        page.select_option("#profile", "agentv-3.8")
    assert preview.value.request.post_data_json["profile"] == "agentv-3.8"
    page.wait_for_load_state("networkidle")
    assert marker in page.locator("#rendered").text_content()
    page.click("#save-revision")
    page.wait_for_selector("#share-url")
    assert "New revision saved" in page.content()
    page.click("#open-case")
    page.wait_for_selector(".msg")
    assert marker in page.locator("#rendered").text_content()
    # The revision opens with the settings in force when it was saved.
    assert page.locator("#profile").input_value() == "agentv-3.8"
    assert "provider=anthropic" in page.url
    # The old link still shows the old content.
    page.goto(before_url)
    assert marker not in page.locator("#rendered").text_content()
    assert page.locator(".msg.role-user .content").first.text_content() == first_user
    assert page.csp_errors == []


def test_example_is_one_click_away_and_works_in_dark_mode(browser, live_server, db):
    from inspector.bundles.examples import load_examples

    load_examples()
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, color_scheme="dark", base_url=live_server.url
    )
    page = context.new_page()
    page.goto("/")
    page.click(".example")  # opens the example's first case directly
    page.wait_for_selector(".seg.k-guideline")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background != "rgb(246, 247, 249)"  # the dark palette applies
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "case-dark.png"))
    context.close()


def test_page_works_without_javascript(browser, live_server, db):
    from inspector.bundles.examples import load_examples

    load_examples()
    context = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    page = context.new_page()
    page.goto("/")
    page.click(".example")
    # Without JavaScript the click is a plain navigation: wait for the case page, not just its commit.
    page.wait_for_selector("#source-pane .line.hl")
    page.wait_for_load_state("load")  # the messages come after the source in the document
    assert page.locator(".msg").count() >= 2
    page.select_option("#provider", "gemini")
    page.click("#export noscript-button, #export button:has-text('Show')")
    page.wait_for_selector('#export-code[data-provider="gemini"]')
    assert "provider=gemini" in page.url
    context.close()


def test_a_folder_upload_keeps_its_structure(page):
    page.goto("/")
    page.set_input_files("#folder", str(SIMPLE))
    assert "chosen" in page.text_content("#picked")
    page.click("button[type=submit]")
    page.wait_for_selector("#share-url")
    page.click("#open-bundle")
    page.wait_for_selector(".case-row")
    tree = page.text_content(".file-tree")
    assert "simple/" in tree and "coding/" in tree and "example-eval.yaml" in tree
    assert page.locator(".case-row").count() >= 4, page.text_content(".cases")
