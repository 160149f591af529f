"""A run set against what its eval files render now: per case `same`, `differs` (the messages
aligned and diffed word by word, as the revision diff does, with the cause: the source lines whose
text the changed words are), `not_in_run` (the files render a case the run has no record of) or
`not_in_files`; each judge prompt rendered with the candidate's real answer where the run kept it,
and compared with the judge request the run kept."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from inspector.core.diff import MessageDiff, message_diffs
from inspector.core.model import (
    CANDIDATE_PLACEHOLDER,
    GraderPrompt,
    InputError,
    Message,
    Origin,
    OriginKind,
    RenderedCase,
    RenderedDocument,
    Segment,
)
from inspector.core.runs.model import RecordedCase, RecordedJudge, Run, SentMessage

STATUSES = ("same", "differs", "not_in_run", "not_in_files")
# What the run's own record is: text with no source lines.
_RECORDED = Origin(OriginKind.CASE_TEXT)


@dataclass(frozen=True, order=True)
class CauseLine:
    path: str
    line: int

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line}


@dataclass
class GraderCheck:
    name: str
    status: str  # same, differs, not_in_run (no judge request kept), not_in_files
    with_answer: bool  # rendered with the candidate's answer the run kept
    messages: list[MessageDiff] = field(default_factory=list)
    cause: list[CauseLine] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "with_answer": self.with_answer,
            "messages": [m.as_dict() for m in self.messages if m.status != "unchanged"],
            "cause": [line.as_dict() for line in self.cause],
        }


@dataclass
class CaseCheck:
    id: str
    status: str
    eval_path: str | None
    messages: list[MessageDiff] = field(default_factory=list)
    cause: list[CauseLine] = field(default_factory=list)
    graders: list[GraderCheck] = field(default_factory=list)
    note: str | None = None
    recorded: RecordedCase | None = None
    rendered: RenderedCase | None = None

    def as_dict(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "eval_path": self.eval_path,
            "messages": [m.as_dict() for m in self.messages if m.status != "unchanged"],
            "cause": [line.as_dict() for line in self.cause],
            "graders": [grader.as_dict() for grader in self.graders],
        }
        if self.note:
            item["note"] = self.note
        if self.status == "not_in_files" and self.recorded is not None:
            # Nothing to compare with: what the run kept is the answer.
            kept = self.recorded
            item["sent"] = [m.as_dict() for m in kept.messages or []]
            item["answer"] = kept.answer
            item["judges"] = [
                {"name": judge.name, "messages": [m.as_dict() for m in judge.messages]}
                for judge in kept.judges
            ]
            item["requests"] = kept.requests
        return item


@dataclass
class RunCheck:
    run: Run
    cases: list[CaseCheck]
    profile: str | None  # the profile the files were rendered with
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return any(
            case.status == "differs" or any(g.status == "differs" for g in case.graders)
            for case in self.cases
        )

    def summary(self) -> dict[str, Any]:
        graders = [grader for case in self.cases for grader in case.graders]
        return {
            **{status: sum(case.status == status for case in self.cases) for status in STATUSES},
            "graders": {status: sum(g.status == status for g in graders) for status in STATUSES},
        }

    def as_contract(self) -> dict[str, Any]:
        return {
            "runner": self.run.runner,
            "runner_version": self.run.runner_version,
            "profile": {"run": self.run.profile, "files": self.profile},
            "cases": [case.as_dict() for case in self.cases],
            "summary": self.summary(),
            "notes": self.run.notes + self.notes,
            "errors": self.errors,
        }


# ---------------------------------------------------------------------------------------------
# Cause: the source lines of the words that changed


def _line_in(segment: Segment, offset: int) -> int | None:
    origin = segment.origin
    if origin.start_line is None:
        return None
    line = origin.start_line + segment.text.count("\n", 0, offset)
    return min(line, origin.end_line) if origin.end_line else line


def _lines_at(message: Message, start: int, end: int) -> set[CauseLine]:
    """The source lines of the message's text between start and end (a point when equal: the
    segment where text was removed)."""
    found: set[CauseLine] = set()
    position = 0
    for segment in message.segments:
        low, high = position, position + len(segment.text)
        position = high
        overlaps = low < end and start < high if end > start else low <= start <= high and high > low
        if not overlaps or not segment.origin.path:
            continue
        first = _line_in(segment, max(start, low) - low)
        last = _line_in(segment, max(min(end, high) - 1, start, low) - low)
        if first is not None and last is not None:
            found.update(CauseLine(segment.origin.path, line) for line in range(first, last + 1))
    return found


def _cause_of(diff: MessageDiff, new: Message | None) -> set[CauseLine]:
    if new is None:
        return set()
    found: set[CauseLine] = set()
    position = 0
    for op, text in diff.words:
        if op == "+":
            found |= _lines_at(new, position, position + len(text))
        elif op == "-":
            found |= _lines_at(new, position, position)
        if op != "-":
            position += len(text)
    return found


def causes(diffs: list[MessageDiff], new: list[Message]) -> list[CauseLine]:
    found: set[CauseLine] = set()
    for diff in diffs:
        if diff.status in ("changed", "added"):
            found |= _cause_of(diff, new[diff.new_index] if diff.new_index is not None else None)
    return sorted(found)


# ---------------------------------------------------------------------------------------------
# Cases and graders


def as_messages(sent: list[SentMessage]) -> list[Message]:
    return [Message(item.role, [Segment(item.content, _RECORDED)]) for item in sent]


def _is_default_prompt(message: Message) -> bool:
    return bool(message.segments) and all(
        segment.origin.kind == OriginKind.DEFAULT_PROMPT for segment in message.segments
    )


def rendered_messages(case: RenderedCase, recorded: RecordedCase) -> list[Message]:
    """The case's sent messages, less the runner's default system prompt when the run kept its
    messages without it."""
    kept = {message.content for message in recorded.messages or []}
    return [
        message
        for message in case.sent_messages
        if not (
            recorded.without_default_prompt and _is_default_prompt(message) and message.content not in kept
        )
    ]


def with_answer(messages: list[Message], answer: str) -> list[Message]:
    """The judge's messages with the candidate's answer where the placeholder stood (a segment of
    its own, or inside one where the runner's judge template interpolated it, as promptfoo's do)."""
    filled = []
    for message in messages:
        segments = [
            msgspec.structs.replace(segment, text=segment.text.replace(CANDIDATE_PLACEHOLDER, answer))
            if CANDIDATE_PLACEHOLDER in segment.text
            else segment
            for segment in message.segments
        ]
        filled.append(msgspec.structs.replace(message, segments=segments))
    return filled


def _kept_judge(name: str, position: int, kept: list[RecordedJudge]) -> RecordedJudge | None:
    named = [judge for judge in kept if judge.name == name]
    if named:
        return named[0]
    return kept[position] if position < len(kept) and not any(k.name for k in kept) else None


def check_grader(grader: GraderPrompt, position: int, recorded: RecordedCase) -> GraderCheck:
    answer = recorded.answer
    messages = with_answer(grader.messages, answer) if answer is not None else grader.messages
    kept = _kept_judge(grader.name, position, recorded.judges)
    if not grader.messages or kept is None:
        return GraderCheck(grader.name, "not_in_run", answer is not None)
    diffs = message_diffs(as_messages(kept.messages), messages)
    if all(diff.status == "unchanged" for diff in diffs):
        return GraderCheck(grader.name, "same", answer is not None)
    return GraderCheck(grader.name, "differs", answer is not None, diffs, causes(diffs, messages))


def check_case(recorded: RecordedCase, rendered: RenderedCase | None) -> CaseCheck:
    check = CaseCheck(recorded.id, "not_in_files", recorded.eval_path, recorded=recorded, rendered=rendered)
    if rendered is None:
        return check
    check.graders = [
        check_grader(grader, position, recorded) for position, grader in enumerate(rendered.graders)
    ]
    rendered_names = {grader.name for grader in rendered.graders}
    check.graders += [
        GraderCheck(judge.name, "not_in_files", recorded.answer is not None)
        for judge in recorded.judges
        if judge.name not in rendered_names
    ]
    if recorded.messages is None:
        check.status, check.note = "not_in_run", recorded.error or "the run kept no messages for it"
        return check
    new = rendered_messages(rendered, recorded)
    diffs = message_diffs(as_messages(recorded.messages), new)
    if all(diff.status == "unchanged" for diff in diffs):
        check.status = "same"
    else:
        check.status, check.messages, check.cause = "differs", diffs, causes(diffs, new)
    return check


Render = Callable[[str], RenderedDocument]


def _rendered(run: Run, render: Render, errors: list[str]) -> dict[str, RenderedDocument | None]:
    """Each eval file the run's cases name, rendered once (None when it could not be)."""
    documents: dict[str, RenderedDocument | None] = {}
    for path in dict.fromkeys(case.eval_path for case in run.cases if case.eval_path):
        try:
            documents[path] = render(path)
        except InputError as error:
            documents[path] = None
            errors.append(f"{path}: {error}")
    return documents


def _find(document: RenderedDocument | None, case_id: str) -> RenderedCase | None:
    return next((case for case in document.cases if case.id == case_id), None) if document else None


def _profile_note(run: Run, documents: dict[str, RenderedDocument | None]) -> str | None:
    profiles = {document.profile for document in documents.values() if document and document.profile}
    if not run.profile or not profiles or profiles == {run.profile}:
        return None
    return (
        f"the run was made by {run.runner} {run.runner_version or ''} (profile {run.profile}); "
        f"the files were rendered with profile {', '.join(sorted(profiles))}"
    )


def check_run(run: Run, render: Render, profile: str | None, in_run: bool = False) -> RunCheck:
    """`render(eval_path)` renders an eval file of the files compared with (InputError when it is
    missing or unusable): the project's (each case's `eval_path`) or, `in_run`, the copies the
    runner kept in the run (`bundle_eval_path`). Cases in the run's order; cases only the files
    have after their file's."""
    result = RunCheck(run, [], profile)
    if in_run:
        run = replace(run, cases=[replace(case, eval_path=case.bundle_eval_path) for case in run.cases])
        result.notes.append(
            "compared with the eval files the run kept (agentv rewrites their file "
            "references to its copies under files/, so a <file path> can differ)"
        )
    documents = _rendered(run, render, result.errors)
    if not documents:  # nothing was rendered: no profile was used
        result.profile = None
    seen = {(recorded.eval_path, recorded.id) for recorded in run.cases}
    result.cases = [
        check_case(recorded, _find(documents.get(recorded.eval_path or ""), recorded.id))
        for recorded in run.cases
    ]
    result.cases += [
        CaseCheck(case.id, "not_in_run", path, rendered=case)
        for path, document in documents.items()
        for case in (document.cases if document else [])
        if (path, case.id) not in seen
    ]
    note = _profile_note(run, documents)
    result.notes += [note] if note else []
    result.notes += [run.version_note] if run.version_note else []
    return result
