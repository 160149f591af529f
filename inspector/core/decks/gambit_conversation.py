"""The conversation a gambit grader grades or a scenario deck answers, pasted or read from a file.

One reader for both: a JSON array of `{role, content, ...}` messages, or an object holding them
under `messages` — the shape of gambit-core's SavedState (`state.json`, what `saveState` writes
and `gambit grade` loads its session from). A file's messages are traced to their lines, so the
page can show where each message of the graded session came from; a file that cannot be used is
refused at its line."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..model import InputError, Origin, OriginKind
from ..safe_parse import LimitExceeded

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
# gambit grade's session payload carries these of a saved state too, and gambit's built-in grader
# schemas keep `meta` and `notes`; the goldens hold no session with them, so they are named, not
# shown.
UNSHOWN_SESSION_KEYS = ("meta", "notes", "messageRefs", "feedback", "conversationScore")
SHAPE = "the conversation to grade must be a JSON array of messages, each an object with a string role"


@dataclass(slots=True)
class Conversation:
    messages: list[dict[str, Any]]
    # Per message: where the whole message, and its content, were written (no path when pasted).
    origins: list[Origin]
    content_origins: list[Origin]
    file: str | None = None
    # A saved session's keys gambit grade also passes in `session` that are not shown.
    unshown: tuple[str, ...] = ()


def _refuse_constant(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")  # JSON.parse refuses NaN and Infinity


def read_conversation(raw: str, deck: str, file: str | None = None) -> Conversation:
    """The messages of `raw`, the pasted text (errors name the deck) or the text of `file` (errors
    name that file and line)."""
    located = file or deck
    value = _parsed(raw, located, bool(file))
    spans = _message_spans(raw) if file else None
    unshown: tuple[str, ...] = ()
    if isinstance(value, dict):
        unshown = tuple(key for key in UNSHOWN_SESSION_KEYS if value.get(key))
        value = value.get("messages")
    if not isinstance(value, list):
        raise InputError(SHAPE, located, 1 if file else None)
    _check_messages(value, located, spans)
    if spans is None:
        given = Origin(OriginKind.CASE_TEXT)
        return Conversation(value, [given] * len(value), [given] * len(value), unshown=unshown)
    return Conversation(
        value,
        [Origin(OriginKind.CASE_TEXT, file, *whole) for whole, _ in spans],
        [Origin(OriginKind.CASE_TEXT, file, *content) for _, content in spans],
        file,
        unshown,
    )


def _parsed(raw: str, located: str, in_file: bool) -> Any:
    """The JSON value; a file's syntax error names its line and column."""
    try:
        return json.loads(raw, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise InputError(
            f"the conversation to grade is not JSON: {error.msg}",
            located,
            error.lineno if in_file else None,
            error.colno if in_file else None,
        ) from None
    except ValueError as error:
        raise InputError(f"the conversation to grade is not JSON: {error}", located) from None
    except RecursionError:
        raise LimitExceeded("the conversation is nested too deeply to read", located) from None


def _check_messages(value: list, located: str, spans: list | None) -> None:
    """Every item must be a message with a string role."""
    for index, item in enumerate(value):
        if not (isinstance(item, dict) and isinstance(item.get("role"), str)):
            line = spans[index][0][0] if spans else None
            raise InputError(f"{SHAPE} (message {index + 1} is not)", located, line)


# -- where each message was written ---------------------------------------------------------------
# The text has parsed as JSON; this walks it again for the offsets json.loads does not report.

Span = tuple[int, int]


def _message_spans(text: str) -> list[tuple[Span, Span]]:
    """Per message: its lines, and its content's (the message's when it has none)."""
    newlines = [match.start() for match in re.finditer("\n", text)]

    def lines(start: int, end: int) -> Span:
        return bisect.bisect_left(newlines, start) + 1, bisect.bisect_left(newlines, end - 1) + 1

    start = _skip(text, 0)
    if text.startswith("{", start):
        found = [(s, e) for key, s, e in _members(text, start) if key == "messages"]
        if not found or not text.startswith("[", found[-1][0]):  # the last one, as JSON.parse
            return []
        start = found[-1][0]
    if not text.startswith("[", start):
        return []
    spans = []
    for first, last in _elements(text, start):
        whole = lines(first, last)
        content = whole
        if text.startswith("{", first):
            found = [lines(s, e) for key, s, e in _members(text, first) if key == "content"]
            content = found[-1] if found else whole
        spans.append((whole, content))
    return spans


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


def _members(text: str, start: int) -> Iterator[tuple[str, int, int]]:
    """(key, start, end) of each member of the object at `start`."""
    index = _skip(text, start + 1)
    while index < len(text) and text[index] != "}":
        key, index = _DECODER.raw_decode(text, index)
        index = _skip(text, _skip(text, index) + 1)  # past the colon
        _, end = _DECODER.raw_decode(text, index)
        yield str(key), index, end
        index = _skip(text, end)
        if text.startswith(",", index):
            index = _skip(text, index + 1)


def _elements(text: str, start: int) -> Iterator[tuple[int, int]]:
    index = _skip(text, start + 1)
    while index < len(text) and text[index] != "]":
        _, end = _DECODER.raw_decode(text, index)
        yield index, end
        index = _skip(text, end)
        if text.startswith(",", index):
            index = _skip(text, index + 1)
