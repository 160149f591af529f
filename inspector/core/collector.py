"""Pausing Python's cyclic garbage collector around work that allocates a great many objects.

Rendering a large file, or unpickling its render, allocates hundreds of thousands of objects and
frees almost none: the collector, set off by the allocations, walked them all again and again. It
took half the time of a 10 MB file's render and five sixths of unpickling it. Reference counting
still frees everything that is not in a cycle, and the bounded worker's memory limits still hold.

What the block made and kept (a render, a payload) is moved into the oldest generation as the
block ends, where two collections would have moved it: otherwise the first collection after the
block walked all of it as new objects (3 ms after a 1,000-case render, 3-4 ms after a
10,000-message export), and the next one walked it again.
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
            _age_survivors()
            gc.enable()


def _age_survivors() -> None:
    """Every tracked object into the oldest generation, without a walk: freeze() moves each
    generation's list to the permanent one in one step and unfreeze() moves that list to the
    oldest. Skipped while anything is frozen on purpose (a server that froze its imports before
    forking must keep them frozen). Renders and exports leave no cycles behind (checked for
    every profile and provider), so nothing that is garbage waits longer for a full
    collection."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
