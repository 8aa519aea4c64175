"""Shared fixtures: teams, users with roles, API clients, and a real Celery worker."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from accounts.choices import Role
from accounts.models import Membership, Team

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def make_user(db):  # type: ignore[no-untyped-def]
    def make(username: str, team: Team | None, role: str = Role.ANALYST, **extra):  # type: ignore[no-untyped-def]
        user = get_user_model().objects.create_user(
            username=username, password="pw-" + username, **extra
        )
        if team is not None:
            Membership.objects.create(user=user, team=team, role=role)
        return user

    return make


@pytest.fixture
def team_a(db) -> Team:  # type: ignore[no-untyped-def]
    return Team.objects.create(name="Team A 甲", slug="team-a")


@pytest.fixture
def team_b(db) -> Team:  # type: ignore[no-untyped-def]
    return Team.objects.create(name="Team B 乙", slug="team-b")


@pytest.fixture
def analyst_a(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("alice", team_a, Role.ANALYST)


@pytest.fixture
def viewer_a(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("victor", team_a, Role.VIEWER)


@pytest.fixture
def analyst_b(make_user, team_b):  # type: ignore[no-untyped-def]
    return make_user("bob", team_b, Role.ANALYST)


@pytest.fixture
def api_as():  # type: ignore[no-untyped-def]
    def login(user) -> APIClient:  # type: ignore[no-untyped-def]
        client = APIClient()
        client.force_authenticate(user)
        return client

    return login


@pytest.fixture
def client_as(client):  # type: ignore[no-untyped-def]
    def login(user):  # type: ignore[no-untyped-def]
        client.force_login(user)
        return client

    return login


def _test_database_url() -> str:
    from django.conf import settings

    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"]:
        pytest.skip("the real-worker test needs PostgreSQL (DATABASE_URL)")
    user = db.get("USER") or "postgres"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{db['NAME']}"


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):  # type: ignore[no-untyped-def]
    """A real `celery worker` subprocess on its own queue, using the test database via Redis."""
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.skip("the real-worker test needs Redis (REDIS_URL)")
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ)
    env.update(
        DATABASE_URL=_test_database_url(),
        REDIS_URL=redis_url,
        CELERY_TASK_ALWAYS_EAGER="false",
        CELERY_QUEUE=queue,
        DJANGO_SETTINGS_MODULE="portal.settings",
    )
    log = open(ROOT / "var-worker.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "portal",
            "worker",
            "-Q",
            queue,
            "--pool=solo",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    from portal.celery import app

    deadline = time.time() + 60
    ready = False
    while time.time() < deadline and proc.poll() is None:
        try:
            result = app.send_task("vendors.tasks.ping", args=["ready"], queue=queue)
            if result.get(timeout=5) == "pong:ready":
                ready = True
                break
        except Exception:  # noqa: BLE001 - keep polling until the worker answers
            time.sleep(0.5)
    if not ready:
        proc.kill()
        raise RuntimeError(
            "Celery worker did not start: " + (ROOT / "var-worker.log").read_text()[-2000:]
        )
    yield {"queue": queue, "process": proc}
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(autouse=True)
def _gpu_reference_table(request):  # type: ignore[no-untyped-def]
    """Transactional tests flush every table afterwards, including the GPU reference rows that a
    data migration loads; put them back for any test that uses the database."""
    if not any(
        name in request.fixturenames for name in ("db", "transactional_db", "live_server")
    ) and not request.node.get_closest_marker("django_db"):
        return
    request.getfixturevalue("transactional_db" if _is_transactional(request) else "db")
    import importlib

    from django.apps import apps as django_apps

    migration = importlib.import_module("quotes.migrations.0002_gpu_table")
    if django_apps.get_model("quotes", "GpuModel").objects.count() < len(migration.GPU_ROWS):
        migration.load(django_apps, None)


def _is_transactional(request) -> bool:  # type: ignore[no-untyped-def]
    marker = request.node.get_closest_marker("django_db")
    if marker and (marker.kwargs.get("transaction") or (marker.args and marker.args[0])):
        return True
    return "transactional_db" in request.fixturenames or "live_server" in request.fixturenames


@pytest.fixture(autouse=True)
def _default_language_after_each_test():  # type: ignore[no-untyped-def]
    """A request in Chinese leaves its language active in the thread: later tests that read
    messages in English must not depend on the order they run in."""
    yield
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
