"""Proof on a real run: agentv 4.42.4's own command line runs a suite against the recording server,
then `run-check` sets the run folder it wrote against the project. Unchanged files: every case
`same`, and each judge prompt, rendered with the answer the run kept, equal to the judge request
the run kept. One file edited: exactly the cases made from it differ, traced to exactly the lines
edited, and the command exits 1."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from inspector.cli.commands import main
from inspector.cli.console import Output
from inspector.rendering.untrusted import RenderPolicy
from tests.runs.agentv_cli import CANDIDATE_ANSWER
from tests.runs.conftest import MEDIAN, SUITE


def run_check(*args: str) -> tuple[int, dict, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main("run-check", list(args), Output(stdout, stderr), RenderPolicy(in_process=True))
    return code, json.loads(stdout.getvalue()) if stdout.getvalue() else {}, stderr.getvalue()


def by_id(result: dict) -> dict[str, dict]:
    return {case["id"]: case for case in result["cases"]}


def test_the_recorded_requests_are_what_the_run_kept(agentv_run) -> None:
    """The recording server's bodies are the reference: the run's input.md holds each candidate
    request's messages after agentv's default system prompt, and its kept judge prompt is the
    judge request that was sent."""
    from inspector.core.runs import read_run

    _, run, sent = agentv_run
    candidates = [body for body in sent if body["model"] == "candidate-model"]
    judges = [body for body in sent if body["model"] == "judge-model"]
    recorded = {case.id: case for case in read_run(run).cases}
    assert len(candidates) == 3
    for body in candidates:
        wire = [
            message
            for message in body["messages"]
            if not message["content"].startswith("You are a careful assistant.")
        ]
        assert any([m.as_dict() for m in case.messages or []] == wire for case in recorded.values())
    kept = recorded["review-median"].judges[0].messages
    assert any([m.as_dict() for m in kept] == body["messages"] for body in judges)
    assert recorded["review-median"].answer == CANDIDATE_ANSWER


def test_unchanged_files_are_the_same_with_the_real_answers(agentv_run) -> None:
    _, run, _ = agentv_run
    code, result, _ = run_check(str(run))  # the project above the run folder, by default
    assert code == 0, result
    assert result["runner"] == "agentv" and result["profile"] == {"run": "agentv-4", "files": "agentv-4"}
    assert {case["id"]: case["status"] for case in result["cases"]} == {
        "greet": "same",
        "review-median": "same",
        "review-mean": "same",
    }
    judge = by_id(result)["review-median"]["graders"][0]
    assert judge == {"name": "names_bug", "status": "same", "with_answer": True, "messages": [], "cause": []}


def test_an_edited_file_names_exactly_its_cases_and_lines(agentv_run, tmp_path: Path) -> None:
    project, run, _ = agentv_run
    edited = tmp_path / "project"
    shutil.copytree(project, edited, ignore=shutil.ignore_patterns(".agentv"))
    (edited / "evals" / "snippets" / "median.py").write_text(
        MEDIAN.replace("middle = len(ordered) // 2", "middle = (len(ordered) - 1) // 2")
    )
    code, result, _ = run_check(str(run), "--files", str(edited))
    assert code == 1
    cases = by_id(result)
    assert {case_id: case["status"] for case_id, case in cases.items()} == {
        "greet": "same",
        "review-median": "differs",
        "review-mean": "same",
    }
    median = cases["review-median"]
    assert median["cause"] == [{"path": "evals/snippets/median.py", "line": 3}]
    [changed] = median["messages"]
    assert ["+", "("] in changed["words"] and ["+", ") - 1"] in changed["words"]
    # The judge's question quotes the case's input: its prompt differs for the same line.
    assert median["graders"][0]["status"] == "differs"
    assert median["graders"][0]["cause"] == [{"path": "evals/snippets/median.py", "line": 3}]
    assert result["summary"]["differs"] == 1 and result["summary"]["same"] == 2


def test_an_edited_case_line_and_a_case_only_the_files_have(agentv_run, tmp_path: Path) -> None:
    project, run, _ = agentv_run
    edited = tmp_path / "project"
    shutil.copytree(project, edited, ignore=shutil.ignore_patterns(".agentv"))
    suite = edited / "evals" / "suite" / "suite.yaml"
    suite.write_text(
        SUITE.replace("You are a friendly assistant.", "You are a terse assistant.")
        + "  - id: added-later\n    criteria: x\n    input: Hello.\n"
    )
    code, result, _ = run_check(str(run), "--files", str(edited))
    assert code == 1
    cases = by_id(result)
    assert cases["greet"]["status"] == "differs"
    assert cases["greet"]["cause"] == [{"path": "evals/suite/suite.yaml", "line": 7}]
    assert cases["added-later"]["status"] == "not_in_run"
    assert [cases[c]["status"] for c in ("review-median", "review-mean")] == ["same", "same"]


def test_a_removed_eval_file_is_not_in_the_files(agentv_run, tmp_path: Path) -> None:
    _, run, _ = agentv_run
    (tmp_path / "empty").mkdir()
    code, result, _ = run_check(str(run), "--files", str(tmp_path / "empty"))
    assert code == 0
    assert {case["status"] for case in result["cases"]} == {"not_in_files"}
    assert result["errors"] and "evals/suite/suite.yaml" in result["errors"][0]


def test_a_zip_of_the_run_reads_as_the_folder(agentv_run, tmp_path: Path) -> None:
    project, run, _ = agentv_run
    archive = shutil.make_archive(str(tmp_path / "run"), "zip", run.parent, run.name)
    code, result, _ = run_check(archive, "--files", str(project))
    assert code == 0
    assert [case["status"] for case in result["cases"]] == ["same", "same", "same"]
