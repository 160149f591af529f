"""The long run of the promptfoo differential test: N generated configs (fixed seed), each
compared with what promptfoo 0.123.1 sends, every difference written down rather than the run
stopping at the first (as the test does), with a progress line every 100 configs.

    PYTHONPATH=. .venv/bin/python -m tests.oracle.promptfoo_long_run 20000 --out long-run.jsonl

`--seed N` draws another fixed stream, so the run can go in chunks (in parallel, on a machine with
cores to spare): `--seed 1`, `--seed 2`, ... each of 5,000 make 20,000 configs, every chunk
repeatable on its own. Without `--seed` the draw is hypothesis's derandomized one, as the test's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, seed, settings

from .promptfoo_generate import configs
from .promptfoo_oracle import PromptfooOracle
from .test_promptfoo_differential import differences


def long_run(count: int, out: Path, stream: int | None = None) -> int:
    seen = 0
    failed = 0
    started = time.monotonic()
    with PromptfooOracle() as oracle, out.open("a", encoding="utf-8") as log:

        @settings(
            max_examples=count,
            derandomize=stream is None,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(files=configs())
        def one(files: dict[str, Any]) -> None:
            nonlocal seen, failed
            seen += 1
            try:
                found = differences(files, oracle)
            except Exception as error:  # a config either side could not run is a finding too
                found = [f"{type(error).__name__}: {error}"]
            if found:
                failed += 1
                log.write(json.dumps({"config": seen, "files": files, "differences": found}) + "\n")
                log.flush()
            if seen % 100 == 0:
                elapsed = time.monotonic() - started
                print(f"{seen} configs, {failed} with differences, {elapsed:.0f} s", flush=True)

        (one if stream is None else seed(stream)(one))()
    print(f"done: {seen} configs, {failed} with differences, {time.monotonic() - started:.0f} s", flush=True)
    return failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("--out", type=Path, default=Path("promptfoo-long-run.jsonl"))
    parser.add_argument("--seed", type=int, default=None, help="draw this fixed stream instead")
    arguments = parser.parse_args()
    sys.exit(1 if long_run(arguments.count, arguments.out, arguments.seed) else 0)


if __name__ == "__main__":
    main()
