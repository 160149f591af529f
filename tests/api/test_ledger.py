"""GET /api/bundles/{id}/ledger and the payload endpoint's cache_breakpoints option."""

from __future__ import annotations

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.core import prices
from tests.core.test_ledger_as_configured import CONFIG as PROMPTFOO_CONFIG

from .conftest import EVAL

POLICY = "".join(
    f"Rule {number}: answer carefully and cite the source of every claim.\n" for number in range(200)
)
SUITE = "tests:\n" + "".join(
    f"  - id: {name}\n    criteria: ok\n    input:\n      - role: system\n        content:\n"
    f"          - type: file\n            value: ../prompts/policy.md\n"
    f"      - role: user\n        content: Question {name}\n"
    for name in "abc"
)


@pytest.fixture
def suite(db):
    bundle, _ = store_bundle(
        {
            "evals/suite.yaml": SUITE.encode(),
            "prompts/policy.md": POLICY.encode(),
            "other/two.yaml": EVAL.encode(),
        }
    )
    return bundle


def test_the_ledger_of_a_bundle_covers_every_document(client, suite):
    response = client.get(f"/api/bundles/{suite.pk}/ledger")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert {row["document"] for row in data["cases"]} == {"evals/suite.yaml", "other/two.yaml"}
    assert next(row for row in data["files"] if row["path"] == "prompts/policy.md")["cases"] == 3
    assert data["prices_as_of"] == prices.prices_as_of()
    assert data["cache"]["cases_sharing"] == 3 and data["cache"]["cacheable"]


def test_the_ledger_of_one_document_takes_the_export_settings(client, suite):
    response = client.get(
        f"/api/bundles/{suite.pk}/ledger",
        {
            "document": "evals/suite.yaml",
            "provider": "anthropic",
            "model": "claude-haiku-4-5",
            "max_output_tokens": 100,
        },
    )
    data = response.json()
    assert response.status_code == 200 and data["model"] == "claude-haiku-4-5"
    assert [row["id"] for row in data["cases"]] == ["a", "b", "c"]
    assert data["cache"]["minimum_tokens"] == 4096 and not data["cache"]["cacheable"]
    assert data["total"]["output_cost_usd_upper_bound"] > 0


def test_the_ledger_refuses_an_unknown_document_and_bundle(client, suite):
    assert client.get(f"/api/bundles/{suite.pk}/ledger", {"document": "nope.yaml"}).status_code == 400
    assert client.get("/api/bundles/nope/ledger").status_code == 404


def test_the_payload_endpoint_places_cache_breakpoints_for_anthropic(client, suite):
    url = f"/api/bundles/{suite.pk}/cases/b/payload"
    data = client.get(url, {"provider": "anthropic", "cache_breakpoints": "true"}).json()
    assert data["payload"]["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert any("cache_control" in change["message"] for change in data["changes"])
    plain = client.get(url, {"provider": "anthropic"}).json()
    assert isinstance(plain["payload"]["system"], str)
    refused = client.get(url, {"provider": "gemini", "cache_breakpoints": "true"})
    assert refused.status_code == 400


@pytest.fixture
def promptfoo_bundle(db):
    bundle, _ = store_bundle(
        {
            "promptfooconfig.yaml": PROMPTFOO_CONFIG.encode(),
            "questions.csv": b"question\nWhat is two plus two?\nWho wrote Hamlet?\n",
        }
    )
    return bundle


def test_the_ledger_prices_each_evaluation_at_its_own_model_and_counts_the_judges(client, promptfoo_bundle):
    url = f"/api/bundles/{promptfoo_bundle.pk}/ledger"
    data = client.get(url, {"max_output_tokens": "100"}).json()
    assert data["as_configured"] is True and data["fallback_cases"] == 0
    assert data["fallback"] == {"provider": "openai-chat", "model": "gpt-5.4-mini"}
    assert [(row["provider"], row["model"]) for row in data["cases"]] == [
        ("openai-chat", "gpt-4.1-mini"),
        ("anthropic", "claude-sonnet-4-5"),
    ] * 2
    assert data["judges"]["requests"] == 4 and all(row["judge_requests"] == 1 for row in data["cases"])
    models = {(row["provider"], row["model"]): row for row in data["models"]}
    assert len(models) == 3  # the two candidates' models and the judge's
    for row in data["cases"]:
        expected = prices.request_cost(
            "anthropic" if row["provider"] == "anthropic" else "openai",
            row["model"],
            row["input_tokens"],
            100,
        )
        assert row["cost_usd"] == pytest.approx(float(expected.total_usd), abs=1e-6)
    assert data["total"]["cost_usd"] == pytest.approx(
        sum(row["cost_usd"] for row in data["models"]), abs=1e-5
    )
    assert data["judges"]["cost_usd"] > 0


def test_pricing_picked_prices_every_request_at_the_provider(client, promptfoo_bundle):
    url = f"/api/bundles/{promptfoo_bundle.pk}/ledger"
    data = client.get(url, {"pricing": "picked", "provider": "gemini"}).json()
    assert data["as_configured"] is False
    assert [
        (row["provider"], row["model"], row["cases"], row["judge_requests"]) for row in data["models"]
    ] == [("gemini", "gemini-2.5-flash", 4, 4)]
    assert client.get(url, {"pricing": "cheapest"}).status_code == 422
