"""The portal's cache backends: a Redis cache that fails open, and a local-memory cache bounded
in bytes (for processes without Redis).

Redis: when it is down, reads are misses and writes are dropped. The cache only holds things
the portal can recompute (rendered rows and sections, serialised answers), and it shares the
queue's Redis; a Redis outage must cost speed, not pages.
Each error is logged (at most once per ``RETRY_AFTER_S`` with the breaker below), and for that
long the cache does not try Redis again, so a stopped or frozen Redis does not add a connect
timeout to every request.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


class ReusedClientRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client, with one `redis.Redis` per connection pool rather than a
    new one for every cache call (each new one copies redis-py's table of ~170 response
    callbacks: about 50 µs, once or more per request). A `redis.Redis` over a pool is safe to
    share between threads: each command takes a connection from the pool."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[Any, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class FailOpenRedisCache(RedisCache):
    RETRY_AFTER_S = 5.0

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
        self._down_until = 0.0

    def _call(self, operation: str, fallback: Any, method: Any, *args: Any, **kwargs: Any) -> Any:
        if time.monotonic() < self._down_until:
            return fallback
        try:
            return method(*args, **kwargs)
        except RedisError as exc:
            self._down_until = time.monotonic() + self.RETRY_AFTER_S
            log.warning(
                "cache unavailable (%s: %s): %s answered as a miss; retrying Redis in %.0f s",
                type(exc).__name__, exc, operation, self.RETRY_AFTER_S,
            )  # fmt: skip
            return fallback

    @property
    def is_down(self) -> bool:
        return time.monotonic() < self._down_until

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call("add", False, super().add, key, value, timeout, version)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._call("get", default, super().get, key, default, version)

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        self._call("set", None, super().set, key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call("touch", False, super().touch, key, timeout, version)

    def delete(self, key: Any, version: Any = None) -> Any:
        return self._call("delete", False, super().delete, key, version)

    def get_many(self, keys: Any, version: Any = None) -> Any:
        return self._call("get_many", {}, super().get_many, keys, version)

    def has_key(self, key: Any, version: Any = None) -> Any:
        return self._call("has_key", False, super().has_key, key, version)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> Any:
        missing = object()
        value = self._call("incr", missing, super().incr, key, delta, version)
        if value is missing:  # what a cache without the key answers
            raise ValueError(f"Key '{key}' not found (cache unavailable)")
        return value

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call("set_many", list(data), super().set_many, data, timeout, version)

    def delete_many(self, keys: Any, version: Any = None) -> None:
        self._call("delete_many", None, super().delete_many, keys, version)

    def clear(self) -> Any:
        return self._call("clear", False, super().clear)


# Sizes of the values each named local-memory cache holds (the stores themselves are
# LocMemCache's, shared by every instance of one name in a process).
_USED_BYTES: dict[str, list[int]] = {}


class SizedLocMemCache(LocMemCache):
    """Django's local-memory cache bounded in bytes as well as entries: ``OPTIONS`` take
    ``MAX_BYTES`` (the pickled values of the whole cache) besides ``MAX_ENTRIES``. The least
    recently used entries go first; a value larger than an eighth of the bound is not kept
    (one page must not push out everything else). Used without Redis (`make run`, tests,
    `make load`'s default), where the cache lives in each web process."""

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        super().__init__(name, params)
        self.max_bytes = int(params.get("OPTIONS", {}).get("MAX_BYTES", 64 * 1024 * 1024))
        self._used = _USED_BYTES.setdefault(name, [0])

    @property
    def used_bytes(self) -> int:
        return self._used[0]

    def _set(self, key: str, value: bytes, timeout: Any = DEFAULT_TIMEOUT) -> None:
        self._delete(key)  # a replaced value's bytes are freed first
        if len(value) > self.max_bytes // 8:
            return
        super()._set(key, value, timeout)
        self._used[0] += len(value)
        while self._used[0] > self.max_bytes and self._cache:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        # LocMemCache keeps the most recently used entry first: the last is the oldest.
        old, value = self._cache.popitem()
        self._expire_info.pop(old, None)
        self._used[0] -= len(value)

    def _cull(self) -> None:
        if self._cull_frequency == 0:
            self.clear_unlocked()
            return
        for _ in range(len(self._cache) // self._cull_frequency):
            self._drop_oldest()

    def _delete(self, key: str) -> bool:
        value = self._cache.get(key)
        if not super()._delete(key):
            return False
        self._used[0] -= len(value)
        return True

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> Any:
        value = self.get(key, version=version)
        if value is None:
            raise ValueError(f"Key '{key}' not found")
        self.set(key, value + delta, version=version)  # through _set: the size follows
        return value + delta

    def clear_unlocked(self) -> None:
        self._cache.clear()
        self._expire_info.clear()
        self._used[0] = 0

    def clear(self) -> None:
        with self._lock:
            self.clear_unlocked()
