"""agentv's rubric items, as `loaders/grader-parser.ts` parseRubricItems (and agentv 4's
parseInlineRubrics for a test's own `rubrics`) reads them: checklist rubrics, rubrics with an
`operator` (`correctness`, `contradiction`), and score-range rubrics (`score_ranges` as a list or a
`{lower bound: outcome}` map, `min_score`; agentv 4 also reads the deprecated
`required_min_score`, which agentv 5 refuses). What a rubric item says in the judge's prompt is
graders.py's; the score-range prompt is here, following llm-grader.ts buildScoreRangePrompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..js import UNDEFINED, js_round, js_string, js_truthy

OPERATORS = ("correctness", "contradiction")
# rubric-operators.ts OPERATOR_GUIDANCE
OPERATOR_GUIDANCE = {
    "correctness": "Correctness: mark satisfied only when the answer positively supports or "
    "fulfills the outcome. Omission or contradiction should not satisfy it.",
    "contradiction": "Contradiction guard: mark satisfied when the answer does not make a claim "
    "that contradicts the outcome. Do not require the answer to mention the "
    "outcome; mark unsatisfied only for incompatible claims.",
}


@dataclass(frozen=True, slots=True)
class Rubric:
    id: str
    outcome: str
    weight: float | str  # a str only as a turn's raw rubric gives it (see raw_rubric)
    required: bool
    operator: str | None = None
    min_score: float | None = None
    score_ranges: tuple[tuple[int, int, str], ...] | None = None
    # The item as agentv keeps it (key order included), for {{ rubrics }}: None for a plain one.
    fields: tuple[tuple[str, Any], ...] | None = None

    def as_json(self) -> dict[str, Any]:
        if self.fields is not None:
            return dict(self.fields)
        return {"id": self.id, "outcome": self.outcome, "weight": self.weight, "required": self.required}


class BadRubric(Exception):
    """agentv refuses the rubric (and with it the test's graders): the message is agentv's."""


def number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def parse_item(raw: dict[str, Any], index: int, v5: bool, where: str) -> Rubric | None:
    """parseRubricItems for one object; None when agentv skips it (a checklist item without an
    outcome). `where` is agentv's "in evaluator 'name' in 'test'". Raises BadRubric."""
    rubric_id = raw["id"] if _text(raw.get("id")) else f"rubric-{index + 1}"
    outcome = next((raw[key] for key in ("outcome", "criteria") if _text(raw.get(key))), "")
    operator = raw.get("operator") if raw.get("operator") in OPERATORS else None
    weight = raw["weight"] if number(raw.get("weight")) else 1.0
    min_score, legacy = _min_scores(raw, rubric_id, v5, where)
    required = raw["required"] if isinstance(raw.get("required"), bool) else None
    extras: list[tuple[str, Any]] = [*([("operator", operator)] if operator else [])]
    # agentv 5 keeps no required_min_score.
    scores = _score_fields(min_score, None if v5 else legacy)
    if "score_ranges" in raw and raw["score_ranges"] is not None:
        return _scored(
            [("id", rubric_id), ("weight", weight)],
            extras,
            outcome,
            None if v5 else required,
            scores,
            min_score,
            _ranges(raw["score_ranges"], rubric_id, where),
        )
    if not outcome:
        return None
    return _checklist(
        rubric_id, outcome, operator, weight, True if required is None else required, scores, min_score
    )


def _checklist(
    rubric_id: str,
    outcome: str,
    operator: str | None,
    weight: Any,
    required: bool,
    scores: list[tuple[str, Any]],
    min_score: float | None,
) -> Rubric:
    """A checklist rubric; its fields are kept only when it has more than a plain one."""
    extras: list[tuple[str, Any]] = [("operator", operator)] if operator else []
    fields = [
        ("id", rubric_id),
        ("outcome", outcome),
        *extras,
        ("weight", weight),
        ("required", required),
        *scores,
    ]
    return Rubric(
        rubric_id,
        outcome,
        float(weight),
        required,
        operator,
        min_score,
        None,
        tuple(fields) if extras or scores else None,
    )


def _min_scores(raw: dict[str, Any], rubric_id: str, v5: bool, where: str) -> tuple[float | None, int | None]:
    """`min_score` (0-1) and the legacy `required_min_score` (0-10) it stands for, or the legacy
    one agentv 4 still reads in its place. Raises BadRubric."""
    if v5 and "required_min_score" in raw and raw["required_min_score"] is not None:
        raise BadRubric(
            f"Rubric '{rubric_id}' {where}: 'required_min_score' has been removed. "
            "Use 'min_score' (0-1 scale) instead."
        )
    if number(raw.get("min_score")):
        min_score = raw["min_score"]
        if not 0 < min_score <= 1:
            raise BadRubric(
                f"Invalid min_score for rubric '{rubric_id}' {where}: must be in "
                f"(0, 1] (got {js_string(min_score)})"
            )
        return min_score, round(min_score * 10)
    if not v5 and number(raw.get("required_min_score")):
        legacy = raw["required_min_score"]
        if not float(legacy).is_integer() or not 0 <= legacy <= 10:
            raise BadRubric(
                f"Invalid required_min_score for rubric '{rubric_id}' {where}: must "
                f"be an integer 0-10 (got {js_string(legacy)})"
            )
        return legacy / 10, legacy
    return None, None


def parse_inline(raw: Any, index: int) -> Rubric | None:
    """agentv 4's parseInlineRubrics, for one item of a test's own `rubrics`: strings are
    checklist items; score ranges are taken as written (no checks), a range without an outcome
    dropped."""
    if isinstance(raw, str):
        return Rubric(f"rubric-{index + 1}", raw, 1.0, True) if raw else None
    if not isinstance(raw, dict):
        return None
    rubric_id = raw["id"] if isinstance(raw.get("id"), str) and raw["id"] else f"rubric-{index + 1}"
    outcome = raw["outcome"] if isinstance(raw.get("outcome"), str) else ""
    operator = raw.get("operator") if raw.get("operator") in OPERATORS else None
    weight = raw["weight"] if number(raw.get("weight")) else 1.0
    min_score, legacy = _inline_min_scores(raw)
    base = [("id", rubric_id), *([("operator", operator)] if operator else []), ("weight", weight)]
    scores = _score_fields(min_score, legacy)
    ranges = _inline_ranges(raw)
    if ranges:
        return _scored(
            base,
            [],
            outcome,
            raw["required"] if isinstance(raw.get("required"), bool) else None,
            scores,
            min_score,
            ranges,
        )
    if not outcome:
        return None
    required = raw["required"] if isinstance(raw.get("required"), bool) else True
    fields = [*base, ("outcome", outcome), ("required", required), *scores]
    return Rubric(rubric_id, outcome, float(weight), required, operator, min_score, None, tuple(fields))


def _score_fields(min_score: float | None, legacy: int | None) -> list[tuple[str, Any]]:
    return [
        *([("min_score", min_score)] if min_score is not None else []),
        *([("required_min_score", legacy)] if legacy is not None else []),
    ]


def _inline_min_scores(raw: dict[str, Any]) -> tuple[float | None, int | None]:
    """As _min_scores, unchecked (parseInlineRubrics takes them as written)."""
    if number(raw.get("min_score")):
        return raw["min_score"], js_round(raw["min_score"] * 10)
    if number(raw.get("required_min_score")):
        return raw["required_min_score"] / 10, raw["required_min_score"]
    return None, None


def _inline_ranges(raw: dict[str, Any]) -> tuple[tuple[int, int, str], ...]:
    """The score ranges as written; one without an outcome is dropped."""
    shorthand = _shorthand(raw["score_ranges"]) if "score_ranges" in raw else None
    if not isinstance(shorthand, list):
        return ()
    return tuple(
        (*(_pair(item.get("score_range"))), item["outcome"])
        for item in shorthand
        if isinstance(item, dict) and isinstance(item.get("outcome"), str) and item["outcome"]
    )


def _scored(
    head: list[tuple[str, Any]],
    after_outcome: list[tuple[str, Any]],
    outcome: str,
    required: bool | None,
    scores: list[tuple[str, Any]],
    min_score: float | None,
    ranges: tuple[tuple[int, int, str], ...],
) -> Rubric:
    """A score-range rubric, its fields in agentv's order: `head` (id, weight ...), the outcome
    when given, `after_outcome`, `required` when given, the minimum scores, the ranges."""
    fields = dict(head)
    fields.update(
        [
            *([("outcome", outcome)] if outcome else []),
            *after_outcome,
            *([("required", required)] if required is not None else []),
            *scores,
        ]
    )
    fields["score_ranges"] = [{"score_range": [low, high], "outcome": text} for low, high, text in ranges]
    return Rubric(
        fields["id"],
        outcome,
        float(fields["weight"]),
        bool(required),
        fields.get("operator"),
        min_score,
        ranges,
        tuple(fields.items()),
    )


def _pair(value: Any) -> tuple[Any, Any]:
    return (value[0], value[1]) if isinstance(value, list) and len(value) >= 2 else (0, 10)


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _shorthand(raw: Any) -> Any:
    """normalizeScoreRangesShorthand: `{0: bad, 4: fair, 8: good}` as ranges 0-3, 4-7, 8-10."""
    if not isinstance(raw, dict) or not raw:
        return raw
    bounds = []
    for key, value in raw.items():
        try:
            bound = int(str(key).strip()) if str(key).strip().lstrip("-").isdigit() else None
        except ValueError:
            bound = None
        if bound is None or not 0 <= bound <= 10 or not isinstance(value, str) or not value:
            return raw
        bounds.append((bound, value))
    bounds.sort()
    if bounds[0][0] != 0:
        raise BadRubric(f"score_ranges shorthand map must start at 0 (got {bounds[0][0]})")
    return [
        {"score_range": [low, bounds[index + 1][0] - 1 if index + 1 < len(bounds) else 10], "outcome": text}
        for index, (low, text) in enumerate(bounds)
    ]


def _ranges(raw: Any, rubric_id: str, where: str) -> tuple[tuple[int, int, str], ...]:
    """parseScoreRanges: integer ranges within 0-10 with outcomes, not overlapping, covering
    every score."""
    normalized = _shorthand(raw)
    if not isinstance(normalized, list):
        raise BadRubric(
            f"Invalid score_ranges for rubric '{rubric_id}' {where}: must be an array or shorthand map"
        )
    ranges = [_score_range(item, index, rubric_id, where) for index, item in enumerate(normalized)]
    ordered = sorted(ranges)
    for before, after in zip(ordered, ordered[1:], strict=False):
        if after[0] <= before[1]:
            raise BadRubric(f"Overlapping score_ranges in rubric '{rubric_id}' {where}")
    covered = {score for low, high, _ in ranges for score in range(low, high + 1)}
    if len(covered) < 11:
        raise BadRubric(f"Incomplete score_ranges coverage in rubric '{rubric_id}' {where}")
    return tuple(ranges)


def _score_range(item: Any, index: int, rubric_id: str, where: str) -> tuple[int, int, str]:
    """One entry of score_ranges, checked as parseScoreRanges checks it. Raises BadRubric."""
    at = f"at index {index} for rubric '{rubric_id}' {where}"
    if not isinstance(item, dict):
        raise BadRubric(f"Invalid score_range entry {at}: expected object")
    pair = item.get("score_range")
    if not isinstance(pair, list) or len(pair) != 2 or not all(number(v) for v in pair):
        raise BadRubric(f"Invalid score_range {at}: must be [min, max] array of two numbers")
    low, high = pair
    if not float(low).is_integer() or not float(high).is_integer():
        raise BadRubric(f"Invalid score_range {at}: values must be integers")
    if not (0 <= low <= 10 and 0 <= high <= 10):
        raise BadRubric(f"Invalid score_range {at}: values must be 0-10")
    if low > high:
        raise BadRubric(f"Invalid score_range {at}: min must be <= max")
    outcome = item.get("outcome")
    if not isinstance(outcome, str) or not outcome:
        raise BadRubric(
            f"Missing outcome for score_range [{js_string(low)}, {js_string(high)}] in rubric "
            f"'{rubric_id}' {where}"
        )
    return int(low), int(high), outcome


def raw_rubric(raw: dict[str, Any]) -> Rubric | None:
    """A rubric of a turn's assertion, which agentv passes to the grader as written (no
    parseRubricItems): its fields go into the prompt as JavaScript writes them, missing ones as
    `undefined`. None for score ranges not written as `[min, max]` pairs (not shown)."""
    ranges = raw.get("score_ranges")
    scored: tuple[tuple[int, int, str], ...] | None = None
    if isinstance(ranges, list) and ranges:
        if not all(
            isinstance(item, dict)
            and isinstance(item.get("score_range"), list)
            and len(item["score_range"]) == 2
            and all(number(bound) for bound in item["score_range"])
            for item in ranges
        ):
            return None
        scored = tuple(
            (item["score_range"][0], item["score_range"][1], js_string(item.get("outcome", UNDEFINED)))
            for item in ranges
        )
    weight = raw.get("weight", UNDEFINED)
    operator = raw.get("operator")
    minimum = raw.get("min_score", raw.get("required_min_score"))
    return Rubric(
        js_string(raw.get("id", UNDEFINED)),
        js_string(raw.get("outcome", UNDEFINED)),
        1.0 if weight == 1 and not isinstance(weight, bool) else js_string(weight),
        js_truthy(raw.get("required")),
        js_string(operator) if js_truthy(operator) else None,
        minimum if number(minimum) else None,
        scored,
        tuple(raw.items()),
    )


def operator_guidance(rubrics: list[Rubric]) -> list[str]:
    """formatRubricOperatorGuidance: each operator's guidance once, in first-use order (an
    operator agentv does not know, possible only in a turn's raw rubric, is `undefined`)."""
    seen = dict.fromkeys(rubric.operator for rubric in rubrics if rubric.operator)
    return [OPERATOR_GUIDANCE.get(operator, "undefined") for operator in seen if operator is not None]


def checklist_line(rubric: Rubric) -> str:
    required = " (REQUIRED)" if rubric.required else ""
    weight = f" (weight: {js_string(rubric.weight)})" if rubric.weight != 1.0 else ""
    operator = f" (operator: {rubric.operator})" if rubric.operator else ""
    return f"- [{rubric.id}]{required}{weight}{operator}: {rubric.outcome}"


def scoring_lines(rubrics: list[Rubric]) -> list[str]:
    """buildScoreRangePrompt's `[[ ## scoring_criteria ## ]]` section: each criterion
    (operator guidance follows it)."""
    lines: list[str] = []
    for rubric in rubrics:
        weight = f" (weight: {js_string(rubric.weight)})" if rubric.weight != 1.0 else ""
        minimum = (
            f" [REQUIRED: min score {js_string(rubric.min_score)}]" if rubric.min_score is not None else ""
        )
        lines += ["", f"### Criterion: {rubric.id}{weight}{minimum}"]
        if rubric.operator:
            lines.append(f"Operator: {rubric.operator}")
        if rubric.outcome if rubric.fields is None else js_truthy(dict(rubric.fields).get("outcome")):
            lines.append(f"Description: {rubric.outcome}")
        if rubric.score_ranges:
            lines.append("Score ranges:")
            lines += [
                f"  - Score {low if low == high else f'{low}-{high}'}: {text}"
                for low, high, text in rubric.score_ranges
            ]
    return lines
