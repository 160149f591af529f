"""Our Anthropic and Gemini conversion timed, beside LiteLLM's when it is installed, on the same
OpenAI-format conversations.

Run it with the benchmark's own environment (LiteLLM is pinned there, never a project dependency):

    python3 -m venv benchmarks/.venv-litellm
    benchmarks/.venv-litellm/bin/pip install "litellm==1.76.1"  # + the core's own: README.md
    LITELLM_LOCAL_MODEL_COST_MAP=True benchmarks/.venv-litellm/bin/python benchmarks/bench_export.py

It times each converter on conversations of 100 and 10,000 messages with parallel tool calls, checks
that both produce the same message content, and prints the times and their ratio (a figure to
watch, not a goal). Dicts in, payload out: LiteLLM takes the OpenAI messages, and so does our side,
through `export.export_request`, the core's one way for a body given as dicts (read into the
neutral model, then exported, as every page does). It also prints the export alone from a case
already read, and whether the compiled modules (inspector/speedups.py) were in use. `--quick`
(CI) times 10 and 100 messages, ours alone when LiteLLM is not installed here.

Two ways of timing, each printed as its own table. Collector off (the timeit convention): the pair
the ratio compares, ours dicts in and LiteLLM's, called in turns on the same machine moments, so a
neighbour's burst on a shared machine falls on both. Collector on (as in production): ours first,
before LiteLLM is imported, then LiteLLM's, each in its own heap. At 10,000 messages a call is
tens of milliseconds and mostly allocation, so the medians are over 31 calls.

`--against DIR` instead compares our exporters with another checkout of this repository (e.g. an
older commit, `git archive <commit> | tar -x -C DIR`) in one process: each round times both trees,
alternating which goes first, and prints the medians over the rounds (`--size N`: one size only).

    .venv/bin/python benchmarks/bench_export.py --against /tmp/before --rounds 7
"""

from __future__ import annotations

import copy
import gc
import importlib.metadata
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector import speedups  # noqa: E402
from inspector.core.export import ExportSettings, export_case, export_request  # noqa: E402
from inspector.core.formats import read_request  # noqa: E402
from inspector.core.model import (  # noqa: E402
    Message,
    Origin,
    OriginKind,
    RenderedCase,
    Segment,
    ToolCall,
)

SIZES = (100, 10_000)
ORIGIN = Origin(OriginKind.CASE_TEXT, "bench.yaml", 1, 1)


def openai_conversation(size: int) -> list[dict]:
    """Exactly `size` messages ending on a user turn: a few plain turns, then rounds of a user
    question, an assistant reply with two parallel tool calls, both results and an answer."""
    messages: list[dict] = []
    for turn in range((size - 1) % 5):
        messages.append(
            {"role": "user" if turn % 2 == 0 else "assistant", "content": f"Warm-up message {turn}."}
        )
    for turn in range(1, (size - 1) // 5 + 1):
        messages.append(
            {
                "role": "user",
                "content": f"Question {turn}: weather and time in city {turn}? " + "Some context. " * 20,
            }
        )
        messages.append(
            {
                "role": "assistant",
                "content": f"Looking up city {turn}.",
                "tool_calls": [
                    {
                        "id": f"call_{turn}_a",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": json.dumps({"city": f"c{turn}"})},
                    },
                    {
                        "id": f"call_{turn}_b",
                        "type": "function",
                        "function": {"name": "get_time", "arguments": json.dumps({"tz": "UTC", "n": turn})},
                    },
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"call_{turn}_a", "content": f"sunny, {turn % 30}C"})
        messages.append(
            {
                "role": "tool",
                "tool_call_id": f"call_{turn}_b",
                "content": json.dumps({"time": f"{turn % 24}:00", "zone": "UTC"}),
            }
        )
        messages.append({"role": "assistant", "content": f"City {turn} is sunny. " * 5})
    messages.append({"role": "user", "content": "Thanks, that is all."})
    return messages


def from_dicts(messages: list[dict], provider: str, settings: ExportSettings) -> dict:
    """Dicts in, payload out, as LiteLLM is timed: the core's way in for a body given as dicts."""
    return export_request({"messages": messages}, "openai-chat", provider, settings).payload


def rendered_case(messages: list[dict]) -> RenderedCase:
    """The same conversation in the neutral model, built directly (the checkouts compared by
    --against share no reader)."""
    converted = []
    for message in messages:
        content = message.get("content") or ""
        converted.append(
            Message(
                message["role"],
                [Segment(content, ORIGIN)] if content else [],
                tool_calls=[
                    ToolCall(call["id"], call["function"]["name"], call["function"]["arguments"])
                    for call in message.get("tool_calls", ())
                ],
                tool_call_id=message.get("tool_call_id"),
            )
        )
    return RenderedCase("bench", converted)


def fresh_copies(messages: list[dict], count: int) -> list[list[dict]]:
    return [copy.deepcopy(messages) for _ in range(count)]


def timed(function, inputs: list, collect: bool = False) -> tuple[float, object]:
    """Median seconds of calling `function` once on each prepared input. By default, as timeit
    does, the garbage collector is off while timing: LiteLLM's import leaves hundreds of thousands
    of live objects, and whichever side happens to trigger a full collection would pay for scanning
    them. With `collect`, the collector runs as it does in production."""
    times = []
    output = None
    gc.collect()
    if not collect:
        gc.disable()
    try:
        for item in inputs:
            start = time.perf_counter()
            output = function(item)
            times.append(time.perf_counter() - start)
    finally:
        gc.enable()
    return statistics.median(times), output


def side_by_side(sides: dict[str, tuple[object, list]]) -> dict[str, float]:
    """Median seconds per call of each side, called in turns: round i calls every side once on its
    i-th prepared input, starting one side later each round, so a neighbour's burst on the shared
    machine falls on all sides alike instead of on whichever was being timed then. Each side keeps
    its own last output and frees it inside its next call, as `timed` does. Collector off."""
    names = list(sides)
    rounds = len(next(iter(sides.values()))[1])
    times: dict[str, list[float]] = {name: [] for name in names}
    outputs: dict[str, object] = {}
    gc.collect()
    gc.disable()
    try:
        for round_number in range(rounds):
            shift = round_number % len(names)
            for name in names[shift:] + names[:shift]:
                function, inputs = sides[name]
                start = time.perf_counter()
                outputs[name] = function(inputs[round_number])  # type: ignore[operator]
                times[name].append(time.perf_counter() - start)
    finally:
        gc.enable()
    return {name: statistics.median(spent) for name, spent in times.items()}


def anthropic_content(turns: list[dict]) -> list[tuple]:
    """Both sides in one shape: string content (ours, for a string in the source) as one text block."""
    result = []
    for turn in turns:
        blocks = []
        content = turn["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            if block["type"] == "text":
                blocks.append(("text", block["text"]))
            elif block["type"] == "tool_use":
                blocks.append(("tool_use", block["id"], block["name"], block["input"]))
            else:
                blocks.append(("tool_result", block["tool_use_id"], block["content"]))
        result.append((turn["role"], blocks))
    return result


def gemini_content(contents: list[dict]) -> list[tuple]:
    """Both sides in one shape: LiteLLM writes snake_case keys, leaves the role off function
    responses and wraps every result as {"content": text}; we wrap only non-objects."""
    result = []
    for content in contents:
        parts = []
        for part in content["parts"]:
            if "text" in part:
                parts.append(("text", part["text"]))
                continue
            call = part.get("functionCall") or part.get("function_call")
            if call is not None:
                parts.append(("call", call["name"], call["args"]))
                continue
            response = part.get("functionResponse") or part.get("function_response")
            value = response["response"]
            if set(value) == {"content"}:
                text = value["content"]
                parsed = json.loads(text) if text.startswith("{") else {"output": text}
            else:
                parsed = value
            parts.append(("response", response["name"], parsed))
        result.append((content.get("role", "user"), parts))
    return result


def _tree(root: Path, alias: str):
    """The exporters and model of the checkout at `root`, imported as package `alias` (the core
    imports itself relatively, so two checkouts live side by side in one process)."""
    import importlib
    import tempfile

    links = Path(tempfile.mkdtemp(prefix="bench-export-"))
    (links / alias).symlink_to(root / "inspector", target_is_directory=True)
    sys.path.insert(0, str(links))
    return (importlib.import_module(f"{alias}.core.export"), importlib.import_module(f"{alias}.core.model"))


def _case_in(model, messages: list[dict]):
    """rendered_case with another checkout's model classes."""
    origin = model.Origin(model.OriginKind.CASE_TEXT, "bench.yaml", 1, 1)
    return model.RenderedCase(
        "bench",
        [
            model.Message(
                message["role"],
                [model.Segment(message["content"], origin)] if message.get("content") else [],
                tool_calls=[
                    model.ToolCall(call["id"], call["function"]["name"], call["function"]["arguments"])
                    for call in message.get("tool_calls", ())
                ],
                tool_call_id=message.get("tool_call_id"),
            )
            for message in messages
        ],
    )


def compare(against: Path, rounds: int, quick: bool, only: int | None = None) -> None:
    """Ours against the checkout at `against`, in one process: each round times both trees on the
    same conversation, alternating which goes first, so a busy machine slows both alike. Prints the
    median over the rounds of each round's median time per export."""
    trees = {
        "before": _tree(against.resolve(), "inspector_before"),
        "now": _tree(Path(__file__).resolve().parent.parent, "inspector_now"),
    }
    sizes = (only,) if only else (10, 100) if quick else (100, 10_000)
    results: dict[tuple[str, str, int], list[float]] = {}
    for size in sizes:
        conversation = openai_conversation(size)
        repeats = 3 if quick else 101 if size <= 1000 else 5
        for round_number in range(rounds):
            order = list(trees.items())[:: 1 if round_number % 2 == 0 else -1]
            for name, (export, model) in order:
                case = _case_in(model, conversation)
                settings = export.ExportSettings()
                for provider in ("anthropic", "gemini"):
                    seconds, _ = timed(
                        lambda c, e=export, p=provider, s=settings: e.export_case(c, p, s), [case] * repeats
                    )
                    results.setdefault((name, provider, size), []).append(seconds * 1e3)
    print(f"median of {rounds} rounds, ms per export (collector off)")
    print(f"{'provider':<10} {'messages':>8} {'before':>9} {'now':>9} {'now/before':>11}")
    for size in sizes:
        for provider in ("anthropic", "gemini"):
            before = statistics.median(results["before", provider, size])
            now = statistics.median(results["now", provider, size])
            print(f"{provider:<10} {size:>8} {before:>9.3f} {now:>9.3f} {now / before:>10.2f}x")


def our_ways(provider: str, settings: ExportSettings) -> dict[str, object]:
    """Our two ways: "ours" takes the case already read, "dicts" the messages."""
    return {
        "ours": lambda c: export_case(c, provider, settings),
        "dicts": lambda m: from_dicts(m, provider, settings),
    }


def inputs_for(way: str, case: RenderedCase, conversation: list[dict], repeats: int) -> list:
    """The model alone reads the one case; dicts in get a fresh copy of the messages per call, made
    untimed, as LiteLLM does: reading the same list again and again would find it in the cache,
    and a fresh copy (a request body just parsed, or LiteLLM's) is not all there."""
    return [case] * repeats if way == "ours" else fresh_copies(conversation, repeats)


def print_ours_only(measured: dict[tuple[str, str, int, bool], float], compiled: str) -> None:
    print(compiled)
    for (name, provider, size, collect), seconds in measured.items():
        if name == "ours":
            print(
                f"{provider:<10} {size:>8} collector {'on ' if collect else 'off'} "
                f"export {seconds * 1e3:.3f} ms, dicts to payload "
                f"{measured['dicts', provider, size, collect] * 1e3:.3f} ms "
                "(LiteLLM not installed here: ours only)"
            )


def litellm_converter(provider: str):
    from litellm.litellm_core_utils.prompt_templates.factory import anthropic_messages_pt
    from litellm.llms.vertex_ai.gemini.transformation import (
        _gemini_convert_messages_with_history,
    )

    if provider == "anthropic":
        return lambda m: anthropic_messages_pt(m, "claude-sonnet-4-5", "anthropic")
    return _gemini_convert_messages_with_history


def same_content(provider: str, conversation: list[dict], settings: ExportSettings) -> bool:
    """Our payload and LiteLLM's carry the same messages, made untimed."""
    payload = from_dicts(conversation, provider, settings)
    theirs = litellm_converter(provider)(copy.deepcopy(conversation))
    if provider == "anthropic":
        return anthropic_content(payload["messages"]) == anthropic_content(theirs)
    return gemini_content(payload["contents"]) == gemini_content(theirs)


def main() -> None:
    arguments = sys.argv[1:]
    if "--against" in arguments:
        rounds = int(arguments[arguments.index("--rounds") + 1]) if "--rounds" in arguments else 5
        only = int(arguments[arguments.index("--size") + 1]) if "--size" in arguments else None
        compare(Path(arguments[arguments.index("--against") + 1]), rounds, "--quick" in arguments, only)
        return
    quick = "--quick" in sys.argv[1:]  # CI: small sizes; ours alone when LiteLLM is not installed
    sizes = (10, 100) if quick else SIZES
    settings = ExportSettings()
    conversations = {size: openai_conversation(size) for size in sizes}
    repeats = {size: (3 if quick else 201 if size <= 1000 else 31) for size in sizes}
    cases = {
        size: read_request({"messages": conversations[size]}, "openai-chat", "bench.json") for size in sizes
    }
    litellm_here = importlib.util.find_spec("litellm") is not None

    # With the collector on, our side is timed first, before LiteLLM is imported: this is the heap
    # our exporters really run in (the app never imports LiteLLM), and a full collection set off
    # by either side would otherwise scan LiteLLM's hundreds of thousands of objects. Only the
    # times are kept: holding every earlier run's payload would put them all in the heap of the
    # later runs, and each full collection there would scan them (about twice the cost at 10,000
    # messages). The payloads for the content check are made again, untimed. With the collector
    # off, where the heap costs no collection, the pair the ratio compares (dicts in, and
    # LiteLLM's) is timed again below, in turns (side_by_side); "ours" stays as here.
    measured: dict[tuple[str, str, int, bool], float] = {}
    for size in sizes:
        for provider in ("anthropic", "gemini"):
            for collect in (False, True):
                for way, function in our_ways(provider, settings).items():
                    inputs = inputs_for(way, cases[size], conversations[size], repeats[size])
                    measured[way, provider, size, collect], _ = timed(function, inputs, collect)

    compiled = "compiled modules in use" if speedups.active() else "plain Python (no current build)"
    if not litellm_here:
        if not quick:
            raise SystemExit("LiteLLM is not installed here: see this file's docstring")
        print_ours_only(measured, compiled)
        return

    print(
        f"LiteLLM {importlib.metadata.version('litellm')}, Python {sys.version.split()[0]}, ours: {compiled}"
    )
    for collect in (False, True):
        print(
            "\ngarbage collector "
            + (
                "ON, each side in its own heap (as in production), one side after the other"
                if collect
                else "OFF while timing (timeit convention), one heap, the sides in turns"
            )
        )
        print(
            f"{'provider':<10} {'messages':>8} {'ours ms':>10} {'dicts ms':>10} "
            f"{'litellm ms':>11} {'ratio':>7}  same content"
        )
        for size in sizes:
            conversation = conversations[size]
            for provider in ("anthropic", "gemini"):
                convert = litellm_converter(provider)
                # LiteLLM may change the list it is given: each call gets its own copy, made
                # untimed (and so does ours).
                copies = fresh_copies(conversation, repeats[size])
                if collect:
                    theirs_time, _ = timed(convert, copies, collect)
                else:
                    # The pair the ratio compares, in turns; the other columns were timed alone.
                    medians = side_by_side(
                        {
                            "dicts": (
                                our_ways(provider, settings)["dicts"],
                                fresh_copies(conversation, repeats[size]),
                            ),
                            "litellm": (convert, copies),
                        }
                    )
                    theirs_time = medians["litellm"]
                    measured["dicts", provider, size, collect] = medians["dicts"]
                same = same_content(provider, conversation, settings)
                like_for_like = measured["dicts", provider, size, collect]
                print(
                    f"{provider:<10} {len(conversation):>8} "
                    f"{measured['ours', provider, size, collect] * 1e3:>10.3f} "
                    f"{like_for_like * 1e3:>10.3f} {theirs_time * 1e3:>11.3f} "
                    f"{theirs_time / like_for_like:>6.2f}x  {'yes' if same else 'NO'}"
                )
                if not same:
                    raise SystemExit(f"{provider}: message content differs from LiteLLM's")
    print(
        "\nours ms: export from a case already read; dicts ms: dicts in, payload out "
        "(export_request), as LiteLLM is timed; ratio: LiteLLM ms / dicts ms"
    )


if __name__ == "__main__":
    main()
