"""A gambit grader deck given a conversation, as `gambit grade` runs it (gambit 1.0.0-rc.2,
src/commands/grade.ts): once per assistant message, with `{session, messageToGrade}` as the
context input, when the grader's context schema has a `messageToGrade` field; otherwise once,
with `{session}`. Each run is the grader deck's own first call: its system message, then the
`gambit_context` call and result; no user message."""

from __future__ import annotations

import copy
import posixpath
from typing import Any

from ..bundle import Bundle, join
from ..js import js_json
from ..model import (
    Diagnostic,
    Message,
    Origin,
    OriginKind,
    RenderedCase,
    Segment,
    ToolCall,
)
from .gambit_conversation import Conversation
from .gambit_load import SCHEMAS

CONTEXT_TOOL = "gambit_context"
# gambit makes a random `call-<24 hex>` id for each run; the inspector shows a fixed one.
CONTEXT_CALL_ID = "call-gambit-context"

# gambit-core's built-in grader context schemas (schemas/graders/contexts/*.ts): Zod objects that
# keep a session's `messages`, `meta` and `notes` and a message's `role`, `content` and `name`,
# dropping every other key, in that order. The *_tools schemas (`tools` is `turn_tools` by another
# name) keep a message's `tool_calls` too, each call's `id`, `type` and `function` (`name`,
# `arguments`): a tool message's `tool_call_id` is dropped all the same.
_SESSION_KEYS = ("messages", "meta", "notes")
_MESSAGE_KEYS = ("role", "content", "name")
_TOOLS_MESSAGE_KEYS = (*_MESSAGE_KEYS, "tool_calls")
_TOOLS_SCHEMAS = ("contexts/turn_tools", "contexts/tools", "contexts/conversation_tools")


def grader_mode(bundle: Bundle, deck: str, schema: Any) -> tuple[str, bool] | None:
    """("turns" or "conversation", whether the schema is one of gambit's built-in ones), or None
    when the deck's context schema takes no session (so the deck is no grader)."""
    if not isinstance(schema, str) or not schema:
        return None
    if schema.startswith(SCHEMAS):
        relative = schema[len(SCHEMAS) :].removeprefix("graders/")
        if relative.startswith("contexts/"):
            turns = relative.startswith(("contexts/turn", "contexts/tools"))
            return ("turns" if turns else "conversation"), True
        return None  # gambit's scenario schemas
    resolved = join(posixpath.dirname(deck), schema)
    decoded = bundle.text(resolved) if resolved else None
    if decoded is None or not any(word in decoded.text for word in ("messageToGrade", "session")):
        return None  # a schema without a session is a scenario's or an action's input
    # grade.ts asks the Zod schema for a `messageToGrade` field; the inspector reads the file.
    return ("turns" if "messageToGrade" in decoded.text else "conversation"), False


def _kept(message: dict[str, Any], with_tools: bool) -> dict[str, Any]:
    kept = {
        key: message[key] for key in (_TOOLS_MESSAGE_KEYS if with_tools else _MESSAGE_KEYS) if key in message
    }
    if isinstance(kept.get("tool_calls"), list):
        kept["tool_calls"] = [_kept_call(call) for call in kept["tool_calls"]]
    return kept


def _kept_call(call: Any) -> Any:
    if not isinstance(call, dict):
        return call  # gambit's Zod check refuses it; shown as written
    kept = {key: call[key] for key in ("id", "type", "function") if key in call}
    function = kept.get("function")
    if isinstance(function, dict):
        kept["function"] = {key: function[key] for key in ("name", "arguments") if key in function}
    return kept


def grading_cases(
    base: RenderedCase, deck: str, conversation: Conversation, mode: str, builtin: bool, schema: str
) -> list[RenderedCase]:
    messages = conversation.messages
    with_tools = builtin and schema.removeprefix(SCHEMAS).removeprefix("graders/").startswith(_TOOLS_SCHEMAS)
    graded = [_kept(m, with_tools) for m in messages] if builtin else messages
    session: dict[str, Any] = {"messages": graded}
    inputs: list[tuple[str, dict[str, Any], int | None]]
    if mode == "turns":
        inputs = [
            (f"{base.id}@turn-{index}", {"session": session, "messageToGrade": graded[index]}, index)
            for index, message in enumerate(messages)
            if message["role"] == "assistant"
        ]
    else:
        inputs = [(f"{base.id}@conversation", {"session": session}, None)]
    traced = _TracedInput(graded, conversation) if conversation.file is not None else None
    cases = []
    for case_id, value, turn in inputs:
        case = copy.deepcopy(base)
        case.id = case_id
        system = case.messages[0]
        case.messages = [system] + context_messages(value, segments=traced.segments(turn) if traced else None)
        if conversation.file is not None:
            case.metadata["gambit_conversation_sample"] = conversation.file
        case.metadata["gambit_grade"] = {"mode": mode, "schema": schema}
        case.warnings = [w for w in case.warnings if "validates the context input" not in w.message]
        case.warnings += _grading_notes(deck, conversation, builtin, schema)
        cases.append(case)
    if not cases:
        base.warnings.append(
            Diagnostic(
                "the conversation has no assistant message: gambit grade runs a turn grader once per "
                "assistant message, so nothing is sent",
                deck,
            )
        )
        return [base]
    return cases


def _grading_notes(deck: str, conversation: Conversation, builtin: bool, schema: str) -> list[Diagnostic]:
    """What gambit grade passes that the page does not show."""
    notes = []
    if conversation.unshown:
        notes.append(
            Diagnostic(
                "gambit grade also passes the saved session's "
                f"{', '.join(conversation.unshown)} in `session`; the inspector shows its "
                "messages only",
                conversation.file or deck,
            )
        )
    if not builtin:
        notes.append(
            Diagnostic(
                f"gambit validates the grader's input against {schema} (a Zod schema the "
                "inspector does not run) and passes what it keeps; shown as gambit grade builds "
                "it, with the session's messages only",
                deck,
            )
        )
    return notes


class _TracedInput:
    """The grader's input as JSON.stringify writes it (an object's text is its members' texts,
    joined), each message traced to its lines in the conversation's file and gambit grade's
    wrapping marked as such. The session is written once for all the turns."""

    def __init__(self, graded: list[dict[str, Any]], conversation: Conversation):
        self.joins = Origin(OriginKind.SEPARATOR)
        self.messages = [
            Segment(js_json(message, indent=None), origin)
            for message, origin in zip(graded, conversation.origins, strict=True)
        ]
        self.session = [Segment('{"session":{"messages":[', self.joins)]
        for index, message in enumerate(self.messages):
            self.session += [Segment(",", self.joins), message] if index else [message]
        self.session.append(Segment("]}", self.joins))

    def segments(self, turn: int | None) -> list[Segment]:
        ending = [] if turn is None else [Segment(',"messageToGrade":', self.joins), self.messages[turn]]
        return [*self.session, *ending, Segment("}", self.joins)]


def context_messages(
    value: Any, origin: Origin | None = None, segments: list[Segment] | None = None
) -> list[Message]:
    """runLlmDeck's context turn: an assistant `gambit_context` call, then its result, the input
    as JSON.stringify writes it (or `segments` that spell it, traced piece by piece)."""
    return [
        Message(
            "assistant",
            [],
            tool_calls=[ToolCall(CONTEXT_CALL_ID, CONTEXT_TOOL, "{}", Origin(OriginKind.SEPARATOR))],
        ),
        Message(
            "tool",
            segments or [Segment(js_json(value, indent=None), origin or Origin(OriginKind.CASE_TEXT))],
            name=CONTEXT_TOOL,
            tool_call_id=CONTEXT_CALL_ID,
        ),
    ]
