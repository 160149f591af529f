"""Issue 30, what a new user tripped on (round two), as Chromium shows it."""

import pytest

pytestmark = pytest.mark.browser

# An unclosed quote on line 90 of a 100-line suite: libyaml notices only at the end of the file.
LONG_BROKEN = "tests:\n" + "".join(f"  - id: case-{n}\n    criteria: ok\n    input: question {n}\n"
                                   for n in range(29))
LONG_BROKEN += '  - id: case-29\n    input: "this quote never closes\n    criteria: ok\n'
LONG_BROKEN += "".join(f"  - id: late-{n}\n    input: x\n" for n in range(4))


def visible_in_code_view(page, selector: str) -> bool:
    return page.evaluate("""(selector) => {
        const line = document.querySelector(selector);
        const view = line.closest('.code-view').getBoundingClientRect();
        const box = line.getBoundingClientRect();
        return box.top >= view.top && box.bottom <= view.bottom;
    }""", selector)


def test_a_broken_uploads_source_pane_shows_the_line_it_names(browser, live_server, db, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(LONG_BROKEN)
    for width in (1280, 390):
        page = browser.new_page(viewport={"width": width, "height": 900}, base_url=live_server.url)
        page.set_default_timeout(15_000)
        page.goto("/")
        page.set_input_files("#files", str(broken))
        page.click("#upload-form button[type=submit]")
        page.wait_for_selector("#nothing-renders #source-pane .line.hl", state="attached")
        named = page.get_attribute("#source-pane", "data-hl-from")
        last = page.get_attribute("#source-pane", "data-hl-to")
        # From the open quote (line 90) to the file's last line, where libyaml gave up.
        assert (named, last) == ("90", "99")
        assert "lines 90–99" in page.inner_text("#source-pane .pane-head")
        assert "likely start: line 90" not in page.inner_text("#nothing-renders")  # said as 'started on'
        assert "started on line 90" in page.inner_text("#nothing-renders")
        page.wait_for_function(f"document.getElementById('L{named}').getBoundingClientRect().height > 0")
        assert visible_in_code_view(page, f"#source-pane #L{named}"), width
        page.close()
