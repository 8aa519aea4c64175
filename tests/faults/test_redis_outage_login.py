"""Redis (the page cache's and the queue's) stopped or frozen: log-in still works and still
limits failures, and the ranking pages and the dashboard answer 200 from the database.

The cache is the production configuration (portal.settings, built for REDIS_URL) pointed at the
fault tests' private redis-server, which the test really stops; the shared Redis is untouched.
"""

from __future__ import annotations

import logging
import time

import pytest
from django.test import Client
from django.urls import reverse

from core.models import JobStatus
from portal.cache import FailOpenRedisCache
from rankings.models import RankingRun

pytestmark = pytest.mark.django_db

WRONG = "wrong-password"


@pytest.fixture
def redis_cache(private_redis, settings):  # type: ignore[no-untyped-def]
    """The production cache settings, on the private Redis."""
    import portal.settings as production

    default = production.CACHES["default"]
    if "Redis" not in default["BACKEND"]:
        pytest.skip("the production cache is Redis only when REDIS_URL is set")
    settings.CACHES = {"default": {**default, "LOCATION": private_redis.url}}
    from django.core.cache import cache

    cache.set("probe", "up")
    assert cache.get("probe") == "up"  # really on the private Redis
    return private_redis


@pytest.fixture
def finished_run(team_a, analyst_a):  # type: ignore[no-untyped-def]
    import quotes.demo
    import rankings.demo
    import vendors.demo

    for module in (vendors.demo, quotes.demo, rankings.demo):
        module.load(team=team_a, user=analyst_a)
    run = RankingRun.objects.get(team=team_a)
    assert run.status == JobStatus.DONE and run.results.exists()
    return run


def _pages_answer(client: Client, run: RankingRun) -> None:
    for url in (
        reverse("dashboard"),
        reverse("rankings:list"),
        reverse("rankings:detail", args=[run.pk]),
        reverse("quotes:compare"),  # its table is a cached fragment: a miss writes it again
        f"/api/v1/rankings/{run.pk}/",
    ):
        assert client.get(url).status_code == 200, url


def _log_in(client: Client, username: str, password: str) -> int:
    return client.post("/login/", {"username": username, "password": password}).status_code


def test_log_in_and_pages_work_with_redis_stopped(redis_cache, finished_run, caplog):
    warm = Client()
    assert _log_in(warm, "alice", "pw-alice") == 302
    _pages_answer(warm, finished_run)  # the run's section and API answer are now cached

    redis_cache.stop()
    caplog.set_level(logging.WARNING, logger="portal.cache")
    t0 = time.monotonic()

    # A fresh log-in works (the failure count lives in PostgreSQL, not in Redis) ...
    client = Client()
    assert _log_in(client, "ａlice", "pw-alice") == 302
    _pages_answer(client, finished_run)
    _pages_answer(warm, finished_run)

    # ... and the limit still holds: five failures lock the name, even for the right password.
    other = Client()
    for _ in range(5):
        assert _log_in(other, "alice", WRONG) == 200
    locked = other.post("/login/", {"username": "ALICE", "password": "pw-alice"})
    assert locked.status_code == 429
    assert "Too many failed" in locked.content.decode()
    assert "_auth_user_id" not in other.session

    assert time.monotonic() - t0 < 15
    assert any("cache unavailable" in r.getMessage() for r in caplog.records)


def test_the_cache_comes_back_with_redis(redis_cache, monkeypatch):
    from django.core.cache import cache

    monkeypatch.setattr(FailOpenRedisCache, "RETRY_AFTER_S", 0.0)
    # one redis-py client per connection pool, kept across calls and across the outage
    client = cache._cache.get_client()
    assert cache._cache.get_client() is client
    redis_cache.stop()
    cache.set("k", "v")  # dropped, no error
    assert cache.get("k") is None
    assert cache.get_many(["k"]) == {}
    with pytest.raises(ValueError):  # what a cache without the key answers
        cache.incr("k")
    redis_cache.start()
    cache.set("k", "v")
    assert cache.get("k") == "v"
    assert cache._cache.get_client() is client


def test_a_frozen_redis_does_not_hang_the_pages(redis_cache, finished_run, client_as, analyst_a):
    """Redis accepts connections but never answers (SIGSTOP): the cache gives up within its
    socket timeout, then skips Redis for a few seconds instead of waiting on every request."""
    client = client_as(analyst_a)
    redis_cache.freeze()
    try:
        t0 = time.monotonic()
        _pages_answer(client, finished_run)
        _pages_answer(client, finished_run)
        assert (
            Client().post("/login/", {"username": "alice", "password": "pw-alice"}).status_code
            == 302
        )
        elapsed = time.monotonic() - t0
    finally:
        redis_cache.thaw()
    assert elapsed < 8, elapsed
