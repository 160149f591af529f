"""`prompt-inspector serve PATH` for real: the console script's code in its own process, a folder in
a temporary directory, Chromium on the page. Editing a file on disk changes the open page without a
reload, keeping the scroll position and the selected segment."""

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.management.commands.serve_folder import free_port
from tests.web.conftest import CONFIG, EVAL, SCREENSHOTS

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def served(tmp_path):
    yield from _serve(tmp_path)


def _serve(tmp_path, *options: str):
    (tmp_path / "evals").mkdir()
    (tmp_path / ".agentv").mkdir()
    (tmp_path / "evals" / "tiny.yaml").write_bytes(EVAL)
    (tmp_path / "evals" / "notes.instructions.md").write_bytes(b"# Notes\n\nBe kind.\n" + b"filler\n" * 30)
    (tmp_path / ".agentv" / "config.yaml").write_bytes(CONFIG)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector.cli", "serve", str(tmp_path), "--port", str(port), *options],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first = process.stdout.readline()
        assert first.startswith("Prompt Inspector: http://127.0.0.1:"), first
        address = first.split()[2]
        assert address == f"http://127.0.0.1:{port}/b/local/"
        _wait_until_up(address)
        yield tmp_path, address
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_until_up(address: str) -> None:
    import urllib.request

    for _ in range(300):  # generous: a busy machine starts Django slowly
        try:
            urllib.request.urlopen(address, timeout=5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{address} never answered")


def open_first_case(browser, address):
    """A page on the served folder's first case, and the CSP violations it will report."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    # A wait, not a speed check (as conftest's page): a save re-renders in a bounded worker, and CI
    # once took longer than 15 s for it while its two cores ran other browser tests.
    page.set_default_timeout(30_000)
    csp_errors: list[str] = []
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and csp_errors.append(message.text),
    )
    page.goto(address)
    page.click("text=first")
    page.wait_for_selector("#rendered")
    return page, csp_errors


def test_an_edit_on_disk_rerenders_the_open_case_in_place(browser, served):
    folder, address = served
    page, csp_errors = open_first_case(browser, address)
    assert "Be kind." in page.inner_text("#rendered")
    segment = page.locator("#rendered .seg[data-path='evals/notes.instructions.md']").first
    segment.click(position={"x": 4, "y": 4})
    assert page.locator("#rendered .seg.active").count() == 1
    # The click loads the guideline into the source pane; scroll it once it has settled there
    # (settling scrolls the pane to its highlight).
    page.wait_for_selector('#source-pane[data-path="evals/notes.instructions.md"]:not(.htmx-settling)')
    page.evaluate(
        "window.stillTheSamePage = true; document.querySelector('#source-pane .code-view').scrollTop = 120"
    )
    scroll = page.evaluate("document.querySelector('#source-pane .code-view').scrollTop")

    guideline = folder / "evals" / "notes.instructions.md"
    guideline.write_bytes(guideline.read_bytes().replace(b"Be kind.", b"Be kind and brief."))
    page.wait_for_selector("#rendered >> text=Be kind and brief.")
    page.wait_for_selector("body[data-local-refreshed]")
    assert page.evaluate("window.stillTheSamePage") is True  # no reload
    active = page.locator("#rendered .seg.active")
    assert active.count() == 1 and active.get_attribute("data-path") == "evals/notes.instructions.md"
    # A save can reach the watcher as two changes: the check holds once the last refresh settles.
    page.wait_for_function(
        "scroll => document.querySelector('#source-pane .code-view').scrollTop === scroll", arg=scroll
    )

    case_file = folder / "evals" / "tiny.yaml"
    case_file.write_bytes(b"evalcases:\n  - id: first\n    input_messages: [oops\n")
    page.wait_for_selector("text=evals/tiny.yaml:4:1: invalid YAML")
    case_file.write_bytes(EVAL)
    page.wait_for_selector("#rendered")
    assert page.evaluate("window.stillTheSamePage") is True
    page.screenshot(path=str(SCREENSHOTS / "local-serve.png"))
    page.click("#share")
    page.wait_for_selector("#share-off")
    assert csp_errors == []
    page.close()


def test_a_save_that_empties_the_file_first_keeps_the_source_scroll(browser, served):
    """Some editors truncate, then write: the page sees an empty guideline for one refresh, too
    short to hold the scroll, and the next refresh must still put the reader back where they were."""
    folder, address = served
    page, csp_errors = open_first_case(browser, address)
    page.locator("#rendered .seg[data-path='evals/notes.instructions.md']").first.click(
        position={"x": 4, "y": 4}
    )
    page.wait_for_selector('#source-pane[data-path="evals/notes.instructions.md"]:not(.htmx-settling)')
    page.evaluate("document.querySelector('#source-pane .code-view').scrollTop = 120")
    scroll = page.evaluate("document.querySelector('#source-pane .code-view').scrollTop")
    assert scroll > 0
    guideline = folder / "evals" / "notes.instructions.md"
    text = guideline.read_bytes()
    guideline.write_bytes(b"")
    page.wait_for_function("() => !document.querySelector('#rendered').innerText.includes('Be kind.')")
    page.wait_for_selector("body[data-local-refreshed]")
    guideline.write_bytes(text.replace(b"Be kind.", b"Be kind and brief."))
    page.wait_for_selector("#rendered >> text=Be kind and brief.")
    page.wait_for_function(
        "scroll => document.querySelector('#source-pane .code-view').scrollTop === scroll", arg=scroll
    )
    assert csp_errors == []
    page.close()


def test_the_file_opened_from_the_files_panel_stays_open_through_an_edit_on_disk(browser, served):
    folder, address = served
    page, csp_errors = open_first_case(browser, address)
    page.click("#files-panel a[data-path='evals/notes.instructions.md']")
    page.wait_for_selector("#source-pane[data-path='evals/notes.instructions.md']")
    page.evaluate(
        "window.stillTheSamePage = true; document.querySelector('#source-pane .code-view').scrollTop = 60"
    )
    scroll = page.evaluate("document.querySelector('#source-pane .code-view').scrollTop")
    assert scroll > 0

    guideline = folder / "evals" / "notes.instructions.md"
    guideline.write_bytes(guideline.read_bytes().replace(b"Be kind.", b"Be kind and brief."))
    page.wait_for_selector("#rendered >> text=Be kind and brief.")
    page.wait_for_selector("#source-pane[data-path='evals/notes.instructions.md'] >> text=Be kind and brief.")
    page.wait_for_selector("body[data-local-refreshed]")
    assert page.evaluate("window.stillTheSamePage") is True  # no reload
    assert page.get_attribute("#files-panel a[aria-current]", "data-path") == "evals/notes.instructions.md"
    # A save can reach the watcher as two changes: the check holds once the last refresh settles.
    page.wait_for_function(
        "scroll => document.querySelector('#source-pane .code-view').scrollTop === scroll", arg=scroll
    )

    # A line of another case, clicked in the case's own file, opens that case.
    page.click("#files-panel a[data-path='evals/tiny.yaml']")
    page.wait_for_selector("#source-pane[data-path='evals/tiny.yaml']")
    page.locator("#source-pane .line", has_text="Second case text.").locator(".text").click()
    page.wait_for_url(re.compile(r"/case/odd[^/]*/#L\d+$"))
    assert csp_errors == []
    page.close()


def test_the_served_process_answers_only_its_own_address_and_takes_no_upload(served):
    """`serve` itself sets the port the guard holds Host to: a DNS-rebinding name is refused, and
    the upload API a website could post to with `no-cors` answers 403."""
    import urllib.error
    import urllib.request

    _folder, address = served
    port = address.split(":")[2].split("/")[0]

    def status(path: str, **options) -> int:
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", **options)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    assert status("/b/local/") == 200
    assert status("/b/local/", headers={"Host": f"localhost:{port}"}) == 200
    assert status("/b/local/", headers={"Host": f"rebound.example:{port}"}) in (400, 403)
    body = (
        b'--x\r\nContent-Disposition: form-data; name="files"; filename="a.yaml"\r\n\r\n'
        b"tests: []\r\n--x--\r\n"
    )
    assert (
        status(
            "/api/bundles",
            data=body,
            method="POST",
            headers={
                "Content-Type": "multipart/form-data; boundary=x",
                "Origin": "https://evil.example",
                "Sec-Fetch-Site": "cross-site",
            },
        )
        == 403
    )
    assert (
        status(
            "/api/bundles",
            data=body,
            method="POST",
            headers={"Content-Type": "multipart/form-data; boundary=x"},
        )
        == 403
    )


def test_share_include_must_name_a_file_of_the_folder(tmp_path):
    outside = tmp_path / "elsewhere.env"
    outside.write_text("x")
    (tmp_path / "suite").mkdir()
    for named, said in ((str(outside), "not in the served folder"), ("missing.env", "no such file")):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "inspector.cli",
                "serve",
                str(tmp_path / "suite"),
                "--share-include",
                named,
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 2 and said in result.stderr, result.stderr


def test_share_in_the_browser_sends_the_files_it_listed_and_no_secret(browser, tmp_path):
    """The confirmation posted by a real browser (its Origin and Sec-Fetch-Site) passes the guard,
    and what reaches the server is the list the page showed: no `.env`, no ignored file."""
    from tests.recording import RecordingServer
    from tests.web.test_local_mode import SHARED, sent_files

    (tmp_path / ".env").write_bytes(b"API_KEY=sk-live-123\n")
    (tmp_path / ".gitignore").write_bytes(b"*.log\n")
    (tmp_path / "run.log").write_bytes(b"LOG")
    with RecordingServer(SHARED) as server:
        serving = _serve(tmp_path, "--share-to", server.url)
        _folder, address = next(serving)
        try:
            page = browser.new_page()
            page.set_default_timeout(30_000)
            page.goto(address.replace("/b/local/", "/local/share"))
            listed = page.locator("#share-files code").all_inner_texts()
            assert sorted(listed) == [
                ".agentv/config.yaml",
                ".gitignore",
                "evals/notes.instructions.md",
                "evals/tiny.yaml",
            ]
            assert page.locator("#share-secrets code", has_text=".env").count() == 1
            page.click("#confirm-share")
            page.wait_for_selector("#share-url")
            page.close()
        finally:
            serving.close()
        (recorded,) = server.take()
    assert sorted(sent_files(recorded)) == sorted(listed) and b"sk-live" not in recorded.raw
