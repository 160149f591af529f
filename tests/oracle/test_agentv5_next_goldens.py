"""`agentv-5-next-58f316c` against what agentv's main at 58f316ca2 itself sent for 500 generated
files and 300 files full of graders (generate_v5_next.py: `providers` in every form,
`defaults.grader`, `options.provider`, assertion `provider`, `agent-rubric`, and the keys the
commit refuses).

The commit is untagged and not on the npm registry; make_agentv5_goldens.py --profile
agentv-5-next-58f316c ran its source with the recording server, the files naming their judges
(capture.mjs serves `judge`, `grader-a` and `grader-b`, each answering as its own model). Each
file must be refused where agentv refused it, each test sent as agentv sent it, and each grader's
prompt must be the judge request agentv made, sent to the judge agentv asked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from .differential import compare
from .test_agentv4_graders import judge_differences, recorded_differences
from .test_agentv5_goldens import read_goldens, write_golden

HERE = Path(__file__).resolve().parent
GOLDENS = HERE / "agentv5_next_goldens.jsonl"
GRADER_GOLDENS = HERE / "agentv5_next_grader_goldens.jsonl"
PROFILE = "agentv-5-next-58f316c"


def _judge_requests(goldens: list[dict]) -> list[dict]:
    return [
        request
        for golden in goldens
        for case in golden["agentv"]["cases"]
        for request in case["requests"]
        if request["role"] == "judge"
    ]


def test_the_goldens_were_made_by_agentv_at_the_commit():
    header, goldens = read_goldens(GOLDENS)
    assert "58f316ca24e3abcdd253efafbc240882f39dc5b0" in header["made_with"]
    assert len(goldens) == header["count"] >= 500
    sent = sum(1 for golden in goldens for case in golden["agentv"]["cases"] if case["requests"])
    refusals = {
        golden["agentv"]["error"].split(":")[0][:40] for golden in goldens if golden["agentv"]["error"]
    }
    assert sent > 300 and len(refusals) >= 8  # both paths, and many of the commit's refusals


def test_the_grader_goldens_name_their_judges():
    header, goldens = read_goldens(GRADER_GOLDENS)
    assert "58f316ca2" in header["made_with"]
    assert len(goldens) == header["count"] >= 300
    models = [request["body"]["model"] for request in _judge_requests(goldens)]
    # the run's judge, each judge a file names (defaults.grader, options.provider, provider), and
    # the agent judge agent-rubric prompts are handed to
    assert {"judge-model", "judge-model-grader-a", "judge-model-grader-b", "judge-model-agent-judge"} <= set(
        models
    )
    assert len(models) > 300


@pytest.mark.parametrize("index", range(0, 500, 50))
def test_agentv_at_the_commit_sends_what_the_inspector_shows(tmp_path, index):
    problems = []
    for offset, golden in enumerate(read_goldens(GOLDENS)[1][index : index + 50]):
        root = tmp_path / str(offset)
        found = compare(golden["agentv"], root, write_golden(golden, root), profile=PROFILE)
        if found:
            problems.append(
                f"golden {index + offset}:\n{golden['files']['evals/suite.yaml']}\n" + "\n".join(found)
            )
    assert not problems, "\n\n".join(problems[:3])


def judged_problems(
    goldens: list[dict], first: int, tmp_path: Path, grader_provider: str | None = None
) -> list[str]:
    """Each grader golden (numbered from `first`) whose tests, judge requests or judges differ
    from the inspector's render, with `grader_provider` as that render setting."""
    problems = []
    for offset, golden in enumerate(goldens):
        root = tmp_path / str(offset)
        eval_file = write_golden(golden, root)
        found = compare(golden["agentv"], root, eval_file, profile=PROFILE)
        found += recorded_differences(golden["agentv"], root, eval_file, PROFILE, grader_provider)
        found += judge_differences(golden["agentv"], root, eval_file, PROFILE, grader_provider)
        if found:
            problems.append(
                f"golden {first + offset}:\n{golden['files']['evals/suite.yaml']}\n" + "\n".join(found)
            )
    return problems


@pytest.mark.parametrize("index", range(0, 300, 25))
def test_the_commits_judges_get_what_the_inspector_shows(tmp_path, index):
    problems = judged_problems(read_goldens(GRADER_GOLDENS)[1][index : index + 25], index, tmp_path)
    assert not problems, "\n\n".join(problems[:3])


def _turn_assertions(golden: dict) -> list[dict]:
    try:
        document = yaml.safe_load(golden["files"]["evals/suite.yaml"])
    except yaml.YAMLError:
        return []
    tests = document.get("tests") if isinstance(document, dict) else None
    return [
        assertion
        for test in (tests if isinstance(tests, list) else [])
        if isinstance(test, dict)
        for turn in test.get("turns") or []
        if isinstance(turn, dict)
        for assertion in turn.get("assert") or []
        if isinstance(assertion, dict)
    ]


def test_the_grader_goldens_hold_turn_graders_naming_their_judges():
    # A turn's assertions reach agentv's graders unparsed: a `target` there names the judge, a
    # `provider` is not read, and an agent-rubric is handed to the agent its `target` names.
    _, goldens = read_goldens(GRADER_GOLDENS)
    assertions = [assertion for golden in goldens for assertion in _turn_assertions(golden)]
    assert sum("target" in assertion for assertion in assertions) >= 20
    assert sum("provider" in assertion and "target" not in assertion for assertion in assertions) >= 5
    assert sum(assertion.get("type") == "agent-rubric" for assertion in assertions) >= 20


def test_the_goldens_hold_scenario_globs_with_classes_and_extglobs():
    # fast-glob's character classes and extglobs, read by agentv's own scenario loader
    _, goldens = read_goldens(GOLDENS)
    written = [
        reference
        for golden in goldens
        for reference in re.findall(r"file://scenarios/\S*", golden["files"]["evals/suite.yaml"])
        if re.search(r"[\[@+!]", reference)
    ]
    assert len(written) >= 15
