"""Render speed of the agentv engine.

Renders a synthetic eval file of 1,000 cases (each with a guideline and an attachment file) under
every profile and prints cases per second, then the time to load and render the largest corpus file
(only when PI_CORPUS names the corpus folder) and a 100-message conversation (seed 001 asks for under 50 ms), and a gambit grader grading a
200-message conversation turn by turn, pasted and read from a file. With the agentv oracle installed
(`.ci/setup --test`), it also times agentv 4.42.4's own loadTests + buildPromptInputs against the
`agentv-4` profile on the same suite read from disk, in the same run, and prints the ratio. Run:

    .venv/bin/python benchmarks/bench_render.py           # 1,000 cases, best of 3
    .venv/bin/python benchmarks/bench_render.py --quick   # 100 cases, one run (CI)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from inspector.core.agentv import render_eval_file  # noqa: E402
from inspector.core.bundle import DirectoryBundle, MemoryBundle  # noqa: E402
from inspector.core.options import PROFILES, RenderOptions  # noqa: E402
from inspector.core.yaml_lines import forget_last_read  # noqa: E402

# The real projects' agentv files, outside the repository: measured only when PI_CORPUS names
# the corpus folder (.ci/run sets it when ../shared/corpus is there).
CORPUS = Path(os.environ["PI_CORPUS"]) / "agentv" if os.environ.get("PI_CORPUS") else None
CASES = 1_000


def synthetic_bundle(cases: int, agentv_5: bool = False) -> MemoryBundle:
    """The same suite in agentv 4's schema, or in agentv 5's (one `{{ input }}` prompt, each
    test's messages in `vars.input`)."""
    files: dict[str, bytes] = {
        ".agentv/config.yaml": b"guideline_patterns: ['**/*.instructions.md']\n",
    }
    lines = ["description: synthetic benchmark suite"]
    lines += ["prompts:", '  - "{{ input }}"', "tests:"] if agentv_5 else ["tests:"]
    nest = "  " if agentv_5 else ""
    for index in range(cases):
        files[f"guides/g{index % 50}.instructions.md"] = (
            f"# Guideline {index % 50}\n" + "Always explain your reasoning.\n" * 20
        ).encode()
        files[f"attachments/a{index % 100}.py"] = ("def f(x):\n    return x * 2\n" * 15).encode()
        lines += [
            f"  - id: case-{index}",
            f"    criteria: The answer mentions item {index}.",
            *(["    vars:", "      input:"] if agentv_5 else ["    input:"]),
            *(
                nest + line
                for line in [
                    "      - role: system",
                    "        content: You are a careful reviewer.",
                    "      - role: user",
                    "        content:",
                    "          - type: text",
                    "            value: |-",
                    f"              Review attachment {index}.",
                    "              Explain every finding.",
                    "          - type: file",
                    f"            value: ../guides/g{index % 50}.instructions.md",
                    "          - type: file",
                    f"            value: ../attachments/a{index % 100}.py",
                    "      - role: assistant",
                    "        content: Which part matters most?",
                    "      - role: user",
                    "        content: The loop.",
                ]
            ),
        ]
    files["evals/suite.yaml"] = ("\n".join(lines) + "\n").encode()
    return MemoryBundle(files)


def conversation_bundle(messages: int) -> MemoryBundle:
    lines = ["tests:", "  - id: long", "    criteria: ok", "    input:"]
    for index in range(messages):
        role = "user" if index % 2 == 0 else "assistant"
        lines += [f"      - role: {role}", f"        content: Message number {index} " + "x" * 200]
    return MemoryBundle({"evals/long.yaml": ("\n".join(lines) + "\n").encode()})


def graded_turns(messages: int, runs: int) -> None:
    """A gambit turn grader given a conversation (one case per assistant message, each holding the
    whole session), pasted and read from a saved state.json whose messages are traced to lines."""
    from inspector.core.documents import render_document

    deck = (
        '+++\ncontextSchema = "gambit://schemas/graders/contexts/turn.zod.ts"\n'
        '[modelParams]\nmodel = "m"\n+++\nGrade the reply.\n'
    )
    session = [
        {"role": "assistant" if index % 2 else "user", "content": f"Message {index} " * 20}
        for index in range(messages)
    ]
    state = json.dumps({"runId": "run-1", "messages": session}, indent=2)
    bundle = MemoryBundle({"g/PROMPT.md": deck.encode(), "g/samples/state.json": state.encode()})
    for label, options in (
        ("pasted", RenderOptions(gambit_conversation=state)),
        ("from a file", RenderOptions(gambit_conversation_sample="state")),
    ):
        seconds = best_of(runs, lambda options=options: render_document(bundle, "g/PROMPT.md", options))
        print(
            f"gambit grader, {messages}-message conversation turn by turn, {label}: {seconds * 1000:.0f} ms"
        )


def best_of(runs: int, action, clock=time.perf_counter) -> float:
    """The best time of `runs` renders, each parsing its file (agentv's loader parses it on every
    run; the tree the reader keeps for the next read of the same text would skip that)."""
    best = float("inf")
    for _ in range(runs):
        forget_last_read()
        started = clock()
        action()
        best = min(best, clock() - started)
    return best


def against_agentv(bundle: MemoryBundle, cases: int, runs: int) -> None:
    """Ours and agentv's own loader on the same files on disk, one after the other."""
    oracle = REPO / "tests" / "oracle"
    if not (oracle / "node_modules" / "@agentv" / "core").is_dir():
        print("agentv oracle not installed (.ci/setup --test): no comparison")
        return
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for path in bundle.paths():
            data = bundle.read(path) or b""
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        options = RenderOptions(profile="agentv-4")

        def render() -> None:
            render_eval_file(DirectoryBundle(root), "evals/suite.yaml", options)

        ours = best_of(runs, render)
        ours_cpu = best_of(runs, render, time.process_time)
        answer = subprocess.run(
            ["node", str(oracle / "time_load.mjs"), str(root / "evals/suite.yaml"), str(root), str(runs)],
            capture_output=True,
            text=True,
            check=True,
            cwd=oracle,
        )
        theirs = json.loads(answer.stdout)
    print(
        f"from disk, {cases} cases: agentv-4 profile {ours * 1000:.0f} ms, agentv 4.42.4 "
        f"loadTests + buildPromptInputs {theirs['ms']:.0f} ms ({theirs['cases']} cases): "
        f"{theirs['ms'] / 1000 / ours:.1f}x agentv's speed"
    )
    # On a machine shared with other jobs the wall clock counts the waits for a core as well.
    print(
        f"  in CPU time (each process's own): {ours_cpu * 1000:.0f} ms against "
        f"{theirs['cpu_ms']:.0f} ms: {theirs['cpu_ms'] / 1000 / ours_cpu:.1f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 cases, one run")
    args = parser.parse_args()
    cases, runs = (100, 1) if args.quick else (CASES, 3)
    bundle = synthetic_bundle(cases)
    bundle_5 = synthetic_bundle(cases, agentv_5=True)
    print(
        f"synthetic suite: {cases} cases, each with a guideline and an attachment (agentv 5's "
        f"schema for agentv-5)"
    )
    for profile in PROFILES:
        options = RenderOptions(profile=profile)
        suite = bundle_5 if profile.startswith("agentv-5") else bundle  # agentv 5 files for both 5 profiles
        seconds = best_of(
            runs, lambda options=options, suite=suite: render_eval_file(suite, "evals/suite.yaml", options)
        )
        print(f"  {profile:12s} {cases / seconds:10,.0f} cases/s   ({seconds * 1000:.0f} ms)")
    against_agentv(bundle, cases, runs)

    conversation = conversation_bundle(100)
    seconds = best_of(
        20 if runs > 1 else 2, lambda: render_eval_file(conversation, "evals/long.yaml", RenderOptions())
    )
    print(f"100-message conversation: {seconds * 1000:.2f} ms")

    graded_turns(200, 10 if runs > 1 else 1)

    if CORPUS is not None and CORPUS.is_dir():
        largest = max(
            (
                path
                for path in CORPUS.rglob("*")
                if path.suffix in (".yaml", ".yml", ".jsonl") and ".agentv" not in path.parts
            ),
            key=lambda path: path.stat().st_size,
        )
        snapshot = largest.relative_to(CORPUS).parts[0]
        root = CORPUS / snapshot
        relative = largest.relative_to(root).as_posix()

        def load_and_render() -> None:
            render_eval_file(DirectoryBundle(root), relative, RenderOptions(profile="agentv-3.8"))

        seconds = best_of(10, load_and_render)
        print(
            f"largest corpus file {snapshot}/{relative} ({largest.stat().st_size:,} bytes): "
            f"{seconds * 1000:.2f} ms to load and render"
        )


if __name__ == "__main__":
    main()
