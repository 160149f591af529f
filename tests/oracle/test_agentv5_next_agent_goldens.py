"""The render setting grader provider `agentv` against agentv's main at 58f316ca2 run with its own
agent as the run's judge (`--grader-provider`): 400 files full of graders (generate_v5_next.py
agent_grader_suites: most with a host `environment`, the file's or some tests', and most without
the judges tests and graders name), made by make_agentv5_goldens.py --grader-provider agentv.

capture.mjs serves that judge as a provider of kind `agentv` whose invoke() writes down the system
prompt and the question llm-grader.ts evaluateBuiltIn hands it. Every grader asking the run's
judge must be that system + user pair where the test has a workspace, and send nothing where it
has none (agentv fails the check); the graders naming their own judges are sent as before.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from inspector.core.bundle import DirectoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
from inspector.core.options import RenderOptions

from .test_agentv5_goldens import read_goldens, write_golden
from .test_agentv5_next_goldens import judged_problems

HERE = Path(__file__).resolve().parent
GOLDENS = HERE / "agentv5_next_agent_goldens.jsonl"
PROFILE = "agentv-5-next-58f316c"
OWN_AGENT_MODEL = "judge-model-agentv"  # the model capture.mjs writes down for agentv's own agent


def test_the_goldens_were_made_with_agentvs_own_agent_as_the_runs_judge():
    header, goldens = read_goldens(GOLDENS)
    assert "58f316ca24e3abcdd253efafbc240882f39dc5b0" in header["made_with"]
    assert "AGENTV_JUDGE_SELECTION=agentv" in header["made_with"]
    assert len(goldens) == header["count"] >= 400
    asked = Counter(
        request["body"]["model"]
        for golden in goldens
        for case in golden["agentv"]["cases"]
        for request in case["requests"]
        if request["role"] == "judge"
    )
    assert asked[OWN_AGENT_MODEL] >= 100  # the built-in pairs
    assert asked["judge-model-agent-judge"] + asked["judge-model-grader-a"] >= 100  # named judges
    pairs = [
        request["body"]["messages"]
        for golden in goldens
        for case in golden["agentv"]["cases"]
        for request in case["requests"]
        if request["body"].get("model") == OWN_AGENT_MODEL
    ]
    assert all([m["role"] for m in messages] == ["system", "user"] for messages in pairs)
    # rubric checklists, free-form criteria, and a grader's own template as the whole user prompt
    assert sum('"checks"' in messages[0]["content"] for messages in pairs) >= 50
    assert sum('"checks"' not in messages[0]["content"] for messages in pairs) >= 20
    assert sum(not messages[1]["content"].startswith("Evaluate the candidate") for messages in pairs) >= 5


def _built_in_graders(golden: dict, root: Path) -> list:
    eval_file = write_golden(golden, root)
    try:
        document = render_document(
            DirectoryBundle(root),
            eval_file.relative_to(root).as_posix(),
            RenderOptions(profile=PROFILE, input_format="agentv", grader_provider="agentv"),
        )
    except InputError:
        return []
    return [
        (grader, grader.name.rsplit(" \u203a ", 1)[-1])
        for case in document.cases
        if not case.skipped
        for grader in case.graders
        if grader.judge == "agentv"
    ]


def test_the_goldens_hold_each_kind_of_grader_agentv_sends_its_own_agent(tmp_path):
    # agent-rubric and llm-rubric alike, with and without a workspace
    _, goldens = read_goldens(GOLDENS)
    found = [
        pair
        for index, golden in enumerate(goldens)
        for pair in _built_in_graders(golden, tmp_path / str(index))
    ]
    asked = Counter(name for grader, name in found if grader.messages)
    failed = [grader for grader, _ in found if not grader.messages]
    assert asked["agent-rubric"] >= 5 and asked["llm-rubric"] >= 50
    assert len(failed) >= 30
    assert all("requires a workspace" in (grader.note or "") for grader in failed)


@pytest.mark.parametrize("index", range(0, 400, 25))
def test_agentvs_own_agent_gets_what_the_inspector_shows(tmp_path, index):
    chunk = read_goldens(GOLDENS)[1][index : index + 25]
    problems = judged_problems(chunk, index, tmp_path, grader_provider="agentv")
    assert not problems, "\n\n".join(problems[:3])
