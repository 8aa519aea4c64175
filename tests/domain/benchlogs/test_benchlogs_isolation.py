"""domain.benchlogs is pure Python: importing and using it loads no web framework."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

CHECK = """
import sys
import domain.benchlogs
from domain.benchlogs import stats, archive
for name in ("django", "rest_framework", "celery"):
    assert name not in sys.modules, name
print("clean")
"""


def test_importing_benchlogs_does_not_load_django() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "clean"
