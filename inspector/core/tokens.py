"""Token counts, offline: exact for OpenAI's encodings, labelled estimates for everyone else.

`toktok` carries cl100k_base and o200k_base inside its wheel, so nothing is fetched at run time
(tiktoken would download its BPE files on first use). Anthropic and Gemini publish no local
tokenizer; their counts are the o200k_base count, flagged as an estimate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import toktok

from .export.image_tokens import openai as openai_image_tokens
from .export.registry import provider as provider_spec
from .model import Media, Message, RenderedCase

ImageTokens = Callable[[Media], int]

EXACT_ENCODINGS = ("o200k_base", "cl100k_base")
# Chat formatting adds a few tokens per message (role and delimiters) on top of the content;
# OpenAI's cookbook counts 3 per message and 3 to prime the reply.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_REPLY = 3


@dataclass(frozen=True, slots=True)
class TokenCount:
    tokens: int
    encoding: str
    exact: bool

    @property
    def label(self) -> str:
        return f"{self.tokens:,} tokens" if self.exact else f"~{self.tokens:,} tokens (estimate)"


def check_encoding(encoding: str) -> str:
    if encoding not in EXACT_ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; choose one of {', '.join(EXACT_ENCODINGS)}")
    return encoding


def count_texts(texts: Iterable[str], encoding: str = "o200k_base") -> list[int]:
    """Exact token counts of each text, in order."""
    return toktok.batch_count(list(texts), check_encoding(encoding))


def count_text(text: str, encoding: str = "o200k_base") -> int:
    return count_texts([text], encoding)[0]


def message_texts(message: Message, content: str | None = None) -> list[str]:
    """What a message contributes to the prompt: its content (given when known: joining its
    segments again is the ledger's costliest step), name and tool calls."""
    texts = [message.role, message.content if content is None else content]
    if message.name:
        texts.append(message.name)
    for call in message.tool_calls:
        texts += [call.id, call.name, call.arguments]
    if message.tool_call_id:
        texts.append(message.tool_call_id)
    return texts


def message_token_counts(
    messages: Sequence[Message], encoding: str = "o200k_base", image_tokens: ImageTokens = openai_image_tokens
) -> list[int]:
    """Tokens each message costs in a chat request (content, images, per-message overhead)."""
    texts: list[str] = []
    bounds: list[int] = []
    for message in messages:
        texts.extend(message_texts(message))
        bounds.append(len(texts))
    counts = count_texts(texts, encoding)
    result, start = [], 0
    for message, end in zip(messages, bounds, strict=True):
        media = (
            sum(image_tokens(s.media) for s in message.segments if s.media is not None)
            if message.blocks is not None
            else 0
        )
        result.append(sum(counts[start:end]) + media + TOKENS_PER_MESSAGE)
        start = end
    return result


def segment_token_counts(
    message: Message, encoding: str = "o200k_base", image_tokens: ImageTokens = openai_image_tokens
) -> list[int]:
    """Tokens of each segment of a message counted alone (BPE merges across a boundary can make
    the sum differ from the message's count by a token or two); an image its provider's cost."""
    counts = count_texts([segment.text for segment in message.segments], encoding)
    if message.blocks is None:
        return counts
    return [
        image_tokens(segment.media) if segment.media is not None else count
        for segment, count in zip(message.segments, counts, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class CaseTokens:
    encoding: str
    exact: bool
    messages: list[int]  # per message, every message including omitted ones
    segments: list[list[int]]
    sent_total: int  # what the sent messages cost, reply priming included

    def label(self, tokens: int) -> str:
        return TokenCount(tokens, self.encoding, self.exact).label


def case_tokens(case: RenderedCase, encoding: str = "o200k_base", provider: str | None = None) -> CaseTokens:
    exact = True
    image_tokens: ImageTokens = openai_image_tokens
    if provider is not None:
        encoding, exact = provider_encoding(provider)
        if provider != "openai":
            image_tokens = provider_spec(provider).image_tokens
    per_message = message_token_counts(case.messages, encoding, image_tokens)
    per_segment = [segment_token_counts(message, encoding, image_tokens) for message in case.messages]
    sent = sum(
        count for count, message in zip(per_message, case.messages, strict=True) if message.omitted is None
    )
    return CaseTokens(encoding, exact, per_message, per_segment, sent + TOKENS_PER_REPLY)


def provider_encoding(provider: str) -> tuple[str, bool]:
    """(encoding to count with, whether the count is exact) for a provider name; "openai" stands
    for both OpenAI APIs."""
    if provider == "openai":
        return "o200k_base", True
    spec = provider_spec(provider)
    return spec.encoding, spec.exact_tokens


def provider_count(text: str, provider: str) -> TokenCount:
    """A text's count as a given provider would bill it, labelled an estimate when it is one."""
    encoding, exact = provider_encoding(provider)
    return TokenCount(count_text(text, encoding), encoding, exact)
