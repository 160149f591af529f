"""Pausing Python's cyclic garbage collector around work that allocates a great many objects.

Rendering a large file, or unpickling its render, allocates hundreds of thousands of objects and
frees almost none: the collector, set off by the allocations, walked them all again and again. It
took half the time of a 10 MB file's render and five sixths of unpickling it. Reference counting
still frees everything that is not in a cycle, and the bounded worker's memory limits still hold.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block, and back on after it unless it was off already (another
    thread's block may still be running: it turns it back on itself)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
