"""A gambit grader deck given a conversation, as `gambit grade` runs it (gambit 1.0.0-rc.2,
src/commands/grade.ts): once per assistant message, with `{session, messageToGrade}` as the
context input, when the grader's context schema has a `messageToGrade` field; otherwise once,
with `{session}`. Each run is the grader deck's own first call: its system message, then the
`gambit_context` call and result; no user message."""

from __future__ import annotations

import copy
import json
import posixpath
from typing import Any

from ..agentv.v4 import js_json
from ..bundle import Bundle, join
from ..model import (
    Diagnostic,
    InputError,
    Message,
    Origin,
    OriginKind,
    RenderedCase,
    Segment,
    ToolCall,
)
from .gambit_load import SCHEMAS

CONTEXT_TOOL = "gambit_context"
# gambit makes a random `call-<24 hex>` id for each run; the inspector shows a fixed one.
CONTEXT_CALL_ID = "call-gambit-context"

# gambit-core's built-in grader context schemas (schemas/graders/contexts/*.ts): Zod objects that
# keep a session's `messages`, `meta` and `notes` and a message's `role`, `content` and `name`,
# dropping every other key, in that order.
_SESSION_KEYS = ("messages", "meta", "notes")
_MESSAGE_KEYS = ("role", "content", "name")


def parse_conversation(raw: str, path: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(raw)
    except ValueError as error:
        raise InputError(f"the conversation to grade is not JSON: {error}", path) from None
    if isinstance(value, dict):
        value = value.get("messages")
    if not isinstance(value, list) or not all(
            isinstance(item, dict) and isinstance(item.get("role"), str) for item in value):
        raise InputError("the conversation to grade must be a JSON array of messages, each an "
                         "object with a string role", path)
    return value


def grader_mode(bundle: Bundle, deck: str, schema: Any) -> tuple[str, bool] | None:
    """("turns" or "conversation", whether the schema is one of gambit's built-in ones), or None
    when the deck's context schema takes no session (so the deck is no grader)."""
    if not isinstance(schema, str) or not schema:
        return None
    if schema.startswith(SCHEMAS):
        relative = schema[len(SCHEMAS):].removeprefix("graders/")
        if relative.startswith("contexts/"):
            turns = relative.startswith("contexts/turn")
            return ("turns" if turns else "conversation"), True
        return None  # gambit's scenario schemas
    resolved = join(posixpath.dirname(deck), schema)
    decoded = bundle.text(resolved) if resolved else None
    if decoded is None or not any(word in decoded.text for word in ("messageToGrade", "session")):
        return None  # a schema without a session is a scenario's or an action's input
    # grade.ts asks the Zod schema for a `messageToGrade` field; the inspector reads the file.
    return ("turns" if "messageToGrade" in decoded.text else "conversation"), False


def _kept(message: dict[str, Any]) -> dict[str, Any]:
    return {key: message[key] for key in _MESSAGE_KEYS if key in message}


def grading_cases(base: RenderedCase, deck: str, conversation: list[dict[str, Any]],
                  mode: str, builtin: bool, schema: str) -> list[RenderedCase]:
    session: dict[str, Any] = {"messages": [_kept(m) for m in conversation] if builtin
                               else conversation}
    if mode == "turns":
        inputs = [(f"{base.id}@turn-{index}", {"session": session, "messageToGrade":
                                               _kept(message) if builtin else message})
                  for index, message in enumerate(conversation) if message["role"] == "assistant"]
    else:
        inputs = [(f"{base.id}@conversation", {"session": session})]
    cases = []
    for case_id, value in inputs:
        case = copy.deepcopy(base)
        case.id = case_id
        system = case.messages[0]
        case.messages = [system] + context_messages(value)
        case.metadata["gambit_grade"] = {"mode": mode, "schema": schema}
        case.warnings = [w for w in case.warnings if "validates the context input" not in w.message]
        if not builtin:
            case.warnings.append(Diagnostic(
                f"gambit validates the grader's input against {schema} (a Zod schema the "
                "inspector does not run) and passes what it keeps; shown as gambit grade builds "
                "it, with the session's messages only", deck))
        cases.append(case)
    if not cases:
        base.warnings.append(Diagnostic(
            "the conversation has no assistant message: gambit grade runs a turn grader once per "
            "assistant message, so nothing is sent", deck))
        return [base]
    return cases


def context_messages(value: Any, origin: Origin | None = None) -> list[Message]:
    """runLlmDeck's context turn: an assistant `gambit_context` call, then its result, the input
    as JSON.stringify writes it."""
    return [
        Message("assistant", [], tool_calls=[
            ToolCall(CONTEXT_CALL_ID, CONTEXT_TOOL, "{}", Origin(OriginKind.SEPARATOR))]),
        Message("tool", [Segment(js_json(value, indent=None),
                                 origin or Origin(OriginKind.CASE_TEXT))],
                name=CONTEXT_TOOL, tool_call_id=CONTEXT_CALL_ID),
    ]
