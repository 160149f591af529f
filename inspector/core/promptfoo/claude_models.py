"""promptfoo's table of Claude models (CLAUDE_MODEL_FAMILIES, anthropic/util.ts in 0.123.1), and
the rules every Claude route (Anthropic Messages, Bedrock Converse and InvokeModel, Claude on
Vertex) takes from it: Opus 4.7/4.8 and Claude 5 drop the sampling parameters, turn a thinking
budget into adaptive thinking, and some think without being asked, which doubles the default
max_tokens. The table is data; `rules_of` is the one way to read it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..js import js_truthy


@dataclass(frozen=True)
class ClaudeRules:
    sampling_deprecated: bool = False
    always_adaptive: bool = False  # thinking cannot be turned off
    thinks_by_default: bool = False  # no `thinking` still thinks
    disabled_capped: bool = False  # `disabled` refused at effort xhigh/max
    forced_tool_choice_refused: bool = False


def _family(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(^|[^a-z0-9]){pattern}", re.I)


# In promptfoo's order; a model takes a rule when any family it matches has it.
FAMILIES: tuple[tuple[re.Pattern[str], ClaudeRules], ...] = (
    (
        _family(r"claude-(?:fable|mythos)-5-1(?![a-z0-9])"),
        ClaudeRules(sampling_deprecated=True, always_adaptive=True, forced_tool_choice_refused=True),
    ),
    (
        _family(r"claude-(?:fable|mythos)-5(?![a-z0-9])"),
        ClaudeRules(sampling_deprecated=True, always_adaptive=True),
    ),
    (
        _family(r"claude-opus-5(?![a-z0-9])"),
        ClaudeRules(sampling_deprecated=True, thinks_by_default=True, disabled_capped=True),
    ),
    (_family(r"claude-sonnet-5(?![a-z0-9])"), ClaudeRules(sampling_deprecated=True, thinks_by_default=True)),
    (_family(r"claude-opus-4-8(?![0-9])"), ClaudeRules(sampling_deprecated=True)),
    (_family(r"claude-opus-4-7(?![0-9])"), ClaudeRules(sampling_deprecated=True)),
)
# A Claude of generation 5 or later not yet in the table: its sampling is dropped too, unless the
# route turns this guess off (Anthropic's and Vertex's own hosts keep it on, any other host not).
LATER_GENERATION = _family(r"claude-[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*){0,4}-(?:[5-9]|[1-9][0-9])(?![a-z0-9])")

ANTHROPIC_HOST = "api.anthropic.com"
VERTEX_HOST = re.compile(r"^(?:[a-z0-9-]+-)?aiplatform(?:\.mtls)?\.googleapis\.com$", re.I)


def rules_of(model: str, generation_guess: bool = True) -> ClaudeRules:
    """The rules promptfoo applies to `model`; `generation_guess` is whether a later Claude
    missing from the table is treated as one that drops its sampling (isSamplingParamsDeprecated-
    ClaudeModel's allowGenerationFallback; an application inference profile never is)."""
    matched = [rules for pattern, rules in FAMILIES if pattern.search(model)]
    profile = model.startswith("arn:") and ":application-inference-profile/" in model
    guessed = generation_guess and not profile and bool(LATER_GENERATION.search(model))
    return ClaudeRules(
        sampling_deprecated=guessed or any(rules.sampling_deprecated for rules in matched),
        always_adaptive=any(rules.always_adaptive for rules in matched),
        thinks_by_default=any(rules.thinks_by_default for rules in matched),
        disabled_capped=any(rules.disabled_capped for rules in matched),
        forced_tool_choice_refused=any(rules.forced_tool_choice_refused for rules in matched),
    )


def _kind(thinking: Any) -> Any:
    return thinking.get("type") if isinstance(thinking, dict) else None


def normalized_thinking(rules: ClaudeRules, thinking: Any, effort: Any) -> Any:
    """normalizeClaudeThinkingConfig: a budget becomes adaptive thinking (its `display` kept)
    where sampling is dropped; `disabled` is left out where the model refuses it. None: no
    `thinking` is sent."""
    if _kind(thinking) == "enabled" and rules.sampling_deprecated:
        return {"type": "adaptive", **({"display": thinking["display"]} if thinking.get("display") else {})}
    if _kind(thinking) == "disabled" and (
        rules.always_adaptive or (rules.disabled_capped and effort in ("xhigh", "max"))
    ):
        return None
    return thinking


@dataclass(frozen=True)
class Thinking:
    sent: Any  # the normalized `thinking`, None when none is sent
    on: bool  # thinking runs, so sampling is held (always on for the always-adaptive models)
    spends_tokens: bool  # promptfoo doubles its default max_tokens
    budgeted: bool  # a manual budget, which refuses a forced tool choice


def thinking_of(rules: ClaudeRules, requested: Any, effort: Any) -> Thinking:
    sent = normalized_thinking(rules, requested, effort)
    return Thinking(
        sent=sent,
        on=rules.always_adaptive or thinking_is_on(sent),
        spends_tokens=spends_thinking_tokens(rules, sent),
        budgeted=_kind(sent) == "enabled",
    )


def thinking_is_on(thinking: Any) -> bool:
    return _kind(thinking) in ("enabled", "adaptive")


def spends_thinking_tokens(rules: ClaudeRules, thinking: Any) -> bool:
    """claudeThinkingConsumesTokens, of a normalized thinking: promptfoo then doubles its default
    max_tokens."""
    return rules.always_adaptive or thinking_is_on(thinking) or (thinking is None and rules.thinks_by_default)


def max_tokens_above_budget(max_tokens: Any, thinking: Any) -> Any:
    """clampMaxTokensForThinkingBudget: max_tokens above an enabled thinking budget."""
    if _kind(thinking) != "enabled" or not thinking.get("budget_tokens"):
        return max_tokens
    budget = thinking["budget_tokens"]
    numbers = isinstance(budget, (int, float)) and isinstance(max_tokens, (int, float))
    return budget + 1024 if numbers and max_tokens <= budget else max_tokens


def _host(url: Any) -> str:
    if not isinstance(url, str) or not url:
        return ""
    return (urlsplit(url if "://" in url else f"https://{url}").hostname or "").lower()


def anthropic_guesses(config: dict[str, Any], env: dict[str, Any]) -> bool:
    """The generation guess on `anthropic:messages:`: on when the request goes to Anthropic's own
    host (the default when neither `apiBaseUrl` nor the config's ANTHROPIC_BASE_URL names one)."""
    base = config.get("apiBaseUrl") or env.get("ANTHROPIC_BASE_URL")
    return not base or _host(base) == ANTHROPIC_HOST


def vertex_guesses(config: dict[str, Any], env: dict[str, Any]) -> bool:
    """The generation guess on Vertex: on for Google's aiplatform hosts (the default)."""
    host = config.get("apiHost") or env.get("VERTEX_API_HOST")
    return not host or bool(VERTEX_HOST.match(_host(host)))


def thinking_in_prompt(text: str) -> Any:
    """The `thinking` parseMessages finds in a prompt: the first truthy `thinking` of a JSON chat
    array's messages, else the last `thinking: {json}` line."""
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, list):
        return next(
            (
                item["thinking"]
                for item in parsed
                if isinstance(item, dict) and js_truthy(item.get("thinking"))
            ),
            None,
        )
    thinking = None
    for line in (line.strip() for line in text.split("\n")):
        if line.startswith("thinking:"):
            try:
                thinking = json.loads(line[9:].strip())
            except ValueError:
                continue
    return thinking
