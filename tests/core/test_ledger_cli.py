"""`manage.py ledger` and `render --to anthropic --cache-breakpoints`, on a suite written to disk; the
cache_control payload is checked by the Anthropic SDK's request types and sent by the SDK itself."""

from __future__ import annotations

import io
import json

import anthropic
import pytest
from django.core.management import call_command

from inspector.core import prices

from ..recording import RecordingServer
from .sdk_types import build_validators

POLICY = "".join(
    f"Rule {number}: answer carefully and cite the source of every claim.\n" for number in range(200)
)


def _case(case_id: str, system: str) -> str:
    return (
        f"  - id: {case_id}\n    criteria: ok\n    input:\n      - role: system\n        content:\n"
        f"          - type: file\n            value: ../prompts/{system}\n"
        f"      - role: user\n        content: Question {case_id}\n"
    )


@pytest.fixture
def suite(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "prompts").mkdir()
    (tmp_path / "evals").mkdir()
    (tmp_path / "prompts" / "policy.md").write_text(POLICY)
    (tmp_path / "prompts" / "short.md").write_text("Be brief.\n")
    (tmp_path / "evals" / "suite.yaml").write_text(
        "tests:\n"
        + _case("a", "policy.md")
        + _case("b", "policy.md")
        + _case("c", "policy.md")
        + _case("d", "short.md")
    )
    return tmp_path / "evals" / "suite.yaml"


def run(command: str, *arguments: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        call_command(command, *arguments, stdout=out, stderr=err)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_ledger_prints_the_files_cases_cache_and_totals(suite):
    code, out, _ = run("ledger", str(suite), "--provider", "anthropic", "--max-output-tokens", "200")
    assert code == 0
    ledger = json.loads(out)
    assert {"files", "cases", "cache", "total", "prices_as_of"} <= set(ledger)
    policy = next(row for row in ledger["files"] if row["path"] == "prompts/policy.md")
    assert policy["cases"] == 3 and policy["tokens"] > 0
    assert [row["id"] for row in ledger["cases"]] == ["a", "b", "c", "d"]
    assert all(set(row) >= {"id", "input_tokens", "cost_usd"} for row in ledger["cases"])
    cache = ledger["cache"]
    assert cache["cacheable"] and cache["shared_prefix_tokens"] >= 1024
    (broken,) = cache["breaks"]
    # Case d's system text differs first in the marker naming its file, on the line referencing it.
    assert (broken["case"], broken["message"], broken["path"]) == ("d", 0, "evals/suite.yaml")
    lines = suite.read_text().splitlines()
    assert "short.md" in lines[broken["line"] - 1]
    assert ledger["total"]["cost_usd_cached"] < ledger["total"]["cost_usd"]
    assert ledger["prices_as_of"] == prices.prices_as_of()


def test_ledger_takes_the_model_and_says_when_it_has_no_price(suite):
    code, out, _ = run("ledger", str(suite), "--model", "gpt-4o")
    assert code == 0 and json.loads(out)["prices"]["model"] == "gpt-4o"
    code, out, _ = run("ledger", str(suite), "--model", "not-a-model")
    assert code == 0 and "not-a-model" in json.loads(out)["price_problem"]


def test_ledger_of_an_unusable_file_exits_2_naming_it(tmp_path):
    (tmp_path / ".git").mkdir()
    broken = tmp_path / "bad.yaml"
    broken.write_text("tests: [\n")
    code, out, err = run("ledger", str(broken))
    assert code == 2 and out == ""
    assert "bad.yaml" in err


def test_cache_breakpoints_mark_the_shared_system_prompt_and_list_it_in_changes(suite):
    code, out, _ = run("render", str(suite), "--to", "anthropic", "--cache-breakpoints")
    assert code == 0
    exported = {item["id"]: item for item in json.loads(out)}
    system = exported["a"]["payload"]["system"]
    assert system[-1]["cache_control"] == {"type": "ephemeral"}
    assert system[-1]["text"].startswith('<file path="../prompts/policy.md">')
    assert any(
        "cache_control breakpoint after the system prompt" in change["message"]
        for change in exported["a"]["changes"]
    )
    # d shares no long prefix with anyone: no mark.
    assert isinstance(exported["d"]["payload"]["system"], str)
    validate = build_validators()["anthropic"]
    for item in exported.values():
        validate(item["payload"])


def test_cache_breakpoints_need_the_anthropic_export(suite):
    code, _, err = run("render", str(suite), "--to", "openai-chat", "--cache-breakpoints")
    assert code == 2 and "--to anthropic" in err


def test_the_anthropic_sdk_sends_the_breakpoints_as_exported(suite):
    _, out, _ = run("render", str(suite), "--to", "anthropic", "--cache-breakpoints", "--case", "b")
    (item,) = json.loads(out)
    with RecordingServer() as server:
        client = anthropic.Anthropic(api_key="test", base_url=server.url, max_retries=0)
        client.messages.create(**item["payload"])
    [request] = server.requests
    assert request.json() == item["payload"]
    assert request.json()["system"][-1]["cache_control"] == {"type": "ephemeral"}


def test_ledger_prices_a_promptfoo_config_as_configured_unless_told(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "promptfooconfig.yaml").write_text(
        "prompts:\n  - 'Say {{word}}'\nproviders:\n  - openai:gpt-4.1-mini\n"
        "  - anthropic:messages:claude-sonnet-4-5\n"
        "defaultTest:\n  assert:\n    - type: llm-rubric\n      value: polite\n"
        "tests:\n  - vars: {word: hello}\n"
    )
    config = str(tmp_path / "promptfooconfig.yaml")
    code, out, _ = run("ledger", config, "--max-output-tokens", "50")
    assert code == 0
    ledger = json.loads(out)
    assert ledger["as_configured"] and ledger["judges"]["requests"] == 2
    assert {(row["provider"], row["model"]) for row in ledger["cases"]} == {
        ("openai-chat", "gpt-4.1-mini"),
        ("anthropic", "claude-sonnet-4-5"),
    }
    for row in ledger["cases"]:
        prices_provider = "anthropic" if row["provider"] == "anthropic" else "openai"
        expected = prices.request_cost(prices_provider, row["model"], row["input_tokens"], 50).total_usd
        assert row["cost_usd"] == pytest.approx(float(expected), abs=1e-6)
    code, out, _ = run("ledger", config, "--pricing", "picked", "--provider", "anthropic")
    picked = json.loads(out)
    assert code == 0 and not picked["as_configured"]
    assert [(row["model"], row["cases"], row["judge_requests"]) for row in picked["models"]] == [
        ("claude-sonnet-4-6", 2, 2)
    ]
