"""The diff API: a revision against its parent, and one bundle under two settings."""

import pytest

from inspector.api.diff import DiffQuery
from inspector.bundles.ingest import store_bundle
from inspector.diffs import comparison
from tests.api.test_review import FILES, GUIDE
from tests.web.test_agentv5_next_pages import BUILT_IN, OWN_AGENT


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


# agentv's main with an llm-rubric that names no judge of its own: the run's judge setting
# (agentv's --grader-provider) replaces its request, the agent-rubric's stays.
@pytest.fixture
def judged(db):
    bundle, _ = store_bundle({"evals/suite.yaml": OWN_AGENT}, title="own agent")
    return bundle


def side_text(message, op):
    """The message's text on the side whose own runs are `op` ("-" old, "+" new)."""
    return "".join(text for kind, text in message["words"] if kind in ("=", op))


def judge_rows(data):
    return [(g["name"], g["status"], g["old_judge"], g["new_judge"]) for g in data["graders"]]


def test_the_runs_judge_on_one_side_changes_that_judges_request_only(client, judged):
    query = {"old": judged.pk, "new": judged.pk, "new_grader_provider": "agentv"}
    data = client.get("/api/diff", query).json()
    assert data["summary"] == {"changed": 1, "added": 0, "removed": 0, "unchanged": 0}
    [case] = data["changed"]
    assert case["messages"] == []  # what the candidate model is sent is the same
    assert judge_rows(case) == [("llm-rubric", "changed", "grader-a", "agentv")]
    system = case["graders"][0]["messages"][0]
    assert system["new_role"] == "system" and BUILT_IN in side_text(system, "+")
    assert BUILT_IN not in side_text(system, "-")
    one = client.get("/api/diff/case", {**query, "document": "evals/suite.yaml", "case": "docs"}).json()
    assert judge_rows(one) == [
        ("llm-rubric", "changed", "grader-a", "agentv"),
        ("agent-rubric", "unchanged", "agent-judge", "agent-judge"),
    ]


def test_a_shared_runs_judge_applies_to_both_sides(client, judged):
    query = {"old": judged.pk, "new": judged.pk, "grader_provider": "agentv"}
    assert client.get("/api/diff", query).json()["summary"]["unchanged"] == 1
    one = client.get("/api/diff/case", {**query, "document": "evals/suite.yaml", "case": "docs"}).json()
    assert judge_rows(one)[0] == ("llm-rubric", "unchanged", "agentv", "agentv")


def test_a_side_takes_the_gambit_run_input(client, db):
    deck = '+++\n[modelParams]\nmodel = "openai/gpt-4o-mini"\n+++\n\nYou help.\n'
    bundle, _ = store_bundle({"support/PROMPT.md": deck.encode()}, title="gambit")
    data = client.get(
        "/api/diff", {"old": bundle.pk, "new": bundle.pk, "new_gambit_message": "Where is my order?"}
    ).json()
    [case] = data["changed"]
    assert [m["status"] for m in case["messages"]] == ["added"]
    assert case["messages"][0]["words"] == [["+", "Where is my order?"]]


def test_a_bad_judge_or_gambit_setting_is_refused_in_words(client, judged):
    sides = {"old": judged.pk, "new": judged.pk}
    refused = client.get("/api/diff", {**sides, "new_grader_provider": "judge"})
    assert refused.status_code == 422 and "new_grader_provider" in refused.json()["detail"]
    refused = client.get("/api/diff", {**sides, "grader_provider": ""})
    assert refused.status_code == 422 and "grader_provider" in refused.json()["detail"]
    both = {"gambit_context": "{}", "old_gambit_context_sample": "order"}
    refused = client.get("/api/diff", {**sides, **both})
    assert refused.status_code == 400 and "not both" in refused.json()["detail"]
    refused = client.get(
        "/api/diff/case", {**sides, "document": "d", "case": "c", "new_gambit_message": "x" * 1_000_001}
    )
    assert refused.status_code == 400 and "longer than 1,000,000" in refused.json()["detail"]


def test_the_diff_query_takes_every_setting_of_a_side_shared_and_per_side():
    fields = set(DiffQuery.model_fields)
    for key in set(comparison.SIDE_KEYS) - {"patterns_mode"}:  # absent patterns mean the config's
        assert {key, f"old_{key}", f"new_{key}"} <= fields, key
