"""`pytest --database-pass` (the second pass .ci/run makes on PostgreSQL) keeps every test that can
reach the database and only those."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def collected(module: Path, *options: str) -> set[str]:
    """The test names pytest collects from a module outside the tree, with this tree's conftest."""
    listing = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.conftest",
        ]
        + ["--rootdir", str(module.parent), *options, str(module)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "DJANGO_SETTINGS_MODULE": "inspector.settings"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line.rsplit("::", 1)[1] for line in listing.splitlines() if "::" in line}


def test_the_database_pass_keeps_the_tests_that_reach_a_database_and_drops_the_rest(tmp_path: Path) -> None:
    module = tmp_path / "test_sample.py"
    module.write_text(
        "import pytest\n"
        "def test_fixture(db): pass\n"
        "@pytest.mark.django_db\n"
        "def test_mark(): pass\n"
        "def test_server(live_server): pass\n"
        "@pytest.mark.database\n"
        "def test_own_process(): pass\n"
        "def test_pure(): pass\n"
        "def test_client_only(client): pass\n",
        encoding="utf-8",
    )
    assert len(collected(module)) == 6
    assert collected(module, "--database-pass") == {
        "test_fixture",
        "test_mark",
        "test_server",
        "test_own_process",
    }
