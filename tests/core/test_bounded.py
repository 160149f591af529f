"""The bounded worker pool: whatever a task does in the child, the caller gets an answer."""

import ctypes
import time

import pytest

from inspector.core import bounded
from inspector.core.bundle import MemoryBundle
from inspector.core.model import InputError
from inspector.core.options import RenderOptions
from inspector.core.safe_parse import LimitExceeded

EVAL = b"tests:\n  - id: a\n    input: hi\n"


def segfault():
    ctypes.string_at(0)


def spin():
    while True:
        pass


def allocate(size):
    return len(bytearray(size))


def hold(megabytes):
    held = [b"x" * (1024 * 1024) for _ in range(megabytes)]
    time.sleep(60)
    return len(held)


def refuse():
    raise InputError("not usable", "e.yaml", 3, 1)


def fail():
    raise ValueError("a bug")


@pytest.fixture(scope="module")
def pool():
    created = bounded.Pool(
        bounded.Limits(memory_bytes=512 * 1024 * 1024, cpu_seconds=2, deadline_seconds=20, workers=1)
    )
    yield created
    created.close()


def test_a_render_in_the_worker_equals_the_render_in_process():
    document = bounded.render_bounded(MemoryBundle({"e.yaml": EVAL}), "e.yaml", RenderOptions(profile="spec"))
    assert [case.id for case in document.cases] == ["a"]
    assert document.cases[0].messages[0].content == "hi"


def test_a_crash_in_the_parser_is_an_error_naming_the_file(pool):
    with pytest.raises(LimitExceeded, match="x.yaml: the file crashed the parser"):
        pool.call(segfault, path="x.yaml")
    assert pool.call(len, "still serving") == 13


def test_running_out_of_memory_is_an_error_naming_the_file(pool):
    with pytest.raises(LimitExceeded, match="x.yaml: the file is too large to read within the limits"):
        pool.call(allocate, 2 * 1024 * 1024 * 1024, path="x.yaml")
    assert pool.call(allocate, 1024) == 1024


def test_a_runaway_is_stopped_by_the_cpu_limit(pool):
    with pytest.raises(LimitExceeded, match="x.toml: the file took more than 2 s of CPU time"):
        pool.call(spin, path="x.toml")
    assert pool.call(len, "still serving") == 13


def test_a_render_holding_more_resident_memory_than_allowed_is_stopped():
    # Resident memory is watched from the parent: the address-space limit (here 2 GB) is only
    # the backstop for allocations faster than the watch.
    lean = bounded.Pool(
        bounded.Limits(
            memory_bytes=2048 * 1024 * 1024,
            cpu_seconds=10,
            deadline_seconds=120,
            workers=1,
            resident_bytes=200 * 1024 * 1024,
        )
    )
    try:
        with pytest.raises(
            LimitExceeded,
            match=r"x.yaml: the file is too large to read within the "
            r"limits \(200 MB of memory\)",
        ):
            lean.call(hold, 400, path="x.yaml")
        assert lean.deaths == 1
        assert lean.call(allocate, 50 * 1024 * 1024) == 50 * 1024 * 1024
    finally:
        lean.close()


def test_the_cpu_budget_need_not_be_whole_seconds():
    quick = bounded.Pool(bounded.Limits(cpu_seconds=0.5, workers=1))
    try:
        with pytest.raises(LimitExceeded, match="more than 0.5 s of CPU time"):
            quick.call(spin, path="x.toml")
    finally:
        quick.close()


def test_a_runaway_is_given_up_at_the_deadline():
    slow = bounded.Pool(bounded.Limits(cpu_seconds=60, deadline_seconds=1, workers=1))
    try:
        with pytest.raises(LimitExceeded, match="longer than 1 s"):
            slow.call(time.sleep, 30, path="x.yaml")
        assert slow.deaths == 1
    finally:
        slow.close()


def test_the_cpu_budget_is_per_task_not_per_worker_life(pool):
    for _ in range(3):
        assert pool.call(sum, range(10_000_000)) == sum(range(10_000_000))


def test_input_errors_come_back_as_input_errors_with_their_line(pool):
    with pytest.raises(InputError) as raised:
        pool.call(refuse, path="other.yaml")
    assert not isinstance(raised.value, LimitExceeded)
    assert str(raised.value) == "e.yaml:3:1: not usable"


def test_a_bug_in_a_task_is_not_mistaken_for_bad_input(pool):
    with pytest.raises(bounded.WorkerError, match="ValueError: a bug"):
        pool.call(fail)


def test_calls_inside_one_budget_share_its_deadline():
    shared = bounded.Pool(bounded.Limits(cpu_seconds=60, deadline_seconds=10, workers=1))
    try:
        shared.call(len, "a worker started before the budget")
        with bounded.budget(1.5):
            shared.call(time.sleep, 0.9, path="a.yaml")  # each alone is well within its own deadline
            with pytest.raises(bounded.OverBudget, match="budget of 1.5 s") as refused:
                shared.call(time.sleep, 0.9, path="b.yaml")
            assert refused.value.diagnostic.path == "b.yaml"
            with pytest.raises(bounded.OverBudget):  # spent: refused before any work is sent
                shared.call(len, "c", path="c.yaml")
        assert shared.call(len, "after the budget") == len("after the budget")
    finally:
        shared.close()


def test_an_inner_budget_cannot_outlast_the_outer_one():
    shared = bounded.Pool(bounded.Limits(cpu_seconds=60, deadline_seconds=10, workers=1))
    try:
        shared.call(len, "warm")
        with bounded.budget(0.5), bounded.budget(30), pytest.raises(bounded.OverBudget, match="0.5 s"):
            shared.call(time.sleep, 5, path="a.yaml")
    finally:
        shared.close()


def test_a_call_may_ask_for_less_time_than_the_pools_deadline():
    shared = bounded.Pool(bounded.Limits(cpu_seconds=60, deadline_seconds=10, workers=1))
    try:
        shared.call(len, "warm")
        with pytest.raises(LimitExceeded, match="longer than"):
            shared.call(time.sleep, 5, path="a.yaml", seconds=0.3)
    finally:
        shared.close()
