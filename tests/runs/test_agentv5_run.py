"""agentv 5's run bundle, made by agentv 5's own code (v5.3.1-next.1 source under tsx,
tests/runs/make_agentv5_run.mjs: agentv's runEvaluation against a recording server, then its
writeArtifactsFromResults) and kept as a golden with the requests it sent (`sent.json`); agentv 5
is not on the registry, so CI cannot make it again (docs/agentv-5.md). run-check reads the
bundle's transcript.json and answer.md and sets them against the project's eval file."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from inspector.cli.commands import main
from inspector.cli.console import Output
from inspector.core.runs import read_run
from inspector.rendering.untrusted import RenderPolicy

GOLDEN = Path(__file__).with_name("agentv5")


def run_check(*args: str) -> tuple[int, dict]:
    stdout = io.StringIO()
    code = main("run-check", list(args), Output(stdout, io.StringIO()), RenderPolicy(in_process=True))
    return code, json.loads(stdout.getvalue())


def test_the_bundle_holds_what_was_sent() -> None:
    sent = json.loads((GOLDEN / "sent.json").read_text())
    candidates = [body["messages"] for body in sent if body["model"] == "candidate-model"]
    answers = [body for body in sent if body["model"] == "candidate-model"]
    run = read_run(GOLDEN / "run")
    assert (run.runner, run.profile) == ("agentv", "agentv-5")
    assert [[m.as_dict() for m in case.messages or []] for case in run.cases] == candidates
    assert [case.eval_path for case in run.cases] == ["evals/suite/suite.yaml"] * len(answers)
    assert all(case.answer == "The median averages the two middle values." for case in run.cases)


def test_the_project_as_it_ran_is_the_same() -> None:
    code, result = run_check(str(GOLDEN / "run"), "--files", str(GOLDEN / "project"))
    assert code == 0
    assert [(case["id"], case["status"]) for case in result["cases"]] == [
        ("greet-ada", "same"),
        ("greet-bob", "same"),
    ]
    assert result["profile"] == {"run": "agentv-5", "files": "agentv-5"}


def test_an_edited_prompt_names_both_cases_and_its_line(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(GOLDEN / "project", project)
    suite = project / "evals" / "suite" / "suite.yaml"
    suite.write_text(suite.read_text().replace("Say hello to", "Say hi to"))
    code, result = run_check(str(GOLDEN / "run"), "--files", str(project))
    assert code == 1
    for case in result["cases"]:
        assert case["status"] == "differs"
        assert case["cause"] == [{"path": "evals/suite/suite.yaml", "line": 6}]
        [changed] = case["messages"]
        assert ["-", "hello"] in changed["words"] and ["+", "hi"] in changed["words"]


def test_the_judges_rendered_with_the_kept_answer_are_the_judge_requests_sent() -> None:
    """agentv 5 keeps no judge request; the recording server's are the reference."""
    from inspector.core.bundle import DirectoryBundle
    from inspector.core.documents import render_document
    from inspector.core.options import RenderOptions
    from inspector.core.runs.compare import check_run, with_answer

    sent = json.loads((GOLDEN / "sent.json").read_text())
    judges = [body["messages"] for body in sent if body["model"] == "judge-model"]
    bundle = DirectoryBundle(GOLDEN / "project")
    result = check_run(
        read_run(GOLDEN / "run"),
        lambda path: render_document(bundle, path, RenderOptions(profile="agentv-5")),
        "agentv-5",
    )
    rendered = []
    for case in result.cases:
        assert case.rendered is not None and case.recorded is not None and case.recorded.answer
        for grader in case.rendered.graders:
            messages = with_answer(grader.messages, case.recorded.answer)
            rendered.append([{"role": m.role, "content": m.content} for m in messages])
    assert rendered == judges
