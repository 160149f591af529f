"""Pausing Python's cyclic garbage collector around work that allocates a great many objects.

Only the app's boundaries pause it: the bounded worker's task and the unpickling of its answer
(bounded.py), the render cache's reads and writes (inspector/cache.py) and the upload's answer
(inspector/api/bundles.py). The core's own functions (rendering, reading, exporting) leave the
process's collector alone: a library caller's settings are its own.

Rendering a large file, or unpickling its render, allocates hundreds of thousands of objects and
frees almost none: the collector, set off by the allocations, walked them all again and again. It
took half the time of a 10 MB file's render and five sixths of unpickling it. Reference counting
still frees everything that is not in a cycle, and the bounded worker's memory limits still hold.

What a large block made and kept (a render) is moved into the oldest generation as the
block ends, where two collections would have moved it: otherwise the first collection after the
block walked all of it as new objects (3 ms after a 1,000-case render), and the next one
walked it again.
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


# Fewer new objects than this at a block's end are not worth aging: a walk of them is cheap.
AGE_AT_LEAST = 5_000
# Aged objects skip the generations' count that sets off a full collection, so cyclic garbage
# among them (and among the young objects around the block) waits for one: every so many agings
# one runs (tens of milliseconds in a web worker, against 3-4 ms saved by each aging).
FULL_COLLECTION_EVERY = 64
_agings = 0


def _age_survivors() -> None:
    """Every tracked object into the oldest generation, without a walk: freeze() moves each
    generation's list to the permanent one in one step and unfreeze() moves that list to the
    oldest. Only after a block that made many objects, and skipped while anything is frozen on
    purpose (a server that froze its imports before forking must keep them frozen)."""
    global _agings
    if gc.get_freeze_count() or gc.get_count()[0] < AGE_AT_LEAST:
        return
    gc.freeze()
    gc.unfreeze()
    _agings += 1
    if _agings >= FULL_COLLECTION_EVERY:
        _agings = 0
        gc.collect()
