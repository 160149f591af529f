"""agentv 3.8 eval files full of evaluators, for the judge prompts' goldens
(make_agentv38_goldens.py): `llm_judge` and its other spellings with inline prompts (plain text,
and templates using agentv 3.8's variables), prompts naming a file (a template found from the
eval file's folder, one without the required variables, a name that is no file), rubrics
(checklists with ids, weights and `required`, score ranges), the `rubrics` type, bare strings,
checks that ask no judge, the four places a test lists evaluators, the suite's evaluators with
and without `execution.skip_defaults`, inline `rubrics`, `criteria` or the deprecated
`expected_outcome`, `expected_output` as text or messages, single-turn and chat inputs.
Deterministic: random.Random(f"v3.8-graders:{n}")."""

from __future__ import annotations

import random

import yaml

FILES = {
    "prompts/judge.md": "Judge the answer.\n\nQuestion: {{ input_text }}\nAnswer: {{ output_text }}\n"
    "Criteria: {{criteria}}\n",
    "prompts/reference.md": "Compare with the reference.\n{{ expected_output_text }}\n---\n{{ output_text }}",
    "prompts/no-variables.md": "A template without the answer.\n",
    "evals/local-judge.md": "Local template: {{ output_text }} for {{ input_text }}.",
    "snippets/a.md": "Snippet A\nline two\n",
}
PROMPT_FILES = ["prompts/judge.md", "../prompts/judge.md", "prompts/reference.md", "local-judge.md"]
VARIABLES = ["output_text", "input_text", "criteria", "expected_output_text", "file_changes", "nope"]
TYPES = ["llm_judge", "llm-judge", "llm_grader", "llm-grader"]
TEXTS = ["Say hello", "What is 2 + 2?", "  padded question  ", "Line one\nline two", "Translate: chat"]


def _template(rng: random.Random) -> str:
    names = rng.sample(VARIABLES, rng.randint(1, 3))
    spaced = rng.random() < 0.5
    return " / ".join(f"{{{{ {name} }}}}" if spaced else f"{{{{{name}}}}}" for name in names) + " Grade it."


def _rubric(rng: random.Random, index: int, scored: bool) -> object:
    item: dict = {}
    if rng.random() < 0.8:
        item["id"] = f"r{index}"
    if scored:
        if rng.random() < 0.7:
            item["outcome"] = rng.choice(["Clear", "Correct and complete"])
        item["score_ranges"] = [
            {"score_range": [0, 4], "outcome": "Poor"},
            {"score_range": [5, 10], "outcome": "Good"},
        ]
        if rng.random() < 0.3:
            item["required_min_score"] = rng.choice([5, 7])
    else:
        item["outcome"] = rng.choice(["Is polite", "Mentions the number", "Uses one sentence"])
        if rng.random() < 0.4:
            item["required"] = rng.random() < 0.5
    if rng.random() < 0.4:
        item["weight"] = rng.choice([2, 0.5, 1.5])
    return item


def _evaluator(rng: random.Random, index: int) -> object:
    roll = rng.random()
    name = f"e{index}"
    kind = rng.choice(TYPES)
    if roll < 0.2:
        return {"name": name, "type": kind, "prompt": _template(rng)}
    if roll < 0.32:
        return {
            "name": name,
            "type": kind,
            "prompt": rng.choice(["Check it is polite", "Is the answer right?"]),
        }
    if roll < 0.47:
        return {"name": name, "type": kind, "prompt": rng.choice(PROMPT_FILES)}
    if roll < 0.5:
        return {"name": name, "type": kind, "prompt": "prompts/no-variables.md"}
    if roll < 0.65:
        scored = rng.random() < 0.35
        rubrics = [_rubric(rng, position + 1, scored) for position in range(rng.randint(1, 3))]
        return {"name": name, "type": kind, "rubrics": rubrics}
    if roll < 0.75:
        return {"name": name, "type": "rubrics", "criteria": rng.sample(["Polite", "Short", "Exact"], 2)}
    if roll < 0.87:
        return rng.choice(["Mentions the answer", "Is friendly"])
    if roll < 0.93:
        return {"name": name, "type": "contains", "value": "ok"}
    return {"name": name, "type": kind}


def _input(rng: random.Random) -> object:
    roll = rng.random()
    if roll < 0.45:
        return rng.choice(TEXTS)
    if roll < 0.6:
        return [{"role": "user", "content": rng.choice(TEXTS)}]
    if roll < 0.72:
        return [{"role": "system", "content": "Be brief."}, {"role": "user", "content": rng.choice(TEXTS)}]
    if roll < 0.85:
        return [
            {
                "role": "user",
                "content": [{"type": "text", "value": "See:"}, {"type": "file", "value": "snippets/a.md"}],
            }
        ]
    return [
        {"role": "user", "content": rng.choice(TEXTS)},
        {"role": "assistant", "content": "Earlier answer"},
        {"role": "user", "content": "And now?"},
    ]


def _test(rng: random.Random, index: int) -> dict:
    test: dict = {"id": f"t{index}", "input": _input(rng)}
    roll = rng.random()
    if roll < 0.7:
        test["criteria"] = rng.choice(["Answers correctly", "Is polite", "  Spaced criteria  "])
    elif roll < 0.8:
        test["expected_outcome"] = "Answers the question"
    expected = rng.random()
    if expected < 0.3:
        test["expected_output"] = rng.choice(["Hello!", "4", "  The answer  "])
    elif expected < 0.45:
        test["expected_output"] = [{"role": "assistant", "content": rng.choice(["Hi there", "It is 4."])}]
    if "criteria" not in test and "expected_output" not in test and "expected_outcome" not in test:
        test["criteria"] = "Answers"
    if rng.random() < 0.75:
        evaluators = [_evaluator(rng, position + 1) for position in range(rng.randint(1, 3))]
        place = rng.choice(["assertions", "assertions", "assert", "evaluators", "execution"])
        if place == "execution":
            test["execution"] = {"evaluators": evaluators}
        else:
            test[place] = evaluators
    if rng.random() < 0.1:
        test["rubrics"] = [{"id": "inline", "outcome": "Is short"}, "Is kind"]
    if rng.random() < 0.1:
        test.setdefault("execution", {})["skip_defaults"] = True
    return test


def generate(number: int) -> dict[str, bytes]:
    """Generated file `number`: every file of its bundle, by path."""
    rng = random.Random(f"v3.8-graders:{number}")
    document: dict = {"tests": [_test(rng, index + 1) for index in range(rng.randint(1, 3))]}
    if rng.random() < 0.25:
        document = {"assertions": [_evaluator(rng, 90)], **document}
    files = {path: text.encode() for path, text in FILES.items()}
    files["evals/suite.yaml"] = yaml.safe_dump(document, sort_keys=False, allow_unicode=True).encode()
    return files
