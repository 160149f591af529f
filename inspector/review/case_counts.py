"""How many open threads each case page shows, for the bundle page's rows: counted by the same
rule as the case page (service.case_threads), so a row and its page never disagree."""

from __future__ import annotations

from collections import Counter

from inspector.bundles import loading
from inspector.core.model import InputError
from inspector.core.options import RenderOptions
from inspector.rendering import stored_renders

from .service import Placed, line_thread_shown_on_case


def open_threads_by_case(
    loaded: loading.LoadedBundle, options: RenderOptions, placed: list[Placed]
) -> Counter[tuple[str, str]]:
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
            rendered = stored_renders.render(loaded, document, options)
        except InputError:
            continue
        for case in rendered.cases:
            counts[(document, case.id)] += sum(
                line_thread_shown_on_case(item, document, case) for item in lines
            )
    return counts
