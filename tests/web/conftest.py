import contextlib
import io
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from inspector.bundles.ingest import store_bundle
from tests.conftest import REPO

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# Two agentv eval files in subfolders, guidelines picked out by .agentv/config.yaml, attachments.
SIMPLE = REPO / "tests" / "fixtures" / "simple"

EVAL = b"""description: Tiny
evalcases:
  - id: first
    outcome: ok
    input_messages:
      - role: system
        content: Be brief.
      - role: user
        content:
          - type: text
            value: Hello there.
          - type: file
            value: notes.instructions.md
  - id: "odd/id with spaces?#&"
    outcome: ok
    input_messages:
      - role: user
        content: Second case text.
  - id: chat
    outcome: ok
    input_messages:
      - role: user
        content: An early question that is rather long and will be dropped under a small budget.
      - role: assistant
        content: An early answer that is also long enough to be worth dropping first.
      - role: user
        content: The latest question.
"""
CONFIG = b'guideline_patterns:\n  - "**/*.instructions.md"\n'


@pytest.fixture
def tiny_files() -> dict[str, bytes]:
    return {
        "evals/tiny.yaml": EVAL,
        "evals/notes.instructions.md": b"# Notes\n\nBe kind.\n",
        ".agentv/config.yaml": CONFIG,
    }


@pytest.fixture
def tiny(db, tiny_files):
    bundle, token = store_bundle(tiny_files, title="tiny")
    return bundle, token


def zip_bytes(entries: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def folder_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def open_manage_page(client, manage_url: str):
    """What manage_unlock.html's script does: post the fragment's token with the query's fields."""
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(manage_url)
    fields = {name: values[0] for name, values in parse_qs(parts.query).items()}
    return client.post(parts.path, {**fields, "token": parts.fragment})


# Debian's Chromium, driven by Playwright: one browser per test module.
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        message = f"the browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    # Playwright's sync API runs an event loop in this thread; Django's ORM refuses that by default.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()


@pytest.fixture
def context(browser, live_server, transactional_db):
    # transactional_db named here so that it is set up before the context and torn down after it.
    context = browser.new_context(viewport={"width": 1440, "height": 900}, base_url=live_server.url)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    yield context
    context.close()


@pytest.fixture
def page(context):
    page = context.new_page()
    page.csp_errors = []
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and page.csp_errors.append(message.text),
    )
    # A wait, not a speed check: CI's two cores may be busy with the PostgreSQL run's neighbours.
    page.set_default_timeout(30_000)
    yield page
    # What the page set off (a bundle page's lazy ledger and review panels, each an htmx request)
    # is answered before the database is flushed: a server thread still answering would find its
    # tables locked. (Playwright's "networkidle" counts only the load, not later requests.)
    with contextlib.suppress(Exception):
        settled(page)


def until(page, expression: str, seconds: float = 30) -> None:
    """Waits for a JavaScript expression to hold (wait_for_function evaluates strings, which the
    page's CSP forbids). A bound on waiting, not a speed check: CI's two cores can be busy."""
    for _ in range(int(seconds * 20)):
        if page.evaluate(f"() => Boolean({expression})"):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"never true: {expression}")


def settled(page, seconds: float = 30) -> None:
    """Waits until htmx has no request in flight and nothing swapping or settling. The address
    changes before a swap, and swapped-in controls get htmx's handlers only when they settle (20 ms
    later, more on a busy machine): a control used before then does nothing."""
    until(page, "!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')", seconds)


def replace_editor_text(page, text: str) -> None:
    """Replaces what the source editor (CodeMirror, static/js/code-editor.js) holds as a person
    would: select all, paste. (Typed, each newline would be auto-indented; inserted as an IME
    does, Chromium's own editing would style the lines CodeMirror then redraws, against the CSP.)"""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.evaluate("(text) => navigator.clipboard.writeText(text)", text)
    page.locator(".code-editor .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Control+v")
