"""A folder picked in Chromium with binary files nothing reads: the saved page names what it left
out, at desktop and phone widths, and the image a case sends still shows on the case page."""

import os

import pytest

from .test_unread_binaries import FOLDER

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("PI_SHOTS")  # a folder to keep screenshots in, to look at them


def test_a_picked_folder_keeps_the_image_a_case_sends_and_says_what_it_left_out(page, tmp_path):
    for path, data in FOLDER:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    page.goto("/")
    page.set_input_files("#folder", str(tmp_path / "suite"))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#left-out")
    assert page.inner_text("#left-out .left-out-names").split("\n") == [
        "suite/.DS_Store",
        "suite/build/cache.bin",
    ]
    assert "3 files" in page.inner_text(".created > p.muted")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/left-out-{width}.png", full_page=True)
    page.click("#open-case")
    page.wait_for_selector("#rendered img.thumb")
