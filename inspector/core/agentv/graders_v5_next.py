"""How agentv's main at 58f316ca2 reads graders where it differs from v5.3.1-next.1 (graders_v5.py):
`loaders/grader-parser.ts` and `graders/llm-grader.ts` at that commit.

Authored `llm-grader` / `llm_judge` (any spelling) are refused with the commit's words;
`skill-trigger` is gone (a custom assertion now); `agent-rubric` is a grader; a script's or an
LLM grader's `target` is refused (`provider` replaced it); an LLM grader's `provider`, else the
test's `options.provider`, else the file's `defaults.grader` names the judge it asks.
"""

from __future__ import annotations

from ..yaml_lines import Node
from .graders import Skip
from .schema import CaseSpec

LLM_GRADER_HINT = "Use 'llm-rubric' for free-form rubric checks or 'agent-rubric' for agentic rubric checks."
# removedGraderReplacement at the commit, where it differs from the tag.
REPLACED = {"llm_judge": "llm-rubric"}
NO_LONGER_REMOVED = frozenset({"llm_grader"})
NOW_SUPPORTED = frozenset({"agent-rubric"})  # no longer among UNSUPPORTED_PROMPTFOO_ASSERTION_TYPES
KINDS_ADDED = frozenset({"agent-rubric"})
KINDS_REMOVED = frozenset({"skill-trigger"})
LLM_KINDS = frozenset({"llm-rubric", "agent-rubric"})


def refuse_removed(kind: str, node: Node, metric_name: str | None, case: CaseSpec) -> None:
    """staleAuthoredGraderMessage (`skill-trigger`), then removedPublicLlmGraderMessage: both
    asked before the removed names."""
    spelled = kind.replace("_", "-")
    if spelled == "skill-trigger":
        raise Skip(
            f"Unsupported grader '{kind}' in '{case.id}'"
            + (f" for evaluator '{metric_name}'" if metric_name else "")
            + f". {_skill_trigger_hint(node)}"
        )
    if spelled in ("llm-grader", "llm-judge"):
        raise Skip(f"Unsupported grader '{kind}' in '{case.id}'. {LLM_GRADER_HINT}")


def _skill_trigger_hint(node: Node) -> str:
    """staleSkillTriggerMessage."""
    skill = node.get("skill")
    name = skill.value if skill is not None and isinstance(skill.value, str) else None
    if not name:
        return (
            "Authored assertion type 'skill-trigger' has been removed. Use 'skill-used' with value: "
            "<skill> for expected skill use, or 'not-skill-used' with value: <skill> when the skill "
            "must not be used."
        )
    should = node.get("should_trigger")
    replacement = "not-skill-used" if should is not None and should.value is False else "skill-used"
    return (
        "Authored assertion type 'skill-trigger' has been removed. Replace skill: "
        f"{name} with type: {replacement}, value: {name}."
    )


def refuse_script_target(node: Node, name: str, case: CaseSpec) -> None:
    if node.get("target") is not None:
        raise Skip(
            f"Script evaluator field 'target' has been removed in '{case.id}' for evaluator "
            f"'{name}'. Use script evaluator 'provider' instead."
        )


def judge_of(node: Node, name: str, case: CaseSpec) -> str | None:
    """The judge an LLM grader asks: its `provider`, else the test's. A string `target` is
    refused; a `provider` that is not a name is skipped with a warning and the test's judge asks."""
    target = node.get("target")
    if target is not None and isinstance(target.value, str):
        raise Skip(
            f"Assertion field 'target' has been removed in '{case.id}' for evaluator '{name}'. "
            "Use assertion 'provider' instead."
        )
    provider = node.get("provider")
    if provider is not None and isinstance(provider.value, str) and provider.value.strip():
        return provider.value.strip()
    if case.grading is None:
        return None
    if provider is not None and provider.value is not None:
        return case.grading.default_judge  # agentv warns and asks the run's judge
    return case.grading.judge


def judge_is_named(node: Node, case: CaseSpec) -> bool:
    """Whether the grader's judge is a provider the grader is handed (its own `provider`, or the
    test's `options.provider`) rather than the run's judge (`defaults.grader`, `--grader-provider`).
    builtin-graders.ts hands a named agent-capable provider the delegate prompt whatever its kind,
    agentv's own `agentv` kind included; only the run's judge of kind `agentv` is asked with the
    built-in agent's system and user prompts (llm-grader.ts evaluate)."""
    provider = node.get("provider")
    if provider is not None:
        return isinstance(provider.value, str) and bool(provider.value.strip())
    return case.grading is not None and case.grading.judge_named
