"""`prompt-inspector render|check|ledger|diff` run on the core alone: no Django module is loaded in
the command's process (the bounded worker that renders is another process, and never had Django),
and `manage.py` runs the same code (inspector/cli/) with the same answers."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from inspector.rendering.untrusted import RenderPolicy

REPO = Path(__file__).resolve().parents[2]
EVAL = """evalcases:
  - id: greet
    outcome: Says hello.
    input_messages:
      - role: system
        content: Be brief.
      - role: user
        content: Hello there.
"""
# The command runs as the console script's code, then reports which modules its process holds.
PROBE = """
import json, sys
from inspector import cli
code = cli.main(sys.argv[1:])
sys.stdout.flush()
print("\\nMODULES " + json.dumps(sorted(m for m in sys.modules if m == "django" or m.startswith("django."))))
sys.exit(code)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "old.yaml").write_text(EVAL)
    (tmp_path / "new.yaml").write_text(EVAL.replace("Hello there.", "Hello again."))
    return tmp_path


def console(project: Path, *args: str) -> tuple[int, str, list[str]]:
    environment = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    environment["PYTHONPATH"] = str(REPO)  # this checkout's package, not an installed one
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output, _, modules = result.stdout.rpartition("\nMODULES ")
    return result.returncode, output, json.loads(modules)


@pytest.mark.parametrize(
    "args",
    [
        ("render", "old.yaml"),
        ("render", "old.yaml", "--to", "anthropic"),
        ("check", "."),
        ("ledger", "old.yaml"),
        ("diff", "old.yaml", "new.yaml"),
    ],
)
def test_the_core_commands_load_no_django(project, args):
    code, output, django_modules = console(project, *args)
    assert code == 0, output
    assert django_modules == []


def test_a_bad_file_is_exit_2_without_django(project):
    (project / "bad.yaml").write_text("evalcases: [\n")
    code, _, django_modules = console(project, "render", "bad.yaml")
    assert code == 2 and django_modules == []


def managed(command: str, *args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(command, *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue()
    return 0, out.getvalue()


@pytest.mark.parametrize(
    ("name", "management", "args"),
    [
        ("render", "render", ("old.yaml",)),
        ("ledger", "ledger", ("old.yaml", "--provider", "anthropic")),
        ("diff", "diff", ("old.yaml", "new.yaml")),
        ("check", "check_evals", (".",)),
    ],
)
def test_manage_py_answers_as_the_console_script(project, monkeypatch, name, management, args):
    monkeypatch.chdir(project)
    console_code, console_output, _ = console(project, name, *args)
    assert managed(management, *args) == (console_code, console_output)


def test_the_commands_read_the_render_policy_the_settings_read():
    from inspector.rendering import web_policy

    # Both read the same environment variables; the defaults are the core's Limits in both, but for
    # the deadline, which never passes a web request's budget (three quarters of gunicorn's timeout).
    assert RenderPolicy.from_environment() == web_policy.render_policy()
    defaults = RenderPolicy.from_environment({})
    assert defaults.limits == dataclasses.replace(RenderPolicy().limits, deadline_seconds=22.5)
    assert dataclasses.replace(defaults, limits=RenderPolicy().limits) == RenderPolicy()


def test_the_console_script_renders_in_the_bounded_worker(project, monkeypatch):
    """A file from disk is content from outside: the console script renders it in a bounded child
    process, as the web does (a parser crash or runaway is exit 2, never the command's death)."""
    from inspector.cli import commands
    from inspector.cli.console import Output
    from inspector.core import bounded

    calls = []
    real = bounded.render_bounded
    monkeypatch.setattr(
        bounded,
        "render_bounded",
        lambda *args, **kwargs: calls.append(kwargs["limits"]) or real(*args, **kwargs),
    )
    monkeypatch.delenv("RENDER_IN_PROCESS", raising=False)
    out, err = io.StringIO(), io.StringIO()
    code = commands.main("render", [str(project / "old.yaml")], Output(out, err))
    assert code == 0 and json.loads(out.getvalue())[0]["id"] == "greet"
    assert calls == [RenderPolicy.from_environment().limits]
