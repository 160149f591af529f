"""Speed of the token ledger and prompt-cache map (issue: under 1 s for a 1,000-case document).

Renders bench_render's synthetic suite (1,000 cases, each with a guideline and an attachment,
50 guidelines and 100 attachments shared between them) with a long shared system prompt in front,
then times `build_ledger` — every case counted with the provider's tokenizer, every file's share,
the price of each case from genai-prices, and the cache map with every break traced to its file and
line — per provider, from a cold token counter and price cache each time (only the tokenizer and
the price data are loaded once per process). Run:

    .venv/bin/python benchmarks/bench_ledger.py           # 1,000 cases, best of 5
    .venv/bin/python benchmarks/bench_ledger.py --quick   # 100 cases, one run (CI)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_render import synthetic_bundle  # noqa: E402

from inspector.core import prices  # noqa: E402
from inspector.core.bundle import MemoryBundle  # noqa: E402
from inspector.core.documents import render_document  # noqa: E402
from inspector.core.export import PROVIDERS, ExportSettings  # noqa: E402
from inspector.core.ledger import build_ledger  # noqa: E402
from inspector.core.options import RenderOptions  # noqa: E402

BUDGET_SECONDS = 1.0
SHARED_PROMPT = "".join(
    f"Rule {number}: review with care and cite every line you rely on.\n" for number in range(80)
)


def suite(cases: int) -> MemoryBundle:
    """bench_render's suite with every system message replaced by a long shared prompt, every
    tenth case's prompt changed on one line (so the map has breaks to trace)."""
    bundle = synthetic_bundle(cases)
    files = {path: bundle.read(path) or b"" for path in bundle.paths()}
    text = files["evals/suite.yaml"].decode()
    prompt = "".join(f"          {line}\n" for line in SHARED_PROMPT.splitlines())
    changed = prompt.replace("Rule 40:", "Rule forty:")
    parts = text.split("        content: You are a careful reviewer.\n")
    rebuilt = parts[0]
    for number, rest in enumerate(parts[1:]):
        rebuilt += "        content: |-\n" + (changed if number % 10 == 9 else prompt) + rest
    files["evals/suite.yaml"] = rebuilt.encode()
    return MemoryBundle(files)


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    cases, runs = (100, 1) if quick else (1_000, 5)
    document = render_document(suite(cases), "evals/suite.yaml", RenderOptions())
    assert len(document.cases) == cases
    build_ledger(document, "openai-chat")  # loads the tokenizer and the price data once
    print(f"{cases:,} cases, best of {runs} (budget {BUDGET_SECONDS:.1f} s for 1,000)")
    print(f"{'provider':<17} {'best s':>7} {'median s':>9} {'tokens':>11} {'shared':>7} {'breaks':>7}")
    slowest = 0.0
    for provider in PROVIDERS:
        times = []
        for _ in range(runs):
            prices.request_cost.cache_clear()
            started = time.perf_counter()
            ledger = build_ledger(document, provider, ExportSettings(max_tokens=1024))
            ledger.as_dict()
            times.append(time.perf_counter() - started)
        slowest = max(slowest, min(times))
        print(
            f"{provider:<17} {min(times):>7.3f} {statistics.median(times):>9.3f} "
            f"{ledger.input_tokens:>11,} {len(ledger.cache.group):>7} {len(ledger.cache.breaks):>7}"
        )
    if not quick and slowest > BUDGET_SECONDS:
        print(f"over budget: {slowest:.3f} s > {BUDGET_SECONDS} s")
        sys.exit(1)


if __name__ == "__main__":
    main()
