"""`make load` reads each gunicorn worker's peak memory from /proc: the children of a process
are found and a child's peak resident set is what it once held, not what it holds now."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")


def _load_test():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("load_test", ROOT / "scripts" / "load_test.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["load_test"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


# Holds 80 MB, lets it go, then waits: its peak stays above what it holds.
CHILD = "b = bytearray(80 * 1024 * 1024); del b; print('ready', flush=True); input()"


def test_a_childs_peak_memory_is_read_after_it_freed_it() -> None:
    lt = _load_test()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 10
        while child.pid not in lt._children(os.getpid()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert child.pid in lt._children(os.getpid())
        status = lt._proc_status(child.pid)
        assert status["VmHWM"] >= 80 * 1024  # kB
        assert status["VmRSS"] < status["VmHWM"] - 40 * 1024
    finally:
        child.kill()
        child.wait()
    assert lt._proc_status(child.pid) == {}  # gone: nothing to read


def test_the_memory_verdict_holds_each_worker_to_the_goal(capsys) -> None:  # type: ignore[no-untyped-def]
    lt = _load_test()
    assert lt.report_memory([(11, 310.0, 250.0), (12, 395.0, 300.0)]) is True
    assert lt.report_memory([(11, 310.0, 250.0), (12, 650.0, 300.0)]) is False
    out = capsys.readouterr().out
    assert "gunicorn worker 12: peak 650 MB" in out and "MEMORY: FAIL" in out
