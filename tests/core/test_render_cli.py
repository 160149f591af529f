"""The `manage.py render` contract other tools rely on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, run_render

EVAL = """\
tests:
  - id: first
    criteria: ok
    input:
      - role: user
        content:
          - type: file
            value: rules.instructions.md
          - type: text
            value: Hello
  - id: second
    criteria: ok
    input:
      - role: system
        content: Be brief.
      - role: user
        content: Bye
"""


def run(*args: str):
    """These files use agentv 4's keys; what is tested here is the spec profile's rendering."""
    return run_render(*args) if "--profile" in args else run_render(*args, "--profile", "spec")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".agentv").mkdir()
    (tmp_path / ".agentv" / "config.yaml").write_text("guideline_patterns: ['**/*.instructions.md']\n")
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "suite.yaml").write_text(EVAL)
    (tmp_path / "rules.instructions.md").write_text("Rule.\n")
    return tmp_path


def test_prints_one_object_per_case_in_file_order(project):
    code, cases, _ = run(str(project / "evals" / "suite.yaml"))
    assert code == 0
    assert [case["id"] for case in cases] == ["first", "second"]
    assert set(cases[0]) == {
        "id",
        "messages",
        "omitted",
        "warnings",
        "profile",
        "profile_reason",
        "guidelines",
    }
    assert cases[0]["profile"] == "spec" and cases[0]["profile_reason"] == "chosen in the settings"
    # --root defaulted to the folder holding .agentv, so the guideline at the root was found.
    assert cases[0]["messages"] == [
        {"role": "system", "content": "[[ ## Guidelines ## ]]\n\nRule."},
        {"role": "user", "content": "<Attached: rules.instructions.md>\nHello"},
    ]


def test_root_defaults_to_the_files_folder_without_git_or_agentv(tmp_path):
    (tmp_path / "suite.yaml").write_text(EVAL)
    (tmp_path / "rules.instructions.md").write_text("Rule.\n")
    code, cases, _ = run(str(tmp_path / "suite.yaml"))
    assert code == 0
    # No config means no guideline patterns: the file is embedded.
    assert cases[0]["messages"][0]["content"].startswith("=== rules.instructions.md ===")


def test_profile_case_patterns_and_system_prompt_flags(project):
    path = str(project / "evals" / "suite.yaml")
    code, cases, _ = run(path, "--profile", "agentv-4", "--case", "first")
    assert code == 0 and [case["id"] for case in cases] == ["first"]
    assert cases[0]["messages"][1]["content"].startswith('<file path="rules.instructions.md">')
    code, cases, _ = run(path, "--patterns", "*.md", "--system-prompt", "Configured.", "--case", "first")
    assert cases[0]["messages"][0] == {
        "role": "system",
        "content": "Configured.\n\n[[ ## Guidelines ## ]]\n\nRule.",
    }
    code, cases, _ = run(path, "--patterns", "*.txt", "--case", "first")
    assert cases[0]["messages"] == [
        {"role": "user", "content": "=== rules.instructions.md ===\nRule.\nHello"}
    ]


def test_omitted_messages_carry_their_reason(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "e.yaml").write_text(
        "tests:\n  - id: a\n    criteria: x\n    input:\n      - role: user\n        content:\n"
        "          - type: file\n            value: g.instructions.md\n"
    )
    (tmp_path / "g.instructions.md").write_text("G")
    code, cases, _ = run(str(tmp_path / "e.yaml"), "--patterns", "**/*.instructions.md")
    assert code == 0
    [omitted] = cases[0]["omitted"]
    assert omitted["role"] == "user" and "guideline" in omitted["reason"]


def test_missing_file_is_a_warning_with_exit_zero(project):
    (project / "evals" / "suite.yaml").write_text(EVAL.replace("rules.instructions.md", "nope.md"))
    code, cases, _ = run(str(project / "evals" / "suite.yaml"))
    assert code == 0
    [warning] = cases[0]["warnings"]
    assert "nope.md" in warning["message"] and warning["line"] == 8


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("tests:\n  - id: a\n    input: [oops\n", "evals/bad.yaml:"),
        ("tests: 42\n", "evals/bad.yaml:1: `tests` must be a list"),
        ("description: none\n", "evals/bad.yaml:1: no cases"),
    ],
)
def test_unusable_input_exits_2_with_one_line_naming_file_and_line(project, text, fragment):
    (project / "evals" / "bad.yaml").write_text(text)
    code, _, err = run(str(project / "evals" / "bad.yaml"))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0]
    assert "Traceback" not in err


def test_subprocess_contract_never_prints_a_traceback(project):
    (project / "evals" / "bad.yaml").write_text("tests:\n  - id: a\n    input: [oops\n")
    result = subprocess.run(
        [sys.executable, "manage.py", "render", str(project / "evals" / "bad.yaml")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert (
        "evals/bad.yaml:4:1:" in result.stderr
        and "Flow sequence in block collection" in result.stderr
        and "Traceback" not in result.stderr
    )


def test_renders_a_file_with_an_explicit_root(tmp_path):
    # The first case's guideline is two folders above the eval file: inside this root only.
    root = REPO / "tests" / "fixtures" / "simple"
    path = root / "evals/coding/example-eval.yaml"
    code, cases, _ = run(str(path), "--root", str(root), "--profile", "agentv-3.8")
    assert code == 0 and len(cases) == 3
    assert cases[0]["messages"][0]["content"].startswith("[[ ## Guidelines ## ]]")


def test_an_aibff_profile_leaves_an_agentv_file_to_auto_and_says_so(tmp_path):
    from inspector.core.options import AIBFF_PROFILES

    suite = tmp_path / "evals" / "x.yaml"
    suite.parent.mkdir()
    suite.write_text(
        "evalcases:\n  - id: a\n    outcome: ok\n    input_messages:\n"
        "      - role: user\n        content: Hi\n"
    )
    for profile in AIBFF_PROFILES:
        code, cases, err = run_render(str(suite), "--root", str(tmp_path), "--profile", profile)
        assert code == 0, err
        assert cases[0]["profile"] != profile
        assert f"{profile} is for aibff's grader decks" in cases[0]["profile_reason"]
