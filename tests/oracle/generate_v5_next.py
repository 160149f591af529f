"""Hypothesis strategies for files in the format of agentv's main at 58f316ca2 (untagged, after
v5.3.1-next.1): agentv 5's files (generate_v5.py, generate_v5_graders.py) with `providers` in
promptfoo's string, object and map forms, `defaults.provider` / `defaults.grader`, tests' and
default_test's `options.provider`, assertion `provider`, `agent-rubric`, and now and then a key
the commit refuses (`target`, `targets`, top-level `graders`, `experiment`, object `repeat`,
`provider_output`, assertion and script `target`, `llm-grader`, `llm_judge`, `skill-trigger`).

make_agentv5_goldens.py --profile agentv-5-next-58f316c runs them through the commit's source.
The judges a file may name are the ones tests/oracle/capture.mjs serves: `judge` (the run's
default), `grader-a` and `grader-b`, and `agent-judge`, the agent-capable judge every `agent-rubric`
names (agentv fails an agent-rubric a chat model would judge, without asking).
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from .generate_v5 import files_of, suites
from .generate_v5_graders import grader_documents, grader_files

JUDGES = ["grader-a", "grader-b", "judge"]
AGENT_JUDGE = "agent-judge"
PROVIDERS = st.sampled_from(
    [
        "mock",
        ["mock"],
        "openai:gpt-4o-mini",
        ["openai:gpt-4o-mini", "anthropic:messages:claude-sonnet-4-5"],
        [{"id": "openai:gpt-4o-mini", "label": "mock", "config": {"temperature": 0}}],
        [{"id": "openai:chat:gpt-4o-mini"}, "grader-a"],
        {"openai:gpt-4o-mini": {"label": "mini", "config": {"max_tokens": 64}}},
        [{"openai:gpt-4o-mini": {"label": "mini"}}, {"id": "openai:gpt-4o", "label": "big"}],
        [""],  # refused: an empty reference
        ["mock", "mock"],  # refused: the same provider twice
    ]
)
# Keys the commit refuses in a whole file, with a value of the shape authors wrote.
REFUSED_TOP = st.sampled_from(
    [
        ("evaluate_options", {"repeat": {"count": 2, "strategy": "pass_any"}}),
        ("target", "mock"),
        ("target", {"id": "mock", "provider": "openai"}),
        ("targets", ["mock"]),
        ("graders", [{"id": "judge", "provider": "openai"}]),
        ("experiment", "baseline"),
        ("experiment", {"name": "x"}),
        ("model", "gpt-4o"),
        ("runs", 2),
        ("early_exit", True),
        ("repeat", 2),
        ("budget_usd", 1),
        ("defaults", {"target": "mock"}),
        ("defaults", {"grader": ""}),
        ("defaults", "grader-a"),
        ("evaluate_options", {"repeat": 0}),
    ]
)


def _defaults(draw: st.DrawFn) -> dict[str, Any] | None:
    shape = draw(st.integers(0, 4))
    if shape == 0:
        return None
    found: dict[str, Any] = {}
    if shape in (1, 3):
        found["grader"] = draw(st.sampled_from(JUDGES))
    if shape in (2, 3):
        found["provider"] = "mock"
    return found or None


def _newest_top(draw: st.DrawFn, document: dict[str, Any], refusals: int = 5) -> None:
    """providers, defaults, evaluate_options.repeat, and one time in `refusals` + 1 a refused key."""
    if draw(st.integers(0, 3)):
        document["providers"] = draw(PROVIDERS)
    defaults = _defaults(draw)
    if defaults is not None:
        document["defaults"] = defaults
    if draw(st.integers(0, 5)) == 0:
        document["evaluate_options"] = {"repeat": draw(st.sampled_from([1, 2]))}
    if draw(st.integers(0, refusals)) == 0:
        key, value = draw(REFUSED_TOP)
        document[key] = copy.deepcopy(value)


def _test_options(draw: st.DrawFn, test: dict[str, Any], refused: bool = True) -> None:
    shape = draw(st.integers(0, 11))
    if shape in (0, 4):
        test.setdefault("options", {})["provider"] = draw(st.sampled_from(JUDGES))
    elif shape == 6 and refused:
        test["provider_output"] = "fixed answer"  # refused


@st.composite
def newest_suites(draw: st.DrawFn) -> dict[str, bytes]:
    """generate_v5's files in the commit's format."""
    document = draw(suites())
    _newest_top(draw, document, refusals=9)
    tests = document.get("tests")
    if isinstance(tests, list):
        for test in tests:
            _test_options(draw, test, refused=draw(st.integers(0, 2)) == 1)
    if "default_test" in document and draw(st.integers(0, 19)) == 7:
        document["default_test"]["provider_output"] = "fixed"  # refused
    return files_of(document)


@st.composite
def _newest_grader(draw: st.DrawFn, grader: Any) -> Any:
    """An agentv 5 grader as the commit's authors write it: `llm-grader` mostly becomes
    `llm-rubric` (its rubrics the value), some ask a named judge; the rest keep what is refused."""
    if not isinstance(grader, dict):
        return grader
    grader = dict(grader)
    kind = grader.get("type")
    if kind == "assert-set":
        grader["assert"] = [draw(_newest_grader(member)) for member in grader.get("assert", [])]
        return grader
    if kind == "llm-grader" and draw(st.integers(0, 5)):
        grader["type"] = draw(st.sampled_from(["llm-rubric", "llm-rubric", "agent-rubric"]))
        if "rubrics" in grader:
            grader["value"] = grader.pop("rubrics")
        elif "value" not in grader and "prompt" not in grader:
            grader["value"] = "Answers the question"
    if grader.get("type") == "agent-rubric":
        # agentv asks only an agent-capable judge (capture.mjs serves one as `agent-judge`)
        grader["provider" if draw(st.integers(0, 9)) else "target"] = AGENT_JUDGE
    elif grader.get("type") == "llm-rubric":
        choice = draw(st.integers(0, 9))
        if choice < 3:
            grader["provider"] = draw(st.sampled_from(JUDGES))
        elif choice == 3:
            grader["target"] = "grader-a"  # refused
        elif choice == 4:
            grader["provider"] = 7  # not a name: agentv warns and asks the test's judge
    if kind == "script" and draw(st.integers(0, 5)) == 0:
        grader["target"] = True  # refused
    return grader


NEWEST_ONLY = st.sampled_from(
    [
        {
            "type": "agent-rubric",
            "value": "Reads the workspace and checks the answer",
            "provider": AGENT_JUDGE,
        },
        {"type": "agent-rubric", "value": ["Uses the tool", "Explains"], "provider": AGENT_JUDGE},
        {
            "type": "agent-rubric",
            "prompt": "Check {{ output }} against {{ criteria }}",
            "provider": AGENT_JUDGE,
        },
        {"type": "llm_judge", "value": "x"},
        {"type": "llm-judge", "value": "x"},
        {"type": "llm-grader", "prompt": "Be strict"},
        {"type": "skill-trigger", "skill": "search", "should_trigger": True},
        {"type": "llm-rubric", "value": "Is brief", "provider": "grader-b"},
    ]
)


@st.composite
def newest_grader_suites(draw: st.DrawFn) -> dict[str, bytes]:
    """generate_v5_graders' files in the commit's format, with its judge selection."""
    document = draw(grader_documents())
    _newest_top(draw, document, refusals=11)
    for test in document["tests"]:
        if isinstance(test.get("assert"), list):
            test["assert"] = [draw(_newest_grader(grader)) for grader in test["assert"]]
            if draw(st.integers(0, 3)) == 0:
                test["assert"].append(draw(NEWEST_ONLY))
        _test_options(draw, test, refused=draw(st.integers(0, 3)) == 0)
    for holder in (document, document.get("default_test") or {}):
        if isinstance(holder.get("assert"), list):
            holder["assert"] = [draw(_newest_grader(grader)) for grader in holder["assert"]]
    if draw(st.integers(0, 4)) == 0:
        document.setdefault("default_test", {}).setdefault("options", {})["provider"] = draw(
            st.sampled_from(JUDGES)
        )
    return grader_files(document)
