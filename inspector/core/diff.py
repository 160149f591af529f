"""Differences between two renderings: a revision against its parent, two bundles, or one bundle
under two settings. Cases are matched by (document, id); messages are aligned by content, so one
inserted message shows as added rather than shifting every later one to "changed". The cause of a
change is traced through provenance: the changed lines of the bundle's files that the case's
segments came from, on either side."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from inspector.core.model import GraderPrompt, Message, RenderedCase, RenderedDocument
from inspector.core.tokens import TOKENS_PER_REPLY, message_token_counts, provider_encoding

# A word, a run of whitespace or one other character: whitespace changes show, punctuation
# changes do not swallow the word beside them.
_WORDS = re.compile(r"\s+|\w+|[^\w\s]")
# Past this many tokens in one changed block, the block is shown replaced as a whole: a word-level
# alignment costs quadratic time in the block's size.
WORD_DIFF_LIMIT = 4000


@dataclass(frozen=True)
class Cause:
    """Lines of a file that changed between the two sides; `lines` on the new side (on the old side
    when they were only removed), None when the whole file appeared or disappeared."""

    path: str
    lines: tuple[int, int] | None

    def as_dict(self) -> dict:
        return {"path": self.path, "lines": list(self.lines) if self.lines else None}

    def label(self) -> str:
        if self.lines is None:
            return self.path
        start, end = self.lines
        return f"{self.path} line {start}" if start == end else f"{self.path} lines {start}–{end}"


@dataclass
class MessageDiff:
    status: str  # unchanged, changed, added, removed
    old_index: int | None
    new_index: int | None
    old_role: str | None
    new_role: str | None
    words: list[tuple[str, str]]  # ("=", text), ("-", text), ("+", text)

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "old_index": self.old_index,
            "new_index": self.new_index,
            "old_role": self.old_role,
            "new_role": self.new_role,
            "words": [list(op) for op in self.words],
        }


@dataclass
class GraderDiff:
    """One judge request of the case on both sides: a grader is matched by its name (and which of
    that name it is), so a changed rubric or a run's judge setting shows as the request it changes."""

    name: str
    status: str  # unchanged, changed, added, removed
    old_judge: str | None
    new_judge: str | None
    messages: list[MessageDiff]

    def as_dict(self) -> dict:
        named = {key: getattr(self, key) for key in ("name", "status", "old_judge", "new_judge")}
        return {**named, "messages": [m.as_dict() for m in self.messages if m.status != "unchanged"]}


@dataclass
class CaseDiff:
    document: str
    id: str
    status: str  # unchanged, changed, added, removed
    messages: list[MessageDiff] = field(default_factory=list)
    because: list[Cause] = field(default_factory=list)
    old_tokens: int = 0
    new_tokens: int = 0
    graders: list[GraderDiff] = field(default_factory=list)  # what each judge is asked, after the run

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "document": self.document,
            "messages": [m.as_dict() for m in self.messages if m.status != "unchanged"],
            "graders": [g.as_dict() for g in self.graders if g.status != "unchanged"],
            "because": [cause.as_dict() for cause in self.because],
            "tokens": {"old": self.old_tokens, "new": self.new_tokens},
        }


@dataclass
class BundleDiff:
    cases: list[CaseDiff]
    documents_only_old: list[str] = field(default_factory=list)
    documents_only_new: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # documents one side could not render

    def of(self, status: str) -> list[CaseDiff]:
        return [case for case in self.cases if case.status == status]

    @property
    def summary(self) -> dict[str, int]:
        return {status: len(self.of(status)) for status in ("changed", "added", "removed", "unchanged")}

    @property
    def old_tokens(self) -> int:
        return sum(case.old_tokens for case in self.cases)

    @property
    def new_tokens(self) -> int:
        return sum(case.new_tokens for case in self.cases)

    def causes(self) -> list[tuple[Cause, int]]:
        """Each changed stretch of a file with the number of changed cases it explains, most first."""
        counts: dict[Cause, int] = {}
        for case in self.of("changed"):
            for cause in case.because:
                counts[cause] = counts.get(cause, 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0].path, item[0].lines or (0, 0)))

    def as_contract(self, with_documents: bool = True) -> dict:
        def ident(case: CaseDiff) -> str | dict:
            return {"document": case.document, "id": case.id} if with_documents else case.id

        changed = []
        for case in self.of("changed"):
            item = case.as_dict()
            if not with_documents:
                item.pop("document")
            changed.append(item)
        return {
            "summary": self.summary,
            "changed": changed,
            "added": [ident(case) for case in self.of("added")],
            "removed": [ident(case) for case in self.of("removed")],
            "tokens": {
                "old": self.old_tokens,
                "new": self.new_tokens,
                "delta": self.new_tokens - self.old_tokens,
            },
            "because": [{**cause.as_dict(), "cases": count} for cause, count in self.causes()],
            "errors": self.errors,
        }


# ---------------------------------------------------------------------------------------------
# Words


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """The two texts as runs of kept, removed and added text: lines aligned first, then words
    within each changed block, so a long message costs little more than its changed lines."""
    if old == new:
        return [("=", old)] if old else []
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    ops: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        before, after = "".join(old_lines[i1:i2]), "".join(new_lines[j1:j2])
        if tag == "equal":
            ops.append(("=", before))
        elif tag == "replace":
            ops.extend(_words(before, after))
        elif tag == "delete":
            ops.append(("-", before))
        else:
            ops.append(("+", after))
    return _merged(ops)


def _words(old: str, new: str) -> list[tuple[str, str]]:
    a, b = _WORDS.findall(old), _WORDS.findall(new)
    if len(a) > WORD_DIFF_LIMIT or len(b) > WORD_DIFF_LIMIT:
        return [("-", old), ("+", new)]
    ops: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            ops.append(("=", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            ops.append(("-", "".join(a[i1:i2])))
        if j2 > j1:
            ops.append(("+", "".join(b[j1:j2])))
    return ops


def _merged(ops: list[tuple[str, str]]) -> list[tuple[str, str]]:
    merged: list[tuple[str, str]] = []
    for op, text in ops:
        if not text:
            continue
        if merged and merged[-1][0] == op:
            merged[-1] = (op, merged[-1][1] + text)
        else:
            merged.append((op, text))
    return merged


# ---------------------------------------------------------------------------------------------
# Messages and cases


def _key(message: Message) -> tuple:
    return (
        message.role,
        message.content,
        message.omitted is None,
        tuple((call.name, call.arguments) for call in message.tool_calls),
    )


def message_diffs(old: list[Message], new: list[Message]) -> list[MessageDiff]:
    out: list[MessageDiff] = []
    matcher = difflib.SequenceMatcher(None, [_key(m) for m in old], [_key(m) for m in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(
                MessageDiff("unchanged", i, j, old[i].role, new[j].role, [("=", old[i].content)])
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            )
            continue
        # Within a replaced block, pair messages in order: the first old with the first new.
        pairs = max(i2 - i1, j2 - j1)
        for k in range(pairs):
            i = i1 + k if i1 + k < i2 else None
            j = j1 + k if j1 + k < j2 else None
            if i is not None and j is not None:
                out.append(
                    MessageDiff(
                        "changed", i, j, old[i].role, new[j].role, word_diff(_shown(old[i]), _shown(new[j]))
                    )
                )
            elif i is not None:
                out.append(MessageDiff("removed", i, None, old[i].role, None, [("-", _shown(old[i]))]))
            elif j is not None:
                out.append(MessageDiff("added", None, j, None, new[j].role, [("+", _shown(new[j]))]))
    return out


def grader_diffs(old: list[GraderPrompt], new: list[GraderPrompt]) -> list[GraderDiff]:
    """In the new side's order, removed graders after; a grader on one side only has its messages
    added or removed whole."""
    old_by_key = dict(_graders_by_key(old))
    out: list[GraderDiff] = []
    for key, grader in _graders_by_key(new):
        before = old_by_key.pop(key, None)
        messages = message_diffs(before.messages if before else [], grader.messages)
        if before is None:
            status = "added"
        elif before.judge == grader.judge and all(m.status == "unchanged" for m in messages):
            status = "unchanged"
        else:
            status = "changed"
        out.append(GraderDiff(grader.name, status, before.judge if before else None, grader.judge, messages))
    for grader in old_by_key.values():
        out.append(GraderDiff(grader.name, "removed", grader.judge, None, message_diffs(grader.messages, [])))
    return out


def _graders_by_key(graders: list[GraderPrompt]) -> list[tuple[tuple[str, int], GraderPrompt]]:
    seen: dict[str, int] = {}
    keyed = []
    for grader in graders:
        seen[grader.name] = seen.get(grader.name, 0) + 1
        keyed.append(((grader.name, seen[grader.name]), grader))
    return keyed


def _shown(message: Message) -> str:
    """What a message diff compares: its content, with tool calls and omission written out so a
    change to either shows."""
    text = message.content
    for call in message.tool_calls:
        text += f"\n[calls {call.name} {call.arguments}]"
    if message.omitted is not None:
        text += f"\n[not sent: {message.omitted}]"
    return text


@dataclass
class FileChanges:
    """Changed line ranges of each file, computed once per file and shared by every case."""

    old_text: Callable[[str], str | None]
    new_text: Callable[[str], str | None]
    cache: dict[str, list[tuple[tuple[int, int], tuple[int, int]]] | None] = field(default_factory=dict)

    def ranges(self, path: str) -> list[tuple[tuple[int, int], tuple[int, int]]] | None:
        """(old lines, new lines) of each changed block, 1-based and inclusive (an empty side is
        (n+1, n), the place the lines were inserted or removed); None when the file exists on one
        side only; [] when it is the same."""
        if path not in self.cache:
            old, new = self.old_text(path), self.new_text(path)
            if old is None or new is None:
                self.cache[path] = None if (old is None) != (new is None) else []
            elif old == new:
                self.cache[path] = []
            else:
                a, b = old.splitlines(), new.splitlines()
                matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
                self.cache[path] = [
                    ((i1 + 1, i2), (j1 + 1, j2))
                    for tag, i1, i2, j1, j2 in matcher.get_opcodes()
                    if tag != "equal"
                ]
        return self.cache[path]


def _spans(case: RenderedCase) -> set[tuple[str, int, int]]:
    """Every (file, first line, last line) the case's text and its judges' came from, references
    included."""
    spans = set()
    for grader in case.graders:
        if grader.span:
            spans.add((grader.span.path, grader.span.start_line, grader.span.end_line))
    for message in [*case.messages, *(m for grader in case.graders for m in grader.messages)]:
        if message.span:
            spans.add((message.span.path, message.span.start_line, message.span.end_line))
        for segment in message.segments:
            origin = segment.origin
            if origin.path:
                start = origin.start_line or 1
                spans.add((origin.path, start, origin.end_line or start if origin.start_line else 10**9))
            if origin.via:
                spans.add((origin.via.path, origin.via.start_line, origin.via.end_line))
    if case.span:
        spans.add((case.span.path, case.span.start_line, case.span.end_line))
    return spans


def _touches(span: tuple[int, int], changed: tuple[int, int]) -> bool:
    start, end = span
    first, last = changed
    if last < first:  # an insertion or removal point: it touches the lines on either side of it
        return start <= first <= end + 1
    return start <= last and first <= end


def causes(old: RenderedCase | None, new: RenderedCase | None, files: FileChanges) -> list[Cause]:
    found: set[Cause] = set()
    for side, case in (("old", old), ("new", new)):
        if case is None:
            continue
        for path, start, end in _spans(case):
            ranges = files.ranges(path)
            if ranges is None:
                found.add(Cause(path, None))
                continue
            for old_lines, new_lines in ranges:
                lines = old_lines if side == "old" else new_lines
                if _touches((start, end), lines):
                    shown = new_lines if new_lines[1] >= new_lines[0] else old_lines
                    found.add(Cause(path, shown if shown[1] >= shown[0] else (shown[0], shown[0])))
    return sorted(found, key=lambda cause: (cause.path, cause.lines or (0, 0)))


def sent_tokens(case: RenderedCase, provider: str) -> int:
    """What the case's sent messages cost (case_tokens' sent_total, without per-segment counts),
    all of them counted in one call to the tokenizer."""
    encoding, _ = provider_encoding(provider)
    sent = [message for message in case.messages if message.omitted is None]
    return sum(message_token_counts(sent, encoding)) + TOKENS_PER_REPLY


def diff_case(
    document: str,
    old: RenderedCase | None,
    new: RenderedCase | None,
    files: FileChanges,
    provider: str = "openai-chat",
    new_provider: str | None = None,
) -> CaseDiff:
    """Token counts as each side's provider bills them (a provider-against-provider diff)."""
    old_tokens = sent_tokens(old, provider) if old else 0
    new_tokens = sent_tokens(new, new_provider or provider) if new else 0
    if old is None or new is None:
        status = "added" if old is None else "removed"
        return CaseDiff(document, (new or old).id, status, [], [], old_tokens, new_tokens)  # type: ignore[union-attr]
    messages = message_diffs(old.messages, new.messages)
    graders = grader_diffs(old.graders, new.graders)
    changed = any(m.status != "unchanged" for m in messages) or any(g.status != "unchanged" for g in graders)
    return CaseDiff(
        document,
        new.id,
        "changed" if changed else "unchanged",
        messages,
        causes(old, new, files) if changed else [],
        old_tokens,
        new_tokens,
        graders,
    )


def diff_documents(
    old: Mapping[str, RenderedDocument],
    new: Mapping[str, RenderedDocument],
    files: FileChanges,
    provider: str = "openai-chat",
    errors: list[str] | None = None,
    new_provider: str | None = None,
) -> BundleDiff:
    """Documents matched by path, cases by id, in the new side's order (removed ones after)."""
    cases: list[CaseDiff] = []
    for path in list(new) + [p for p in old if p not in new]:
        old_cases = _cases_by_id(old.get(path))
        new_cases = _cases_by_id(new.get(path))
        for case_id, case in new_cases.items():
            cases.append(diff_case(path, old_cases.get(case_id), case, files, provider, new_provider))
        for case_id, case in old_cases.items():
            if case_id not in new_cases:
                cases.append(diff_case(path, case, None, files, provider, new_provider))
    return BundleDiff(
        cases, [p for p in old if p not in new], [p for p in new if p not in old], list(errors or [])
    )


def _cases_by_id(document: RenderedDocument | None) -> dict[str, RenderedCase]:
    return {case.id: case for case in document.cases} if document is not None else {}


def text_diff_lines(old: str, new: str) -> list[tuple[str, str]]:
    """A line diff for payloads: (" ", line), ("-", line), ("+", line)."""
    out: list[tuple[str, str]] = []
    a, b = old.splitlines(), new.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend((" ", line) for line in a[i1:i2])
            continue
        out.extend(("-", line) for line in a[i1:i2])
        out.extend(("+", line) for line in b[j1:j2])
    return out
