"""The token ledger, its prices and the prompt-cache map, on suites built here."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from inspector.core import prices
from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.export import ExportSettings
from inspector.core.export.registry import REGISTRY
from inspector.core.ledger import build_ledger, cache_marks
from inspector.core.model import Message, Origin, OriginKind, RenderedCase, Segment
from inspector.core.options import RenderOptions
from inspector.core.tokens import case_tokens, count_text

# Long enough to pass every provider's minimum for its default model (2,048 for Gemini 2.5 Flash).
POLICY = "".join(
    f"Rule {number}: answer carefully and cite the source of every claim.\n" for number in range(200)
)
POLICY_LINES = POLICY.splitlines()


def _file_case(case_id: str, question: str, prompt: str = "policy.md") -> str:
    return (
        f"  - id: {case_id}\n    criteria: ok\n    input:\n      - role: system\n        content:\n"
        f"          - type: file\n            value: ../prompts/{prompt}\n"
        f"      - role: user\n        content: {question}\n"
    )


def _inline_case(case_id: str, lines: list[str]) -> str:
    body = "".join(f"          {line}\n" for line in lines)
    return (
        f"  - id: {case_id}\n    criteria: ok\n    input:\n      - role: system\n"
        f"        content: |-\n{body}      - role: user\n        content: Question {case_id}\n"
    )


def render(yaml: str, files: dict[str, str] | None = None):
    bundle = {"evals/suite.yaml": yaml, "prompts/policy.md": POLICY, **(files or {})}
    return render_document(
        MemoryBundle({path: text.encode() for path, text in bundle.items()}),
        "evals/suite.yaml",
        RenderOptions(),
    )


def test_each_file_counts_its_text_once_per_case_that_sends_it():
    document = render(
        "tests:\n"
        + _file_case("a", "First?")
        + _file_case("b", "Second?")
        + "  - id: c\n    criteria: ok\n    input:\n      - role: user\n        content: Alone\n"
    )
    ledger = build_ledger(document, "openai-chat")
    rows = {row.path: row for row in ledger.files}
    assert rows["prompts/policy.md"].cases == 2
    assert rows["prompts/policy.md"].tokens == 2 * count_text(POLICY)
    assert rows["evals/suite.yaml"].cases == 3
    assert ledger.exact and ledger.encoding == "o200k_base"
    assert ledger.files[0].path == "prompts/policy.md"  # the costliest file first


def test_a_cases_input_is_what_the_case_page_counts():
    document = render("tests:\n" + _file_case("a", "First?") + _file_case("b", "Second?"))
    ledger = build_ledger(document, "openai-chat")
    for case, row in zip(document.cases, ledger.cases, strict=True):
        assert row.input_tokens == case_tokens(case).sent_total
    assert ledger.as_dict()["total"]["input_tokens"] == sum(row.input_tokens for row in ledger.cases)


def test_counts_for_providers_without_a_tokenizer_are_labelled_estimates():
    document = render("tests:\n" + _file_case("a", "First?"))
    ledger = build_ledger(document, "anthropic").as_dict()
    assert ledger["tokenizer"] == {"encoding": "o200k_base", "exact": False}
    assert ledger["total"]["input_tokens_exact"] is False


def test_the_cost_is_the_price_datas_rate_times_the_tokens():
    document = render("tests:\n" + _file_case("a", "First?") + _file_case("b", "Second?"))
    ledger = build_ledger(document, "anthropic", ExportSettings(max_tokens=500))
    rates = prices.model_prices("anthropic", "claude-sonnet-4-5")
    for row in ledger.cases:
        expected = (row.input_tokens * rates.input_mtok + 500 * rates.output_mtok) / 1_000_000
        assert row.cost is not None and row.cost.total_usd == expected
    # Each case's judge (its `criteria` grader) writes up to 500 tokens too.
    assert ledger.judge_requests == 2
    assert ledger.as_dict()["total"]["output_cost_usd_upper_bound"] == pytest.approx(
        float((2 + 2) * 500 * rates.output_mtok / 1_000_000)
    )


def test_the_price_data_agrees_with_the_providers_published_prices():
    # Checked by hand on the providers' pricing pages (USD per million tokens); a failure means the
    # data changed upstream: check the page again before changing these.
    published = {
        ("openai", "gpt-4.1-mini"): ("0.4", "1.6", "0.1", None),
        ("openai", "gpt-4o"): ("2.5", "10", "1.25", None),
        ("anthropic", "claude-sonnet-4-5"): ("3", "15", "0.3", "3.75"),
        ("anthropic", "claude-haiku-4-5"): ("1", "5", "0.1", "1.25"),
        ("google", "gemini-2.5-flash"): ("0.3", "2.5", "0.03", None),
    }
    for (provider, model), figures in published.items():
        found = prices.model_prices(provider, model)
        expected = tuple(None if value is None else Decimal(value) for value in figures)
        assert (
            found.input_mtok,
            found.output_mtok,
            found.cache_read_mtok,
            found.cache_write_mtok,
        ) == expected, model


def test_output_is_left_unpriced_without_max_output_tokens():
    document = render("tests:\n" + _file_case("a", "First?"))
    ledger = build_ledger(document, "openai-chat").as_dict()
    assert ledger["total"]["output_cost_usd_upper_bound"] is None
    assert any("max output tokens" in note for note in ledger["notes"])


@pytest.mark.parametrize("provider", sorted(REGISTRY))
def test_no_provider_prices_output_unless_asked(provider):
    # Anthropic's API requires max_tokens, so its default (1,024) once priced output for it alone.
    document = render("tests:\n" + _file_case("a", "First?"))
    ledger = build_ledger(document, provider).as_dict()
    assert ledger["price_problem"] is None
    assert ledger["total"]["output_cost_usd_upper_bound"] is None, provider
    assert any("output is not priced" in note for note in ledger["notes"]), provider
    asked = build_ledger(document, provider, ExportSettings(max_tokens=100)).as_dict()
    assert asked["total"]["output_cost_usd_upper_bound"] > 0


def test_an_unknown_model_is_a_price_problem_not_a_crash():
    document = render("tests:\n" + _file_case("a", "First?"))
    ledger = build_ledger(document, "openai-chat", ExportSettings(model="no-such-model-9")).as_dict()
    assert ledger["total"]["cost_usd"] is None
    assert "no-such-model-9" in ledger["price_problem"]


def test_the_price_datas_date_is_a_past_date():
    as_of = date.fromisoformat(prices.prices_as_of())
    assert as_of <= date.today()


def test_cases_sharing_a_long_system_prompt_form_the_cached_prefix():
    document = render(
        "tests:\n"
        + _file_case("a", "Question A")
        + _file_case("b", "Question B")
        + _file_case("c", "Question C")
        + "  - id: d\n    criteria: ok\n    input:\n      - role: user\n        content: Hi\n"
    )
    for provider in ("openai-chat", "anthropic", "gemini"):
        cache = build_ledger(document, provider).cache
        assert cache.group == [0, 1, 2], provider
        assert cache.cacheable
        assert [item.case for item in cache.breaks] == ["d"]
    openai = build_ledger(document, "openai-chat").cache
    # OpenAI caches any prefix: it runs into the user message as far as the questions agree.
    assert openai.cached_chars(0, document.cases[0])[1] == len("Question ")
    assert openai.cached_tokens % 128 == 0 and openai.cached_tokens <= openai.shared_prefix_tokens
    anthropic = build_ledger(document, "anthropic").cache
    assert 1 not in anthropic.cached_chars(0, document.cases[0])  # only whole blocks


def test_a_break_names_the_file_and_line_where_the_text_first_differs():
    changed = list(POLICY_LINES)
    changed[57] = "Rule 57: answer briefly."
    document = render(
        "tests:\n"
        + _inline_case("a", POLICY_LINES)
        + _inline_case("b", POLICY_LINES)
        + _inline_case("c", changed)
    )
    cache = build_ledger(document, "anthropic").cache
    assert cache.group == [0, 1]
    (found,) = cache.breaks
    text = (
        "tests:\n"
        + _inline_case("a", POLICY_LINES)
        + _inline_case("b", POLICY_LINES)
        + _inline_case("c", changed)
    )
    line = text.splitlines().index("          Rule 57: answer briefly.") + 1
    assert (found.case, found.message, found.path, found.line) == ("c", 0, "evals/suite.yaml", line)


def test_a_short_shared_prefix_is_not_cacheable():
    document = render("tests:\n" + _inline_case("a", ["Be brief."]) + _inline_case("b", ["Be brief."]))
    cache = build_ledger(document, "anthropic").cache
    assert cache.group == [0, 1]
    assert not cache.cacheable and cache.cached_tokens == 0
    ledger = build_ledger(document, "anthropic", ExportSettings(max_tokens=10))
    assert ledger.cost(cached=True) == ledger.cost()


def test_caching_lowers_the_suites_cost_by_the_price_datas_multipliers():
    document = render("tests:\n" + "".join(_file_case(name, f"Question {name}") for name in "abcd"))
    ledger = build_ledger(document, "anthropic", ExportSettings(max_tokens=100))
    rates = prices.model_prices("anthropic", "claude-sonnet-4-5")
    cached = ledger.cache.cached_tokens
    assert cached >= 1024
    uncached, with_cache = ledger.cost(), ledger.cost(cached=True)
    assert uncached is not None and with_cache is not None
    # One write at the write rate, three reads at the read rate, in place of four plain inputs.
    saving = (
        4 * cached * rates.input_mtok - cached * rates.cache_write_mtok - 3 * cached * rates.cache_read_mtok
    ) / 1_000_000
    assert uncached - with_cache == saving


def test_the_minimum_cacheable_length_depends_on_the_model():
    cache = REGISTRY["anthropic"].billing.cache
    assert cache.minimum("claude-sonnet-4-5-20250929") == (1024, True)
    assert cache.minimum("claude-3-5-haiku-20241022") == (2048, True)
    assert cache.minimum("claude-haiku-4-5") == (4096, True)
    assert cache.minimum("claude-unknown-9") == (4096, False)
    assert REGISTRY["openai-chat"].billing.cache.minimum("gpt-4.1-mini") == (1024, True)
    assert REGISTRY["gemini"].billing.cache.minimum("gemini-2.5-flash") == (2048, True)


def test_a_model_below_its_minimum_is_not_cacheable():
    document = render("tests:\n" + "".join(_file_case(name, f"Question {name}") for name in "abc"))
    tokens = build_ledger(document, "anthropic").cache.shared_prefix_tokens
    assert 2048 < tokens < 4096
    assert build_ledger(document, "anthropic").cache.cacheable
    assert not build_ledger(document, "anthropic", ExportSettings(model="claude-haiku-4-5")).cache.cacheable


def test_cache_marks_end_each_shared_prefix_at_most_four():
    document = render("tests:\n" + "".join(_file_case(name, f"Question {name}") for name in "abc"))
    ledger = build_ledger(document, "anthropic")
    marks = cache_marks(ledger, 0)
    assert [(mark.kind, mark.cases) for mark in marks] == [("system", 3)]
    assert len(cache_marks(ledger, 0)) <= 4


def _two_system_case(case_id: str, second: str) -> RenderedCase:
    """Two system messages, as a raw request sends them (the agentv profiles join them in one)."""

    def text(value: str, path: str) -> list[Segment]:
        return [Segment(value, Origin(OriginKind.FILE, path, 1, value.count("\n") + 1))]

    return RenderedCase(
        case_id,
        [
            Message("system", text("Be careful.", "prompts/first.md")),
            Message("system", text(second, "prompts/second.md")),
            Message("user", text("Go", "evals/suite.yaml")),
        ],
    )


def test_a_break_in_the_joined_system_text_names_the_message_it_came_from():
    changed = list(POLICY_LINES)
    changed[120] = "Rule 120: never mind."
    cases = [
        _two_system_case("a", POLICY),
        _two_system_case("b", POLICY),
        _two_system_case("c", "\n".join(changed) + "\n"),
    ]
    (found,) = build_ledger(cases, "anthropic").cache.breaks
    # Anthropic sends both system messages first, joined: the break is in the second, line 121.
    assert (found.case, found.message, found.path, found.line) == ("c", 1, "prompts/second.md", 121)


def test_messages_in_different_roles_share_no_part_of_their_text():
    text = "tests:\n" + "".join(
        f"  - id: {name}\n    criteria: ok\n    input:\n      - role: {role}\n        content: |-\n"
        + "".join(f"          {line}\n" for line in POLICY_LINES)
        for name, role in (("a", "user"), ("b", "system"))
    )
    cache = build_ledger(render(text), "openai-chat").cache
    assert cache.shared_prefix_tokens == 0 and not cache.cacheable


def test_a_bedrock_suite_is_priced_from_the_price_datas_aws_entry():
    # Amazon Nova Lite on Bedrock: $0.06 input and $0.24 output per million tokens, as AWS lists it.
    found = prices.model_prices("aws", "amazon.nova-lite-v1:0")
    assert (found.input_mtok, found.output_mtok) == (Decimal("0.06"), Decimal("0.24"))
    document = render("tests:\n" + _file_case("a", "One?") + _file_case("b", "Two?"))
    ledger = build_ledger(document.cases, "bedrock-converse", ExportSettings(max_tokens=100))
    assert ledger.prices is not None and ledger.cases[0].cost is not None
    assert ledger.cache.minimum == 1024 and ledger.cache.cacheable
    assert any("cachePoint" in note and "this export does not place them" in note for note in ledger.notes)


def _policy_then_question_case(case_id: str, question: str) -> str:
    """The shared policy and the case's question in one system message: one block per case."""
    return (
        f"  - id: {case_id}\n    criteria: ok\n    input:\n      - role: system\n        content:\n"
        f"          - type: file\n            value: ../prompts/policy.md\n"
        f"          - type: text\n            value: {question}\n"
        f"      - role: user\n        content: Go.\n"
    )


def test_a_shared_file_in_each_cases_block_gets_a_hint_to_split_it_where_blocks_are_marked():
    document = render(
        "tests:\n" + _policy_then_question_case("a", "First?") + _policy_then_question_case("b", "Second?")
    )
    marked = build_ledger(document, "anthropic").as_dict()
    assert not marked["cache"]["cacheable"]
    [hint] = [note for note in marked["notes"] if "block of its own" in note]
    assert hint.startswith("prompts/policy.md (") and "sent by 2 cases" in hint
    automatic = build_ledger(document, "openai-chat").as_dict()
    assert automatic["cache"]["cacheable"]  # a prefix of a block is cached there
    assert not any("block of its own" in note for note in automatic["notes"])


def test_no_split_hint_when_the_shared_file_already_has_its_own_block():
    document = render("tests:\n" + _file_case("a", "First?") + _file_case("b", "Second?"))
    ledger = build_ledger(document, "anthropic").as_dict()
    assert not any("block of its own" in note for note in ledger["notes"])


def test_a_case_the_tool_skips_is_not_priced_and_is_counted_apart():
    # agentv skips a test with no assertion: a run sends it nothing.
    suite = "tests:\n  - id: kept\n    criteria: ok\n    input: Hello\n  - id: skipped\n    input: Hello\n"
    document = render_document(MemoryBundle({"evals/suite.yaml": suite.encode()}), "evals/suite.yaml")
    assert [bool(case.skipped) for case in document.cases] == [False, True]
    ledger = build_ledger(document)
    assert [row.id for row in ledger.cases] == ["kept"]
    assert ledger.not_run == 1 and ledger.as_dict()["not_run"] == 1
