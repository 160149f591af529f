"""Long differential run: N generated agentv suites through agentv 4.42.4 and the `agentv-4` profile.

    .venv/bin/python benchmarks/bench_oracle.py            # 20,000 suites (about half an hour)
    .venv/bin/python benchmarks/bench_oracle.py --quick    # 200 suites, what CI runs
    .venv/bin/python benchmarks/bench_oracle.py -n 2000 --seed 7 --show 3

Prints how many suites differed, grouped by the first line of each difference, with the first
reproducers; exits 1 when any differed. Needs `.ci/setup --test` (Node and agentv in tests/oracle).
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import os  # noqa: E402

import django  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inspector.settings")
django.setup()

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from tests.oracle.agentv import Oracle  # noqa: E402
from tests.oracle.differential import differences  # noqa: E402
from tests.oracle.generate import Suite, suites  # noqa: E402


def _kind(problem: str) -> str:
    first = problem.splitlines()[0]
    return re.sub(r"case-\d+|'[^']*'|\([^)]*\)|\[[^\]]*\]", "…", first)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="200 suites")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=2, help="reproducers to print per kind")
    args = parser.parse_args()
    count = 200 if args.quick else args.n
    kinds: collections.Counter[str] = collections.Counter()
    examples: dict[str, list[str]] = collections.defaultdict(list)
    totals = {"suites": 0, "differed": 0}

    with Oracle() as oracle:

        @seed(args.seed)
        @settings(
            max_examples=count,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(suite=suites())
        def run(suite: Suite) -> None:
            folder = Path(tempfile.mkdtemp(prefix="agentv-suite-"))
            try:
                found = differences(oracle, folder, suite.write(folder))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            totals["suites"] += 1
            if found:
                totals["differed"] += 1
                for kind in {_kind(problem) for problem in found}:
                    kinds[kind] += 1
                    if len(examples[kind]) < args.show:
                        examples[kind].append("\n".join(found) + "\n" + suite.show())

        started = time.perf_counter()
        run()
        elapsed = time.perf_counter() - started

    print(
        f"{totals['suites']} suites in {elapsed:.0f} s ({elapsed / max(totals['suites'], 1) * 1000:.0f} ms "
        f"each): {totals['differed']} differed from agentv 4.42.4"
    )
    for kind, number in kinds.most_common():
        print(f"\n### {number} x {kind}")
        for example in examples[kind]:
            print(example)
            print("-" * 60)
    return 1 if totals["differed"] else 0


if __name__ == "__main__":
    sys.exit(main())
