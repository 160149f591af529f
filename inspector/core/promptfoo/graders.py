"""The judge requests of a promptfoo evaluation's model-graded assertions (src/matchers:
matchesLlmRubric, matchesClosedQa, matchesFactuality, matchesGEval, and the RAG ones in
src/matchers/rag.ts), with the candidate's answer, which only the run knows, as the placeholder
agentv's graders use.

The judge is the assertion's `provider`, else the test's `options.provider` (defaultTest's
included), else promptfoo's default grader when an OpenAI key is set: `gpt-5.6-sol`, asked for a
JSON object by `llm-rubric`.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jinja2 import Template

from ..agentv.nunjucks import ENVIRONMENT
from ..js import js_value
from . import grader_prompts
from .gemini import load_tools, prepare_instruction
from .gemini import prepare_config as prepare_gemini_config
from .providers import (
    ANTHROPIC,
    BEDROCK_CONVERSE,
    BEDROCK_INVOKE,
    ECHO,
    GEMINI_APIS,
    OPENAI_CHAT,
    VERTEX_CLAUDE,
    Provider,
    provider_from,
)
from .testcases import TestCase

CANDIDATE_PLACEHOLDER = "⟨the candidate's answer⟩"
DEFAULT_GRADING_MODEL = "gpt-5.6-sol"
JSON_OBJECT = {"response_format": {"type": "json_object"}}
# What G-Eval's second request holds in place of the steps its first request's answer gives.
STEPS_PLACEHOLDER = "⟨the judge's evaluation steps⟩"
# What context-faithfulness's second request holds in place of the statements its first
# request's answer gives.
STATEMENTS_PLACEHOLDER = "⟨the judge's statements from the answer⟩"
RENDERED = ("llm-rubric", "model-graded-closedqa", "factuality")
RAG = ("answer-relevance", "context-recall", "context-relevance", "context-faithfulness")
# answer-relevance asks the judge for this many questions the answer could be answering.
ANSWER_RELEVANCE_QUESTIONS = 3
NOT_RENDERED = (
    "conversation-relevance",
    "search-rubric",
    "model-graded-factuality",
)


@dataclass
class Judge:
    """One judge request: the grading prompt (`text`, read as chat `messages`) for the grading
    provider's API, model and config; its body is built as a candidate's is."""

    name: str
    api: str
    model: str
    config: dict[str, Any]
    text: str
    messages: Any
    # The assertion that asks it (its `__path` and `__line` say where it is written).
    assertion: dict[str, Any] = dataclasses.field(default_factory=dict)


def judges(
    asserts: list[dict[str, Any]],
    variables: dict[str, Any],
    options: dict[str, Any],
    prompt_text: str,
    warn: Any,
    answer: Any = CANDIDATE_PLACEHOLDER,
    called: frozenset[str] = frozenset(),
) -> list[Judge]:
    """The judge requests of one evaluation. `answer` is the candidate's answer where the run is
    known before it (the echo provider answers with the prompt), else the placeholder; `called`
    are the keys of the configured providers promptfoo has called by the time this evaluation is
    graded."""
    for item in asserts:
        if not isinstance(item, dict):
            continue
        after_call = item.get(GRADING_FAILS_AFTER_CALL)
        why = item.get(GRADING_FAILS) or (after_call[1] if after_call and after_call[0] in called else None)
        if why:
            warn(why, item)
            return []
    found: list[Judge] = []
    for assertion in asserts:
        kind = assertion.get("type")
        if not isinstance(kind, str):
            continue
        try:
            found.extend(_assertion_judges(kind, assertion, variables, options, (prompt_text, answer), warn))
        except JudgeNotBuilt as error:
            warn(f"the `{kind}` assertion's judge is not rendered: {error}", assertion)
    return found


def _assertion_judges(
    kind: str,
    assertion: dict[str, Any],
    variables: dict[str, Any],
    options: dict[str, Any],
    asked: tuple[str, Any],
    warn: Any,
) -> list[Judge]:
    """`asked` is the prompt the candidate was given and its answer."""
    base = kind[4:] if kind.startswith("not-") else kind
    if base in RENDERED:
        return [_judge(base, assertion, variables, options, asked)]
    if base == "g-eval" and isinstance(assertion.get("value"), str):
        return _g_eval(assertion["value"], assertion, variables, options, asked)
    if base == "g-eval" and isinstance(assertion.get("value"), list):
        return _g_eval_each(assertion, variables, options, asked)
    if base in RAG:
        return _rag(base, assertion, variables, options, asked, warn)
    if base in NOT_RENDERED:
        warn(f"the `{kind}` assertion's judge requests are not rendered", assertion)
    return []


def _judge(
    kind: str,
    assertion: dict[str, Any],
    variables: dict[str, Any],
    options: dict[str, Any],
    asked: tuple[str, Any],
) -> Judge:
    prompt_text, answer = asked
    value = assertion.get("value")
    rendered = render_assertion_value(value, variables) if isinstance(value, str) else value
    rubric_prompt = assertion.get("rubricPrompt") or options.get("rubricPrompt")
    if isinstance(rubric_prompt, (list, dict)):
        rubric_prompt = json.dumps(rubric_prompt, ensure_ascii=False, separators=(",", ":"))
    if kind == "llm-rubric":
        template = rubric_prompt or grader_prompts.DEFAULT_GRADING_PROMPT
        context = {**variables, "output": answer, "rubric": rendered or ""}
        default_config: dict[str, Any] = JSON_OBJECT
    else:
        template = rubric_prompt or (
            grader_prompts.OPENAI_CLOSED_QA_PROMPT
            if kind == "model-graded-closedqa"
            else grader_prompts.PROMPTFOO_FACTUALITY_PROMPT
        )
        key = "criteria" if kind == "model-graded-closedqa" else "ideal"
        context = {**variables, "input": prompt_text, key: rendered, "completion": answer}
        default_config = {}
    text = render_grading_prompt(template, context)
    provider = assertion.get("provider") or options.get("provider")
    return _judge_request(kind, text, _grading_provider(provider, default_config, variables), assertion)


def _judge_request(
    name: str, text: str, provider: tuple[str, str, dict[str, Any]], assertion: dict[str, Any]
) -> Judge:
    """One judge request: the rendered grading prompt as promptfoo's chat messages, sent to the
    grading provider as that provider's body."""
    api, model, config = provider
    messages = _chat_messages(text)
    return Judge(name, api, model, config, text, messages, assertion)


def select_best(
    assertion: dict[str, Any], variables: dict[str, Any], options: dict[str, Any], outputs: list[Any]
) -> Judge:
    """matchesSelectBest: one request for a test's row, comparing every evaluation's output (the
    placeholder where only the run knows it); the criteria go in as written, not rendered."""
    rubric = assertion.get("rubricPrompt") or options.get("rubricPrompt")
    if isinstance(rubric, (list, dict)):
        rubric = json.dumps(rubric, ensure_ascii=False, separators=(",", ":"))
    text = render_grading_prompt(
        rubric or grader_prompts.SELECT_BEST_PROMPT,
        {**variables, "criteria": assertion.get("value"), "outputs": outputs},
    )
    provider = _grading_provider(assertion.get("provider") or options.get("provider"), {}, variables)
    return _judge_request(f"select-best (the {len(outputs)} outputs of this test)", text, provider, assertion)


def _g_eval_each(
    assertion: dict[str, Any], variables: dict[str, Any], options: dict[str, Any], asked: tuple[str, Any]
) -> list[Judge]:
    """handleGEval with a list of criteria: matchesGEval for each criterion in turn (the score is
    their average); a criterion's requests are sent only once the one before it was graded."""
    criteria = assertion["value"]
    if not all(isinstance(item, str) for item in criteria):
        raise JudgeNotBuilt("its value must be one criterion or a list of criterion strings")
    if any(item.startswith("file://") for item in criteria):
        raise JudgeNotBuilt("a criterion read from a file:// reference is not read")
    return [
        dataclasses.replace(
            judge, name=judge.name.replace("g-eval", f"g-eval › criterion {number} of {len(criteria)}")
        )
        for number, criterion in enumerate(criteria, start=1)
        for judge in _g_eval(criterion, assertion, variables, options, asked)
    ]


def _g_eval(
    value: str,
    assertion: dict[str, Any],
    variables: dict[str, Any],
    options: dict[str, Any],
    asked: tuple[str, Any],
) -> list[Judge]:
    """matchesGEval: a request for evaluation steps, then the evaluation with those steps (which
    only the first request's answer gives: a placeholder here)."""
    prompt_text, answer = asked
    criteria = _render(value, variables)
    rubric = assertion.get("rubricPrompt") or options.get("rubricPrompt")
    prompts = rubric if isinstance(rubric, dict) else {}
    provider = _grading_provider(assertion.get("provider") or options.get("provider"), {}, variables)
    steps_text = render_grading_prompt(
        prompts.get("steps") or grader_prompts.GEVAL_PROMPT_STEPS, {"criteria": criteria}
    )
    evaluate_text = render_grading_prompt(
        prompts.get("evaluate") or grader_prompts.GEVAL_PROMPT_EVALUATE,
        {
            "criteria": criteria,
            "steps": STEPS_PLACEHOLDER,
            "maxScore": "10",
            "input": prompt_text,
            "output": answer,
        },
    )
    named = (("g-eval › steps", steps_text), ("g-eval › evaluate", evaluate_text))
    return [_judge_request(name, text, provider, assertion) for name, text in named]


def _rag(
    kind: str,
    assertion: dict[str, Any],
    variables: dict[str, Any],
    options: dict[str, Any],
    asked: tuple[str, Any],
    warn: Any,
) -> list[Judge]:
    """The judge requests of answer-relevance and the context-* assertions (src/matchers/rag.ts)
    whose inputs are known before the run: the context from the `context` var (a
    contextTransform runs on the answer), the question from the `query` var."""
    if assertion.get("contextTransform") and kind != "answer-relevance":
        warn(f"the `{kind}` assertion's context comes from its contextTransform, which is not run", assertion)
        return []
    context = variables.get("context")
    query = variables.get("query")
    texts = _rag_texts(kind, assertion, variables, options, asked, (context, query))
    if texts is None:
        warn(
            f"the `{kind}` assertion's judge requests are not rendered: promptfoo fails it before asking "
            f"(it needs a `query` var and a context), or its rubricPrompt is not built",
            assertion,
        )
        return []
    if kind == "answer-relevance":
        warn(
            "answer-relevance's embedding requests (the question and each generated one) are not rendered",
            assertion,
        )
    provider = _grading_provider(assertion.get("provider") or options.get("provider"), {}, variables)
    return [_judge_request(name, text, provider, assertion) for name, text in texts]


def _rag_texts(
    kind: str,
    assertion: dict[str, Any],
    variables: dict[str, Any],
    options: dict[str, Any],
    asked: tuple[str, Any],
    context_and_query: tuple[Any, Any],
) -> list[tuple[str, str]] | None:
    """Each request's name and text, or None where promptfoo stops first (a missing `query` or
    context, a value that is not text)."""
    prompt_text, answer = asked
    context, query = context_and_query
    rubric = assertion.get("rubricPrompt") or options.get("rubricPrompt")
    if kind == "answer-relevance":
        text = render_grading_prompt(
            _rubric_text(rubric) or grader_prompts.ANSWER_RELEVANCY_GENERATE,
            {"answer": answer},
        )
        return [(f"answer-relevance › question {n}", text) for n in range(1, ANSWER_RELEVANCE_QUESTIONS + 1)]
    if kind == "context-recall":
        value = assertion.get("value")
        if not isinstance(value, str):
            return None
        values = {
            **variables,
            "context": context or prompt_text,
            "groundTruth": render_assertion_value(value, variables),
        }
        return [(kind, render_grading_prompt(_rubric_text(rubric) or grader_prompts.CONTEXT_RECALL, values))]
    if not isinstance(query, str) or not context:
        return None
    if kind == "context-relevance":
        values = {"context": context, "query": query}
        return [
            (kind, render_grading_prompt(_rubric_text(rubric) or grader_prompts.CONTEXT_RELEVANCE, values))
        ]
    if rubric:
        return None
    longform = {**variables, "question": query, "answer": answer}
    statements = {**variables, "context": context, "statements": [STATEMENTS_PLACEHOLDER]}
    return [
        (
            "context-faithfulness › statements",
            render_grading_prompt(grader_prompts.CONTEXT_FAITHFULNESS_LONGFORM, longform),
        ),
        (
            "context-faithfulness › verdicts",
            render_grading_prompt(grader_prompts.CONTEXT_FAITHFULNESS_NLI_STATEMENTS, statements),
        ),
    ]


def _rubric_text(rubric: Any) -> str | None:
    if isinstance(rubric, (list, dict)):
        return json.dumps(rubric, ensure_ascii=False, separators=(",", ":"))
    return rubric if isinstance(rubric, str) else None


GRADING_PROVIDER_TYPES = ("text", "embedding", "classification", "moderation")


def resolve_grading_references(test: TestCase, configured: list[Provider]) -> TestCase:
    """resolveRuntimeGradingProviderReferences: a judge named by the id or label of a provider in
    the config's `providers` is that provider, its config included (its id first, the last
    provider with it; then its label)."""
    by_name: dict[str, Provider] = {provider.id: provider for provider in configured}
    for provider in configured:
        if provider.label:
            by_name.setdefault(provider.label, provider)
    options = test.options
    if options.get("provider"):
        options = {**options, "provider": _resolved(options["provider"], by_name)}
    asserts = [
        _resolved_assertion(assertion, by_name) if isinstance(assertion, dict) else assertion
        for assertion in test.asserts
    ]
    return dataclasses.replace(test, options=options, asserts=asserts)


# promptfoo 0.123.1 writes an assertion out as JSON while grading it; an assertion whose provider
# became a configured Anthropic or Bedrock provider holds that provider's SDK client, which is
# circular, so the evaluation's grading fails ("Converting circular structure to JSON") and
# none of its judges is asked. OpenAI, Responses and Gemini providers hold no client. Anthropic's
# client is made with the provider; a Bedrock provider makes its own at its first call, so the
# assertions of evaluations run before that call (their copy of the provider has none) are graded.
CIRCULAR_CLIENTS = (ANTHROPIC, BEDROCK_CONVERSE, BEDROCK_INVOKE)
LAZY_CLIENTS = (BEDROCK_CONVERSE, BEDROCK_INVOKE)
GRADING_FAILS = "__promptfoo_grading_fails"
# On an assertion naming a configured Bedrock provider: that provider's key, and the message.
GRADING_FAILS_AFTER_CALL = "__promptfoo_grading_fails_after_call"


def _resolved_assertion(assertion: dict[str, Any], by_name: dict[str, Provider]) -> dict[str, Any]:
    if not assertion.get("provider"):
        return assertion
    named = assertion["provider"]
    named = named.get("text") if isinstance(named, dict) and "id" not in named else named
    named = named["id"] if isinstance(named, dict) and list(named) == ["id"] else named
    configured = by_name.get(named) if isinstance(named, str) else None
    resolved = {**assertion, "provider": _resolved(assertion["provider"], by_name)}
    if configured is not None and configured.api in CIRCULAR_CLIENTS:
        key = GRADING_FAILS_AFTER_CALL if configured.api in LAZY_CLIENTS else GRADING_FAILS
        resolved[key] = (
            f"promptfoo 0.123.1 fails to grade this evaluation: the assertion's provider "
            f"{named!r} is a configured provider whose client it cannot write as JSON "
            f'("Converting circular structure to JSON"), so it asks none of its judges'
        )
        if key == GRADING_FAILS_AFTER_CALL:
            resolved[key] = (configured.key, resolved[key])
    return resolved


def _resolved(provider: Any, by_name: dict[str, Provider]) -> Any:
    if isinstance(provider, str):
        return _as_options(by_name.get(provider)) or provider
    if not (isinstance(provider, dict) and "id" not in provider):
        return provider
    # A map of grading providers by output type ({text: ..., embedding: ...}).
    resolved = dict(provider)
    for kind in GRADING_PROVIDER_TYPES:
        value = provider.get(kind)
        if isinstance(value, str) and value:
            resolved[kind] = _as_options(by_name.get(value)) or value
        elif isinstance(value, dict) and list(value) == ["id"] and isinstance(value["id"], str):
            resolved[kind] = _as_options(by_name.get(value["id"])) or value
    return resolved


def _as_options(provider: Provider | None) -> dict[str, Any] | None:
    return None if provider is None else {"id": provider.id, "config": provider.config}


class JudgeNotBuilt(Exception):
    """A judge whose provider's request the inspector does not build."""


def _grading_provider(
    provider: Any, default_config: dict[str, Any], variables: dict[str, Any]
) -> tuple[str, str, dict[str, Any]]:
    """getGradingProvider for a text judge: a map by output type gives its `text` one; a judge
    the inspector cannot build is named, never replaced by the default one."""
    if isinstance(provider, dict) and "id" not in provider and provider.get("text"):
        provider = provider["text"]
    if isinstance(provider, str) and provider:
        judge = provider_from(provider, {})
    elif isinstance(provider, dict) and isinstance(provider.get("id"), str):
        judge = provider_from(provider["id"], provider.get("config") or {})
    else:
        return OPENAI_CHAT, DEFAULT_GRADING_MODEL, default_config
    if judge.api == ECHO:
        raise JudgeNotBuilt("the echo provider asks no model: it answers with the grading prompt itself")
    if judge.api is None or judge.unsupported:
        raise JudgeNotBuilt(judge.unsupported or f"provider {judge.id!r} is not one the inspector builds")
    return judge.api, judge.model, _judge_config(judge, variables)


def _judge_config(judge: Provider, variables: dict[str, Any]) -> dict[str, Any]:
    """The judge's config as its call prepares it: the judge is asked with the test's vars, so
    its templates (Gemini's, Claude on Vertex's systemInstruction, Converse tools) are rendered."""
    if judge.api == VERTEX_CLAUDE:
        return prepare_instruction(judge.config, variables, _no_judge_files)
    if judge.api in GEMINI_APIS:
        return prepare_gemini_config(
            judge.config, variables, _no_judge_files, vertex=judge.api != GEMINI_APIS[0]
        )
    if judge.api == BEDROCK_CONVERSE and judge.config.get("tools") is not None:
        tools = load_tools(judge.config["tools"], variables, _no_judge_files, "Bedrock Converse")
        return {**judge.config, "tools": tools}
    return judge.config


def _no_judge_files(reference: str) -> Any:
    raise JudgeNotBuilt(f"its config reads {reference}, which the inspector does not read for a judge")


def _chat_messages(text: str) -> Any:
    try:
        parsed = json.loads(text)
    except ValueError:
        return [{"role": "user", "content": text}]
    return parsed if isinstance(parsed, list) else [{"role": "user", "content": text}]


def render_assertion_value(value: str, variables: dict[str, Any]) -> str:
    """An assertion's value as the judge is given it: rendered with the test's vars."""
    return _render(value, variables)


def _render(template: str, context: dict[str, Any]) -> str:
    return _compiled(template).render(js_value(context))


@lru_cache(maxsize=256)
def _compiled(template: str) -> Template:
    """A judge prompt is the same text for every evaluation: compiled once."""
    return ENVIRONMENT.from_string(template)


def _templating_context(context: dict[str, Any]) -> dict[str, Any]:
    """processContextForTemplating: objects as JSON text, arrays' objects too."""
    result = {}
    for key, value in context.items():
        if isinstance(value, list):
            value = [
                json.dumps(item, ensure_ascii=False, separators=(",", ":"))
                if isinstance(item, (dict, list))
                else item
                for item in value
            ]
        elif isinstance(value, dict):
            value = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        result[key] = value
    return result


def render_grading_prompt(template: str, context: dict[str, Any]) -> str:
    """renderLlmRubricPrompt: a JSON prompt has each string rendered, else the text is."""
    values = _templating_context(context)
    try:
        parsed = json.loads(template)
    except ValueError:
        return _render(template, values)
    return json.dumps(_render_strings(parsed, values), ensure_ascii=False, separators=(",", ":"))


def _render_strings(value: Any, context: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return _render(value, context)
    if isinstance(value, list):
        return [_render_strings(item, context) for item in value]
    if isinstance(value, dict):
        return {key: _render_strings(item, context) for key, item in value.items()}
    return value
