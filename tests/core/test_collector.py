"""The collector pause leaves the garbage collector as it found it, whatever happens in the block."""

from __future__ import annotations

import gc
import json

import pytest

from inspector.core import collector


def test_the_collector_is_off_inside_and_on_again_after():
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():  # another caller's block inside ours leaves it off for ours
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_in_the_block_turns_it_back_on():
    with pytest.raises(ValueError), collector.paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_the_block_kept_goes_to_the_oldest_generation_without_a_walk():
    gc.collect()  # every generation's count at 0: one young collection alone promotes to the middle
    with collector.paused():
        kept = [[index] for index in range(50_000)]
    # Left young, the first collection after the block would walk all 50,000 lists, and move
    # them only to the middle generation.
    oldest = gc.get_objects(generation=2)
    assert any(item is kept[-1] for item in oldest)
    assert any(item is kept for item in oldest)


def test_a_cycle_made_in_the_block_is_still_collected():
    class Node:
        pass

    with collector.paused():
        first, second = Node(), Node()
        first.other, second.other = second, first  # type: ignore[attr-defined]
        del first, second
    assert gc.collect() >= 2


def test_objects_frozen_by_the_host_stay_frozen():
    marker = [["frozen by the host"]]
    gc.freeze()
    try:
        with collector.paused():
            kept = [[index] for index in range(2 * collector.AGE_AT_LEAST)]
        # A frozen object is in no generation (the count of frozen ones moves as any of them is
        # freed, so the object itself is looked for).
        assert not any(item is marker for item in gc.get_objects())
        assert any(item is kept for item in gc.get_objects())
    finally:
        gc.unfreeze()


def test_a_small_block_leaves_the_generations_alone():
    gc.collect()
    with collector.paused():
        kept = [[index] for index in range(100)]
    assert not any(item is kept for item in gc.get_objects(generation=2))


def test_cyclic_garbage_among_aged_objects_is_collected_within_a_bounded_number_of_agings(monkeypatch):
    import weakref

    class Node:
        pass

    monkeypatch.setattr(collector, "AGE_AT_LEAST", 1_000)
    monkeypatch.setattr(collector, "FULL_COLLECTION_EVERY", 4)
    monkeypatch.setattr(collector, "_agings", 0)
    gc.collect()
    kept = []
    with collector.paused():
        first, second = Node(), Node()
        first.other, second.other = second, first  # type: ignore[attr-defined]
        gone = weakref.ref(first)
        del first, second
        kept.append([[index] for index in range(1_000)])
    assert gone() is not None  # aged with the block's objects, not collected
    for _ in range(3):
        with collector.paused():
            kept.append([[index] for index in range(1_000)])
    assert gone() is None


def test_the_core_leaves_the_collector_alone(monkeypatch):
    """Rendering, reading and exporting change no process-wide state: only the app's boundaries
    (the bounded worker, the render cache, the upload's answer) pause the collector."""
    from inspector.core.bundle import MemoryBundle
    from inspector.core.documents import render_document
    from inspector.core.export import PROVIDERS, batch_export, export_case, export_request

    touched = []
    for name in ("disable", "enable", "freeze", "unfreeze", "collect"):
        monkeypatch.setattr(gc, name, lambda *_args, _name=name: touched.append(_name))
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "call_1", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "done"},
        ],
    }
    bundle = MemoryBundle(
        {
            "evals/a.yaml": b"evalcases:\n  - id: one\n    input_messages:\n"
            b"      - role: user\n        content: Hello\n",
            "request.json": json.dumps(body).encode(),
        }
    )
    for path in ("evals/a.yaml", "request.json"):
        for case in render_document(bundle, path).cases:
            for provider in PROVIDERS:
                export_case(case, provider)
                batch_export([case], provider)
    for provider in PROVIDERS:
        export_request(body, "openai-chat", provider)
    assert touched == []
    assert gc.isenabled()
