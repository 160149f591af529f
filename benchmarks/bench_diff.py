"""Speed and size of the review features on large bundles: the diff of a 1,000-case suite whose
shared guideline changed (every case changed, one cause), the word diff of one 200 KB message with
a few edits, and the offline copy of the same suite (bytes against the bundle's own). Run:

    .venv/bin/python benchmarks/bench_diff.py [--quick]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inspector.settings")

import django  # noqa: E402

django.setup()

from inspector.bundles import offline  # noqa: E402
from inspector.core.bundle import MemoryBundle  # noqa: E402
from inspector.core.diff import FileChanges, diff_documents, word_diff  # noqa: E402
from inspector.core.documents import render_document  # noqa: E402

GUIDE = "# Rules\n\n" + "".join(f"- Rule {n}: point out bugs before style.\n" for n in range(40))


def suite(cases: int) -> str:
    lines = ["description: generated", "evalcases:"]
    for n in range(cases):
        lines += [
            f"  - id: case-{n}",
            "    outcome: ok",
            "    input_messages:",
            "      - role: user",
            "        content:",
            "          - type: text",
            f"            value: Review function {n}.",
            "          - type: file",
            "            value: rules.instructions.md",
        ]
    return "\n".join(lines) + "\n"


def files(cases: int, guide: str) -> dict[str, bytes]:
    return {
        "evals/suite.yaml": suite(cases).encode(),
        "evals/rules.instructions.md": guide.encode(),
        ".agentv/config.yaml": b'guideline_patterns:\n  - "**/*.instructions.md"\n',
    }


def timed(action, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    cases, runs = (100, 1) if quick else (1_000, 5)
    old_files = MemoryBundle(files(cases, GUIDE))
    new_files = MemoryBundle(files(cases, GUIDE.replace("Rule 7:", "Rule 7 (revised):")))
    old = {"evals/suite.yaml": render_document(old_files, "evals/suite.yaml", None)}
    new = {"evals/suite.yaml": render_document(new_files, "evals/suite.yaml", None)}

    def text(bundle):
        return lambda path: bundle.text(path).text if bundle.text(path) else None

    ms, result = timed(lambda: diff_documents(old, new, FileChanges(text(old_files), text(new_files))), runs)
    print(
        f"diff of {cases} cases, one guideline line changed: {ms:.0f} ms median; "
        f"summary {result.summary}; causes {[(c.label(), n) for c, n in result.causes()]}"
    )

    message = "".join(f"Line {n} of a long message with several words in it.\n" for n in range(4000))
    edited = message.replace("Line 100 of", "Line 100 in").replace("Line 3000 of", "Row 3000 of")
    ms, _ = timed(lambda: word_diff(message, edited), runs)
    print(f"word diff of a {len(message) // 1000} KB message with two edits: {ms:.1f} ms median")

    texts = offline.text_files(new_files)
    own = sum(len(t.encode()) for t in texts.values())
    fixed = len(offline.offline_html(offline.offline_data("x", {}, [])).encode())
    ms, html = timed(lambda: offline.offline_html(offline.offline_data("x", texts, list(new.values()))), runs)
    size = len(html.encode())
    print(
        f"offline copy of {cases} cases: {ms:.0f} ms median; {size:,} bytes = viewer {fixed:,} + data "
        f"{size - fixed:,} for a bundle of {own:,} bytes ({(size - fixed) / own:.2f}x)"
    )


if __name__ == "__main__":
    main()
