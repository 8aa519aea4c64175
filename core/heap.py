"""Long computations over a large heap without the garbage collector walking it again and again.

A ranking of 10,000 offers allocates millions of small objects (tuples, dicts, results). Each
time enough of them pile up the collector runs, and its full passes walk every object of the
process: the framework, the loaded rows, the snapshot. None of those become garbage while the
ranking runs, so those walks were a quarter of the ranking's time (measured with gc.callbacks in
scripts/bench_ranking.py). `heap_frozen` moves the objects that exist when the block starts out of
the collector's passes (gc.freeze); what the block makes is collected as usual; on leaving, the
frozen objects go back (gc.unfreeze), so nothing is kept longer than one block.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0


@contextmanager
def heap_frozen() -> Iterator[None]:
    """The block runs with today's heap out of the collector's passes. Nested or concurrent
    blocks freeze once and thaw when the last one leaves."""
    global _depth
    with _lock:
        if _depth == 0:
            gc.freeze()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.unfreeze()
