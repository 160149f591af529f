"""agentv 3.8's judge prompts against what agentv 3.8.0 itself sent, for generated files full of
evaluators (`llm_judge` and its other spellings with inline text and templates, prompts naming a
file, rubrics with score ranges, the `rubrics` type, bare strings, checks, suite evaluators,
inline `rubrics`, single-turn and chat inputs; generate_v38_graders.py). make_agentv38_goldens.py
ran agentv 3.8's source with the recording server and kept, per file, the candidate's and the
judge's requests: the tests agentv ran and skipped must be the inspector's, and each test's grader
prompts, with the candidate's answer where its placeholder stands, must be the judge's requests,
in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from .differential import compare
from .test_agentv4_graders import recorded_differences
from .test_agentv5_goldens import read_goldens, write_golden

GOLDENS = Path(__file__).resolve().parent / "agentv38_grader_goldens.jsonl"


def _judged(goldens: list[dict], marker: str) -> int:
    return sum(
        marker in request["body"]["messages"][-1]["content"]
        for golden in goldens
        for case in golden["agentv"]["cases"]
        for request in case["requests"]
        if request["role"] == "judge"
    )


def test_the_goldens_were_made_by_agentv_3_8():
    header, goldens = read_goldens(GOLDENS)
    assert "agentv v3.8.0" in header["made_with"]
    assert len(goldens) == header["count"] >= 300
    assert _judged(goldens, "") > 900  # the set is about the judge's requests
    assert _judged(goldens, "You are an expert evaluator. Your goal") > 100  # the default template
    assert _judged(goldens, "[[ ## rubrics ## ]]") > 200
    assert _judged(goldens, "[[ ## scoring_criteria ## ]]") > 30
    assert _judged(goldens, "@[User]:") > 100  # chat inputs: the question graders read


@pytest.mark.parametrize("index", range(0, 300, 30))
def test_agentv_3_8_evaluators_send_what_the_inspector_shows(tmp_path, index):
    problems = []
    for offset, golden in enumerate(read_goldens(GOLDENS)[1][index : index + 30]):
        root = tmp_path / str(offset)
        eval_file = write_golden(golden, root)
        found = compare(golden["agentv"], root, eval_file, profile="agentv-3.8")
        found += recorded_differences(golden["agentv"], root, eval_file, "agentv-3.8")
        if found:
            problems.append(
                f"golden {index + offset}:\n{golden['files']['evals/suite.yaml']}\n" + "\n".join(found)
            )
    assert not problems, "\n\n".join(problems[:3])
