"""Why a file is a guideline of a case: the pattern that matched its path, and the line of
`.agentv/config.yaml` (or the setting) that gave the pattern. agentv moves a guideline's text into
the system message; the reader asking "why is this in my system prompt?" gets the line to change."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..bundle import Bundle
from ..model import OriginKind, RenderedCase
from ..serialize import case_detail
from .files import DEFAULT_PATTERNS, config_patterns, is_guideline, micromatch


@dataclass(frozen=True)
class GuidelineReason:
    pattern: str
    source: str | None  # the config file that lists the pattern; None: the render settings
    line: int | None  # its line there, when it is written there
    default: bool = False  # agentv's own default patterns: no config lists any

    def sentence(self) -> str:
        if self.source and self.line:
            where = f"{self.source} line {self.line}"
        elif self.default:
            where = "agentv's default guideline patterns"
        else:
            where = "the guideline patterns set for this render"
        return f"a guideline because it matches `{self.pattern}` ({where})"


def matches(path: str, pattern: str) -> bool:
    """The matchers agentv's releases use (micromatch before 4, gitignore rules since)."""
    return is_guideline(path, (pattern,)) or micromatch(path, (pattern,))


def guideline_reason(
    bundle: Bundle, eval_path: str, path: str, patterns: tuple[str, ...] | None = None
) -> GuidelineReason | None:
    """The first pattern that makes `path` a guideline for the eval file, and where it is written."""
    if patterns is not None:
        pattern = next((item for item in patterns if matches(path, item)), None)
        return GuidelineReason(pattern, None, None) if pattern else None
    found, config = config_patterns(bundle, eval_path)
    pattern = next((item for item in found if matches(path, item)), None)
    if pattern is None:
        return None
    if config is None:
        return GuidelineReason(pattern, None, None, default=tuple(found) == tuple(DEFAULT_PATTERNS))
    return GuidelineReason(pattern, config, pattern_line(bundle, config, pattern))


def pattern_line(bundle: Bundle, config: str, pattern: str) -> int | None:
    """The line of the config's guideline_patterns list that holds the pattern."""
    decoded = bundle.text(config)
    if decoded is None:
        return None
    item = re.compile(r"^\s*-\s*([\"']?)" + re.escape(pattern) + r"\1\s*(#.*)?$")
    lines = decoded.text.splitlines()
    inside = False
    for number, line in enumerate(lines, 1):
        if re.match(r"^\s*guideline_patterns\s*:", line):
            inside = True
            if pattern in line:  # a flow list on the key's own line
                return number
            continue
        if inside and item.match(line):
            return number
    return None


def pattern_line_note(
    bundle: Bundle, eval_path: str, path: str, number: int, guideline_paths: list[str]
) -> str | None:
    """Line `number` of `path` in words when it is a guideline pattern of the config the eval file
    reads: which of the case's guideline files it matched (their text is in the system message)."""
    found, config = config_patterns(bundle, eval_path)
    if config != path:
        return None
    pattern = next((item for item in found if pattern_line(bundle, config, item) == number), None)
    if pattern is None:
        return None
    matched = [item for item in guideline_paths if matches(item, pattern)]
    if not matched:
        return (
            f"Line {number} is the guideline pattern `{pattern}`: it matches none of the files "
            "this case sends."
        )
    return (
        f"Line {number} is the guideline pattern `{pattern}`: it makes {', '.join(matched)} "
        f"{'a guideline' if len(matched) == 1 else 'guidelines'} of this case, so "
        f"{'its' if len(matched) == 1 else 'their'} text is in the system message."
    )


def case_guidelines(
    bundle: Bundle, eval_path: str, case: RenderedCase, patterns: tuple[str, ...] | None = None
) -> list[dict[str, object]]:
    """Each file the case sends as a guideline and why (the CLI's and the API's `guidelines`):
    {"path", "pattern", "source", "line"}; pattern null when no pattern explains it."""
    result: list[dict[str, object]] = []
    for path in guideline_paths(case):
        reason = guideline_reason(bundle, eval_path, path, patterns)
        result.append(
            {
                "path": path,
                "pattern": reason.pattern if reason else None,
                "source": reason.source if reason else None,
                "line": reason.line if reason else None,
            }
        )
    return result


def guideline_paths(case: RenderedCase) -> list[str]:
    """The files whose text the case sends as guidelines, in order."""
    found: dict[str, None] = {}
    for message in case.messages:
        for segment in message.segments:
            if segment.origin.kind == OriginKind.GUIDELINE and segment.origin.path:
                found[segment.origin.path] = None
    return list(found)


def verbatim_lines(bundle: Bundle, path: str, start_line: int, end_line: int, text: str) -> list[str] | None:
    """`text` cut into the file's lines `start_line`..`end_line` (each keeping its line break), when
    it is those lines verbatim; None when it is not (trimmed inside, joined, or the file is gone):
    only then does a line of the text name a line of the file."""
    if end_line <= start_line:
        return None
    decoded = bundle.text(path)
    if decoded is None:
        return None
    pieces = text.split("\n")
    if pieces[-1] == "" and len(pieces) > 1:  # the text kept the last line's break
        pieces.pop()
    if pieces != decoded.text.split("\n")[start_line - 1 : end_line]:
        return None
    cut = text.splitlines(keepends=True)
    return cut if len(cut) == end_line - start_line + 1 else None


def _traced_segments(bundle: Bundle, segments: list[dict], why: dict[str, dict[str, object]]) -> list[dict]:
    """Each guideline segment with its why; one of several verbatim lines split into one per line,
    each tracing to its own line (as the case page marks the line clicked), with the whole text's
    lines as `guideline_span`."""
    traced: list[dict] = []
    for segment in segments:
        origin = segment["origin"]
        if origin["kind"] != OriginKind.GUIDELINE or not origin["path"] or origin["start_line"] is None:
            traced.append(segment)
            continue
        start, end = origin["start_line"], origin["end_line"] or origin["start_line"]
        whole = {"path": origin["path"], "start_line": start, "end_line": end}
        lines = verbatim_lines(bundle, origin["path"], start, end, segment["text"])
        extra = {"guideline": why.get(origin["path"]), "guideline_span": whole}
        if lines is None:
            traced.append(segment | extra)
            continue
        traced.extend(
            {"text": line, "origin": origin | {"start_line": number, "end_line": number}} | extra
            for number, line in enumerate(lines, start)
        )
    return traced


def traced_case_detail(
    bundle: Bundle, eval_path: str, case: RenderedCase, patterns: tuple[str, ...] | None = None
) -> dict[str, Any]:
    """The API's case: `serialize.case_detail` with `guidelines`, and its guideline text traced line
    by line. Split here, once per answer, not in the stored render: a segment per guideline line
    there multiplied a suite's segments by the guideline's length (commit 499b6e8)."""
    detail = case_detail(case)
    guidelines = case_guidelines(bundle, eval_path, case, patterns)
    why = {
        str(item["path"]): {key: item[key] for key in ("pattern", "source", "line")} for item in guidelines
    }
    for message in [*detail["messages"], *(m for grader in detail["graders"] for m in grader["messages"])]:
        message["segments"] = _traced_segments(bundle, message["segments"], why)
    return detail | {"guidelines": guidelines}


def traced_guidelines(
    bundle: Bundle, eval_path: str, case: RenderedCase, patterns: tuple[str, ...] | None = None
) -> list[dict[str, object]]:
    """The CLI's `guidelines` (which sends no segments): each file's entry with `spans`, the lines
    of it the case sends and their text, one per line where the API's segments are one per line."""
    detail = traced_case_detail(bundle, eval_path, case, patterns)
    spans: dict[object, list[dict[str, object]]] = {item["path"]: [] for item in detail["guidelines"]}
    for message in detail["messages"]:
        for segment in message["segments"]:
            origin = segment["origin"]
            if origin["kind"] == OriginKind.GUIDELINE and origin["path"] in spans:
                spans[origin["path"]].append(
                    {
                        "start_line": origin["start_line"],
                        "end_line": origin["end_line"],
                        "text": segment["text"],
                    }
                )
    return [item | {"spans": spans[item["path"]]} for item in detail["guidelines"]]
