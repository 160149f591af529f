"""A run uploaded on /runs/ in Chromium: stored, the manage page opens on it, its page lists the
cases with their status and a case opens its diff, at a desk's width and a phone's (the real
agentv 4.42.4 run of tests/runs/conftest.py, one project file edited)."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest

from tests.runs.conftest import MEDIAN, agentv_run  # noqa: F401 - the session's real run

pytestmark = pytest.mark.browser
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _zip(folder: Path, into: Path) -> Path:
    with zipfile.ZipFile(into, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return into


def test_a_run_is_stored_and_its_cases_open_their_diffs(page, agentv_run, tmp_path) -> None:  # noqa: F811
    project, run, _ = agentv_run
    edited = tmp_path / "project"
    shutil.copytree(project, edited, ignore=shutil.ignore_patterns(".agentv", ".git"))
    (edited / "evals" / "snippets" / "median.py").write_text(MEDIAN.replace("// 2", "// 3"))
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto("/runs/")
    page.set_input_files("input[name=run]", str(_zip(run, tmp_path / "run.zip")))
    page.set_input_files("input[name=files]", str(_zip(edited, tmp_path / "project.zip")))
    page.click("#run-form button[type=submit]")
    page.wait_for_url("**/manage/**")
    page.click("#open-case")
    page.wait_for_url("**/run/")
    rows = page.locator("#run-cases tbody tr")
    assert rows.count() == 3
    assert page.locator("#run-cases tr.status-differs a").inner_text() == "review-median"
    page.screenshot(path=str(SCREENSHOTS / "run.png"), full_page=True)
    page.click("#run-cases tr.status-differs a")
    page.wait_for_url("**/run/2/")
    assert page.locator(".run-case h2").first.inner_text().startswith("review-median")
    assert page.locator("del").first.inner_text() == "2" and page.locator("ins").first.inner_text() == "3"
    page.screenshot(path=str(SCREENSHOTS / "run-case.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(SCREENSHOTS / "run-case-390.png"), full_page=True)
    page.goto(page.url.rsplit("/", 2)[0] + "/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(SCREENSHOTS / "run-390.png"), full_page=True)
    page.goto("/runs/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert page.csp_errors == []


def test_the_zip_helper_is_a_zip(tmp_path) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "a.txt").write_text("a")
    assert zipfile.ZipFile(io.BytesIO(_zip(folder, tmp_path / "f.zip").read_bytes())).namelist() == [
        "f/a.txt"
    ]
