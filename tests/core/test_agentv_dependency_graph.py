"""agentv refuses a file whose tests repeat an id, or whose `depends_on` names no test
(orchestrator.ts validateDependencyGraph), over the tests its loader kept: one it skipped for a
grader it cannot read (grader-parser.ts throws, yaml-parser.ts logs "Skipping test") is not one.
Each expectation is what agentv's own code did with the file: 4.42.4 for `agentv-4`, its main at
58f316ca2 for the newest profile; agentv 5.3.1-next.1 reads tests the same way."""

import pytest

from inspector.core.agentv import render_eval_file
from inspector.core.bundle import MemoryBundle
from inspector.core.options import RenderOptions

# A test each profile's agentv skips for its grader, and one it runs; {id} and {more} fill in.
V4_SKIPPED = "  - id: {id}\n    input: hi\n    assertions:\n      - {{type: llm-grader, prompt: 'file://missing.md'}}\n"
V4_RUN = "  - id: {id}\n    input: yo\n    criteria: ok\n{more}"
V5_HEAD = "prompts:\n  - 'Say {{ x }}'\n"
V5_SKIPPED = "  - id: {id}\n    vars: {{x: a}}\n    assert:\n      - {{type: g-eval, value: x}}\n"
V5_RUN = "  - id: {id}\n    vars: {{x: b}}\n    criteria: ok\n{more}"
FORMS = {
    "agentv-4": ("", V4_SKIPPED, V4_RUN, "prompt file not found: missing.md"),
    "agentv-5": (V5_HEAD, V5_SKIPPED, V5_RUN, "Unsupported grader 'g-eval'"),
    "agentv-5-next-58f316c": (V5_HEAD, V5_SKIPPED, V5_RUN, "Unsupported grader 'g-eval'"),
}


def render(profile: str, skipped_id: str, run_id: str, more: str = ""):
    head, skipped, run, _ = FORMS[profile]
    text = head + "tests:\n" + skipped.format(id=skipped_id) + run.format(id=run_id, more=more)
    bundle = MemoryBundle({"evals/suite.yaml": text.encode()})
    return render_eval_file(bundle, "evals/suite.yaml", RenderOptions(profile=profile))


@pytest.mark.parametrize("profile", FORMS)
def test_an_id_repeated_by_a_test_skipped_for_its_grader_is_no_duplicate(profile):
    document = render(profile, "t", "t")
    skipped, run = document.cases
    assert skipped.skipped is not None and FORMS[profile][3] in skipped.skipped
    assert skipped.skipped.startswith("agentv skips this test: ")
    assert run.skipped is None
    assert not [warning for warning in document.warnings if "refuses the whole file" in warning.message]


@pytest.mark.parametrize("profile", FORMS)
def test_depending_on_a_test_skipped_for_its_grader_names_no_test(profile):
    document = render(profile, "first", "second", "    depends_on: [first]\n")
    reason = "Test 'second' depends on 'first', but no test with that ID exists in this suite"
    assert [warning.message for warning in document.warnings] == [f"agentv refuses the whole file ({reason})"]
    assert [case.skipped for case in document.cases] == [f"agentv refuses the whole file ({reason})"] * 2


@pytest.mark.parametrize("profile", FORMS)
def test_a_repeated_id_among_the_tests_agentv_loads_still_refuses_the_file(profile):
    document = render(profile, "t", "u", FORMS[profile][2].format(id="u", more=""))
    assert all(case.skipped and "Duplicate test ID 'u'" in case.skipped for case in document.cases)
