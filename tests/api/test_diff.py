"""The diff API: a revision against its parent, and one bundle under two settings."""

import pytest

from inspector.bundles.ingest import store_bundle
from tests.api.test_review import FILES, GUIDE


@pytest.fixture
def revision(db):
    parent, _ = store_bundle(FILES)
    child, _ = store_bundle(
        dict(FILES, **{"evals/rules.instructions.md": GUIDE.replace(b"bugs", b"real bugs")}), parent=parent
    )
    return parent, child


def test_a_revision_against_its_parent_counts_cases_and_names_the_changed_lines(client, revision):
    parent, child = revision
    data = client.get("/api/diff", {"old": parent.pk, "new": child.pk}).json()
    assert data["summary"] == {"changed": 2, "added": 0, "removed": 0, "unchanged": 0}
    assert data["because"] == [{"path": "evals/rules.instructions.md", "lines": [3, 3], "cases": 2}]
    assert data["tokens"]["delta"] == data["tokens"]["new"] - data["tokens"]["old"] > 0


def test_one_case_with_its_payload_diff(client, revision):
    parent, child = revision
    data = client.get(
        "/api/diff/case",
        {"old": parent.pk, "new": child.pk, "document": "evals/suite.yaml", "case": "second"},
    ).json()
    assert data["status"] == "changed" and data["payload"]["old"]["messages"]
    assert any(op == "+" and "real bugs" in line for op, line in data["payload"]["lines"])


def test_one_bundle_under_two_providers_differs_only_in_the_payload(client, revision):
    parent, _ = revision
    query = {"old": parent.pk, "new": parent.pk, "old_provider": "openai-chat", "new_provider": "anthropic"}
    assert client.get("/api/diff", query).json()["summary"]["unchanged"] == 2
    data = client.get("/api/diff/case", {**query, "document": "evals/suite.yaml", "case": "first"}).json()
    assert "system" in data["payload"]["new"] and data["payload"]["old"] != data["payload"]["new"]


def test_one_bundle_under_two_system_prompts(client, revision):
    parent, _ = revision
    data = client.get(
        "/api/diff", {"old": parent.pk, "new": parent.pk, "new_system_prompt": "Be terse."}
    ).json()
    assert data["summary"]["changed"] == 1  # only the case without a system message gets the default


def test_errors(client, revision):
    parent, _ = revision
    assert client.get("/api/diff", {"old": "nope", "new": parent.pk}).status_code == 404
    assert (
        client.get("/api/diff", {"old": parent.pk, "new": parent.pk, "old_profile": "x"}).status_code == 422
    )
    assert (
        client.get(
            "/api/diff/case",
            {"old": parent.pk, "new": parent.pk, "document": "evals/suite.yaml", "case": "nope"},
        ).status_code
        == 404
    )
