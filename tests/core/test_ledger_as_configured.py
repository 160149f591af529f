"""The ledger as the eval would run it: each case at the provider and model its input names, its
judges' requests counted, per-model subtotals. Every expected cost is computed here from
genai-prices' own `calc_price`, never written down, so a change in the price data cannot hide."""

from __future__ import annotations

import json
from decimal import Decimal

import genai_prices
import pytest
from genai_prices import Usage

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.export import ExportSettings
from inspector.core.export.registry import REGISTRY
from inspector.core.ledger import build_ledger
from inspector.core.model import CANDIDATE_PLACEHOLDER
from inspector.core.options import RenderOptions
from inspector.core.tokens import TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, count_text

CONFIG = """\
description: two providers, one rubric
prompts:
  - 'Answer in one sentence: {{question}}'
providers:
  - openai:gpt-4.1-mini
  - anthropic:messages:claude-sonnet-4-5
defaultTest:
  assert:
    - type: llm-rubric
      value: The answer is correct and polite
tests: file://questions.csv
"""
QUESTIONS = "question\nWhat is two plus two?\nName a primary colour.\nWho wrote Hamlet?\n"


def render(files: dict[str, str], path: str, **options):
    bundle = MemoryBundle({name: text.encode() for name, text in files.items()})
    return render_document(bundle, path, RenderOptions(**options))


def promptfoo(config: str = CONFIG):
    return render({"promptfooconfig.yaml": config, "questions.csv": QUESTIONS}, "promptfooconfig.yaml")


def genai_cost(provider: str, model: str, input_tokens: int, output_tokens: int) -> Decimal:
    """What genai-prices itself says one request costs."""
    prices_provider = REGISTRY[provider].billing.prices_provider
    usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    return genai_prices.calc_price(usage, model, provider_id=prices_provider).total_price


def test_each_evaluation_is_priced_at_its_own_provider_and_model():
    ledger = build_ledger(promptfoo(), settings=ExportSettings(max_tokens=200), as_configured=True)
    targets = [(row.target.provider, row.target.model) for row in ledger.cases]
    assert targets == [("openai-chat", "gpt-4.1-mini"), ("anthropic", "claude-sonnet-4-5")] * 3
    assert ledger.fallback_cases == 0
    for row in ledger.cases:
        assert row.cost is not None
        assert row.cost.total_usd == genai_cost(row.target.provider, row.target.model, row.input_tokens, 200)


def test_judges_are_priced_at_promptfoos_default_grader_and_included_in_the_total():
    document = promptfoo()
    ledger = build_ledger(document, settings=ExportSettings(max_tokens=200), as_configured=True)
    # promptfoo's renderer writes the judge's request; its model is promptfoo 0.123.1's default grader.
    judge_models = {
        json.dumps(case.metadata["promptfoo"]["graders"][0]["metadata"]["request"]["model"])
        for case in document.cases
    }
    assert len(judge_models) == 1
    judge_model = json.loads(judge_models.pop())
    assert ledger.judge_requests == 6
    for row in ledger.cases:
        assert row.judge_requests == 1
        assert row.judge_cost is not None
        assert row.judge_cost.total_usd == genai_cost("openai-chat", judge_model, row.judge_input_tokens, 200)
    candidates = sum(row.cost.total_usd for row in ledger.cases if row.cost)
    judges = sum(row.judge_cost.total_usd for row in ledger.cases if row.judge_cost)
    assert ledger.judge_cost() == judges
    assert ledger.cost() == candidates + judges
    by_model = {(row.target.provider, row.target.model): row for row in ledger.models}
    assert set(by_model) == {
        ("openai-chat", "gpt-4.1-mini"),
        ("anthropic", "claude-sonnet-4-5"),
        ("openai-chat", judge_model),
    }
    assert by_model["openai-chat", judge_model].judge_requests == 6
    assert by_model["openai-chat", judge_model].cases == 0
    assert sum(row.cost for row in ledger.models) == ledger.cost()
    data = ledger.as_dict()
    assert data["judges"]["requests"] == 6
    assert data["total"]["cost_usd"] == pytest.approx(float(candidates + judges), abs=1e-6)


def test_a_judge_prompt_is_counted_without_the_candidates_answer_and_with_its_bound():
    document = promptfoo()
    unbounded = build_ledger(document, as_configured=True)
    bounded = build_ledger(document, settings=ExportSettings(max_tokens=300), as_configured=True)
    grader = document.cases[0].graders[0]
    assert any(CANDIDATE_PLACEHOLDER in message.content for message in grader.messages)
    without_answer = TOKENS_PER_REPLY + sum(
        TOKENS_PER_MESSAGE
        + count_text(message.role)
        + count_text(message.content.replace(CANDIDATE_PLACEHOLDER, ""))
        for message in grader.messages
        if message.omitted is None
    )
    assert unbounded.cases[0].judge_input_tokens == without_answer
    assert bounded.cases[0].judge_input_tokens == without_answer + 300
    assert any("without the candidate's answer" in note for note in unbounded.notes)
    assert any("300 tokens" in note and "upper bound" in note for note in bounded.notes)


def test_a_picked_provider_prices_every_request_at_it():
    ledger = build_ledger(promptfoo(), "anthropic", ExportSettings(max_tokens=100))
    assert not ledger.as_configured
    assert [(row.target.provider, row.target.model) for row in ledger.models] == [
        ("anthropic", "claude-sonnet-4-6")  # the provider's default model
    ]
    assert ledger.models[0].cases == 6 and ledger.models[0].judge_requests == 6
    for row in ledger.cases:
        assert row.judge_cost is not None
        assert row.judge_cost.total_usd == genai_cost(
            "anthropic", "claude-sonnet-4-6", row.judge_input_tokens, 100
        )


def test_cases_whose_input_names_no_model_fall_back_to_the_picked_provider_and_say_so():
    suite = (
        "tests:\n"
        "  - id: a\n    criteria: ok\n    input:\n      - role: user\n        content: Hello\n"
        "  - id: b\n    criteria: ok\n    input:\n      - role: user\n        content: Bye\n"
    )
    document = render({"evals/suite.yaml": suite}, "evals/suite.yaml")
    ledger = build_ledger(document, "gemini", as_configured=True)
    assert ledger.fallback_cases == 2
    assert ledger.fallback_judges == 2  # agentv's run judge is not in the file
    assert [(row.target.provider, row.target.model) for row in ledger.models] == [
        ("gemini", "gemini-2.5-flash")
    ]
    assert ledger.as_dict()["fallback"] == {"provider": "gemini", "model": "gemini-2.5-flash"}
    assert any("2 judge requests name no judge" in note for note in ledger.notes)


def test_an_agentv_judge_named_by_a_provider_id_is_priced_at_that_model():
    suite = (
        'prompts:\n  - "Say {{ x }}"\n'
        "tests:\n"
        "  - id: named\n    vars: {x: a}\n    assert:\n"
        "      - {type: llm-rubric, value: polite, provider: 'anthropic:messages:claude-haiku-4-5'}\n"
        "  - id: label\n    vars: {x: b}\n    assert:\n"
        "      - {type: llm-rubric, value: polite, provider: my-judge}\n"
    )
    document = render(
        {"evals/suite.yaml": suite},
        "evals/suite.yaml",
        profile="agentv-5-next-58f316c",
        input_format="agentv",
    )
    ledger = build_ledger(document, settings=ExportSettings(max_tokens=50), as_configured=True)
    named, label = ledger.cases
    assert named.judge_cost is not None and label.judge_cost is not None
    assert named.judge_cost.total_usd == genai_cost(
        "anthropic", "claude-haiku-4-5", named.judge_input_tokens, 50
    )
    # A label names a provider of the run's configuration: priced at the fallback, and said.
    assert label.judge_cost.total_usd == genai_cost(
        "openai-chat", "gpt-5.4-mini", label.judge_input_tokens, 50
    )
    assert ledger.fallback_judges == 1


def test_a_raw_request_is_priced_at_its_own_model():
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hello there"}]}
    document = render({"request.json": json.dumps(body)}, "request.json")
    ledger = build_ledger(document, settings=ExportSettings(max_tokens=10), as_configured=True)
    (row,) = ledger.cases
    assert (row.target.provider, row.target.model) == ("openai-chat", "gpt-4o")
    assert (ledger.provider, ledger.model) == ("openai-chat", "gpt-4o")  # the cache map's too
    assert row.cost is not None and row.cost.total_usd == genai_cost(
        "openai-chat", "gpt-4o", row.input_tokens, 10
    )
    assert build_ledger(document).cases[0].target.model == "gpt-5.4-mini"  # picked: the default


def test_a_model_the_price_data_lacks_leaves_only_its_own_requests_unpriced():
    config = CONFIG.replace("openai:gpt-4.1-mini", "openai:no-such-model-9")
    ledger = build_ledger(promptfoo(config), as_configured=True)
    unpriced = [row for row in ledger.models if row.prices is None]
    assert [row.target.model for row in unpriced] == ["no-such-model-9"]
    assert "no-such-model-9" in (ledger.price_problem or "")
    priced = sum(row.cost for row in ledger.models if row.prices is not None)
    assert ledger.cost() == priced > 0
    assert all(row.cost is None for row in ledger.cases if row.target.model == "no-such-model-9")


def test_a_gambit_decks_model_prices_its_case_at_the_vendors_rates():
    deck = '+++\nlabel = "support"\n[modelParams]\nmodel = "openai/gpt-4o-mini"\n+++\n\nYou help.\n'
    document = render({"support/PROMPT.md": deck}, "support/PROMPT.md")
    ledger = build_ledger(document, settings=ExportSettings(max_tokens=20), as_configured=True)
    (row,) = ledger.cases
    assert (row.target.provider, row.target.model) == ("openai-responses", "gpt-4o-mini")
    assert row.cost is not None
    assert row.cost.total_usd == genai_cost("openai-responses", "gpt-4o-mini", row.input_tokens, 20)


def test_agentv_newest_commits_providers_price_the_run_and_its_judges():
    suite = (
        'prompts:\n  - "Say {{ x }}"\n'
        "providers:\n"
        "  - id: openai:chat\n    label: candidate\n    config: {model: gpt-4.1-mini}\n"
        "  - anthropic:messages:claude-haiku-4-5\n"
        "  - {id: 'openai:gpt-4o', label: strict-judge}\n"
        "defaults:\n  provider: candidate\n  grader: strict-judge\n"
        "tests:\n"
        "  - id: t\n    vars: {x: a}\n    assert:\n"
        "      - {type: llm-rubric, value: polite}\n"
        "      - {type: llm-rubric, value: short, provider: 'anthropic:messages:claude-haiku-4-5'}\n"
    )
    document = render(
        {"evals/suite.yaml": suite},
        "evals/suite.yaml",
        profile="agentv-5-next-58f316c",
        input_format="agentv",
    )
    ledger = build_ledger(document, settings=ExportSettings(max_tokens=30), as_configured=True)
    (row,) = ledger.cases
    assert (row.target.provider, row.target.model) == ("openai-chat", "gpt-4.1-mini")
    assert ledger.fallback_cases == 0 and ledger.fallback_judges == 0
    assert row.cost is not None
    assert row.cost.total_usd == genai_cost("openai-chat", "gpt-4.1-mini", row.input_tokens, 30)
    judges = {(model.target.provider, model.target.model): model.judge_requests for model in ledger.models}
    assert judges == {
        ("openai-chat", "gpt-4.1-mini"): 0,
        ("openai-chat", "gpt-4o"): 1,
        ("anthropic", "claude-haiku-4-5"): 1,
    }
