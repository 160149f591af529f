"""GET /api/bundles/{id}/ledger and the payload endpoint's cache_breakpoints option."""

from __future__ import annotations

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.core import prices

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
