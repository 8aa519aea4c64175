"""Caching through Django's cache framework, keyed by what the cached value is made of.

A key is ``<name>.v<version>.<digest>``: the name of what is cached, the version of the code
that writes it (bump it when the markup or the answer changes, so a new release never reads an
older release's entries from a shared Redis), and a digest of every input of the value, e.g.
the rows' own columns as loaded (their change stamps ``updated_at`` / ``revision`` and every
value shown, so a bulk ``update()`` that leaves the stamps alone still makes a new key), the
language and the time zone. A changed row is a new key: nothing is ever invalidated, and
entries nobody reads any more expire (``TIMEOUT``) or are evicted by the backend's size bound
(settings.CACHES: Redis in production, this process's memory bounded in bytes otherwise).

Values come back unpickled, i.e. as new objects: a caller may change what it gets.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.core.cache import cache
from django.utils.functional import Promise

V = TypeVar("V")


def digest(*parts: Any) -> str:
    """A short digest of `parts` (their repr: stable for the str, int, Decimal, date, bool,
    None, tuple, list and dict values that rows are read as)."""
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def key(name: str, version: int, *parts: Any) -> str:
    return f"{name}.v{version}.{digest(*parts)}"


def get_or_set(name: str, version: int, parts: Sequence[Any], make: Callable[[], V]) -> V:
    """The value kept under the key of `parts`, else `make()` kept and returned."""
    k = key(name, version, *parts)
    found = cache.get(k)
    if found is not None:
        return found  # type: ignore[no-any-return]
    value = make()
    cache.set(k, value)
    return value


def get_many_or_set(
    name: str,
    version: int,
    parts: Sequence[Sequence[Any]],
    make: Callable[[list[int]], Sequence[V]],
) -> list[V]:
    """The values of many keys in one round trip: `parts[i]` is the key of item i; the items
    not kept are made together by `make(positions)` (in that order) and kept in one more."""
    keys = [key(name, version, *p) for p in parts]
    found = cache.get_many(keys)
    missing = [i for i, k in enumerate(keys) if k not in found]
    if missing:
        made = make(missing)
        fresh = dict(zip((keys[i] for i in missing), made, strict=True))
        cache.set_many(fresh)
        found.update(fresh)
    return [found[k] for k in keys]


def stable(value: Any) -> Any:
    """`value` with lazy texts (choice labels) as the str they are in the active language and
    lists, tuples and dicts walked: what a key part must be to repr the same in every process
    (a lazy text's repr is its address)."""
    if isinstance(value, Promise):
        return str(value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), stable(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(stable(v) for v in value)
    return value
