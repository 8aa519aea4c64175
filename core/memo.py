"""A per-process memo of pure results, bounded by clearing when full.

Pages that write the same HTML or rows again and again (the quote list's rows and filter bar,
the compare page's cost and term rows) keep them here, keyed by **every** value they read, so
a changed value makes a new key and nothing needs invalidating. Clearing everything when the
memo is full keeps memory bounded with no bookkeeping per hit (API rows evict oldest-first in
core.serializer_memo instead, as their entries are larger and steadier).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class BoundedMemo(Generic[V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._values: dict[Hashable, V] = {}

    def get(self, key: Hashable) -> V | None:
        return self._values.get(key)

    def put(self, key: Hashable, value: V, *, adding: int = 1) -> V:
        """Keep `value` under `key` (clearing first when `adding` more would overflow)."""
        if len(self._values) + adding > self.size:
            self._values.clear()
        self._values[key] = value
        return value

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        value = self._values.get(key)
        return self.put(key, make()) if value is None else value

    def clear(self) -> None:
        self._values.clear()

    def __len__(self) -> int:
        return len(self._values)
