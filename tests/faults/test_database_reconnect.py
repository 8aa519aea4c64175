"""The web process survives losing its database connection.

The shared PostgreSQL is not restarted (other test runs use it): the web process's own backend
is killed with `pg_terminate_backend` from a second connection, which is what a restart does to
every open connection. A real WSGI server (in a thread, so it has its own persistent connection
like a gunicorn sync worker) then answers the next request normally: CONN_HEALTH_CHECKS notices
the dead connection and reconnects. The variant without health checks shows the test would see
the fault (that first request fails).
"""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection, connections
from django.urls import reverse

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class WebProcess:
    """Django's WSGI handler served from one thread (one persistent DB connection)."""

    def __init__(self, db_overrides: dict[str, Any]) -> None:
        self.overrides = db_overrides
        self.backend_pids: list[int] = []
        self.server: WSGIServer = make_server(
            "127.0.0.1", 0, self._app, handler_class=_QuietHandler
        )
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn = connections["default"]  # this thread's own connection object
        conn.settings_dict = {**conn.settings_dict, **self.overrides}
        try:
            self.server.serve_forever(poll_interval=0.1)
        finally:
            conn.close()  # or the test database could not be dropped at the end

    def _app(self, environ, start_response):  # type: ignore[no-untyped-def]
        response = WSGIHandler()(environ, start_response)
        conn = connections["default"]
        if conn.connection is not None:
            self.backend_pids.append(conn.connection.info.backend_pid)
        return response

    def get(self, path: str, cookie: str) -> int:
        request = urllib.request.Request(  # noqa: S310 - our own loopback server
            self.url + path, headers={"Host": "testserver", "Cookie": cookie}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as r:  # noqa: S310 - loopback
                r.read()
                return int(r.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def web_process() -> Iterator[Any]:
    started: list[WebProcess] = []

    def start(**db_overrides: Any) -> WebProcess:
        web = WebProcess(db_overrides)
        started.append(web)
        return web

    yield start
    for web in started:
        web.stop()


def _terminate(pid: int) -> bool:
    """Kill a backend from the test's own (second) connection, as a server restart would."""
    assert pid != connection.cursor().connection.info.backend_pid
    with connection.cursor() as cur:
        cur.execute("SELECT pg_terminate_backend(%s)", [pid])
        return bool(cur.fetchone()[0])


def _login_cookie(client, user) -> str:  # type: ignore[no-untyped-def]
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


@pytest.mark.parametrize("max_age", [0, 60])
def test_requests_succeed_after_the_web_process_lost_its_db_connection(
    max_age, web_process, client, analyst_a
):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    cookie = _login_cookie(client, analyst_a)
    web = web_process(CONN_MAX_AGE=max_age, CONN_HEALTH_CHECKS=True)
    page = reverse("vendors:list")
    assert web.get(page, cookie) == 200
    killed = _terminate(web.backend_pids[-1])
    if max_age:  # (with CONN_MAX_AGE=0 the web process closes it itself after each request)
        assert killed
    assert web.get(page, cookie) == 200
    assert web.get(reverse("rankings:list"), cookie) == 200
    assert web.backend_pids[-1] != web.backend_pids[0]  # a new connection was opened


def test_without_health_checks_the_first_request_after_the_loss_fails(
    web_process, client, analyst_a
):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    cookie = _login_cookie(client, analyst_a)
    web = web_process(CONN_MAX_AGE=60, CONN_HEALTH_CHECKS=False)
    page = reverse("vendors:list")
    assert web.get(page, cookie) == 200
    assert _terminate(web.backend_pids[-1])
    assert web.get(page, cookie) == 500  # the control: the fault is real and visible
    assert web.get(page, cookie) == 200  # Django drops the broken connection afterwards
