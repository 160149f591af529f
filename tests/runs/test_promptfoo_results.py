"""Proof on a real promptfoo run: promptfoo 0.123.1 (the promptfoo oracle's install,
tests/oracle/promptfoo) runs a config against the recording server and writes `-o results.json`;
each evaluation's kept prompt is the candidate request's messages and each kept judge prompt the
judge request's, as the recording server received them."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from inspector.cli.commands import main
from inspector.cli.console import Output
from inspector.core.runs import read_run
from inspector.rendering.untrusted import RenderPolicy
from tests.recording import CHAT, RecordingServer

ORACLE = Path(__file__).resolve().parents[1] / "oracle" / "promptfoo"
BIN = ORACLE / "node_modules" / ".bin"
CONFIG = """\
prompts:
  - file://prompt.json
providers:
  - openai:chat:gpt-4o-mini
tests:
  - description: greet Ada
    vars: {name: Ada}
    assert:
      - type: llm-rubric
        value: Greets {{name}} by name
  - vars: {name: Bob}
"""
PROMPT = '[{"role": "system", "content": "You are friendly."}, {"role": "user", "content": "Say hello to {{ name }}."}]'
GRADE = json.dumps({"reason": "ok", "pass": True, "score": 1})


def _answer(body: dict) -> dict:
    judge = body["messages"][0]["content"].startswith("You are grading output")
    return {
        **CHAT,
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": GRADE if judge else "Hello!"},
            }
        ],
    }


@pytest.fixture(scope="module")
def promptfoo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    if not (BIN / "promptfoo").exists():
        if os.environ.get("CI") == "true" and (ORACLE / "package.json").exists():
            pytest.fail("the promptfoo oracle must run in CI (.ci/setup --test installs it)")
        pytest.skip("promptfoo is not installed in tests/oracle/promptfoo (.ci/setup --test installs it)")
    project = tmp_path_factory.mktemp("promptfoo")
    home = project / "home"
    home.mkdir()
    (project / "promptfooconfig.yaml").write_text(CONFIG)
    (project / "prompt.json").write_text(PROMPT)
    with RecordingServer(_answer) as server:
        environment = {
            "PATH": f"{BIN}:/usr/bin:/bin",
            "HOME": str(home),
            "PROMPTFOO_CONFIG_DIR": str(home / ".promptfoo"),
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
            "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
            "PROMPTFOO_SELF_HOSTED": "1",
            "PROMPTFOO_DISABLE_SHARING": "1",
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": f"{server.url}/v1",
            # Anything not on loopback goes to a proxy that is not there.
            "HTTP_PROXY": "http://127.0.0.1:9",
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost",
        }
        subprocess.run(
            [str(BIN / "promptfoo"), "eval", "--no-cache", "-j", "1", "-o", "results.json"],
            cwd=project,
            env=environment,
            capture_output=True,
            timeout=300,
            check=False,
        )
        sent = [recorded.json() for recorded in server.take()]
    return project / "results.json", sent


def test_kept_prompts_are_what_was_sent(promptfoo_run) -> None:
    results, sent = promptfoo_run
    run = read_run(results)
    assert run.runner == "promptfoo" and run.runner_version == "0.123.1"
    candidates = [
        body["messages"]
        for body in sent
        if not body["messages"][0]["content"].startswith("You are grading output")
    ]
    judges = [body["messages"] for body in sent if body["messages"] not in candidates]
    assert [[m.as_dict() for m in case.messages or []] for case in run.cases] == candidates
    assert [case.id for case in run.cases] == [
        "test 0 · prompt 0 · openai:gpt-4o-mini",
        "test 1 · prompt 0 · openai:gpt-4o-mini",
    ]
    ada, bob = run.cases
    assert ada.answer == bob.answer == "Hello!"
    assert [[m.as_dict() for m in judge.messages] for judge in ada.judges] == judges
    assert [judge.name for judge in ada.judges] == ["llm-rubric"] and bob.judges == []


def _run_check(*args: str) -> tuple[int, dict]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main("run-check", list(args), Output(stdout, stderr), RenderPolicy(in_process=True))
    assert stdout.getvalue(), stderr.getvalue()
    return code, json.loads(stdout.getvalue())


def test_unchanged_config_is_the_same_with_the_real_answers(promptfoo_run) -> None:
    results, _ = promptfoo_run
    code, result = _run_check(str(results))  # the config beside the results, by default
    assert code == 0, result
    assert result["runner"] == "promptfoo"
    assert {case["id"]: case["status"] for case in result["cases"]} == {
        "test 0 · prompt 0 · openai:gpt-4o-mini": "same",
        "test 1 · prompt 0 · openai:gpt-4o-mini": "same",
    }
    ada = result["cases"][0]
    assert ada["graders"] == [
        {"name": "llm-rubric", "status": "same", "with_answer": True, "messages": [], "cause": []}
    ]


def test_an_edited_prompt_line_names_exactly_its_evaluations(promptfoo_run, tmp_path: Path) -> None:
    results, _ = promptfoo_run
    edited = tmp_path / "project"
    shutil.copytree(results.parent, edited, ignore=shutil.ignore_patterns("home", "results.json"))
    (edited / "prompt.json").write_text(PROMPT.replace("You are friendly.", "You are terse."))
    code, result = _run_check(str(results), "--files", str(edited))
    assert code == 1
    statuses = {case["id"]: case["status"] for case in result["cases"]}
    assert statuses == {
        "test 0 · prompt 0 · openai:gpt-4o-mini": "differs",
        "test 1 · prompt 0 · openai:gpt-4o-mini": "differs",
    }
    for case in result["cases"]:
        assert case["cause"] == [{"path": "prompt.json", "line": 1}]
        assert [message["status"] for message in case["messages"]] == ["changed"]
    # The judge prompt holds the answer and the rubric, not the system prompt: still the one sent.
    assert [grader["status"] for grader in result["cases"][0]["graders"]] == ["same"]


def test_an_edited_test_line_names_only_its_evaluation(promptfoo_run, tmp_path: Path) -> None:
    results, _ = promptfoo_run
    edited = tmp_path / "project"
    shutil.copytree(results.parent, edited, ignore=shutil.ignore_patterns("home", "results.json"))
    (edited / "promptfooconfig.yaml").write_text(CONFIG.replace("{name: Bob}", "{name: Rob}"))
    code, result = _run_check(str(results), "--files", str(edited))
    assert code == 1
    ada, bob = result["cases"]
    assert (ada["status"], bob["status"]) == ("same", "differs")
    bob_line = CONFIG.splitlines().index("  - vars: {name: Bob}") + 1
    # The diff is word by word and the changed word "Rob." is the variable's value and the
    # prompt's full stop, so the prompt's line is named with the edited one.
    assert bob["cause"] == [
        {"path": "prompt.json", "line": 1},
        {"path": "promptfooconfig.yaml", "line": bob_line},
    ]
    assert ada["cause"] == [] and ada["messages"] == []


def _zipped_folder(folder: Path, edit: tuple[str, str, str] | None = None):
    """The run's folder as a zip (results.json with its config beside it), one file edited."""
    import zipfile

    from django.core.files.uploadedfile import SimpleUploadedFile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in ("results.json", "promptfooconfig.yaml", "prompt.json"):
            text = (folder / name).read_text()
            if edit and edit[0] == name:
                text = text.replace(edit[1], edit[2])
            archive.writestr(f"eval/{name}", text)
    return SimpleUploadedFile("eval.zip", buffer.getvalue(), "application/zip")


@pytest.mark.django_db
def test_the_web_upload_finds_the_config_beside_the_results(promptfoo_run) -> None:
    """A folder or zip holding results.json and promptfooconfig.yaml: the page stores it and its run
    page compares the evaluations with that config, as `run-check` does with the folder."""
    from django.test import Client

    results, _ = promptfoo_run
    client = Client()
    same = client.post("/api/runs", {"run": _zipped_folder(results.parent)})
    assert same.status_code == 201, same.content
    body = same.json()["result"]
    assert body["runner"] == "promptfoo" and body["summary"]["same"] == 2, body
    assert {case["eval_path"] for case in body["cases"]} == {"promptfooconfig.yaml"}

    edit = ("prompt.json", "You are friendly.", "You are terse.")
    page = client.post("/runs/", {"run": _zipped_folder(results.parent, edit)})
    assert page.status_code == 303
    bundle_id = page["Location"].split("/")[2]
    listing = client.get(f"/b/{bundle_id}/run/").content.decode()
    assert listing.count('<tr class="status-differs">') == 2
    case = client.get(f"/b/{bundle_id}/run/1/").content.decode()
    assert "<code>prompt.json:1</code>" in case
    assert "You are <del>friendly</del>." in case and "You are <ins>terse</ins>." in case


def _database(results: Path) -> Path:
    """promptfoo's own database, written by the same run (the oracle runs without --no-write)."""
    return results.parent / "home" / ".promptfoo" / "promptfoo.db"


def test_the_database_holds_what_was_sent_as_results_json_does(promptfoo_run) -> None:
    results, sent = promptfoo_run
    database = _database(results)
    assert database.read_bytes()[18:20] == b"\x02\x02"  # promptfoo keeps it in WAL mode
    from_file, from_database = read_run(results), read_run(database)
    assert from_database.runner == "promptfoo" and from_database.runner_version is None
    assert [case.id for case in from_database.cases] == [case.id for case in from_file.cases]
    candidates = [
        body["messages"]
        for body in sent
        if not body["messages"][0]["content"].startswith("You are grading output")
    ]
    assert [[m.as_dict() for m in case.messages or []] for case in from_database.cases] == candidates
    for kept, written in zip(from_database.cases, from_file.cases, strict=True):
        assert (kept.answer, kept.judges, kept.error) == (written.answer, written.judges, written.error)
    assert any("the latest of the 1 it holds" in note for note in from_database.notes)


def test_run_check_reads_the_database_and_names_the_edited_line(promptfoo_run, tmp_path: Path) -> None:
    results, _ = promptfoo_run
    project = tmp_path / "project"
    shutil.copytree(results.parent, project, ignore=shutil.ignore_patterns("home", "results.json"))
    code, same = _run_check(str(_database(results)), "--files", str(project))
    assert code == 0 and same["summary"]["same"] == 2, same
    assert [grader["status"] for grader in same["cases"][0]["graders"]] == ["same"]
    (project / "prompt.json").write_text(PROMPT.replace("You are friendly.", "You are terse."))
    code, differs = _run_check(str(_database(results)), "--files", str(project))
    assert code == 1
    assert [case["status"] for case in differs["cases"]] == ["differs", "differs"]
    assert all(case["cause"] == [{"path": "prompt.json", "line": 1}] for case in differs["cases"])


def test_an_eval_is_picked_by_id(promptfoo_run, tmp_path: Path) -> None:
    import sqlite3

    results, _ = promptfoo_run
    (eval_id,) = sqlite3.connect(_database(results)).execute("SELECT id FROM evals").fetchone()
    project = tmp_path / "project"
    shutil.copytree(results.parent, project, ignore=shutil.ignore_patterns("home", "results.json"))
    code, named = _run_check(str(_database(results)), "--files", str(project), "--eval", eval_id)
    assert code == 0 and any(f"eval {eval_id}, the named" in note for note in named["notes"])
    stdout, stderr = io.StringIO(), io.StringIO()
    arguments = [str(_database(results)), "--files", str(project), "--eval", "eval-nope"]
    assert main("run-check", arguments, Output(stdout, stderr), RenderPolicy(in_process=True)) == 2
    assert f"no eval eval-nope in it (the latest is {eval_id})" in stderr.getvalue()


@pytest.mark.django_db
def test_an_uploaded_database_is_read_in_the_worker_and_compared(promptfoo_run, tmp_path: Path) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client, override_settings

    results, _ = promptfoo_run
    database = SimpleUploadedFile("promptfoo.db", _database(results).read_bytes())
    config = SimpleUploadedFile("promptfooconfig.yaml", CONFIG.encode())
    prompt = SimpleUploadedFile("prompt.json", PROMPT.replace("friendly", "terse").encode())
    with override_settings(RENDER_IN_PROCESS=False):
        answer = Client().post("/api/runs", {"run": database, "files": [config, prompt]})
    assert answer.status_code == 201, answer.content
    assert [case["status"] for case in answer.json()["result"]["cases"]] == ["differs", "differs"]
    # A file with SQLite's header and nothing readable behind it: refused, naming it.
    broken = SimpleUploadedFile("promptfoo.db", b"SQLite format 3\x00" + b"\xff" * 200)
    with override_settings(RENDER_IN_PROCESS=False):
        refused = Client().post("/api/runs", {"run": broken})
    assert refused.status_code == 400 and "promptfoo.db" in refused.json()["detail"], refused.content
