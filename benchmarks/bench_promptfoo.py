"""Speed of reading a promptfoo config, side by side with promptfoo reaching the same requests.

Writes a config of 1,000 tests (a CSV of vars) times two prompts (a text file with two sections
and a JSON chat file) on one OpenAI provider, each test with an llm-rubric judge, then times in
one run: the inspector rendering every evaluation and building every request body (candidate and
judge), and promptfoo 0.123.1 (`promptfoo eval --no-cache -j 4`) sending the same requests to the
recording server, which answers at once. Prints each side's median and spread and the ratio.
Needs promptfoo installed (tests/oracle/promptfoo, `.ci/setup --test`). Run:

    .venv/bin/python benchmarks/bench_promptfoo.py [--quick]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from inspector.core.bundle import MemoryBundle  # noqa: E402
from inspector.core.options import RenderOptions  # noqa: E402
from inspector.core.promptfoo import render_promptfoo_file  # noqa: E402
from inspector.core.promptfoo.contract import evaluation_contract  # noqa: E402
from tests.oracle.promptfoo_oracle import BIN, _environment, answer_for, available, certificate  # noqa: E402
from tests.recording import RecordingServer  # noqa: E402

CONFIG = """\
prompts:
  - file://prompts/ask.txt
  - file://prompts/chat.json
providers:
  - id: openai:chat:gpt-4o-mini
    config: {temperature: 0.2, max_tokens: 300}
defaultTest:
  assert:
    - type: llm-rubric
      value: Answers the question about {{ topic }}
tests: file://cases.csv
"""
ASK = "Answer in one line.\n\nQuestion: {{ question }}\n---\nAs {{ persona }}: {{ question | upper }}\n"
CHAT = json.dumps(
    [
        {"role": "system", "content": "You are {{ persona }}."},
        {"role": "user", "content": "{{ question }} ({{ topic }})"},
    ]
)


def files(tests: int) -> dict[str, str]:
    rows = ["question,persona,topic"] + [
        f'"What is item {index}, and why?",expert {index % 7},topic {index % 13}' for index in range(tests)
    ]
    return {
        "promptfooconfig.yaml": CONFIG,
        "prompts/ask.txt": ASK,
        "prompts/chat.json": CHAT,
        "cases.csv": "\n".join(rows) + "\n",
    }


def ours(written: dict[str, str]) -> int:
    bundle = MemoryBundle({name: text.encode() for name, text in written.items()})
    document = render_promptfoo_file(bundle, "promptfooconfig.yaml", RenderOptions())
    requests = 0
    for case in document.cases:
        contract = evaluation_contract(case)
        requests += 1 + len(contract["graders"])
    return requests


def theirs(written: dict[str, str]) -> int:
    with tempfile.TemporaryDirectory(prefix="pi-bench-promptfoo-") as temp:
        root, home = Path(temp) / "project", Path(temp) / "home"
        home.mkdir()
        for name, text in written.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        tls = certificate(Path(temp))
        with RecordingServer(answer_for, tls) as server:
            subprocess.run(
                [
                    str(BIN / "promptfoo"),
                    "eval",
                    "--no-cache",
                    "-c",
                    "promptfooconfig.yaml",
                    "-j",
                    "4",
                    "--no-write",
                    "--no-table",
                    "--no-progress-bar",
                    "-o",
                    str(Path(temp) / "out.json"),
                ],
                cwd=root,
                env=_environment(home, server, tls[0]),
                capture_output=True,
                check=False,
                timeout=1800,
            )
            return len(server.take())


def timed(action, written: dict[str, str], runs: int) -> tuple[list[float], int]:
    times, count = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        count = action(written)
        times.append(time.perf_counter() - started)
    return times, count


def spread(times: list[float]) -> str:
    return f"median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f})"


def main() -> None:
    quick = "--quick" in sys.argv[1:]  # CI: a small config, one run each, so the script cannot rot
    tests, runs = (20, 1) if quick else (1_000, 3)
    written = files(tests)
    mine, mine_requests = timed(ours, written, runs)
    print(f"inspector: {tests} tests, {mine_requests} requests: {spread(mine)}")
    if not available():
        print(
            "promptfoo is not installed in tests/oracle/promptfoo (.ci/setup --test): "
            "only the inspector's side was timed"
        )
        return
    real, real_requests = timed(theirs, written, runs)
    print(f"promptfoo: {tests} tests, {real_requests} requests: {spread(real)}")
    print(f"ratio (promptfoo / inspector, medians): {statistics.median(real) / statistics.median(mine):.1f}x")
    if os.environ.get("PI_BENCH_STRICT") and mine_requests != real_requests:
        raise SystemExit("the two sides sent different numbers of requests")


if __name__ == "__main__":
    main()
