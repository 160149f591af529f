"""agentv 5's judge prompts against what agentv 5.3.1-next.1 itself sent for generated files full
of graders (bare strings, `llm-grader` with inline, `file://`, list and object prompts and
rubrics (checklists, operators, score ranges), `llm-rubric` with text, list, structured and free-form values or a prompt, `assert-set`,
`script`, removed and unsupported grader names, suite and `default_test` graders and
`rubric_prompt`, `criteria` on its own, `mode: conversation` tests with turn `assert` lists).
make_agentv5_goldens.py --graders ran agentv 5's source with the recording server and kept, per
file, the candidate and judge requests; each test's grader prompts, with the candidate's answers
placed where their placeholders stand, must be the judge requests, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from .differential import compare
from .test_agentv4_graders import recorded_differences
from .test_agentv5_goldens import read_goldens, write_golden

GOLDENS = Path(__file__).resolve().parent / "agentv5_grader_goldens.jsonl"


def test_the_grader_goldens_were_made_by_agentv_5():
    header, goldens = read_goldens(GOLDENS)
    assert "v5.3.1-next.1" in header["made_with"]
    assert len(goldens) == header["count"] >= 300
    judged = sum(
        1
        for golden in goldens
        for case in golden["agentv"]["cases"]
        for request in case["requests"]
        if request["role"] == "judge"
    )
    assert judged > 500  # the set is about the judge's requests
    scored = sum(
        1
        for golden in goldens
        for case in golden["agentv"]["cases"]
        for request in case["requests"]
        if request["role"] == "judge"
        and "[[ ## scoring_criteria ## ]]" in request["body"]["messages"][-1]["content"]
    )
    assert scored > 20  # score-range rubrics among them


@pytest.mark.parametrize("index", range(0, 300, 25))
def test_agentv_5_graders_send_what_the_inspector_shows(tmp_path, index):
    problems = []
    for offset, golden in enumerate(read_goldens(GOLDENS)[1][index : index + 25]):
        root = tmp_path / str(offset)
        eval_file = write_golden(golden, root)
        found = compare(golden["agentv"], root, eval_file, profile="agentv-5")
        found += recorded_differences(golden["agentv"], root, eval_file, "agentv-5")
        if found:
            problems.append(
                f"golden {index + offset}:\n{golden['files']['evals/suite.yaml']}\n" + "\n".join(found)
            )
    assert not problems, "\n\n".join(problems[:3])
