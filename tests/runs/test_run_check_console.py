"""`prompt-inspector run-check` runs on the core alone (no Django module in its process), and
`manage.py run_check` gives the same answer and exit code."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from django.core.management import call_command

from tests.runs.conftest import MEAN

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import json, sys
from inspector import cli
code = cli.main(sys.argv[1:])
sys.stdout.flush()
print("\\nMODULES " + json.dumps(sorted(m for m in sys.modules if m == "django" or m.startswith("django."))))
sys.exit(code)
"""


def console(*args: str) -> tuple[int, str, list[str]]:
    environment = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    environment["PYTHONPATH"] = str(REPO)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output, _, modules = result.stdout.rpartition("\nMODULES ")
    return result.returncode, output, json.loads(modules)


def managed(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("run_check", *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue()
    return 0, out.getvalue()


def test_run_check_loads_no_django_and_manage_py_answers_alike(agentv_run, tmp_path: Path) -> None:
    project, run, _ = agentv_run
    edited = tmp_path / "project"
    shutil.copytree(project, edited, ignore=shutil.ignore_patterns(".agentv"))
    (edited / "evals" / "snippets" / "mean.py").write_text(MEAN.replace("len(values)", "max(len(values), 1)"))
    code, output, django_modules = console("run-check", str(run), "--files", str(edited))
    assert django_modules == []
    assert code == 1
    statuses = {case["id"]: case["status"] for case in json.loads(output)["cases"]}
    assert statuses == {"greet": "same", "review-median": "same", "review-mean": "differs"}
    assert managed(str(run), "--files", str(edited)) == (code, output)


def test_an_unreadable_run_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a run")
    code, _, django_modules = console("run-check", str(tmp_path / "notes.txt"), "--files", str(tmp_path))
    assert code == 2 and django_modules == []
