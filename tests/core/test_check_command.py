"""`prompt-inspector check` (`manage.py check_evals`): one `file:line: severity: message` line per
problem, exit 1 when a problem reaches --fail-on, 2 when the command is misused."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

REPO = Path(__file__).resolve().parents[2]
GOOD = b"tests:\n  - id: a\n    input: hi\n    criteria: ok\n"
DUPLICATE_IDS = (
    b"tests:\n  - id: a\n    input: hi\n    criteria: ok\n  - id: a\n    input: yo\n    criteria: ok\n"
)
BROKEN = b"tests:\n  - id: a\n    input: [hi\n"
LEGACY_DUPLICATES = (
    b"evalcases:\n  - id: a\n    outcome: ok\n    input_messages: [{role: user, content: x}]\n"
    b"  - id: a\n    outcome: ok\n    input_messages: [{role: user, content: y}]\n"
)


def check(*args: str, cwd: Path) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    os.chdir(cwd)
    try:
        call_command("check_evals", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    finally:
        os.chdir(before)
    return code, out.getvalue().splitlines(), err.getvalue()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "good.yaml").write_bytes(GOOD)
    return tmp_path


def test_a_clean_folder_passes_and_says_what_it_checked(repo):
    code, lines, summary = check("evals", cwd=repo)
    assert (code, lines) == (0, [])
    assert summary.strip() == "checked 1 file: 0 errors, 0 warnings"


def test_an_invalid_file_fails_with_its_path_line_and_column(repo):
    (repo / "evals" / "broken.yaml").write_bytes(BROKEN)
    code, lines, _ = check("evals", cwd=repo)
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith("evals/broken.yaml:4:1: error: invalid YAML")


def test_warnings_fail_only_when_asked(repo):
    (repo / "evals" / "legacy.yaml").write_bytes(LEGACY_DUPLICATES)
    code, lines, _ = check("evals/legacy.yaml", cwd=repo)
    assert code == 0
    assert lines == ["evals/legacy.yaml:5: warning: duplicate case id 'a' (first used on line 2)"]
    assert check("evals/legacy.yaml", "--fail-on", "warning", cwd=repo)[0] == 1


def test_paths_print_relative_to_where_the_command_runs(repo):
    (repo / "evals" / "dup.yaml").write_bytes(DUPLICATE_IDS)
    code, lines, _ = check(str(repo / "evals" / "dup.yaml"), cwd=repo / "evals")
    assert code == 1
    assert lines[0].startswith("dup.yaml: error: agentv refuses the whole file (Duplicate test ID 'a'")


def test_a_missing_path_or_unknown_profile_is_a_usage_error(repo):
    assert check("nope", cwd=repo)[0] == 2
    with pytest.raises(Exception, match="invalid choice"):
        call_command("check_evals", str(repo), "--profile", "agentv-9")


def test_the_console_script_entry_runs_check_with_its_exit_code(repo):
    (repo / "evals" / "broken.yaml").write_bytes(BROKEN)
    result = subprocess.run(
        [sys.executable, "-m", "inspector.cli", "check", "evals"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("evals/broken.yaml:4:1: error: invalid YAML")
    assert "checked 2 files: 1 error, 0 warnings" in result.stderr


def test_a_folder_with_no_eval_files_is_a_usage_error_not_a_pass(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("nothing to render\n")
    for folder in ("empty", "notes"):
        code, lines, summary = check(folder, cwd=tmp_path)
        assert (code, lines) == (2, [])
        assert summary.strip() == f"error: no eval files, decks or requests found under {folder}"
