"""Fault-test fixtures: a private Redis the test may stop, and real Celery workers it may kill.

The machine's shared Redis (6379) and PostgreSQL are never stopped: the broker outage uses a
private `redis-server` on a free loopback port, and the worker subprocesses use the test
database like `celery_worker_process` does.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def wait_for(check: Callable[[], Any], timeout: float, what: str, step: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


@pytest.fixture(autouse=True)
def gpu_reference_table(db):  # type: ignore[no-untyped-def]
    """The GPU rows a data migration loads: a transactional test before this one flushed them."""
    from importlib import import_module

    from django.apps import apps

    import_module("quotes.migrations.0002_gpu_table").load(apps, None)


def _free_port(start: int = 6391) -> int:
    for port in range(start, start + 200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port for the private Redis")


class PrivateRedis:
    """A throw-away redis-server (no persistence) that only this test process uses."""

    def __init__(self, workdir: Path) -> None:
        self.port = _free_port()
        self.dir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def _ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None
        self.proc = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port),
             "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(self.dir),
             "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for(self._ping, 10, "the private redis-server")

    def freeze(self) -> None:
        """SIGSTOP: the port still accepts connections but nothing ever answers."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            self.proc.wait(timeout=10)
        wait_for(lambda: not self._ping(), 5, "the private redis-server to stop")


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        if os.environ.get("REDIS_URL"):  # a run against the real services must not skip these
            pytest.fail("the fault tests need the redis-server binary for a private Redis")
        pytest.skip("redis-server is not installed")
    redis = PrivateRedis(tmp_path)
    redis.start()
    try:
        yield redis
    finally:
        if redis.proc is not None and redis.proc.poll() is None:
            redis.proc.send_signal(signal.SIGCONT)
            redis.proc.kill()
            redis.proc.wait(timeout=10)


def _reset_producers(app) -> None:  # type: ignore[no-untyped-def]
    """Forget pooled broker connections so the next publish connects to the current URL."""
    from kombu import pools

    with contextlib.suppress(Exception):
        pools.reset()  # closes and forgets every pooled connection/producer (keyed by URL)
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def broker(private_redis: PrivateRedis) -> Iterator[PrivateRedis]:
    """The app publishes to the private Redis, really (not eagerly), for the test's duration."""
    from portal.celery import app

    conf = app.conf
    saved = (conf.broker_url, conf.task_always_eager)
    _reset_producers(app)
    conf.broker_url = private_redis.url
    conf.task_always_eager = False
    try:
        yield private_redis
    finally:
        conf.broker_url, conf.task_always_eager = saved
        _reset_producers(app)


def _test_database_url() -> str:
    from django.conf import settings

    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"]:
        pytest.skip("the fault tests need PostgreSQL (DATABASE_URL)")
    user = db.get("USER") or "postgres"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{db['NAME']}"


class Worker:
    def __init__(self, proc: subprocess.Popen[bytes], log: Path) -> None:
        self.proc = proc
        self.log = log

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@pytest.fixture
def start_worker(broker: PrivateRedis, tmp_path: Path) -> Iterator[Callable[..., Worker]]:
    """Start a real `celery worker` (solo pool) bound to the private Redis and the test DB."""
    from django.conf import settings

    from portal.celery import app

    started: list[Worker] = []

    def start(**extra_env: str) -> Worker:
        env = dict(os.environ)
        for key in ("PORTAL_FAULT_DELAY_S", "PORTAL_FAULT_DELAY_AT"):
            env.pop(key, None)
        env.update(
            DATABASE_URL=_test_database_url(),
            REDIS_URL=broker.url,
            MEDIA_ROOT=str(settings.MEDIA_ROOT),
            CELERY_TASK_ALWAYS_EAGER="false",
            CELERY_QUEUE=app.conf.task_default_queue,
            DJANGO_SETTINGS_MODULE="portal.settings",
            **extra_env,
        )
        log = tmp_path / f"worker-{uuid.uuid4().hex[:8]}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "portal", "worker",
                 "-Q", app.conf.task_default_queue, "--pool=solo", "--loglevel=INFO",
                 "--without-gossip", "--without-mingle", "--without-heartbeat",
                 "-n", f"fault-{uuid.uuid4().hex[:6]}@%h"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        worker = Worker(proc, log)
        started.append(worker)

        def ready() -> bool:
            if proc.poll() is not None:
                raise AssertionError("worker exited: " + worker.output()[-2000:])
            return " ready." in worker.output()

        wait_for(ready, 60, "the Celery worker to be ready")
        return worker

    yield start
    for worker in started:
        worker.stop()
