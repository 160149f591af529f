"""A gambit scenario deck (the synthetic user of `gambit scenario`) given a conversation, as
src/commands/test_bot.ts runs it (gambit 1.0.0-rc.2): after each of the deck under test's
replies, the scenario deck is called with that reply as its user message (a string as it is,
other content as JSON), its own earlier calls kept in its state. So for the k-th assistant
message it receives: its system message, the context input when one is given, then each earlier
assistant message as a user message and the user message that followed it (the scenario's own
earlier reply, as gambit trimmed it) as an assistant message, then the k-th assistant message."""

from __future__ import annotations

import copy
from typing import Any

from ..js import js_json
from ..model import Diagnostic, Message, RenderedCase, Segment
from .gambit_conversation import Conversation


def _text(content: Any) -> str:
    # cli_utils.findLastAssistantMessage: a string as it is, anything else JSON.stringify'd.
    if isinstance(content, str):
        return content
    return js_json("" if content is None else content, indent=None)


def scenario_cases(
    base: RenderedCase, deck: str, conversation: Conversation, lead: list[Message]
) -> list[RenderedCase]:
    """One case per assistant message of the conversation: what the scenario deck is sent when
    it answers that message. `lead` is the system message and any context turn."""
    cases: list[RenderedCase] = []
    history: list[Message] = []
    pending: Message | None = None
    turn = 0
    for message, given in zip(conversation.messages, conversation.content_origins, strict=True):
        if message["role"] == "assistant":
            if pending is not None:
                history.append(pending)
            turn += 1
            pending = Message("user", [Segment(_text(message.get("content")), given)])
            case = copy.deepcopy(base)
            case.id = f"{base.id}@reply-{turn}"
            case.messages = [*copy.deepcopy(lead), *copy.deepcopy(history), copy.deepcopy(pending)]
            case.metadata["gambit_scenario"] = {"answers_assistant_message": turn}
            if conversation.file is not None:
                case.metadata["gambit_conversation_sample"] = conversation.file
            cases.append(case)
        elif message["role"] == "user" and pending is not None:
            history.append(pending)
            history.append(Message("assistant", [Segment(_text(message.get("content")).strip(), given)]))
            pending = None
    if not cases:
        base.warnings.append(
            Diagnostic(
                "the conversation has no assistant message: gambit scenario calls the scenario deck "
                "after each reply of the deck under test, so nothing is sent",
                deck,
            )
        )
        return [base]
    return cases
