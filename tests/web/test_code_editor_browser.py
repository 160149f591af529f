"""The source editor in a real Chromium, at desktop and 390 px: CodeMirror (vendored, in a shadow
root) with line numbers and highlighting stands in for the textarea, which stays the form field;
the preview's located error marks its line and the cursor jumps there; keys typed in it stay in
it; and nothing it does breaks the page's strict CSP."""

import re

import pytest
from django.core.cache import cache

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from tests.web.conftest import SCREENSHOTS, until

pytestmark = pytest.mark.browser

DOCUMENT = "evals/tiny.yaml"
PHONE = {"width": 390, "height": 844}
BROKEN = b"tests:\n  - id: first\n    input: [unclosed\n  - id: second\n    input: fine\n"


@pytest.fixture
def tiny_live(transactional_db, tiny_files):
    cache.clear()
    bundle, _ = store_bundle(tiny_files, title="tiny")
    return bundle


def editor_text(page) -> str:
    return page.evaluate("() => document.getElementById('source-text').value")


def active_line(page) -> int:
    """The line the cursor is on, as CodeMirror's gutter marks it."""
    return int(page.locator(".code-editor .cm-activeLineGutter").first.inner_text())


def token_colours(page, text: str) -> set[str]:
    """The colours of the highlighted tokens in the editor's line that holds `text`."""
    return set(
        page.evaluate(
            """(text) => {
        const host = document.querySelector('.code-editor');
        const line = [...host.shadowRoot.querySelectorAll('.cm-line')].find(l => l.textContent.includes(text));
        return [...line.querySelectorAll('span')].map(s => getComputedStyle(s).color);
    }""",
            text,
        )
    )


def click_line(page, text: str) -> None:
    # Near the line's start: its box runs as wide as the longest line, and a click at its middle
    # would first scroll the editor sideways.
    page.locator(".code-editor .cm-line", has_text=text).click(position={"x": 30, "y": 5})


def open_editor(page, bundle):
    page.goto(addresses.case_url(bundle.pk, DOCUMENT, "first"))
    page.wait_for_selector("#rendered .msg")
    page.click("#editor summary")
    page.wait_for_selector(".code-editor .cm-content")


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_the_case_editor_has_line_numbers_highlighting_and_mirrors_the_textarea(page, tiny_live, viewport):
    if viewport:
        page.set_viewport_size(viewport)
    open_editor(page, tiny_live)
    assert page.is_hidden("#source-text")  # still in the form, with CodeMirror in its place
    numbers = page.locator(".code-editor .cm-lineNumbers .cm-gutterElement").all_inner_texts()
    assert "1" in numbers and "12" in numbers
    # YAML keys and values are told apart by colour.
    assert len(token_colours(page, "content: Be brief.")) >= 1
    plain = page.evaluate(
        "() => getComputedStyle(document.querySelector('.code-editor')"
        ".shadowRoot.querySelector('.cm-content')).color"
    )
    assert token_colours(page, "content: Be brief.") - {plain}

    # Typing in it (the keyboard only) reaches the textarea and the preview; `]` types, not navigates.
    click_line(page, "content: Be brief.")
    page.keyboard.press("End")
    page.keyboard.type(" Edited] here.")
    assert "Be brief. Edited] here." in editor_text(page)
    page.wait_for_selector("#rendered .notice.info")  # the preview of the unsaved edit
    assert "Edited] here." in page.inner_text("#rendered")
    assert "/case/first" in page.url
    name = "code-editor-phone" if viewport else "code-editor"
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    assert page.csp_errors == []


def break_the_second_case(page, bundle) -> int:
    """Types invalid YAML into the editor; the line the preview's error names."""
    open_editor(page, bundle)
    click_line(page, "content: Second case text.")
    page.keyboard.press("End")
    page.keyboard.type(": [broken")
    page.wait_for_selector("#rendered [data-error-line]")
    return int(page.get_attribute("#rendered [data-error-line]", "data-error-line"))


def test_a_preview_error_marks_its_line_and_the_cursor_jumps_there(page, tiny_live):
    line = break_the_second_case(page, tiny_live)
    assert re.search(rf"tiny\.yaml:{line}:", page.inner_text("#rendered"))
    marked = page.locator(".code-editor .cm-error-line")
    until(page, "document.querySelector('.code-editor').shadowRoot.querySelector('.cm-error-line')")
    assert marked.count() == 1
    page.keyboard.press("Control+Home")
    assert active_line(page) == 1
    page.focus("#jump-to-error")
    page.keyboard.press("Enter")
    assert active_line(page) == line
    assert page.evaluate("() => document.activeElement.classList.contains('code-editor')")
    # Undo (the editor's own history) takes the error away, and so the mark.
    page.keyboard.press("Control+z")
    page.wait_for_selector("#rendered .msg")
    until(page, "!document.querySelector('.code-editor').shadowRoot.querySelector('.cm-error-line')")
    # Tab indents; Esc then Tab leaves the editor for the next control.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.classList.contains('code-editor')")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "save-revision"
    assert page.csp_errors == []


def test_a_preview_error_met_outside_the_editor_moves_its_cursor_there(page, tiny_live):
    line = break_the_second_case(page, tiny_live)
    page.keyboard.press("Control+Home")
    assert active_line(page) == 1  # typing: the cursor stays where the reader is
    # A setting changed while the edit is unsaved previews it again, with the focus elsewhere.
    page.focus("#max_tokens")
    with page.expect_response(lambda response: "/preview/" in response.url):
        page.fill("#max_tokens", "500")
        page.keyboard.press("Enter")
    until(
        page,
        f"document.querySelector('.code-editor').shadowRoot"
        f".querySelector('.cm-activeLineGutter').textContent === '{line}'",
    )
    assert page.evaluate("() => document.activeElement.id") == "max_tokens"
    assert page.csp_errors == []


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_nothing_renders_opens_the_editor_at_the_error_and_saves_the_fix(page, transactional_db, viewport):
    cache.clear()
    bundle, token = store_bundle({"evals/broken.yaml": BROKEN}, title="broken")
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(f"/b/{bundle.pk}/manage/?saved=upload#{token}")
    page.wait_for_selector("#nothing-renders .code-editor .cm-content")
    until(page, "document.activeElement && document.activeElement.classList.contains('code-editor')")
    assert active_line(page) == 4  # where PyYAML located the unclosed bracket
    assert page.locator(".code-editor .cm-error-line").count() == 1
    name = "nothing-renders-editor-phone" if viewport else "nothing-renders-editor"
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))  # the viewport: the editor has the focus

    # Fix line 3 with the keyboard: the messages appear below, then the fix is saved.
    page.keyboard.press("ArrowUp")
    page.keyboard.press("End")
    for _ in range(len("[unclosed")):
        page.keyboard.press("Backspace")
    page.keyboard.type("closed now")
    page.wait_for_selector("#rendered .msg")
    assert "closed now" in page.inner_text("#rendered")
    page.click("#save-revision")
    page.wait_for_selector("text=New revision saved")
    from inspector.models import Bundle

    revision = Bundle.objects.get(parent=bundle)
    assert b"input: closed now" in revision.file_map()["evals/broken.yaml"]
    assert page.csp_errors == []


def test_without_javascript_the_textarea_is_the_editor(browser, live_server, tiny_live):
    context = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    try:
        page = context.new_page()
        page.goto(addresses.case_url(tiny_live.pk, DOCUMENT, "first"))
        page.click("#editor summary")
        assert page.is_visible("#source-text") and page.locator(".code-editor").count() == 0
    finally:
        context.close()


def test_a_large_file_s_editor_arrives_on_demand_and_is_codemirror_too(page, transactional_db):
    cache.clear()
    from inspector.views.case import INLINE_EDITOR_CHARS

    filler = "".join(
        f"# padding line {n} to make the file too large to send twice\n"
        for n in range(INLINE_EDITOR_CHARS // 50)
    )
    bundle, _ = store_bundle(
        {
            "evals/big.yaml": (
                filler + "evalcases:\n  - id: only\n    input_messages:\n"
                "      - role: user\n        content: Hi.\n"
            ).encode()
        },
        title="big",
    )
    page.goto(addresses.case_url(bundle.pk, "evals/big.yaml", "only"))
    page.wait_for_selector("#rendered .msg")
    assert page.locator("#source-text").count() == 0  # not sent with the page
    page.click("#editor summary")
    page.wait_for_selector(".code-editor .cm-content")
    assert page.is_hidden("#source-text")
    assert editor_text(page).startswith("# padding line 0")
    assert page.csp_errors == []


@pytest.mark.parametrize(
    ("path", "text", "token", "colour"),
    [
        ("evals/a.yaml", "tests:\n  - id: one\n", "tests", "--syn-key"),
        ("request.json", '{"model": "gpt", "n": 2}\n', '"model"', "--syn-key"),
        ("request.json", '{"model": "gpt", "n": 2}\n', "2", "--syn-literal"),
        ("decks/samples.toml", '[samples.one]\nexpected = "yes"\n', '"yes"', "--syn-string"),
        ("decks/samples.toml", "# why\nscore = 3\n", "# why", "--syn-comment"),
        ("PROMPT.md", "# Grader\n\nSay `ok`.\n", "# Grader", "--syn-heading"),
        ("PROMPT.md", "# Grader\n\nSay `ok`.\n", "`ok`", "--syn-string"),
    ],
)
def test_each_format_the_inspector_reads_is_highlighted(page, tiny_live, path, text, token, colour):
    """The editor's languages, picked by the file's name, colour their tokens with the page's
    --syn-* variables (which follow dark mode)."""
    page.goto(addresses.case_url(tiny_live.pk, DOCUMENT, "first"))
    page.wait_for_selector("html[data-code-editor=ready]", state="attached")
    found = page.evaluate(
        """async ([path, text, token, colour]) => {
        const { mountEditor } = await import('/static/vendor/codemirror/codemirror.js');
        const area = document.createElement('textarea');
        area.value = text;
        document.querySelector('main').appendChild(area);
        const editor = mountEditor(area, { path });
        const probe = document.createElement('span');
        probe.style.color = `var(${colour})`;
        editor.host.shadowRoot.appendChild(probe);
        const wanted = getComputedStyle(probe).color;
        const spans = [...editor.host.shadowRoot.querySelectorAll('.cm-line span')];
        return [wanted, spans.filter(s => s.textContent === token).map(s => getComputedStyle(s).color)];
    }""",
        [path, text, token, colour],
    )
    wanted, colours = found
    assert colours and all(found_colour == wanted for found_colour in colours), (token, found)
    assert page.csp_errors == []
