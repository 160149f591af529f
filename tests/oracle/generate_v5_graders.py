"""Hypothesis strategies for agentv 5 files full of graders, to record what agentv 5's graders
send the judge (make_agentv5_goldens.py --graders) and check the inspector against it
(test_agentv5_grader_goldens.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from .generate import SCORE_RANGES, conversational, turn_rubrics
from .generate_v5 import files_of

GRADER_FILES = {
    "evals/graders/full.md": b"Question: {{ input }}\nAnswer: {{ output }}\n"
    b"Criteria: {{ criteria }}\nRubric: {{ rubric }}\n",
    "evals/graders/rubrics.md": b"{{ rubrics }}|{{ rubrics_json }}|{{ output }}|{{ metadata }}",
    "evals/graders/no-output.md": b"Just {{ input }}\n",
    "evals/scripts/check.py": b"import json\nprint(json.dumps({'score': 1, 'assertions': []}))\n",
}
TEXTS = st.sampled_from(
    [
        "Is polite",
        "Mentions {{ topic }}",
        "  padded criterion  ",
        "",
        "Cites a source",
        "ünïcode check",
        "Line one\nline two",
    ]
)


def _texts() -> st.SearchStrategy[str]:
    return TEXTS.filter(lambda text: text.strip())


OPERATORS = ["correctness", "contradiction", "bogus"]


@st.composite
def _scored_item(draw: st.DrawFn, index: int) -> dict[str, Any]:
    """A score-range rubric; now and then one agentv 5 refuses (it skips the test)."""
    item: dict[str, Any] = {"id": f"s{index}"} if draw(st.booleans()) else {}
    if draw(st.integers(0, 2)):
        item["outcome" if draw(st.booleans()) else "criteria"] = draw(_texts())
    item["score_ranges"] = draw(st.sampled_from(SCORE_RANGES))
    extra = draw(st.integers(0, 12))
    if extra == 1:
        item["weight"] = draw(st.sampled_from([2, 0.5]))
    elif extra == 2:
        item["min_score"] = draw(st.sampled_from([0.7, 1, 0.25]))
    elif extra == 3:
        item["operator"] = draw(st.sampled_from(OPERATORS))
    elif extra == 4:
        item["required"] = draw(st.booleans())
    elif extra == 5:  # refused
        item[draw(st.sampled_from(["min_score", "score_ranges", "required_min_score"]))] = draw(
            st.sampled_from([1.5, [{"score_range": [0, 5], "outcome": "Half"}], 6])
        )
    return item


@st.composite
def _rubric_items(draw: st.DrawFn) -> list[Any]:
    items: list[Any] = []
    for index in range(draw(st.integers(1, 3))):
        shape = draw(st.sampled_from(["string", "object", "criteria-object", "scored"]))
        if shape == "string":
            items.append(draw(_texts()))
        elif shape == "object":
            items.append(
                {
                    "id": f"r{index}",
                    "outcome": draw(_texts()),
                    **({"weight": draw(st.sampled_from([1, 2, 0.5]))} if draw(st.booleans()) else {}),
                    **({"required": draw(st.booleans())} if draw(st.booleans()) else {}),
                    **(
                        {"operator": draw(st.sampled_from(OPERATORS))} if draw(st.integers(0, 2)) == 0 else {}
                    ),
                    **({"min_score": 0.5} if draw(st.integers(0, 4)) == 0 else {}),
                }
            )
        elif shape == "scored":
            items.append(draw(_scored_item(index)))
        else:
            items.append({"criteria": draw(_texts()), "weight": 2})
    return items


@st.composite
def graders(draw: st.DrawFn, depth: int = 0) -> Any:
    kinds = [
        "string",
        "string",
        "llm-grader",
        "llm-grader-rubrics",
        "llm-rubric-text",
        "llm-rubric-list",
        "llm-rubric-object",
        "llm-rubric-prompt",
        "script",
        "contains",
        "removed",
        "unsupported",
        "scored",
        "scored",
        "check",
    ]
    if depth == 0:
        kinds.append("assert-set")
    kind = draw(st.sampled_from(kinds))
    metric = {"metric": f"m{draw(st.integers(0, 3))}"} if draw(st.booleans()) else {}
    if kind == "string":
        return draw(TEXTS)
    if kind == "llm-grader":
        prompt = draw(
            st.sampled_from(
                [
                    None,
                    "Be strict about {{ topic }}",
                    "file://graders/full.md",
                    "file://graders/no-output.md",
                    ["a", "list", "prompt"],
                    {"an": "object prompt"},
                ]
            )
        )
        return {"type": "llm-grader", **metric, **({"prompt": prompt} if prompt else {})}
    if kind == "llm-grader-rubrics":
        return {
            "type": "llm-grader",
            **metric,
            "rubrics": draw(_rubric_items()),
            **({"prompt": "file://graders/rubrics.md"} if draw(st.booleans()) else {}),
        }
    if kind == "scored":  # score-range rubrics, as an llm-grader's rubrics or an llm-rubric's value
        items = [draw(_scored_item(0)), *draw(_rubric_items())][: draw(st.integers(1, 3))]
        if draw(st.booleans()):
            return {
                "type": "llm-grader",
                **metric,
                "rubrics": items,
                **({"prompt": "file://graders/rubrics.md"} if draw(st.integers(0, 3)) == 0 else {}),
            }
        return {"type": "llm-rubric", **metric, "value": items}
    if kind == "check":  # asks no judge: the page says what it does instead
        return draw(
            st.sampled_from(
                [
                    {"type": "javascript", "value": "output.length > 0"},
                    {"type": "python", "value": "len(output) > 0"},
                    {"type": "webhook", "value": "http://127.0.0.1:9/hook"},
                    {"type": "similar", "value": "ok", "threshold": 0.5},
                    {"type": "regex", "value": "o+k"},
                    {"type": "is-json"},
                    {"type": "trajectory:goal-success", "value": "Answers the question"},
                    {"type": "code-grader", "value": "x"},
                ]
            )
        )
    if kind == "llm-rubric-text":
        return {"type": "llm-rubric", **metric, "value": draw(TEXTS)}
    if kind == "llm-rubric-list":
        return {"type": "llm-rubric", **metric, "value": draw(st.one_of(_rubric_items(), st.just([])))}
    if kind == "llm-rubric-object":
        return {
            "type": "llm-rubric",
            **metric,
            "value": draw(
                st.sampled_from(
                    [
                        {"outcome": "Structured outcome", "weight": 3},
                        {"free": "form", "n": 2},
                        {"criteria": ["nested one", "nested two"]},
                    ]
                )
            ),
        }
    if kind == "llm-rubric-prompt":
        return {
            "type": "llm-rubric",
            **metric,
            "prompt": draw(st.sampled_from(["Rubric prompt text", "file://graders/full.md"])),
        }
    if kind == "script":
        return {
            "type": "script",
            **metric,
            "command": draw(st.sampled_from([["python3", "scripts/check.py"], "python3 scripts/check.py"])),
        }
    if kind == "contains":
        return {"type": "contains", "value": "ok"}
    if kind == "removed":
        return {
            "type": draw(st.sampled_from(["rubrics", "composite", "llm_grader", "code-grader"])),
            "value": "x",
        }
    if kind == "unsupported":
        return {"type": "factuality", "value": "x"}
    return {
        "type": "assert-set",
        **metric,
        "assert": draw(st.lists(graders(depth + 1), min_size=0, max_size=3)),
    }


@st.composite
def _turn(draw: st.DrawFn) -> dict[str, Any]:
    turn: dict[str, Any] = {
        "input": draw(st.sampled_from(["Hello", "About {{ topic }}?", {"kind": "json", "n": 1}]))
    }
    kind = draw(st.integers(0, 3))
    if kind == 1:
        turn["assert"] = draw(st.lists(_texts(), min_size=1, max_size=2))
    elif kind == 2:
        turn["assert"] = [
            draw(_texts()),
            {"type": "llm-rubric", "value": draw(_texts())},
            {"type": "llm-grader", "prompt": "Be brief"},
            {"type": "contains", "value": "ok"},
        ]
    elif kind == 3:  # rubrics in a turn: agentv passes them on as written
        turn["assert"] = [
            {
                "type": draw(st.sampled_from(["llm-grader", "llm-rubric"])),
                "rubrics": draw(turn_rubrics(_texts())),
            }
        ]
    if draw(st.integers(0, 3)) == 0:
        turn["expected_output"] = draw(_texts())
    return turn


@st.composite
def grader_suites(draw: st.DrawFn) -> dict[str, bytes]:
    return grader_files(draw(grader_documents()))


def grader_files(document: dict[str, Any]) -> dict[str, bytes]:
    files = files_of(document)
    files.update(GRADER_FILES)
    return files


@st.composite
def grader_documents(draw: st.DrawFn) -> dict[str, Any]:
    tests = []
    for index in range(draw(st.integers(1, 3))):
        test: dict[str, Any] = {
            "id": f"case-{index}",
            "vars": {
                "topic": draw(st.sampled_from(["alpha", "beta"])),
                "question": draw(st.sampled_from(["What is up?", "Name a colour.", "  spaced  "])),
            },
        }
        if draw(st.integers(0, 2)):
            test["criteria"] = draw(TEXTS)
        if draw(st.integers(0, 3)):
            test["assert"] = draw(st.lists(graders(), min_size=0, max_size=3))
        if draw(st.integers(0, 5)) == 0:
            test["metadata"] = {"team": "qa", "n": 2}
        conversational(draw, test, _turn())
        tests.append(test)
    document: dict[str, Any] = {
        "prompts": [
            draw(
                st.sampled_from(
                    [
                        "{{ question }}",
                        "About {{ topic }}: {{ question }}",
                        [
                            {"role": "system", "content": "Be brief."},
                            {"role": "user", "content": "{{ question }}"},
                        ],
                    ]
                )
            )
        ],
        "tests": tests,
    }
    if draw(st.integers(0, 4)) == 0:
        document["assert"] = draw(st.lists(graders(), min_size=1, max_size=2))
    if draw(st.integers(0, 5)) == 0:
        document["default_test"] = {"assert": [draw(graders())]}
    if draw(st.integers(0, 5)) == 0:  # every llm-rubric's default prompt
        document.setdefault("default_test", {})["options"] = {
            "rubric_prompt": draw(
                st.sampled_from(["Grade kindly", "file://graders/full.md", ["as", "a", "list"]])
            )
        }
    return document
