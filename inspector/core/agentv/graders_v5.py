"""Which graders an agentv 5 test runs, as `loaders/grader-parser.ts` at v5.3.1-next.1 reads them.

agentv 5 lists graders under `assert` (the test's, then `default_test.assert` and the suite's);
a test with `criteria` and no graders anywhere gets `[criteria]`, and no graders at all means no
grading. Bare strings become one `llm-rubric` checklist; `llm-grader` and `llm-rubric` ask the
judge (graders.py words their prompts, agentv 5's way); `assert-set` runs its own `assert` list in
order; `script` runs a command and asks no model. Removed names (`rubrics`, `composite`,
`code-grader`, snake_case spellings ...) and promptfoo assertions agentv does not run make it skip
the test. Names come from `metric`.
"""

from __future__ import annotations

import json
from typing import Any

from ..model import CANDIDATE_PLACEHOLDER, Diagnostic, LineSpan, OriginKind
from ..yaml_lines import Node
from . import graders_v5_next as newest
from .checks import check_note, custom_note, custom_script
from .graders import (
    Grader,
    Rubric,
    Skip,
    _script,
    _text_pieces,
    grouped,
    text_prompt,
    unplaced,
)
from .pieces import Piece
from .rubrics import BadRubric, parse_item
from .schema import CaseSpec, GradingNodes

REMOVED = {
    "script-grader": "script",
    "code-judge": "script",
    "g-eval": "llm-rubric",
    "rubrics": "llm-rubric with value",
    "rubric": "llm-rubric with value",
    "code_grader": "script",
    "code_judge": "script",
    "composite": "assert-set",
    "llm_judge": "llm-grader",
    "llm_grader": "llm-grader",
    "tool_trajectory": "tool-trajectory",
    "field_accuracy": "field-accuracy",
    "token_usage": "token-usage",
    "execution_metrics": "execution-metrics",
    "contains_any": "contains-any",
    "contains_all": "contains-all",
    "icontains_any": "icontains-any",
    "icontains_all": "icontains-all",
    "starts_with": "starts-with",
    "ends_with": "ends-with",
    "is_json": "is-json",
}
# Promptfoo assertion types agentv 5 refuses (grader-parser.ts UNSUPPORTED_PROMPTFOO_...).
UNSUPPORTED = frozenset(
    {
        "agent-rubric",
        "answer-relevance",
        "bleu",
        "classifier",
        "contains-html",
        "contains-json",
        "contains-sql",
        "contains-xml",
        "context-faithfulness",
        "context-recall",
        "context-relevance",
        "conversation-relevance",
        "factuality",
        "finish-reason",
        "gleu",
        "guardrails",
        "is-html",
        "is-refusal",
        "is-sql",
        "is-valid-function-call",
        "is-valid-openai-function-call",
        "is-valid-openai-tools-call",
        "is-xml",
        "levenshtein",
        "meteor",
        "model-graded-closedqa",
        "model-graded-factuality",
        "moderation",
        "perplexity",
        "perplexity-score",
        "pi",
        "rouge-n",
        "ruby",
        "similar:cosine",
        "similar:dot",
        "similar:euclidean",
        "select-best",
        "human",
        "max-score",
        "tool-call-f1",
        "trace-error-spans",
        "trace-span-count",
        "trace-span-duration",
        "search-rubric",
        "word-count",
    }
)


# types.ts GRADER_KIND_VALUES: any other type is a custom assertion, found by name.
KINDS = frozenset(
    {
        "script",
        "llm-grader",
        "tool-trajectory",
        "skill-used",
        "not-skill-used",
        "trajectory:tool-used",
        "trajectory:tool-args-match",
        "trajectory:tool-sequence",
        "trajectory:step-count",
        "trajectory:goal-success",
        "field-accuracy",
        "latency",
        "cost",
        "token-usage",
        "execution-metrics",
        "skill-trigger",
        "assert-set",
        "llm-rubric",
        "contains",
        "contains-any",
        "contains-all",
        "icontains",
        "icontains-any",
        "icontains-all",
        "starts-with",
        "ends-with",
        "regex",
        "is-json",
        "equals",
        "javascript",
        "python",
        "webhook",
        "similar",
        "inline-assert",
    }
)


def graders_v5(grading: GradingNodes, case: CaseSpec, resolve, warnings: list[Diagnostic]) -> list[Grader]:
    """parseGraders: the test's list, then the suite's. Raises Skip."""
    own = grading.assertions
    if (
        own is None
        and grading.suite_assertions is None
        and grading.criteria is not None
        and isinstance(grading.criteria.value, str)
        and grading.criteria.value
    ):
        criteria = grading.criteria
        own = Node([criteria], criteria.start_line, criteria.end_line, criteria.text_line)
    return _list(own, case, resolve, warnings) + unplaced(
        _list(grading.suite_assertions, case, resolve, warnings)
    )


def _list(node: Node | None, case: CaseSpec, resolve, warnings: list[Diagnostic]) -> list[Grader]:
    """parseGraderList: bare strings gathered into one llm-rubric at the first string's place."""
    if node is None or not isinstance(node.value, list):
        return []
    graders: list[Grader] = []
    for entry in grouped(node.value):
        if isinstance(entry, list):
            if entry:
                grader = Grader(
                    "llm-rubric",
                    rubric_kind=True,
                    rubrics=[
                        Rubric(f"rubric-{index + 1}", item.value.strip(), 1.0, True)
                        for index, item in enumerate(entry)
                    ],
                    span=_span(entry[0], case),
                )
                default = case.grading.rubric_prompt if case.grading is not None else None
                if case.grading is not None and case.grading.newest:
                    grader.judge = case.grading.judge
                    grader.judge_named = case.grading.judge_named
                if default is not None:
                    grader.prompt, grader.prompt_is_file = _prompt(default, grader.name, case, resolve)
                graders.append(grader)
            continue
        found = _grader(entry, case, resolve, warnings)
        if found is not None:
            graders.append(found)
    return graders


def _span(node: Node, case: CaseSpec) -> LineSpan:
    return LineSpan(case.path, node.start_line, node.end_line)


def _grader(node: Node, case: CaseSpec, resolve, warnings: list[Diagnostic]) -> Grader | None:
    """One object of the list: the Grader the page shows, or None (skipped, or it asks no model
    and runs no script)."""
    if not isinstance(node.value, dict):
        return None
    raw_type = node.get("type")
    kind = raw_type.value if raw_type is not None else None
    metric = node.get("metric")
    metric_name = metric.value if metric is not None and isinstance(metric.value, str) else None
    if not isinstance(kind, str):
        return None
    is_newest = case.grading is not None and case.grading.newest
    if is_newest:
        newest.refuse_removed(kind, node, metric_name, case)
    _refuse_type(kind, metric_name, case, is_newest)
    name = metric_name or kind
    for removed in ("postprocess", "preprocessors"):
        if node.get(removed) is not None:
            raise Skip(f"Grader '{name}' in '{case.id}': {removed} has been removed.")
    return _of_kind(node, kind, name, case, resolve, warnings, is_newest)


def _of_kind(
    node: Node, kind: str, name: str, case: CaseSpec, resolve, warnings: list[Diagnostic], is_newest: bool
) -> Grader | None:
    span = _span(node, case)
    if kind == "assert-set":
        return _assert_set(node, name, span, case, resolve, warnings)
    if kind == "script":
        if is_newest:
            newest.refuse_script_target(node, name, case)
        return _script_grader(node, name, span, case, resolve)
    if kind in ("trajectory:goal-success", "not-trajectory:goal-success"):
        goal = _goal_success(node, name, span, case, warnings)
        if is_newest and goal is not None and case.grading is not None:
            goal.judge = case.grading.default_judge  # trajectory.ts asks the run's judge
        return goal
    if kind not in (newest.LLM_KINDS if is_newest else ("llm-grader", "llm-rubric")):
        return _check(node, kind, name, span, resolve, is_newest)
    if is_newest:
        return _newest_llm(node, kind, name, span, case, resolve, warnings)
    return _llm(node, kind, name, span, case, resolve, warnings)


def _newest_llm(
    node: Node, kind: str, name: str, span: LineSpan, case: CaseSpec, resolve, warnings: list[Diagnostic]
) -> Grader | None:
    """agentv's main: the judge each LLM grader asks; agent-rubric goes to an agent judge."""
    judge = newest.judge_of(node, name, case)
    if kind == "agent-rubric":
        try:
            grader = _llm(node, "llm-rubric", name, span, case, resolve, warnings)
        except Skip as skip:
            raise Skip(str(skip).replace("llm-rubric field", "agent-rubric field", 1)) from None
        if grader is not None:
            grader.agent = True
    else:
        grader = _llm(node, kind, name, span, case, resolve, warnings)
    if grader is not None:
        grader.judge = judge
        grader.judge_named = newest.judge_is_named(node, case)
    return grader


def _refuse_type(kind: str, metric_name: str | None, case: CaseSpec, is_newest: bool = False) -> None:
    """A removed grader name, or a promptfoo assertion agentv does not run, skips the test."""
    replacement = newest.REPLACED.get(kind) if is_newest else None
    if replacement is None and not (is_newest and kind in newest.NO_LONGER_REMOVED):
        replacement = REMOVED.get(kind)
    if replacement:
        raise Skip(f"Unsupported grader '{kind}' in '{case.id}'. Use '{replacement}' instead.")
    unsupported = UNSUPPORTED - newest.NOW_SUPPORTED if is_newest else UNSUPPORTED
    if (kind[4:] if kind.startswith("not-") else kind) in unsupported:
        raise Skip(
            f"Unsupported promptfoo assertion type '{kind}' in '{case.id}'"
            + (f" for evaluator '{metric_name}'" if metric_name else "")
            + ". This type is future scope in AgentV and is not accepted as a custom "
            "assertion."
        )


def _assert_set(
    node: Node, name: str, span: LineSpan, case: CaseSpec, resolve, warnings: list[Diagnostic]
) -> Grader | None:
    members = node.get("assert")
    if members is None or not isinstance(members.value, list):
        return None
    found = _list(members, case, resolve, warnings)
    # AssertSetGrader makes each member as it runs it: one agentv cannot make ends the set.
    stop = next((index for index, member in enumerate(found) if member.custom), None)
    if stop is not None and stop + 1 < len(found):
        warnings.append(
            Diagnostic(
                f"assert-set {name!r}: agentv stops at the custom assertion "
                f"{found[stop].name!r} it cannot find; the members after it "
                "never run",
                case.path,
                node.start_line,
            )
        )
        found = found[: stop + 1]
    return Grader(name, span=span, members=found) if found else None


def _script_grader(node: Node, name: str, span: LineSpan, case: CaseSpec, resolve) -> Grader | None:
    if node.get("script") is not None:
        raise Skip(f"Grader '{name}' in '{case.id}': 'script' field has been removed. Use 'command' instead.")
    script = _script(node, resolve)
    return Grader(name, span=span, script=script) if script is not None else None


def _check(
    node: Node, kind: str, name: str, span: LineSpan, resolve, is_newest: bool = False
) -> Grader | None:
    """A grader that asks no model: a built-in check, or a custom assertion found by name."""
    kinds = (KINDS | newest.KINDS_ADDED) - newest.KINDS_REMOVED if is_newest else KINDS
    if kind not in kinds and not kind.startswith("not-trajectory:"):
        custom_file = custom_script(kind, resolve)
        return Grader(name, span=span, note=custom_note(kind, custom_file), custom=custom_file is None)
    note = check_note(kind, node.plain())
    return Grader(name, span=span, note=note) if note else None


TRAJECTORY = "\u27e8the run's trajectory (its steps) as JSON, known only after the run\u27e9"


def _goal_success(
    node: Node, name: str, span: LineSpan, case: CaseSpec, warnings: list[Diagnostic]
) -> Grader | None:
    """trajectory.ts `trajectory:goal-success`: the LLM grader's default prompt, its criteria
    the goal, the run's trajectory and the answer (buildGoalCriteria). Sent only when the target
    records a trace; without a goal agentv fails the grader without asking."""
    value = node.get("value")
    goal = value.get("goal") if value is not None and isinstance(value.value, dict) else value
    if goal is None or not isinstance(goal.value, str) or not goal.value.strip():
        return Grader(
            name,
            span=span,
            note="A trajectory:goal-success check without a goal: agentv fails it without asking a model.",
        )
    warnings.append(
        Diagnostic(
            f"grader {name!r}: agentv asks the judge only when the target "
            "records a trace of the run (an agent target); otherwise it fails "
            "the check without asking",
            case.path,
            node.start_line,
        )
    )
    text = goal.value
    start = len(text) - len(text.lstrip())
    criteria = [
        Piece(
            "Determine whether the agent successfully achieved the goal using the "
            "observed trajectory and final output.\n\nGoal: ",
            OriginKind.DEFAULT_PROMPT,
        ),
        Piece(
            text.strip(),
            OriginKind.CASE_TEXT,
            case.path,
            (goal.text_line or goal.start_line) + text[:start].count("\n"),
            goal.end_line,
        ),
        Piece("\n\nTrajectory:\n", OriginKind.DEFAULT_PROMPT),
        Piece(TRAJECTORY, OriginKind.MARKER),
        Piece("\n\nFinal output:\n", OriginKind.DEFAULT_PROMPT),
        Piece(CANDIDATE_PLACEHOLDER, OriginKind.MARKER),
    ]
    return Grader(name, span=span, criteria=criteria)


def _llm(
    node: Node, kind: str, name: str, span: LineSpan, case: CaseSpec, resolve, warnings: list[Diagnostic]
) -> Grader | None:
    grader = Grader(name, span=span, rubric_kind=kind == "llm-rubric")
    prompt = _judge_prompt(node, kind, case)
    if prompt is not None and prompt.value is not None:
        if isinstance(prompt.value, dict) and prompt.get("command") is not None:
            warnings.append(
                Diagnostic(
                    f"grader {name!r}: a prompt made by a script is not shown (it runs only in agentv)",
                    case.path,
                    prompt.start_line,
                )
            )
            return None
        grader.prompt, grader.prompt_is_file = _prompt(prompt, name, case, resolve)
    if kind == "llm-grader":
        return _with_grader_rubrics(grader, node, case)
    return _llm_rubric(grader, node, case)


def _judge_prompt(node: Node, kind: str, case: CaseSpec) -> Node | None:
    """The grader's own `prompt`; an llm-rubric without one takes default_test's rubric_prompt."""
    prompt = node.get("prompt")
    if (prompt is None or prompt.value is None) and kind == "llm-rubric" and case.grading is not None:
        return case.grading.rubric_prompt  # default_test.options.rubric_prompt
    return prompt


def _with_grader_rubrics(grader: Grader, node: Node, case: CaseSpec) -> Grader | None:
    """An llm-grader's optional `rubrics` list."""
    rubrics = node.get("rubrics")
    if rubrics is not None and isinstance(rubrics.value, list):
        grader.rubrics = _rubrics(_criteria(rubrics.plain(), {}) or [], grader.name, case)
        if grader.rubrics is None:
            return None
    return grader


def _llm_rubric(grader: Grader, node: Node, case: CaseSpec) -> Grader | None:
    """An llm-rubric: its `value` is the criteria, as text or as rubric items."""
    name = grader.name
    for removed in ("criteria", "rubric_item", "rubricItem", "rubrics"):
        if node.get(removed) is not None:
            raise Skip(
                f"Unsupported llm-rubric field '{removed}' in '{case.id}' for evaluator "
                f"'{name}'. Use 'value' instead."
            )
    value_node = node.get("value")
    value = value_node.plain() if value_node is not None else None
    structured = _structured(value, node.plain())
    if structured is not None:
        grader.rubrics = _rubrics(structured, name, case)
    text_value = (
        value
        if isinstance(value, str)
        else (None if value == [] or value is None or grader.rubrics else value)
    )
    if not text_value and not grader.rubrics and (grader.prompt is None or grader.prompt_is_file):
        return None  # agentv: "expected value or prompt" (a file:// prompt is no prompt text)
    if text_value is not None and value_node is not None:
        grader.criteria = _value_criteria(text_value, value_node, case)
    return grader


def _value_criteria(text_value: Any, value_node: Node, case: CaseSpec) -> list[Piece]:
    """builtin-graders.ts formatRubricValue: the value is the criteria, a non-string as JSON."""
    if isinstance(text_value, str):
        return _text_pieces(value_node, case.path)
    return [
        Piece(
            json.dumps(text_value, indent=2, ensure_ascii=False),
            OriginKind.CASE_TEXT,
            case.path,
            value_node.start_line,
            value_node.end_line,
        )
    ]


def _prompt(node: Node, name: str, case: CaseSpec, resolve) -> tuple[list[Piece], bool]:
    """parsePromptField: text as agentv 4 reads it (`file://` templates must use {{ output }} or
    {{ expected_output }}); a list or object is its pretty JSON."""
    if isinstance(node.value, str):
        return text_prompt(node, name, case, resolve)
    text = json.dumps(node.plain(), indent=2, ensure_ascii=False)
    return [Piece(text, OriginKind.CASE_TEXT, case.path, node.start_line, node.end_line)], False


def _structured_item(item: Any) -> bool:
    """isStructuredRubricObject."""
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("outcome"), str) or "score_ranges" in item:
        return True
    return isinstance(item.get("criteria"), str) and any(
        key in item for key in ("id", "weight", "required", "min_score", "operator")
    )


def _structured(value: Any, raw: dict[str, Any]) -> list[Any] | None:
    """normalizeStructuredRubricValue: a list with strings or rubric objects, or one rubric
    object, as rubric items."""
    if isinstance(value, list):
        if value and any(isinstance(item, str) or _structured_item(item) for item in value):
            return _criteria(value, raw)
        return None
    if isinstance(value, str):
        return _criteria(value, raw) if "score_ranges" in raw else None
    return _criteria(value, raw) if _structured_item(value) else None


def _criteria(value: Any, raw: dict[str, Any]) -> list[Any] | None:
    """normalizeRubricCriteria."""
    if isinstance(value, str):
        return [
            {
                "id": "rubric-1",
                "outcome": value,
                "weight": raw["weight"] if _number(raw.get("weight")) else 1,
                "required": raw["required"] if isinstance(raw.get("required"), bool) else True,
                **({"score_ranges": raw["score_ranges"]} if "score_ranges" in raw else {}),
                **({"operator": raw["operator"]} if isinstance(raw.get("operator"), str) else {}),
            }
        ]
    if isinstance(value, list):
        return [
            {"id": f"rubric-{index + 1}", "outcome": item, "weight": 1.0, "required": True}
            if isinstance(item, str)
            else item
            for index, item in enumerate(value)
        ]
    if isinstance(value, dict):
        nested = next(
            (
                value[key]
                for key in ("criteria", "rubrics", "rubric_item", "rubricItem")
                if value.get(key) is not None
            ),
            None,
        )
        return _criteria(nested, value) if nested is not None else [value]
    return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _rubrics(items: list[Any], name: str, case: CaseSpec) -> list[Rubric] | None:
    """parseRubricItems. Raises Skip for a rubric agentv 5 refuses (it skips the test)."""
    rubrics = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        try:
            rubric = parse_item(item, index, True, f"in evaluator '{name}' in '{case.id}'")
        except BadRubric as refused:
            raise Skip(str(refused)) from None
        if rubric is not None:
            rubrics.append(rubric)
    return rubrics or None
