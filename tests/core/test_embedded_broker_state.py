"""The embedded broker (`make run` without Redis) keeps all of its state under its own folder:
the exchanges' tables as well as the messages, none in the directory the process started in
(kombu's default control folder, `control/` in the working directory, landed in the checkout)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SEND = """
import django
django.setup()
from portal.celery import app
app.send_task("core.tasks.requeue_stale_jobs")
"""


def test_sending_a_task_writes_broker_state_only_under_the_broker_folder(tmp_path: Path) -> None:
    broker = tmp_path / "var" / "broker"
    cwd = tmp_path / "started-here"
    cwd.mkdir()
    keep = {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR"}
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        DJANGO_SETTINGS_MODULE="portal.settings",
        DJANGO_DEBUG="true",
        PORTAL_EMBEDDED_BROKER="true",
        PORTAL_EMBEDDED_BROKER_DIR=str(broker),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        PYTHONPATH=str(ROOT),
    )
    done = subprocess.run(
        [sys.executable, "-c", SEND], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert list(cwd.iterdir()) == []  # no control/ folder where the process started
    tables = sorted(p.name for p in (broker / "control").iterdir())
    assert "portal.exchange" in tables or ".exchange" in tables, tables
    assert any(p.name.endswith(".msg") for p in broker.iterdir())  # the message itself
