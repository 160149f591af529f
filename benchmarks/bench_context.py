"""Speed of the context builder (seed 001 asks for under 50 ms for 100 messages).

Builds the context for conversations of 100 and 10,000 messages (a quarter of the turns are tool
calls with their results), without a budget and with one that forces half the messages out, and
prints the median of several runs. Run:

    .venv/bin/python benchmarks/bench_context.py
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from inspector.core.context import build_context  # noqa: E402
from inspector.core.model import Message, Origin, OriginKind, Segment, ToolCall  # noqa: E402
from inspector.core.tokens import message_token_counts  # noqa: E402

SYSTEM = "You are a careful assistant. Answer from the tools' results only."


def conversation(size: int) -> list[Message]:
    messages: list[Message] = []
    origin = Origin(OriginKind.CASE_TEXT)
    index = 0
    while len(messages) < size:
        if index % 4 == 3:
            call_id = f"call_{index}"
            messages.append(
                Message(
                    "assistant",
                    [],
                    tool_calls=[ToolCall(call_id, "lookup", json.dumps({"query": f"item {index}"}))],
                )
            )
            messages.append(
                Message("tool", [Segment(f"result for item {index}: in stock", origin)], tool_call_id=call_id)
            )
        else:
            role = "user" if index % 2 == 0 else "assistant"
            messages.append(Message(role, [Segment(f"message {index}: " + "some words " * 12, origin)]))
        index += 1
    return messages[:size]


def median_ms(action, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    quick = "--quick" in sys.argv[1:]  # CI: one short run of each size, so the script cannot rot
    print(f"{'messages':>9} {'budget':>10} {'median ms':>10} {'dropped':>8}")
    for size, runs in ((100, 2), (1_000, 1)) if quick else ((100, 50), (10_000, 5)):
        messages = conversation(size)
        full = sum(message_token_counts(messages))
        for budget in (None, full // 2):
            result = build_context(messages, SYSTEM, budget)
            elapsed = median_ms(lambda m=messages, b=budget: build_context(m, SYSTEM, b), runs)
            label = "none" if budget is None else f"{budget:,}"
            print(f"{size:>9,} {label:>10} {elapsed:>10.2f} {len(result.dropped):>8,}")


if __name__ == "__main__":
    main()
