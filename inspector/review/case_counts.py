"""How many open threads each case page shows, for the bundle page's rows: counted by the same
rule as the case page (service.case_threads), so a row and its page never disagree."""

from __future__ import annotations

from collections import Counter

from inspector import services
from inspector.core import anchors
from inspector.core.model import InputError, RenderedCase
from inspector.core.options import RenderOptions

from .service import Placed


def line_thread_shown_on_case(item: Placed, document: str, case: RenderedCase) -> bool:
    """Whether the case page shows a line thread: its lines carry text of the case's messages or
    lie within the case's own source; an outdated one on every case of the file it was on."""
    if item.state == "outdated" or item.start_line is None or item.end_line is None:
        return item.state == "outdated" and item.thread.path == document
    if anchors.case_carries_lines(case, item.path, item.start_line, item.end_line):
        return True
    span = case.span  # a YAML key or id line makes no text but belongs to the case
    return (span is not None and span.path == item.path and span.start_line <= item.end_line
            and item.start_line <= span.end_line)


def open_threads_by_case(loaded: services.LoadedBundle, options: RenderOptions,
                         placed: list[Placed]) -> Counter[tuple[str, str]]:
    """Open threads per (document, case id), as each case page counts them: threads made on the
    case, carried or outdated, and line threads on lines the case carries (a shared guideline's)."""
    counts: Counter[tuple[str, str]] = Counter()
    lines = []
    for item in placed:
        if item.thread.resolved:
            continue
        if item.thread.kind == "line":
            lines.append(item)
        else:
            counts[(item.thread.document, item.thread.case_id)] += 1
    if not lines:
        return counts
    for document in loaded.documents:
        try:
            rendered = services.render(loaded, document, options)
        except InputError:
            continue
        for case in rendered.cases:
            counts[(document, case.id)] += sum(line_thread_shown_on_case(item, document, case)
                                               for item in lines)
    return counts
