"""The judge's prompts, checked against agentv 4.42.4 itself: capture.mjs records every grader
request agentv sends to the recording server; the inspector's `agentv-4` grader prompts, with the
candidate's answer placed where its placeholder stands, must be those requests message for message
(the examples and test bundles, corpus files with PI_CORPUS, the differential's generated suites, and generated suites full of
LLM graders: inline prompts, `file://` templates, rubrics, string assertions, suite graders)."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.bundle import DirectoryBundle
from inspector.core.documents import render_document
from inspector.core.model import (
    CANDIDATE_PLACEHOLDER,
    PLACEHOLDER_END,
    PLACEHOLDER_START,
    InputError,
    Message,
)
from inspector.core.options import RenderOptions

from . import agentv
from .generate import (
    FILES,
    REFS,
    SCORE_RANGES,
    TEXTS,
    Suite,
    conversational,
    suites,
    turn_rubrics,
)
from .test_agentv4_differential import _skip_or_fail_without_oracle, corpus_jobs, example_jobs

EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "500")) // 5
CANDIDATE = "ok"  # what capture.mjs's recording server answers the candidate with


@pytest.fixture(scope="module")
def oracle():
    _skip_or_fail_without_oracle()
    with agentv.Oracle() as running:
        yield running


# The one known gap, shown as a placeholder: an expected_output file's absolute path on agentv's
# machine, which agentv puts into the reference answer.
RESOLVED_PATH = re.compile(r'(\\?"resolvedPath\\?": \\?")(?:[^"\\]|\\[^"])*(\\?")')


def judged(message: Message) -> dict[str, str]:
    """A grader message as sent once the candidate has answered (every answer is CANDIDATE), as
    a pattern: what else only the run knows (a composite's member results) matches anything."""
    parts = []
    for segment in message.segments:
        text = segment.text
        if (
            segment.origin.kind == "marker"
            and text.startswith(PLACEHOLDER_START)
            and text.endswith(PLACEHOLDER_END)
        ):
            parts.append(re.escape(CANDIDATE) if text.startswith(CANDIDATE_PLACEHOLDER[:-1]) else ".*")
        else:
            parts.append(re.escape(RESOLVED_PATH.sub(r"\1…\2", text)))
    return {"role": message.role, "content": "".join(parts)}


def same(mine: list[list[dict[str, str]]], sent: list[list[dict[str, str]]]) -> bool:
    return len(mine) == len(sent) and all(
        len(ours) == len(theirs)
        and all(
            a["role"] == b["role"] and re.fullmatch(a["content"], b["content"], re.S)
            for a, b in zip(ours, theirs, strict=True)
        )
        for ours, theirs in zip(mine, sent, strict=True)
    )


def plain(pattern: dict[str, str]) -> dict[str, str]:
    return {"role": pattern["role"], "content": re.sub(r"\\(.)", r"\1", pattern["content"], flags=re.S)}


def grader_differences(oracle: agentv.Oracle, root: Path, eval_file: Path) -> list[str]:
    return recorded_differences(oracle.run(eval_file, root), root, eval_file)


def recorded_differences(
    result: dict[str, Any],
    root: Path,
    eval_file: Path,
    profile: str = "agentv-4",
    grader_provider: str | None = None,
) -> list[str]:
    """The inspector's grader prompts against the grader requests an agentv run recorded (with
    `grader_provider`, rendered as that setting says the run's judge is)."""
    theirs = agentv.outcome(result)
    try:
        document = render_document(
            DirectoryBundle(root),
            eval_file.relative_to(root).as_posix(),
            RenderOptions(profile=profile, input_format="agentv", grader_provider=grader_provider),
        )
    except InputError:
        return []  # which files agentv refuses is the candidate differential's to check
    problems = []
    for case in document.cases:
        if case.skipped or case.id not in theirs.cases:
            continue
        # A script grader asks no model: it has a note, no messages, and no request.
        mine = [
            [judged(message) for message in grader.messages] for grader in case.graders if grader.messages
        ]
        sent = [
            [
                {"role": message["role"], "content": RESOLVED_PATH.sub(r"\1…\2", message["content"])}
                for message in request
            ]
            for request in theirs.judges.get(case.id, [])
        ]
        if case.metadata.get("on_turn_failure") == "stop" and len(sent) < len(mine):
            # The mock judge's grade fails a rubric turn, so agentv stops grading there; the
            # inspector shows every turn's graders (what a run whose turns pass sends).
            mine = mine[: len(sent)]
        if not same(mine, sent) and not (
            # A composite's members run side by side: their requests arrive in any order.
            any("\u203a" in grader.name for grader in case.graders) and _same_in_any_order(mine, sent)
        ):
            problems.append(
                f"{case.id}: grader requests differ\n  agentv:    {json.dumps(sent)}\n"
                f"  inspector: {json.dumps([[plain(m) for m in r] for r in mine])}"
            )
    # A test agentv ran whose graders the inspector says it would skip, or the other way round.
    ran = set(theirs.cases)
    skipped = {
        case.id
        for case in document.cases
        if case.skipped and case.id in ran and case.skipped.startswith("agentv skips this test: Grader")
    }
    problems += [
        f"{case_id}: agentv ran it, the inspector says a grader skips it" for case_id in sorted(skipped)
    ]
    return problems


def judge_model(judge: str | None) -> str:
    """The model capture.mjs answers as for a judge the file names (None: the run's judge)."""
    return "judge-model" if judge in (None, "judge") else f"judge-model-{judge}"


def judge_differences(
    result: dict[str, Any], root: Path, eval_file: Path, profile: str, grader_provider: str | None = None
) -> list[str]:
    """For files that name their judges (agentv's main after 5.3.1-next.1): the judge each of the
    inspector's graders names against the model each judge request went to."""
    try:
        document = render_document(
            DirectoryBundle(root),
            eval_file.relative_to(root).as_posix(),
            RenderOptions(profile=profile, input_format="agentv", grader_provider=grader_provider),
        )
    except InputError:
        return []
    asked = {
        case["id"]: [r["body"].get("model") for r in case["requests"] if r["role"] == "judge"]
        for case in result.get("cases", [])
    }
    problems = []
    for case in document.cases:
        if case.skipped or case.id not in asked:
            continue
        mine = [judge_model(grader.judge) for grader in case.graders if grader.messages]
        theirs = asked[case.id]
        if case.metadata.get("on_turn_failure") == "stop":
            mine = mine[: len(theirs)]
        in_any_order = any("\u203a" in grader.name for grader in case.graders)
        if (sorted(mine) != sorted(theirs)) if in_any_order else (mine != theirs):
            problems.append(f"{case.id}: judges asked: agentv {theirs}, inspector {mine}")
    return problems


def _same_in_any_order(mine: list[list[dict[str, str]]], sent: list[list[dict[str, str]]]) -> bool:
    left = list(sent)
    for request in mine:
        match = next((index for index, theirs in enumerate(left) if same([request], [theirs])), None)
        if match is None:
            return False
        left.pop(match)
    return not left


def _assert_graders_are_what_agentv_sends(oracle, jobs: list[tuple[Path, Path]]) -> None:
    problems = {str(path): grader_differences(oracle, root, path) for path, root in jobs}
    assert {path: found for path, found in problems.items() if found} == {}


def test_the_examples_graders_are_what_agentv_sends(oracle):
    _assert_graders_are_what_agentv_sends(oracle, example_jobs())


@pytest.mark.corpus("the real projects' eval files are in the corpus")
def test_the_corpus_graders_are_what_agentv_sends(oracle):
    _assert_graders_are_what_agentv_sends(oracle, corpus_jobs())


def test_a_prompt_naming_a_file_without_file_prefix_is_sent_as_the_criteria(oracle, tmp_path):
    """agentv 4.42.4 reads a grader prompt file only with `file://`; a bare path is inline text."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "grader.md").write_text("Grade {{ output }} strictly.\n")
    eval_file = tmp_path / "evals" / "suite.yaml"
    eval_file.write_text(
        "tests:\n  - id: t\n    criteria: Be right\n    input: Question?\n"
        "    assertions:\n      - type: llm-grader\n        prompt: grader.md\n"
        "      - type: llm-grader\n        name: from-file\n"
        "        prompt: file://grader.md\n"
    )
    assert grader_differences(oracle, tmp_path, eval_file) == []
    document = render_document(
        DirectoryBundle(tmp_path), "evals/suite.yaml", RenderOptions(profile="agentv-4")
    )
    [bare, from_file] = document.cases[0].graders
    assert "[[ ## criteria ## ]]\ngrader.md\n" in bare.messages[1].content
    assert from_file.name == "from-file"
    assert [
        (segment.text, segment.origin.kind, segment.origin.path, segment.origin.start_line)
        for segment in from_file.messages[1].segments
    ] == [
        ("Grade ", "file", "evals/grader.md", 1),
        (CANDIDATE_PLACEHOLDER, "marker", None, None),
        (" strictly.", "file", "evals/grader.md", 1),
    ]


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=False,
)
@given(suite=suites())
def test_generated_suites_graders_are_what_agentv_sends(oracle, suite: Suite):
    _check(oracle, suite)


GRADER_FILES = {
    "evals/graders/full.md": b"Question: {{ input }}\nAnswer: {{ output }}\n"
    b"Expected: {{expected_output}}\nCriteria: {{ criteria }}\n",
    "evals/graders/unknown-vars.md": b"{{question}} / {{ candidate_answer }} / "
    b"{{ expected_outcome }} -> {{ output }}\n",
    "evals/graders/meta.md": b"{{ metadata }}|{{metadata_json}}|{{ rubrics_json }}|{{ output }}",
    "evals/graders/no-output.md": b"Just {{ input }}\n",
    "evals/scripts/check.py": b"import json\nprint(json.dumps({'score': 1, 'assertions': []}))\n",
}


def _texts() -> st.SearchStrategy[str]:
    return st.sampled_from([text for text in TEXTS if "{{" not in text and "${{" not in text])


@st.composite
def _grader(draw: st.DrawFn) -> Any:
    kind = draw(
        st.sampled_from(
            [
                "bare",
                "template",
                "file",
                "file",
                "rubrics",
                "rubric-objects",
                "string",
                "contains",
                "llm-rubric-list",
                "composite",
                "code",
                "scored",
                "scored",
                "operators",
            ]
        )
    )
    named = {"name": f"g{draw(st.integers(0, 3))}"} if draw(st.booleans()) else {}
    if kind == "bare":
        return {
            "type": draw(st.sampled_from(["llm-grader", "llm_grader"])),
            "prompt": draw(_texts()),
            **named,
        }
    if kind == "template":
        return {
            "type": "llm-grader",
            **named,
            "prompt": draw(
                st.sampled_from(
                    [
                        "Judge {{ output }} against {{ expected_output }}",
                        "{{input}}\n---\n{{ output }}\n{{ criteria }}",
                        "{{ question }} only",
                    ]
                )
            ),
        }
    if kind == "file":
        return {
            "type": "llm-grader",
            **named,
            "prompt": "file://graders/"
            + draw(st.sampled_from(["full.md", "unknown-vars.md", "meta.md", "full.md"])),
        }
    if kind == "rubrics":
        return {"type": "rubrics", **named, "criteria": draw(st.lists(_texts(), min_size=1, max_size=3))}
    if kind == "rubric-objects":
        return {
            "type": "llm-grader",
            **named,
            "rubrics": [
                {
                    "id": f"r{index}",
                    "outcome": draw(_texts().filter(lambda text: text.strip())),
                    **({"weight": draw(st.sampled_from([1, 2, 0.5]))} if draw(st.booleans()) else {}),
                    **({"required": draw(st.booleans())} if draw(st.booleans()) else {}),
                }
                for index in range(draw(st.integers(1, 3)))
            ],
        }
    if kind == "scored":
        return {
            "type": draw(st.sampled_from(["llm-grader", "rubrics"])),
            **named,
            "rubrics" if draw(st.booleans()) else "criteria": draw(_scored_rubrics()),
            **({"prompt": "file://graders/meta.md"} if draw(st.integers(0, 3)) == 0 else {}),
        }
    if kind == "operators":
        return {
            "type": "llm-grader",
            **named,
            "rubrics": [
                {
                    "id": f"o{index}",
                    "outcome": draw(_texts().filter(lambda text: text.strip())),
                    **(
                        {"operator": draw(st.sampled_from(["correctness", "contradiction", "bogus"]))}
                        if draw(st.booleans())
                        else {}
                    ),
                    **({"min_score": 0.5} if draw(st.integers(0, 3)) == 0 else {}),
                }
                for index in range(draw(st.integers(1, 3)))
            ],
        }
    if kind == "string":
        return draw(_texts())
    if kind == "contains":
        return {"type": "contains", "value": "ok"}
    if kind == "code":
        return {
            "type": draw(st.sampled_from(["code-grader", "code_grader"])),
            **named,
            "command": draw(st.sampled_from([["python3", "scripts/check.py"], "python3 scripts/check.py"])),
        }
    if kind == "composite":
        return _composite(draw, named)
    return {
        "type": "llm-grader",
        **named,
        "prompt": draw(_texts()),
        "rubrics": [{"id": "only", "outcome": "Is polite"}],
    }


@st.composite
def _scored_rubrics(draw: st.DrawFn) -> list[Any]:
    """Rubrics of which at least one has score ranges; now and then one agentv refuses."""
    items: list[Any] = []
    for index in range(draw(st.integers(1, 3))):
        item: dict[str, Any] = {"id": f"s{index}"} if draw(st.booleans()) else {}
        if draw(st.integers(0, 2)):
            item["outcome" if draw(st.booleans()) else "criteria"] = draw(
                _texts().filter(lambda text: text.strip())
            )
        if index == 0 or draw(st.booleans()):
            item["score_ranges"] = draw(st.sampled_from(SCORE_RANGES))
        elif "outcome" not in item and "criteria" not in item:
            item["outcome"] = "Checked item"
        extra = draw(st.integers(0, 7))
        if extra == 1:
            item["weight"] = draw(st.sampled_from([2, 0.5]))
        elif extra == 2:
            item["min_score"] = draw(st.sampled_from([0.7, 1, 0.25]))
        elif extra == 3:
            item["required_min_score"] = draw(st.sampled_from([6, 10]))
        elif extra == 4:
            item["operator"] = draw(st.sampled_from(["correctness", "contradiction"]))
        elif extra == 5:
            item["required"] = draw(st.booleans())
        elif extra == 6:  # refused: agentv skips the test
            item[draw(st.sampled_from(["min_score", "score_ranges"]))] = draw(
                st.sampled_from([1.5, [{"score_range": [0, 5], "outcome": "Half"}]])
            )
        items.append(item)
    return items


def _composite(draw: st.DrawFn, named: dict[str, str]) -> dict[str, Any]:
    members: list[Any] = []
    for index in range(draw(st.integers(1, 3))):
        member = draw(
            st.sampled_from(["inline", "template", "file", "code", "contains", "unnamed", "rubric"])
        )
        name = {"name": f"m{index}"}
        if member == "inline":
            members.append({"type": "llm-grader", **name, "prompt": draw(_texts())})
        elif member == "template":
            members.append({"type": "llm-grader", **name, "prompt": "Rate {{ output }}"})
        elif member == "file":
            members.append({"type": "llm-grader", **name, "prompt": "file://graders/full.md"})
        elif member == "code":
            members.append({"type": "code-grader", **name, "command": ["python3", "scripts/check.py"]})
        elif member == "contains":
            members.append({"type": "contains", **name, "value": "ok"})
        elif member == "rubric":
            members.append({"type": "rubrics", **name, "criteria": [draw(_texts())]})
        else:  # agentv skips a member without a name
            members.append({"type": "llm-grader", "prompt": "nameless"})
    aggregator = draw(
        st.sampled_from(
            [
                {"type": "weighted_average"},
                {"type": "threshold", "threshold": 0.5},
                {"type": "llm-grader"},
                {"type": "llm_grader", "prompt": "All: {{EVALUATOR_RESULTS_JSON}}!"},
                {"type": "llm-grader", "prompt": "file://graders/meta.md"},
                {"type": "bogus"},
            ]
        )
    )
    return {"type": "composite", **named, "assertions": members, "aggregator": aggregator}


@st.composite
def _turn(draw: st.DrawFn) -> dict[str, Any]:
    turn: dict[str, Any] = {
        "input": draw(
            st.one_of(_texts().filter(lambda text: text.strip()), st.just({"kind": "json", "n": 1}))
        )
    }
    kind = draw(st.integers(0, 3))
    if kind == 1:
        turn["assertions"] = draw(
            st.lists(_texts().filter(lambda text: text.strip()), min_size=1, max_size=2)
        )
    elif kind == 2:
        turn["assertions"] = [
            draw(_texts().filter(lambda text: text.strip())),
            {
                "type": "llm-grader",
                "prompt": draw(st.sampled_from(["Judge {{ output }} given {{ input }}", "Be brief"])),
            },
            {"type": "contains", "value": "ok"},
        ]
    elif kind == 3:  # rubrics in a turn: agentv passes them on as written
        turn["assertions"] = [
            {
                "type": "llm-grader",
                "rubrics": draw(turn_rubrics(_texts())),
                **({"prompt": "Judge {{ output }}: {{ rubrics }}"} if draw(st.integers(0, 3)) == 0 else {}),
            }
        ]
    if draw(st.integers(0, 3)) == 0:
        turn["expected_output"] = draw(_texts())
    return turn


@st.composite
def _input(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return draw(_texts().filter(lambda text: text.strip()))
    messages = []
    for role in draw(
        st.lists(st.sampled_from(["system", "user", "assistant", "tool"]), min_size=1, max_size=4)
    ):
        content: Any = draw(_texts())
        if draw(st.integers(0, 3)) == 0:
            content = [
                {"type": "text", "value": content},
                {"type": "file", "value": draw(st.sampled_from(REFS))},
            ]
        messages.append({"role": role, "content": content})
    messages.append({"role": "user", "content": "Now answer."})
    return messages


@st.composite
def grader_suites(draw: st.DrawFn) -> Suite:
    tests = []
    for index in range(draw(st.integers(1, 3))):
        test: dict[str, Any] = {"id": f"case-{index}", "input": draw(_input())}
        if draw(st.integers(0, 3)):
            test["criteria"] = draw(_texts())
        expected = draw(st.integers(0, 3))
        if expected == 1:
            test["expected_output"] = draw(_texts())
        elif expected == 2:
            test["expected_output"] = [{"role": "assistant", "content": draw(_texts())}]
        if draw(st.integers(0, 4)):
            test["assertions"] = draw(st.lists(_grader(), min_size=0, max_size=3))
        if draw(st.integers(0, 5)) == 0:
            test["metadata"] = {"team": "qa", "n": 2}
        if draw(st.integers(0, 6)) == 0:
            test["rubrics"] = draw(
                st.sampled_from(
                    [
                        ["Mentions the order"],
                        [{"id": "tone", "outcome": "Is calm", "operator": "contradiction"}, "Short"],
                        [
                            {"outcome": "Accurate", "score_ranges": SCORE_RANGES[1], "min_score": 0.7},
                            {"id": "extra", "outcome": "Polite", "required_min_score": 5},
                        ],
                        [{"id": "bare", "score_ranges": [{"score_range": [0, 10], "outcome": ""}]}],
                    ]
                )
            )
        conversational(draw, test, _turn())
        tests.append(test)
    document: dict[str, Any] = {"tests": tests}
    if draw(st.integers(0, 4)) == 0:
        document["assertions"] = draw(st.lists(_grader(), min_size=1, max_size=2))
    files = dict(FILES) | GRADER_FILES
    if draw(st.integers(0, 6)) == 0:
        files["evals/graders/full.md"] = GRADER_FILES["evals/graders/no-output.md"]
    # JSON is YAML, and with every non-ASCII character escaped the texts reach both sides
    # exactly as drawn (how YAML reads raw line breaks is the candidate differential's concern).
    files["evals/suite.yaml"] = json.dumps(document, indent=1).encode()
    return Suite(files, "evals/suite.yaml", {"layout": "graders"})


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=False,
)
@given(suite=grader_suites())
def test_generated_grader_suites_are_what_agentv_sends(oracle, suite: Suite):
    _check(oracle, suite)


def _check(oracle: agentv.Oracle, suite: Suite) -> None:
    folder = Path(tempfile.mkdtemp(prefix="agentv-graders-"))
    try:
        eval_file = suite.write(folder)
        found = grader_differences(oracle, folder, eval_file)
        assert not found, "\n".join(found) + "\n\nreproducer:\n" + suite.show()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


TURN_RUBRICS = """tests:
  - id: rubric-turns
    input: Begin
    criteria: Answers kindly
    mode: conversation
    turns:
      - input: Hi there
        assertions:
          - type: llm-grader
            rubrics:
              - id: greet
                outcome: Greets back
                required: true
              - outcome: Is short
                weight: 2
                operator: contradiction
      - input: Rate me
        assertions:
          - type: llm-grader
            prompt: "Judge {{ output }} by {{ rubrics }}"
            rubrics: [{id: a, outcome: Kind}]
          - type: llm-grader
            rubrics:
              - id: depth
                min_score: 0.7
                score_ranges:
                  - {score_range: [0, 5], outcome: Shallow}
                  - {score_range: [6, 10], outcome: Deep}
              - {id: plain, outcome: Polite, weight: 1}
          - type: contains
            value: ok
"""


def test_rubrics_in_a_turns_assertions_are_sent_as_written(oracle, tmp_path):
    """agentv passes a turn's assertions on unparsed: a rubric's missing id and weight reach the
    judge as `undefined`, `required` counts only when given, and score ranges as written."""
    (tmp_path / "evals").mkdir()
    eval_file = tmp_path / "evals" / "suite.yaml"
    eval_file.write_text(TURN_RUBRICS)
    assert grader_differences(oracle, tmp_path, eval_file) == []
    document = render_document(
        DirectoryBundle(tmp_path), "evals/suite.yaml", RenderOptions(profile="agentv-4")
    )
    [case] = document.cases
    assert not [warning for warning in case.warnings if "not shown" in warning.message]
    first = case.graders[0].messages[1].content
    assert (
        "- [greet] (REQUIRED) (weight: undefined): Greets back\n"
        "- [undefined] (weight: 2) (operator: contradiction): Is short" in first
    )
    scored = case.graders[2].messages[1].content
    assert "### Criterion: depth (weight: undefined) [REQUIRED: min score 0.7]" in scored
    assert case.graders[3].note is not None and not case.graders[3].messages
