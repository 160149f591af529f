import pytest

from inspector.core.model import Message, Origin, OriginKind, RenderedCase, Segment
from inspector.core.tokens import (
    TOKENS_PER_MESSAGE,
    case_tokens,
    count_text,
    count_texts,
    message_token_counts,
    provider_count,
    segment_token_counts,
)


def test_counts_are_exact_for_both_openai_encodings():
    # Reference values from tiktoken for these strings.
    assert count_text("hello world", "o200k_base") == 2
    assert count_text("hello world", "cl100k_base") == 2
    assert count_texts(["", "tiktoken is great!"], "cl100k_base") == [0, 6]
    assert count_text("🧠", "cl100k_base") == 3


def test_an_unknown_encoding_is_refused():
    with pytest.raises(ValueError, match="unknown encoding"):
        count_text("x", "p50k_base")


def test_per_message_counts_include_role_content_and_tool_fields():
    plain = Message("user", [Segment("hello world", Origin(OriginKind.CASE_TEXT))])
    assert message_token_counts([plain]) == [count_text("user") + 2 + TOKENS_PER_MESSAGE]


def test_per_segment_counts_follow_the_segments():
    message = Message(
        "system",
        [
            Segment("Base prompt.", Origin(OriginKind.DEFAULT_PROMPT)),
            Segment("\n\n", Origin(OriginKind.SEPARATOR)),
            Segment("Guideline text here.", Origin(OriginKind.GUIDELINE)),
        ],
    )
    assert segment_token_counts(message) == count_texts(["Base prompt.", "\n\n", "Guideline text here."])


def test_case_totals_leave_out_omitted_messages():
    kept = Message("user", [Segment("kept", Origin(OriginKind.CASE_TEXT))])
    gone = Message("user", [Segment("gone " * 50, Origin(OriginKind.CASE_TEXT))], omitted="budget")
    tokens = case_tokens(RenderedCase("c", [gone, kept]))
    assert tokens.exact and tokens.messages[0] > tokens.messages[1]
    assert tokens.sent_total == tokens.messages[1] + 3


def test_anthropic_and_gemini_counts_are_labelled_estimates():
    assert provider_count("hello world", "openai").label == "2 tokens"
    for provider in ("anthropic", "gemini"):
        count = provider_count("hello world", provider)
        assert not count.exact and count.label == "~2 tokens (estimate)"
    assert not case_tokens(RenderedCase("c", []), provider="anthropic").exact
