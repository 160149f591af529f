"""The collector pause leaves the garbage collector as it found it, whatever happens in the block."""

from __future__ import annotations

import gc

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
