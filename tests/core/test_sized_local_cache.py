"""The local-memory cache used without Redis (portal.cache.SizedLocMemCache) is bounded in
bytes: filling it far beyond its bound keeps it under the bound, the most recently used entries
stay, a value too large to keep is not kept, and replacing or deleting a value frees its bytes."""

from __future__ import annotations

import uuid

from portal.cache import SizedLocMemCache


def _cache(max_bytes: int) -> SizedLocMemCache:
    params = {"OPTIONS": {"MAX_BYTES": max_bytes, "MAX_ENTRIES": 1_000_000}, "TIMEOUT": 60}
    return SizedLocMemCache(f"test-{uuid.uuid4().hex}", params)


def test_filling_far_beyond_the_bound_keeps_the_bytes_under_it() -> None:
    cache = _cache(100_000)
    for i in range(1_000):  # about 1 MB of values
        cache.set(f"k{i}", "x" * 1_000)
    assert 90_000 <= cache.used_bytes <= 100_000
    assert cache.get("k999") == "x" * 1_000  # the newest stay
    assert cache.get("k0") is None  # the oldest went first


def test_the_least_recently_read_entry_goes_first() -> None:
    cache = _cache(10_000)
    for i in range(9):
        cache.set(f"k{i}", "y" * 1_000)
    assert cache.get("k0") is not None  # read: now the most recent
    for i in range(9, 12):
        cache.set(f"k{i}", "y" * 1_000)
    assert cache.get("k0") is not None
    assert cache.get("k1") is None


def test_a_value_larger_than_an_eighth_of_the_bound_is_not_kept() -> None:
    cache = _cache(80_000)
    cache.set("small", "s" * 1_000)
    cache.set("page", "p" * 20_000)  # a huge page must not push out everything else
    assert cache.get("page") is None
    assert cache.get("small") == "s" * 1_000


def test_replacing_deleting_and_clearing_free_their_bytes() -> None:
    cache = _cache(1_000_000)
    cache.set("a", "a" * 5_000)
    first = cache.used_bytes
    cache.set("a", "a" * 5_000)
    assert cache.used_bytes == first  # replaced, not counted twice
    cache.set("b", "b" * 5_000)
    cache.delete("a")
    assert cache.used_bytes == first
    assert cache.get_or_set("n", 1) == 1 and cache.incr("n", 41) == 42
    cache.clear()
    assert cache.used_bytes == 0 and cache.get("b") is None
