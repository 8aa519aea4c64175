"""Fewer garbage collections while a report is built (see GC_THRESHOLD)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# A WeasyPrint build makes hundreds of thousands of objects that live until it ends: with the
# default thresholds (700 allocations) the collector runs hundreds of times per build and walks
# the long-lived ones again and again (about a tenth of the build). While a build runs the first
# generation is collected every GC_THRESHOLD allocations instead; afterwards the thresholds are
# as they were, and the garbage is collected as usual.
GC_THRESHOLD = 100_000
_gc_lock = threading.Lock()
_gc_builds = 0
_gc_saved: tuple[int, int, int] | None = None


@contextmanager
def fewer_collections() -> Iterator[None]:
    global _gc_builds, _gc_saved
    with _gc_lock:
        if _gc_builds == 0:
            _gc_saved = gc.get_threshold()
            gc.set_threshold(max(GC_THRESHOLD, _gc_saved[0]), *_gc_saved[1:])
        _gc_builds += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_builds -= 1
            if _gc_builds == 0 and _gc_saved is not None:
                gc.set_threshold(*_gc_saved)
