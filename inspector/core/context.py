"""The context builder (seed 001): from a conversation and a system prompt to the messages sent.

System prompt first, every message in order with its role mapped, tool calls and tool results in
OpenAI's shape. With a token budget the oldest turns go first; the leading system messages always
stay, a tool call never loses its results (they are dropped together), and the result says what
was dropped and why. Nothing else is protected: a budget smaller than the conversation's last turn
drops that turn too, and the warning says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .model import Diagnostic, Message, Origin, OriginKind, RenderedCase, Segment
from .serialize import chat_message
from .tokens import TOKENS_PER_REPLY, message_token_counts

# Roles other tools use, mapped to the ones the chat API knows; unknown roles pass through.
ROLE_MAP = {
    "human": "user",
    "ai": "assistant",
    "bot": "assistant",
    "model": "assistant",
    "function": "tool",
}
KEPT_ROLES = ("system", "developer")


@dataclass(slots=True)
class BudgetPlan:
    dropped: list[int]  # indexes into the messages considered, oldest first
    tokens_before: int
    tokens_after: int
    max_tokens: int

    @property
    def fits(self) -> bool:
        return self.tokens_after <= self.max_tokens

    def reason(self) -> str:
        return f"dropped to fit the {self.max_tokens:,}-token budget"

    def summary(self) -> str:
        text = (
            f"{len(self.dropped)} oldest message(s) dropped to fit the {self.max_tokens:,}-token "
            f"budget: {self.tokens_before:,} tokens before, {self.tokens_after:,} after (counting "
            f"each message's few tokens of role overhead). The system prompt and the latest user "
            f"message are kept, tool calls stay with their results, and what is left opens on a "
            f"user message"
        )
        if not self.fits:
            text += (
                f"; still over budget: the system prompt and the latest exchange alone take "
                f"{self.tokens_after:,} tokens"
            )
        return text


@dataclass(slots=True)
class ContextResult:
    messages: list[dict[str, Any]]  # what is sent, in OpenAI chat shape
    dropped: list[Message] = field(default_factory=list)
    warning: str | None = None


def map_role(role: str) -> str:
    return ROLE_MAP.get(role.lower(), role) if isinstance(role, str) else role


def _turns(messages: Sequence[Message], start: int) -> list[list[int]]:
    """Groups of message indexes that are dropped together: an assistant message with tool calls
    and the tool results that answer it; every other message on its own."""
    turns: list[list[int]] = []
    open_calls: dict[str, list[int]] = {}
    for index in range(start, len(messages)):
        message = messages[index]
        if message.role == "tool" and message.tool_call_id in open_calls:
            open_calls[message.tool_call_id].append(index)
            continue
        turn = [index]
        turns.append(turn)
        for call in message.tool_calls:
            open_calls[call.id] = turn
    return turns


def plan_budget(messages: Sequence[Message], max_tokens: int, encoding: str = "o200k_base") -> BudgetPlan:
    """Which messages to drop, oldest turn first, so the rest fit in `max_tokens`.

    The leading system messages and the latest user message with what follows it (what the model
    is asked to answer) are never dropped: a request without them is no longer the case under inspection, so an impossible budget
    is reported as still over budget instead. Once older turns are gone, the rest must not open on an
    assistant reply or a tool result, which providers reject or misread."""
    counts = message_token_counts(messages, encoding)
    total = sum(counts) + TOKENS_PER_REPLY
    kept_prefix = 0
    while kept_prefix < len(messages) and messages[kept_prefix].role in KEPT_ROLES:
        kept_prefix += 1
    dropped: list[int] = []
    remaining = total
    turns = _turns(messages, kept_prefix)
    last_user = max(
        (index for index, turn in enumerate(turns) if messages[turn[0]].role == "user"),
        default=len(turns) - 1,
    )
    droppable = turns[:last_user]
    position = 0
    while position < len(droppable) and remaining > max_tokens:
        turn = droppable[position]
        dropped.extend(turn)
        remaining -= sum(counts[index] for index in turn)
        position += 1
    if dropped:
        while position < len(droppable) and messages[droppable[position][0]].role != "user":
            turn = droppable[position]
            dropped.extend(turn)
            remaining -= sum(counts[index] for index in turn)
            position += 1
    dropped.sort()
    return BudgetPlan(dropped, total, remaining, max_tokens)


def apply_budget(case: RenderedCase, max_tokens: int, encoding: str = "o200k_base") -> BudgetPlan:
    """Mark the messages that do not fit as omitted, with the reason, and warn on the case."""
    if max_tokens < 1:
        raise ValueError("the token budget must be a positive number")
    sent = case.sent_messages
    plan = plan_budget(sent, max_tokens, encoding)
    for index in plan.dropped:
        sent[index].omitted = plan.reason()
    if plan.dropped or not plan.fits:
        case.warnings.append(Diagnostic(plan.summary()))
    return plan


def build_context(
    conversation: Sequence[Message],
    system_prompt: str | None = None,
    max_tokens: int | None = None,
    encoding: str = "o200k_base",
) -> ContextResult:
    """Seed 001's ContextBuilder: the message array for the model, system prompt first."""
    messages: list[Message] = []
    if system_prompt:
        messages.append(Message("system", [Segment(system_prompt, Origin(OriginKind.DEFAULT_PROMPT))]))
    for message in conversation:
        mapped = map_role(message.role)
        if mapped != message.role:
            message = Message(
                mapped, message.segments, message.name, message.tool_calls, message.tool_call_id, message.span
            )
        messages.append(message)
    dropped_indexes: set[int] = set()
    warning = None
    if max_tokens is not None:
        plan = plan_budget(messages, max_tokens, encoding)
        dropped_indexes = set(plan.dropped)
        if plan.dropped or not plan.fits:
            warning = plan.summary()
    return ContextResult(
        messages=[chat_message(m) for i, m in enumerate(messages) if i not in dropped_indexes],
        dropped=[m for i, m in enumerate(messages) if i in dropped_indexes],
        warning=warning,
    )
