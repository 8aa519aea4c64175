"""Delivery benchmarks: monitoring ingest against a bare ``json.load`` of the same export.

    PYTHONPATH=. .venv/bin/python scripts/bench_delivery.py [--hosts 64] [--days 12] [--dir DIR]

Part 1 (ingest). Writes a Prometheus ``query_range`` export of realistic size — ``--hosts`` hosts x
4 series (``node_network_transmit/receive_bytes_total`` on ``ib0``, ``up``, a DCGM gauge), one
sample a minute, paged by time as the API's 11,000-points-per-series limit requires (7-day pages
that share their boundary sample) — in three shapes users send: the pages as Prometheus answers
them (minified) kept as one JSON list, the same re-saved pretty-printed as a JSON list, and that
with CRLF line ends. For each shape, in fresh subprocesses so that no two peaks are shared:

- time of ``parse_prometheus_range`` ÷ time of a bare ``json.load`` of the same file (goal ≤ 2);
- peak memory of the ingest (peak RSS minus the RSS before it started) ÷ file size (goal ≤ 1.5).

The files go under ``--dir`` (default: a temporary folder, removed afterwards; never committed).

Part 2 (``--page-only`` runs it alone): the contract page's p95 against the trivial page (goal
≤ 3x as ``make load``), in-process over the demo contract (``page_p95``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

STEP_S = 60
PAGE_S = 7 * 24 * 3600  # 10,081 points per series per page: under the 11,000 limit
T0 = 1_793_491_200  # 2026-11-01 00:00 UTC

SERIES = (
    ("node_network_transmit_bytes_total", "ib0", 4.2e10),
    ("node_network_receive_bytes_total", "ib0", 3.9e10),
    ("up", "", 0.0),
    ("DCGM_FI_DEV_GPU_UTIL", "", 0.0),
)


def _labels(host: int, metric: str, device: str) -> dict[str, str]:
    labels = {"__name__": metric, "instance": f"gpu{host:03d}:9100", "job": "node"}
    if device:
        labels["device"] = device
    if metric.startswith("DCGM"):
        labels["gpu"] = "0"
        labels["instance"] = f"gpu{host:03d}:9400"
    return labels


def _values(host: int, metric: str, rate: float, start: int, end: int) -> list[list[object]]:
    out: list[list[object]] = []
    for ts in range(start, end + 1, STEP_S):
        k = (ts - T0) // STEP_S
        if metric == "up":
            value = "1" if (k + host) % 997 else "0"
        elif metric.startswith("DCGM"):
            value = str((k * 7 + host * 13) % 101)
        else:
            value = str(int(k * rate * (0.9 + 0.1 * ((k + host) % 10) / 10)) + host * 10**9)
        out.append([ts, value])
    return out


def _pages(days: int) -> list[tuple[int, int]]:
    end = T0 + days * 86400
    return [(s, min(s + PAGE_S, end)) for s in range(T0, end, PAGE_S)]


def write_minified(path: Path, hosts: int, days: int) -> None:
    """The pages as Prometheus answers them (minified), kept as one JSON list (``jq -s -c``)."""
    with path.open("w", encoding="utf-8") as f:
        pages = _pages(days)
        f.write("[")
        for p, (start, end) in enumerate(pages):
            f.write("," if p else "")
            f.write('{"status":"success","data":{"resultType":"matrix","result":[')
            first = True
            for host in range(hosts):
                for metric, device, rate in SERIES:
                    result = {
                        "metric": _labels(host, metric, device),
                        "values": _values(host, metric, rate, start, end),
                    }
                    f.write(("" if first else ",") + json.dumps(result, separators=(",", ":")))
                    first = False
            f.write("]}}")
        f.write("]\n")


def write_pretty(path: Path, hosts: int, days: int, newline: str) -> None:
    """The same pages re-saved as one pretty-printed JSON list (indent 2), as ``json.dump`` does."""
    with path.open("w", encoding="utf-8", newline=newline) as f:
        pages = _pages(days)
        f.write("[\n")
        for p, (start, end) in enumerate(pages):
            f.write('  {\n    "status": "success",\n    "data": {\n')
            f.write('      "resultType": "matrix",\n      "result": [\n')
            items = [(h, m, d, r) for h in range(hosts) for m, d, r in SERIES]
            for i, (host, metric, device, rate) in enumerate(items):
                result = {
                    "metric": _labels(host, metric, device),
                    "values": _values(host, metric, rate, start, end),
                }
                text = textwrap.indent(json.dumps(result, indent=2), " " * 8)
                f.write(text + (",\n" if i < len(items) - 1 else "\n"))
            f.write("      ]\n    }\n  }" + (",\n" if p < len(pages) - 1 else "\n"))
        f.write("]\n")


# --- measurements, each in its own process ---

_CHILD = r"""
import json, resource, sys, time
from datetime import UTC, datetime

def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (resource.getpagesize() // 1024)

kind, path = sys.argv[1], sys.argv[2]
from domain.delivery.series import parse_prometheus_range  # imports before the baseline
base = rss_kb()
t = time.perf_counter()
with open(path, "rb") as f:
    if kind == "json":
        doc = json.load(f)
        n = 0
    else:
        ingest = parse_prometheus_range(f, hosts=None, now=datetime(2100, 1, 1, tzinfo=UTC))
        n = ingest.counts.samples
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "peak_kb": peak - base, "samples": n}))
"""


def measure(kind: str, path: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, str(path)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def best_of(kind: str, path: Path, runs: int) -> dict[str, float]:
    results = [measure(kind, path) for _ in range(runs)]
    return {
        "seconds": min(r["seconds"] for r in results),
        "peak_kb": max(r["peak_kb"] for r in results),
        "samples": results[0]["samples"],
    }


def bench_ingest(directory: Path, hosts: int, days: int, runs: int) -> bool:
    shapes = {
        "minified pages": (
            directory / "export_minified.json",
            lambda p: write_minified(p, hosts, days),
        ),
        "pretty (re-saved)": (
            directory / "export_pretty.json",
            lambda p: write_pretty(p, hosts, days, "\n"),
        ),
        "pretty, CRLF": (
            directory / "export_crlf.json",
            lambda p: write_pretty(p, hosts, days, "\r\n"),
        ),
    }
    ok = True
    print(f"{hosts} hosts x {len(SERIES)} series x 1/min x {days} days, {len(_pages(days))} pages")
    print(
        f"{'shape':<20}{'MB':>8}{'json.load s':>13}{'ingest s':>10}{'time x':>8}"
        f"{'ingest MB':>11}{'mem x file':>11}{'samples':>12}"
    )
    counts = set()
    for name, (path, write) in shapes.items():
        if not path.exists():
            write(path)
        size = path.stat().st_size
        bare = best_of("json", path, runs)
        ours = best_of("ingest", path, runs)
        counts.add(ours["samples"])
        time_ratio = ours["seconds"] / bare["seconds"]
        mem_ratio = ours["peak_kb"] * 1024 / size
        ok &= time_ratio <= 2.0 and mem_ratio <= 1.5
        print(
            f"{name:<20}{size / 1e6:>8.1f}{bare['seconds']:>13.2f}{ours['seconds']:>10.2f}"
            f"{time_ratio:>8.2f}{ours['peak_kb'] / 1024:>11.1f}{mem_ratio:>11.2f}"
            f"{int(ours['samples']):>12,}"
        )
    same = len(counts) == 1
    print(
        f"goals: time <= 2.00 x json.load, memory <= 1.50 x file; all shapes same samples: {same}"
    )
    return ok and same


def page_p95(requests: int = 300, warm: int = 20) -> bool | None:
    """The contract page's and list's p95 against the trivial page's (goal <= 3x), measured
    in-process with Django's test client over the demo contract (``make run``'s demo data,
    ``DATABASE_URL``): not wrk against gunicorn as ``make load`` does, so the figures are per
    request on one core, without the network. As ``make load``, each page is warmed first
    (``warm`` requests, not counted: the first fills the cache, as a reader's first visit, and
    psycopg prepares a statement after its fifth run); then the three pages are requested in
    turn, ``requests`` times each, so that whatever else the machine runs weighs on all three
    alike. Skipped (None) when there is no demo contract."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    os.environ.setdefault("DJANGO_DEBUG", "true")
    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from contracts.models import Contract

    contract = Contract.objects.filter(is_demo=True).order_by("-pk").first()
    user = get_user_model().objects.filter(username="demo").first()
    if contract is None or user is None:
        print("page p95: no demo contract (run `manage.py demo_setup` first); skipped")
        return None
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    paths = {"trivial": "/ping/page/", "page": f"/contracts/{contract.pk}/",
             "list": "/contracts/"}  # fmt: skip
    times: dict[str, list[float]] = {name: [] for name in paths}
    for path in paths.values():
        for _ in range(warm):
            client.get(path)
    for _ in range(requests):
        for name, path in paths.items():
            started = time.perf_counter()
            answer = client.get(path)
            times[name].append(time.perf_counter() - started)
            assert answer.status_code == 200, (path, answer.status_code)

    def pct(name: str, q: float) -> float:
        ordered = sorted(times[name])
        return ordered[max(0, int(q * len(ordered)) - 1)] * 1000

    base, page, listing = pct("trivial", 0.95), pct("page", 0.95), pct("list", 0.95)
    print(f"page p95 (in-process, {requests} requests each, in turn): trivial {base:.1f} ms; "
          f"contract page {page:.1f} ms = {page / base:.2f}x; contract list {listing:.1f} ms = "
          f"{listing / base:.2f}x (goal <= 3x); p50 {pct('trivial', 0.5):.1f} / "
          f"{pct('page', 0.5):.1f} / {pct('list', 0.5):.1f} ms")  # fmt: skip
    return page / base <= 3 and listing / base <= 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", type=int, default=64)
    parser.add_argument("--days", type=int, default=12)
    parser.add_argument("--runs", type=int, default=1, help="runs per measurement (best time)")
    parser.add_argument("--dir", type=Path, default=None, help="keep the files here")
    parser.add_argument("--page-only", action="store_true", help="only the contract page's p95")
    parser.add_argument("--requests", type=int, default=300, help="page requests (each page)")
    args = parser.parse_args()
    if args.page_only:
        return 0 if page_p95(args.requests) is not False else 1
    directory = args.dir or Path(tempfile.mkdtemp(prefix="bench_delivery_"))
    directory.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        ok = bench_ingest(directory, args.hosts, args.days, args.runs)
        ok = page_p95(args.requests) is not False and ok
    finally:
        if args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)
    print(f"done in {time.perf_counter() - started:.0f} s; goals met: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
