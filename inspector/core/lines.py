"""What one line of a bundle file does for the model, for a click on a source line that produced
none of the shown case's text: it belongs to another case, it is a key the tool never sends
(`criteria`, `expected_output`, ...), only the graders send it, or it is a comment.

`LineMap.of(document)` keeps, per case, its line span and the line ranges its sent messages, its
omitted messages and its graders' prompts came from (the segments' origins, their `via` lines and
the messages' spans); `LineMap.explain` answers for one line, reading the line's key from the
file's text by indentation (exact for block YAML and pretty-printed JSON, the forms eval files
are written in).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .model import LineSpan, Message, RenderedCase, RenderedDocument

Range = tuple[str, int, int]  # path, first line, last line (1-based, inclusive)

# The keys of agentv's eval cases (and gambit's and aibff's decks) that never reach the model, and
# who reads them instead.
NOT_SENT = {
    "criteria": "graders read it",
    "expected_outcome": "graders read it",
    "outcome": "graders read it",
    "expected_output": "graders compare the answer with it",
    "expected_messages": "graders compare the answer with it",
    "expected": "graders compare the answer with it",
    "reference_answer": "graders compare the answer with it",
    "rubrics": "graders score the answer with it",
    "assert": "graders check the answer with it",
    "assertions": "graders check the answer with it",
    "evaluators": "it chooses the graders",
    "evaluator": "it chooses the graders",
    "execution": "it configures the run",
    "description": "it is for people reading the file",
    "note": "it is for people reading the file",
    "notes": "it is for people reading the file",
    "metadata": "it labels the case",
    "tags": "it labels the case",
    "id": "it names the case",
    "conversation_id": "it groups the cases of one conversation",
}

# Keys that only hold what is sent or the cases: the model gets what is under them, not the key.
HOLDERS = {
    "evalcases": "the cases",
    "tests": "the cases",
    "cases": "the cases",
    "input_messages": "this case's messages",
    "input": "this case's messages",
    "messages": "this case's messages",
    "content": "a message's text",
}

TOOL_NAMES = {"agentv": "agentv", "deck": "the deck's runner", "conversation": "the request"}

_KEY = re.compile(r"""^(\s*(?:-\s+)*)["']?([A-Za-z_$][\w$.-]*)["']?\s*(?::(?:\s|$)|=)""")
_TABLE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*$")


@dataclass(frozen=True)
class LineNote:
    """A line in words, and the case to jump to when the line is another case's."""

    text: str
    jump_to: str | None = None  # a case id
    sent_by: tuple[str, ...] = ()  # cases whose messages hold text from the line


@dataclass(frozen=True)
class CaseLines:
    id: str
    span: Range | None
    sent: tuple[Range, ...]
    omitted: tuple[tuple[Range, str], ...]  # an omitted message's lines, and why it is left out
    graded: tuple[Range, ...]


def _covers(ranges: Iterable[Range], path: str, line: int) -> bool:
    return any(p == path and start <= line <= end for p, start, end in ranges)


def _span(span: LineSpan | None) -> Range | None:
    return (span.path, span.start_line, span.end_line) if span is not None else None


def _message_ranges(message: Message) -> Iterator[Range]:
    if message.span is not None:
        yield message.span.path, message.span.start_line, message.span.end_line
    for segment in message.segments:
        origin = segment.origin
        if origin.path and origin.start_line:
            yield origin.path, origin.start_line, origin.end_line or origin.start_line
        if origin.via is not None:
            yield origin.via.path, origin.via.start_line, origin.via.end_line


def merged(ranges: Iterable[Range]) -> tuple[Range, ...]:
    """The ranges joined where they touch or overlap: a case's segments repeat lines."""
    out: list[Range] = []
    for path, start, end in sorted(set(ranges)):
        if out and out[-1][0] == path and start <= out[-1][2] + 1:
            out[-1] = (path, out[-1][1], max(end, out[-1][2]))
        else:
            out.append((path, start, end))
    return tuple(out)


def _case_lines(case: RenderedCase) -> CaseLines:
    sent = merged(r for m in case.messages if m.omitted is None for r in _message_ranges(m))
    omitted = tuple(
        (r, m.omitted) for m in case.messages if m.omitted is not None for r in merged(_message_ranges(m))
    )
    graded = merged(r for grader in case.graders for m in grader.messages for r in _message_ranges(m))
    return CaseLines(case.id, _span(case.span), sent, omitted, graded)


def key_path(lines: list[str], number: int) -> list[str]:
    """The keys that hold line `number` (1-based), outermost first, read by indentation: the
    line's own key, then each less indented key above it (a TOML line: its table's name)."""
    keys: list[str] = []
    index = number - 1
    if not 0 <= index < len(lines):
        return keys
    own = _KEY.match(lines[index])
    table = _TABLE.match(lines[index])
    if table:
        return [table.group(1)]
    indent = len(own.group(1)) if own else _indent(lines[index])
    if own:
        keys.append(own.group(2))
    for above in range(index - 1, -1, -1):
        text = lines[above]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        table = _TABLE.match(text)
        if table:
            keys.append(table.group(1))
            break
        found = _KEY.match(text)
        if found and len(found.group(1)) < indent:
            keys.append(found.group(2))
            indent = len(found.group(1))
            if indent == 0:
                break
    return keys[::-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


@dataclass(frozen=True)
class LineMap:
    kind: str
    cases: tuple[CaseLines, ...]

    @classmethod
    def of(cls, document: RenderedDocument) -> LineMap:
        return cls(document.kind, tuple(_case_lines(case) for case in document.cases))

    def explain(self, path: str, number: int, text: str, current: str) -> LineNote:
        """Line `number` of `path` (whose text is `text`) for a reader of case `current`."""
        lines = text.splitlines()
        tool = TOOL_NAMES.get(self.kind, "the source tool")
        where = f"line {number}"
        if not 1 <= number <= len(lines):
            return LineNote(f"The file has no {where}.")
        stripped = lines[number - 1].strip()
        sent_by = self._sent_by(path, number)
        here = next((case for case in self.cases if case.id == current), None)
        if here is not None and current in sent_by:
            return LineNote(f"{_cap(where)} is sent in this case's messages.", sent_by=sent_by)
        if not stripped:
            return LineNote(f"{_cap(where)} is blank.")
        if _is_comment(stripped, path):
            return LineNote(f"{_cap(where)} is a comment: {tool} does not send it to the model.")
        owner = self._owner(path, number)
        if owner is not None and owner.id != current:
            return LineNote(f"{_cap(where)} belongs to case {owner.id}.", jump_to=owner.id, sent_by=sent_by)
        keys = key_path(lines, number)
        named = f"{where} is `{keys[-1]}`" if keys else where
        return (
            _in_this_case(here, path, number, named, tool)
            or _by_key(keys, named, tool, sent_by)
            or _sent_elsewhere(named, sent_by)
        )

    def _sent_by(self, path: str, number: int) -> tuple[str, ...]:
        return tuple(case.id for case in self.cases if _covers(case.sent, path, number))

    def _owner(self, path: str, number: int) -> CaseLines | None:
        """The case whose own lines hold the line."""
        return next(
            (case for case in self.cases if case.span is not None and _covers((case.span,), path, number)),
            None,
        )


def _is_comment(stripped: str, path: str) -> bool:
    """A `#` or `//` line outside Markdown, where `#` heads a section of the text."""
    return stripped.startswith(("#", "//")) and not path.lower().endswith((".md", ".markdown"))


def _in_this_case(here: CaseLines | None, path: str, number: int, named: str, tool: str) -> LineNote | None:
    """A line of a message the case leaves out, or one only its graders send."""
    if here is None:
        return None
    for lines_of, reason in here.omitted:
        if _covers((lines_of,), path, number):
            return LineNote(f"{_cap(named)}, in a message this case leaves out: {reason}.")
    if _covers(here.graded, path, number):
        return LineNote(
            f"{_cap(named)}: {tool} does not send it to the model; "
            "the graders send it to the judge (below, under What the graders send)."
        )
    return None


def _by_key(keys: list[str], named: str, tool: str, sent_by: tuple[str, ...]) -> LineNote | None:
    """A line under a key the tool never sends, or a key that only holds what is sent."""
    reason_key = next((key for key in keys if key in NOT_SENT), None)
    if reason_key is not None:
        subject = named if reason_key == keys[-1] else f"{named} (under `{reason_key}`)"
        return LineNote(
            f"{_cap(subject)}: {tool} does not send it to the model; {NOT_SENT[reason_key]}.", sent_by=sent_by
        )
    if keys and keys[-1] in HOLDERS:
        return LineNote(
            f"{_cap(named)}: it holds {HOLDERS[keys[-1]]}; the model gets what is under it, not the key.",
            sent_by=sent_by,
        )
    return None


def _sent_elsewhere(named: str, sent_by: tuple[str, ...]) -> LineNote:
    if sent_by:
        return LineNote(
            f"{_cap(named)}: not in this case's messages; it is sent in "
            f"case{'s' if len(sent_by) > 1 else ''} {', '.join(sent_by[:5])}"
            f"{' and more' if len(sent_by) > 5 else ''}.",
            sent_by=sent_by,
        )
    return LineNote(
        f"{_cap(named)}: no text of the messages comes from it (it may still "
        "shape the request, as tools and settings do)."
    )
