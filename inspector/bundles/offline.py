"""A bundle as one self-contained HTML file: styles, script and data inside, opened from disk with no
server; the side-by-side view with provenance, comments and verdicts, read-only.

Size: the files go in once. A segment's text is almost always a stretch of the file it came from,
so it is stored as (file, offset, length) into that file; other texts (joins, expanded templates)
go in a table where each distinct text is stored once, so a guideline shared by 500 cases costs
one copy. The data stays under twice the bundle's own text plus the fixed viewer."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from django.conf import settings

from inspector.cases.message_cards import THINKING_LABEL, thinking_view
from inspector.core.model import Message, RenderedDocument

# The app's own static folder (beside the package in a clone, inspector_static once installed).
STATIC = Path(settings.STATICFILES_DIRS[0])
STYLES = ("css/app.css", "css/pygments.css", "css/review.css")
SCRIPT = "js/offline.js"
_LINE_END = re.compile("\n")


class _Texts:
    """The data's strings: files by index, other texts deduplicated."""

    def __init__(self, files: dict[str, str]):
        self.paths = list(files)
        self.index = {path: i for i, path in enumerate(self.paths)}
        self.files = files
        self.line_starts: dict[str, list[int]] = {}
        self.table: list[str] = []
        self.table_index: dict[str, int] = {}

    def _lines_span(self, path: str, first: int | None, last: int | None) -> tuple[int, int]:
        """Where lines first..last of the file start and end (the whole file without lines)."""
        source = self.files[path]
        if not first:
            return 0, len(source)
        starts = self.line_starts.get(path)
        if starts is None:
            starts = [0, *(match.end() for match in _LINE_END.finditer(source))]
            self.line_starts[path] = starts
        end = starts[last] if last and last < len(starts) else len(source)
        return starts[min(first, len(starts)) - 1], end

    def ref(self, text: str, path: str | None, line: int | None, last: int | None = None) -> list[int]:
        """[file, offset, length] when the text is in its file at its lines, else [-1, index into the
        table]. Only its own lines are searched: a text not found there (a JSON string with escapes
        reads otherwise than its file) searched on to the file's end made 40,000 messages of a
        5.8 MB bundle take 39 s."""
        if path is not None and path in self.index and text:
            start, end = self._lines_span(path, line, last)
            at = self.files[path].find(text, start, max(end, start + len(text)))
            if at != -1:
                return [self.index[path], at, len(text)]
        if text not in self.table_index:
            self.table_index[text] = len(self.table)
            self.table.append(text)
        return [-1, self.table_index[text]]


def offline_data(
    title: str,
    files: dict[str, str],
    documents: list[RenderedDocument],
    threads: list[dict] | None = None,
    verdicts: list[dict] | None = None,
) -> dict:
    """Messages are stored once each (cases sharing a system prompt share it); a message is
    [role, segments, omitted or null, tool calls as [name, arguments], and, when it has any, its
    thinking as [segment position, label, text]], its segments one flat list
    of seven numbers each: the text's reference (file, offset, length; or -1, table index, 0), the
    origin's kind (index into `kinds`), file (index or -1) and first and last line (0 for none).
    A case's graders (`g`) are what the judge is sent, in the same messages, or a note."""
    texts = _Texts(files)
    kinds: dict[str, int] = {}
    messages: list[list] = []
    seen: dict[str, int] = {}

    def stored(message: Message) -> int:
        flat: list[int] = []
        thinking: list[list] = []
        for position, segment in enumerate(message.segments):
            origin = segment.origin
            ref = texts.ref(segment.text, origin.path, origin.start_line, origin.end_line)
            flat += ref if len(ref) == 3 else [*ref, 0]
            flat += [
                kinds.setdefault(str(origin.kind), len(kinds)),
                texts.index.get(origin.path, -1) if origin.path else -1,
                origin.start_line or 0,
                origin.end_line or 0,
            ]
            shown = thinking_view(segment.raw) if segment.raw is not None else None
            if shown is not None:  # the model's reasoning: beside the text, as the page shows it
                thinking.append([position, shown.label, shown.text])
        item = [
            message.role,
            flat,
            message.omitted,
            [[call.name, call.arguments] for call in message.tool_calls],
            *([thinking] if thinking else []),
        ]
        key = json.dumps(item, ensure_ascii=False)
        if key not in seen:
            seen[key] = len(messages)
            messages.append(item)
        return seen[key]

    docs = []
    for document in documents:
        cases = []
        for case in document.cases:
            indexes = [stored(message) for message in case.messages]
            span = case.span
            entry: dict = {"id": case.id, "m": indexes}
            if case.graders:
                # [name, message indexes, note or null, written at "path:line" or null]
                entry["g"] = [
                    [
                        grader.name,
                        [stored(message) for message in grader.messages],
                        grader.note,
                        f"{grader.span.path}:{grader.span.start_line}" if grader.span is not None else None,
                    ]
                    for grader in case.graders
                ]
            if span is not None:
                entry["span"] = [texts.index.get(span.path, -1), span.start_line, span.end_line]
            if case.skipped:
                entry["skipped"] = case.skipped
            cases.append(entry)
        docs.append(
            {"path": document.path, "kind": document.kind, "profile": document.profile, "cases": cases}
        )
    return {
        "title": title,
        "paths": texts.paths,
        "files": [files[p] for p in texts.paths],
        "table": texts.table,
        "kinds": list(kinds),
        "messages": messages,
        "documents": docs,
        "thinking_title": THINKING_LABEL,
        "threads": threads or [],
        "verdicts": verdicts or [],
    }


def _embedded_json(data: dict) -> str:
    # Inside <script type="application/json">: only "</" and "<!--" could end or confuse the
    # element; both are escaped the way JSON allows, without inflating every "<" six-fold.
    return (
        json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
        .replace("</", "<\\/")
        .replace("<!--", "\\u003c!--")
    )


def _escape_html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def offline_html(data: dict) -> str:
    styles = "\n".join((STATIC / name).read_text(encoding="utf-8") for name in STYLES)
    script = (STATIC / SCRIPT).read_text(encoding="utf-8")
    title = _escape_html(data["title"] or "Prompt Inspector")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title} · Prompt Inspector (offline)</title>\n"
        f'<style>\n{styles}\n</style></head>\n<body class="offline">'
        '<header class="topbar"><span class="brand"><span class="brand-mark">⟨⟩</span> '
        f'Prompt Inspector</span><nav class="crumbs">{title} · offline copy, read-only</nav></header>'
        '<main class="page wide" id="offline"><noscript>This offline copy needs JavaScript to show '
        "the cases.</noscript></main>\n"
        f'<script type="application/json" id="bundle-data">{_embedded_json(data)}</script>\n'
        f"<script>\n{script}\n</script>\n</body></html>\n"
    )


def text_files(files) -> dict[str, str]:
    """Every file of a core bundle that reads as text (an image or archive adds nothing to show)."""
    out = {}
    for path in files.paths():
        decoded = files.text(path)
        if decoded is not None and "binary" not in (decoded.problem or ""):
            out[path] = decoded.text
    return out


def render_all(render, documents) -> list[RenderedDocument]:
    """Each document `render(path)` can render; one that cannot is left out of the copy. Busy
    (the workers, or this request's budget) is raised: a copy must not silently lack a file that
    only needed time."""
    from inspector.core import bounded
    from inspector.core.model import InputError

    out = []
    for path in documents:
        try:
            out.append(render(path))
        except bounded.Busy:
            raise
        except InputError:
            continue
    return out


# What building the copy costs in the web process, per million characters of the bundle's text
# (measured: four 10,000-message conversations, 6.3 MB, in 4.9 s on a busy machine), with room.
SECONDS_PER_MILLION_CHARACTERS = 1.5


def _refuse_past_budget(characters: int) -> None:
    """The copy is built in this process, where nothing can stop it once begun: refuse before,
    as busy (the renders are kept, so a retry starts with the whole budget for it)."""
    from inspector.core import bounded

    left = bounded.left_in_budget()
    needed = 1 + SECONDS_PER_MILLION_CHARACTERS * characters / 1_000_000
    if left is not None and left < needed:
        raise bounded.OverBudget(
            f"the files were read, but too little of this request's time is left "
            f"to build the copy ({left:.1f} s of the {needed:.1f} s it may take); "
            f"try again: what was read is kept"
        )


def copy_key(bundle_key: str, title: str, threads: list[dict], verdicts: list[dict]) -> str:
    """Where kept_copy keeps the copy of this bundle state and review state."""
    from inspector.rendering import cache as render_cache

    review = hashlib.sha256(json.dumps([threads, verdicts], sort_keys=True, default=str).encode())
    return render_cache.key("offline", bundle_key, title, review.hexdigest())


def kept_copy(
    bundle_key: str, title: str, files, render, documents, threads: list[dict], verdicts: list[dict]
) -> str:
    """offline_html of the bundle, made once per bundle (`bundle_key`: its cache id and state) and
    review state, and kept in the render cache: the copy of a large bundle costs seconds, and a
    share link can ask for it again and again."""
    from inspector.rendering import cache as render_cache

    key = copy_key(bundle_key, title, threads, verdicts)
    kept = render_cache.get(key)
    if kept is not None:
        return kept
    rendered = render_all(render, documents)
    texts = text_files(files)
    _refuse_past_budget(sum(len(text) for text in texts.values()))
    made = offline_html(offline_data(title, texts, rendered, threads, verdicts))
    render_cache.put(key, made)
    return made
