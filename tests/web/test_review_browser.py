"""Review in a real Chromium: commenting on a selection and on a source line (each shown on both
sides), the comment carried to a revision saved from the editor, and the diff against the parent."""

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from inspector.rendering import cache as render_cache
from tests.api.test_review import FILES, SUITE
from tests.web.conftest import SCREENSHOTS, replace_editor_text
from tests.web.test_agentv5_next_pages import OWN_AGENT

pytestmark = pytest.mark.browser


@pytest.fixture
def suite(transactional_db):
    render_cache.clear()
    bundle, _ = store_bundle(FILES, title="suite")
    return bundle


def open_case(page, bundle, case_id="first"):  # noqa: F811 - page is the fixture's
    page.goto(addresses.case_url(bundle.pk, "evals/suite.yaml", case_id))
    page.wait_for_selector("#review-panel[data-markers]", state="attached")  # loaded after the page


def select_text(page, index, quote):  # noqa: F811
    """Selects `quote` in message #index with the mouse's selection API, then releases the mouse."""
    page.evaluate(
        """([index, quote]) => {
      const content = document.querySelector('#m' + index + ' .content');
      const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
      let node;
      while ((node = walker.nextNode())) {
        const at = node.textContent.indexOf(quote);
        if (at >= 0) {
          const range = document.createRange();
          range.setStart(node, at); range.setEnd(node, at + quote.length);
          getSelection().removeAllRanges(); getSelection().addRange(range);
          return;
        }
      }
      throw new Error('quote not found');
    }""",
        [index, quote],
    )
    box = page.locator(f"#m{index} .content").bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + 2)
    page.mouse.up()


def comment_on_selection(page, index, quote, body, author=None):  # noqa: F811
    select_text(page, index, quote)
    page.click("#comment-selection")
    assert quote[:20] in page.inner_text("#anchor-chosen")
    if author:
        page.fill("#comment-author", author)
    page.fill("#comment-body", body)
    page.click("#post-comment")
    page.wait_for_selector(f".comment-body:has-text('{body.replace('*', '')}')")


def highlighted_quotes(page):  # noqa: F811
    return page.evaluate("() => [...(CSS.highlights.get('review-quote') || [])].map(r => r.toString())")


def test_a_comment_on_a_selection_shows_on_the_text_and_on_its_source_line(page, suite):  # noqa: F811
    open_case(page, suite)
    comment_on_selection(page, 1, "first function", "Which **one**?", author="Ann")
    assert page.locator(".comment-body strong", has_text="one").count() == 1
    assert highlighted_quotes(page) == ["first function"]
    # The other side: the eval file's line that wrote the text carries a marker.
    page.wait_for_selector("#source-pane #L11.has-comment .line-comments")
    page.reload()
    page.wait_for_selector("#review-panel[data-markers]", state="attached")
    assert highlighted_quotes(page) == ["first function"]
    assert "Ann" in page.inner_text(".thread .comment header")
    assert page.input_value("#comment-author") == "Ann"  # remembered in a cookie
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SCREENSHOTS / "review-narrow.png"), full_page=False)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390


def test_a_comment_on_a_guideline_line_shows_beside_every_case_that_carries_it(page, suite):  # noqa: F811
    open_case(page, suite)
    guideline = page.locator(".seg.k-guideline").first
    guideline.click()
    page.wait_for_selector('#source-pane[data-path="evals/rules.instructions.md"]')
    page.locator("#source-pane #L3 .text").click()
    page.click("#comment-line")
    assert "rules.instructions.md line 3" in page.inner_text("#anchor-chosen")
    page.fill("#comment-body", "Bugs first, always?")
    page.click("#post-comment")
    page.wait_for_selector(".thread:has-text('Bugs first')")
    assert "2 cases" in page.inner_text(".thread")
    page.wait_for_selector("#rendered .seg.k-guideline.has-comment")  # the rendered side too
    # Beside the other case too; a click on its anchor opens the guideline with the line marked.
    open_case(page, suite, "second")
    thread = page.locator(".thread", has_text="Bugs first")
    assert "2 cases" in thread.inner_text()
    thread.locator(".anchor-link").click()
    page.wait_for_selector('#source-pane[data-path="evals/rules.instructions.md"] #L3.has-comment')
    page.screenshot(path=str(SCREENSHOTS / "review.png"))


def test_a_comment_follows_a_revision_saved_from_the_editor_and_the_diff_shows_why(page, suite):  # noqa: F811
    open_case(page, suite)
    comment_on_selection(page, 1, "first function", "kept")
    comment_on_selection(page, 1, "carefully", "about to go")
    page.click("#editor summary")
    text = page.input_value("#source-text")
    replace_editor_text(page, text.replace(" carefully", ""))
    page.click("#save-revision")
    page.wait_for_selector("#open-case")
    page.click("#open-case")
    page.wait_for_selector("#review-panel[data-markers]", state="attached")
    kept = page.locator(".thread", has_text="kept")
    assert "from an earlier revision" in kept.inner_text()
    gone = page.locator(".thread", has_text="about to go")
    assert "outdated" in gone.inner_text()
    assert f"/b/{suite.pk}/" in gone.locator(".outdated-badge a").get_attribute("href")
    assert highlighted_quotes(page) == ["first function"]

    # A verdict shows on the bundle page's row, and the server's filter by verdict finds it.
    page.check("input[name=verdict][value=changes]", force=True)
    page.click("#save-verdict")
    # The panel the server sends back names the verdict's author: the save has landed (the radio
    # is checked before the request even leaves, so it proves nothing).
    page.wait_for_selector("#review-panel .verdict-by", state="attached")
    page.click(".crumbs a >> nth=0")
    page.wait_for_selector(".case-row[data-verdict=changes] .verdict-changes")
    assert "Reviewed 1 of 2" in page.inner_text("#review-progress")
    page.select_option("#verdict-filter", "ok")
    page.wait_for_selector("#no-match:visible")
    assert page.locator(".case-row").count() == 0
    page.select_option("#verdict-filter", "changes")
    page.wait_for_selector("text=1 case marked needs changes.")
    assert page.locator(".case-row").count() == 1

    # The revision against its parent: what changed and why, word by word.
    page.click("#diff-parent")
    page.wait_for_selector("#diff-summary")
    assert "1 changed" in page.inner_text("#count-changed")
    assert "evals/suite.yaml line 11" in page.inner_text("#causes")
    page.click("a.case-diff-link")
    page.wait_for_selector("#case-diff")
    assert page.inner_text(".word-diff.old del").strip() == "carefully"
    page.screenshot(path=str(SCREENSHOTS / "diff.png"))


def test_the_offline_copy_opens_from_disk_with_its_comments_and_fetches_nothing(
    page,
    suite,
    live_server,  # noqa: F811
    tmp_path,
):
    open_case(page, suite)
    comment_on_selection(page, 1, "first function", "Offline too")
    with page.expect_download() as download:
        page.goto(f"/b/{suite.pk}/")
        page.click("#download-html")
    path = tmp_path / "copy.html"
    download.value.save_as(path)
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_selector(".msg")
    assert "Offline too" in page.inner_text(".review")
    page.locator(".seg.k-guideline").first.click()
    assert page.get_attribute("#source-pane", "data-path") == "evals/rules.instructions.md"
    # Its Files panel: every file one click apart; a line of another case opens that case.
    assert sorted(page.locator("#files-panel .file-link").all_inner_texts()) == [
        ".agentv/config.yaml",
        "evals/rules.instructions.md",
        "evals/suite.yaml",
    ]
    assert page.get_attribute("#files-panel [aria-current]", "data-path") == "evals/rules.instructions.md"
    page.click("#files-panel .file-link[data-path='evals/suite.yaml']")
    assert page.locator("#source-pane .line.hl").first.get_attribute("id") == "L3"  # the case's lines
    page.locator("#source-pane #L4").click()  # `outcome: ok`: no message holds it
    assert page.inner_text("#line-note") == "Line 4: none of this case's messages has text from it."
    page.locator("#source-pane #L7").click()  # the system message's text
    assert page.locator("#line-note").is_hidden()
    second = SUITE.decode().splitlines().index("  - id: second") + 1
    page.locator(f"#source-pane #L{second + 3}").click()
    assert page.inner_text(".right-col h1") == "second" and page.input_value("#offline-case") == "1"
    assert [url for url in requests if not url.startswith("file:")] == []


def test_the_case_pages_link_into_the_diff_takes_the_settings_picked_after_it_loaded(page, transactional_db):  # noqa: F811
    render_cache.clear()
    parent, _ = store_bundle({"evals/suite.yaml": OWN_AGENT}, title="own agent")
    child, _ = store_bundle(
        {"evals/suite.yaml": OWN_AGENT.replace(b"Is short", b"Is very short")}, parent=parent
    )
    page.goto(addresses.case_url(child.pk, "evals/suite.yaml", "docs"))
    page.wait_for_selector("#case-diff-parent")
    with page.expect_response(lambda response: "grader_provider=agentv" in response.url):
        page.select_option("#grader_provider", "agentv")  # htmx swaps the messages, not the panel
    page.click("#case-diff-parent")
    page.wait_for_selector("#judges")
    assert "grader_provider=agentv" in page.url
    assert "asks agentv" in page.inner_text("#judge-1")
