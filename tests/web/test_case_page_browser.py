"""The case page in a real Chromium at desktop, 800 and 390 px: settings changed in place reach every
link, the address follows them while an edit is unsaved and Share says when it leaves the edit out,
a tapped segment names its origin where the reader is, the breadcrumb stays in sight, and the
keyboard reaches the neighbouring cases and the first segment at once."""

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.cache import cache

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from tests.web.conftest import SCREENSHOTS, settled, until

pytestmark = pytest.mark.browser

DOCUMENT = "evals/tiny.yaml"
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 800, "height": 900}


@pytest.fixture
def tiny_live(transactional_db, tiny_files):
    cache.clear()
    bundle, _ = store_bundle(tiny_files, title="tiny bundle with a rather long title for a phone")
    return bundle


def case_address(bundle, case_id="first", query=""):
    return addresses.case_url(bundle.pk, DOCUMENT, case_id, query)


def query_of(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def open_case(page, bundle, case_id="first", query=""):
    page.goto(case_address(bundle, case_id, query))
    page.wait_for_selector("#rendered .msg")


def change_profile(page, profile):
    with page.expect_response(
        lambda response: "profile=" in response.url or response.request.method == "POST"
    ):
        page.select_option("#profile", profile)
    until(page, f"location.search.includes('profile={profile}')")
    settled(page)  # the address changes before the swap; the new controls work once settled


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_settings_changed_in_place_reach_the_neighbours_and_the_bundle(page, tiny_live, viewport):
    if viewport:
        page.set_viewport_size(viewport)
    # A fresh link carrying export settings...
    open_case(page, tiny_live, "first", "provider=anthropic&temperature=0.5")
    # ...then a render setting and a model changed in place.
    change_profile(page, "spec")
    page.click("#export .export-settings summary")
    page.fill("#export input[name=model]", "claude-test-model")
    page.locator("#export input[name=model]").press("Enter")
    until(page, "location.search.includes('model=claude-test-model')")
    wanted = {"profile": "spec", "provider": "anthropic", "temperature": "0.5", "model": "claude-test-model"}
    for link in ("#next-case", "#crumb-bundle"):
        assert query_of(page.get_attribute(link, "href")).items() >= wanted.items(), link

    page.click("#next-case")
    page.wait_for_url(re.compile(r"/case/odd"))
    assert query_of(page.url).items() >= wanted.items()
    assert page.input_value("#profile") == "spec"
    assert page.input_value("#provider") == "anthropic"
    assert query_of(page.get_attribute("#prev-case", "href")).items() >= wanted.items()

    page.click("#crumb-bundle")
    page.wait_for_selector(".case-row")
    assert query_of(page.url).items() >= wanted.items()
    assert query_of(page.get_attribute("a.case-link >> nth=2", "href")).items() >= wanted.items()


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_with_an_unsaved_edit_the_address_follows_the_settings_and_share_warns(
    page, context, tiny_live, viewport
):
    if viewport:
        page.set_viewport_size(viewport)
    open_case(page, tiny_live)
    page.click("#editor summary")
    page.click(".code-editor .cm-content")
    page.keyboard.press("End")
    page.keyboard.type(" ")
    page.wait_for_selector("text=Preview of your unsaved edit.")

    change_profile(page, "spec")
    assert page.locator("text=Preview of your unsaved edit.").count() == 1  # still the edited text
    assert query_of(page.get_attribute("#next-case", "href"))["profile"] == "spec"

    page.select_option("#provider", "gemini")
    until(page, "location.search.includes('provider=gemini')")
    assert page.locator("text=Preview of your unsaved edit.").count() == 1

    page.click("#share")
    note = page.locator("#share-note")
    note.wait_for(state="visible")
    assert "unsaved edit is not in it" in note.inner_text()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert query_of(copied).items() >= {"profile": "spec", "provider": "gemini"}.items()


def test_with_no_unsaved_edit_share_copies_without_a_warning(page, tiny_live):
    open_case(page, tiny_live)
    page.click("#share")
    until(page, "document.getElementById('share').textContent === 'Copied'")
    assert page.locator("#share-note").is_hidden()


def in_viewport(page, selector) -> bool:
    return page.evaluate(
        """(selector) => {
      const box = document.querySelector(selector).getBoundingClientRect();
      return box.width > 0 && box.top >= 0 && box.bottom <= innerHeight && box.left >= 0 && box.right <= innerWidth;
    }""",
        selector,
    )


def test_at_390px_a_tapped_segment_names_its_origin_beside_it(browser, live_server, tiny_live):
    context = browser.new_context(viewport=PHONE, base_url=live_server.url, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        open_case(page, tiny_live)
        guideline = page.locator(".seg.k-guideline").first
        guideline.scroll_into_view_if_needed()
        assert not in_viewport(page, "#source-pane")  # the pane is far below the messages on a phone
        guideline.tap()
        note = page.locator("#origin-note")
        note.wait_for(state="visible")
        # The tap lands on one line of the guideline's text: the note names that line of the file.
        said = note.inner_text()
        assert re.search(
            r"Guideline file: evals/notes\.instructions\.md:([123]) \(line \1 of lines 1–3\)", said
        )
        assert in_viewport(page, "#origin-note")
        page.wait_for_selector('#source-pane[data-path="evals/notes.instructions.md"]')
        page.screenshot(path=str(SCREENSHOTS / "case-phone-origin.png"))

        page.click("#show-source")
        # The pane is the page's last part on a phone: in sight, its marked line too.
        until(
            page,
            "(() => { const box = document.getElementById('source-pane').getBoundingClientRect();"
            " return box.top >= 0 && box.bottom <= innerHeight; })()",
        )
        assert in_viewport(page, "#source-pane .line.hl")

        # A segment without a file (the line break the loader put between parts; too thin to tap,
        # so clicked by event) names its origin too.
        page.locator("#m1 .seg:not([data-src])").first.dispatch_event("click")
        assert "Header / separator" in page.locator("#origin-note").inner_text()
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["800px", "390px"])
def test_the_breadcrumb_stays_in_sight_truncated_not_hidden(page, tiny_live, viewport):
    page.set_viewport_size(viewport)
    open_case(page, tiny_live, "odd/id with spaces?#&")
    for crumb in ("#crumb-bundle", ".crumb-doc", ".crumb-case"):
        assert in_viewport(page, crumb), crumb
        width = page.evaluate(f"document.querySelector('{crumb}').getBoundingClientRect().width")
        assert width > 20, crumb
    # The long title is cut with an ellipsis rather than pushing the case off screen.
    assert page.evaluate(
        "(() => { const e = document.querySelector('#crumb-bundle');"
        " return e.scrollWidth > e.clientWidth; })()"
    ) is (viewport == PHONE)
    if viewport == PHONE:
        page.screenshot(path=str(SCREENSHOTS / "case-phone.png"))


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_brackets_move_between_cases_but_not_while_typing(page, tiny_live, viewport):
    if viewport:
        page.set_viewport_size(viewport)
    open_case(page, tiny_live, "first")
    assert page.locator("#case-keys kbd", has_text="]").count() == 1  # documented on the page
    page.keyboard.press("]")
    page.wait_for_url(re.compile(r"/case/odd"))
    page.wait_for_selector("#rendered .msg")
    page.keyboard.press("]")
    page.wait_for_url(re.compile(r"/case/chat/"))
    page.wait_for_selector("#rendered .msg")
    page.keyboard.press("[")
    page.wait_for_url(re.compile(r"/case/odd"))
    page.wait_for_selector("#rendered .msg")

    page.click("#max_tokens")
    page.keyboard.type("]")
    page.wait_for_timeout(300)
    assert "/case/odd" in page.url


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_the_skip_link_reaches_the_first_segment_in_three_tabs(page, tiny_live, viewport):
    if viewport:
        page.set_viewport_size(viewport)
    open_case(page, tiny_live, "first")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    assert in_viewport(page, ".skip-link")  # shown when focused
    page.keyboard.press("Enter")
    for _ in range(3):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('seg')"):
            break
    assert page.evaluate("document.activeElement.classList.contains('seg')")
    page.keyboard.press("Enter")
    assert page.locator("#origin-note").is_visible()


def contrast(page) -> float:
    """The case-text underline's contrast against the message card (WCAG's ratio)."""
    return page.evaluate("""() => {
      const seg = document.querySelector('.seg.k-case');
      const shadow = getComputedStyle(seg).boxShadow;
      const card = getComputedStyle(seg.closest('.msg')).backgroundColor;
      const rgb = (text) => text.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
      const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255;
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
        .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
      const [a, b] = [lum(rgb(shadow)), lum(rgb(card))].sort((x, y) => y - x);
      return (a + 0.05) / (b + 0.05);
    }""")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_case_text_is_marked_clearly_in_light_and_dark(browser, live_server, tiny_live, scheme):
    context = browser.new_context(base_url=live_server.url, color_scheme=scheme)
    page = context.new_page()
    try:
        open_case(page, tiny_live)
        assert contrast(page) >= 3.0  # WCAG 1.4.11, non-text contrast
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_a_long_message_opens_with_its_control_and_when_a_source_line_points_into_it(
    page, transactional_db, viewport
):
    if viewport:
        page.set_viewport_size(viewport)
    long_text = "\n".join(f"Rule {n}: answer carefully." for n in range(1, 81))
    request = {"messages": [{"role": "system", "content": long_text}, {"role": "user", "content": "Hi"}]}
    cache.clear()
    bundle, _ = store_bundle({"request.json": json.dumps(request).encode()}, title="long")
    page.goto(addresses.case_url(bundle.pk, "request.json", "request"))
    content = page.locator("#m0 .content")
    collapsed = content.bounding_box()["height"]
    page.click("label[for=expand-m0]")
    assert content.bounding_box()["height"] > 2 * collapsed
    assert page.locator("label[for=expand-m0] .when-expanded").is_visible()
    page.click("label[for=expand-m0]")
    assert content.bounding_box()["height"] == collapsed
    # A click on the source line of a stretch inside the collapsed part opens the message.
    page.locator("#L1").click()
    assert page.locator("#expand-m0").is_checked()
