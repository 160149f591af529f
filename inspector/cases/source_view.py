"""The source pane of a case page: the file's lines, the case's own highlighted, a window of them
for a long file."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from inspector.cases.highlighting import SourceLine, highlight_lines, highlight_window

# Past this many lines the pane shows a window around the highlight, so a case page of a
# thousand-case file stays small; the full file is one link away.
WINDOW_LINES = 1500


WINDOW_CONTEXT = 300


@dataclass
class SourcePane:
    bundle_id: str
    path: str
    lines: tuple[SourceLine, ...]
    highlight: tuple[int, int] | None
    text: str
    problem: str | None = None
    total_lines: int = 0
    full_url: str | None = None  # set when only a window of the file is shown

    @classmethod
    def build(
        cls,
        bundle_id: str,
        path: str,
        text: str,
        highlight: tuple[int, int] | None,
        problem: str | None = None,
        whole: bool = False,
    ) -> SourcePane:
        total = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if highlight and total:
            # A parser's end-of-file error names the line after the last one: show the last.
            highlight = (min(highlight[0], total), min(highlight[1], total))
        full_url = None
        if total > WINDOW_LINES and not whole:
            if highlight:
                first = max(1, highlight[0] - WINDOW_CONTEXT)
                # A case longer than the window (one conversation of 10,000 messages) shows its
                # start; the whole file is one link away.
                last = min(total, highlight[1] + WINDOW_CONTEXT, first + WINDOW_LINES - 1)
            else:
                first, last = 1, WINDOW_LINES
            lines = highlight_window(path, text, first, last)
            url = reverse("source", kwargs={"bundle_id": bundle_id, "path": path})
            params = {"all": "1"}
            if highlight:
                params["hl"] = f"{highlight[0]}-{highlight[1]}"
            full_url = f"{url}?{urlencode(params)}"
        else:
            lines = highlight_lines(path, text)
            total = len(lines)
        return cls(bundle_id, path, lines, highlight, text, problem, total_lines=total, full_url=full_url)

    @property
    def first_line(self) -> int:
        return self.lines[0].number if self.lines else 0

    @property
    def last_line(self) -> int:
        return self.lines[-1].number if self.lines else 0

    @property
    def highlight_start(self) -> int | None:
        return self.highlight[0] if self.highlight else None

    @property
    def highlight_end(self) -> int | None:
        return self.highlight[1] if self.highlight else None
