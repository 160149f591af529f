"""What agentv's `parse(text, { merge: true })` throws for a document, placed as its message places
it: the port's lexer, parser and composer run whole, then toJS's checks (which yaml runs only when
composing found nothing, and which name no place)."""

from __future__ import annotations

from dataclasses import dataclass

from .compose import Document, compose_document
from .nodes import JsError
from .parser import parse
from .tojs import to_js_error


@dataclass(frozen=True, slots=True)
class Refusal:
    message: str  # yaml's words, without the " at line L, column C:" and the excerpt it appends
    line: int | None = None  # 1-based, as yaml's LineCounter counts; None where yaml names no place
    # 1-based, in characters (yaml counts UTF-16 units: the two part only past the BMP).
    column: int | None = None


def refusal(source: str) -> Refusal | None:
    """yaml's first error in `source`, or None where agentv reads it."""
    document = composed(source)
    return document if isinstance(document, Refusal) else document_refusal(document, source)


def composed(source: str) -> Document | Refusal:
    """The port's composed document, or what the JS throws composing it (an escape past U+10FFFF,
    outside its error list)."""
    try:
        return compose_document(parse(source), source)
    except JsError as thrown:
        return Refusal(str(thrown))


def document_refusal(document: Document, source: str) -> Refusal | None:
    """yaml's first error in a composed document, or None where agentv reads it."""
    if document.errors:
        error = document.errors[0]
        return Refusal(error.message, *line_and_column(source, error.offset))
    message = to_js_error(document.contents)
    return None if message is None else Refusal(message)


def line_and_column(source: str, offset: int) -> tuple[int, int]:
    """LineCounter.linePos: a line starts at the text's start and after each newline the parser
    meets (newline tokens and the line ends inside scalars: every `\\n`)."""
    line_start = source.rfind("\n", 0, offset) + 1
    return source.count("\n", 0, offset) + 1, offset - line_start + 1
