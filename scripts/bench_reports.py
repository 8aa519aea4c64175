"""The cost of a ranking's exports: wall time and PEAK memory of the PDF and the workbook build
(each in its own process, as a worker builds it), and how fast a page and an API list answer
while an export is being built (the request only stores the job).

Usage: DATABASE_URL=... PYTHONPATH=. .venv/bin/python scripts/bench_reports.py [--offers 3000]
Creates a throw-away team (offers spread over one vendor per ten offers), ranks them
in-process, then builds each file in a subprocess (``--build RUN KIND``) that reports its
wall time and ``resource.getrusage`` peak resident memory; the team is deleted afterwards.
Goal: each build under 400 MB peak. Ratios printed: each build's time / the ranking's time,
each latency during a build / the same latency on the quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")

GOAL_MB = 400


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def build_one(run_id: int, kind: str) -> None:
    """Child process: build one report of the run as the worker does; print JSON figures."""
    import django

    django.setup()
    from core import jobs
    from rankings.models import RankingRun
    from reports.models import Report
    from reports.pdf import clear_pdf_cache

    run = RankingRun.objects.select_related("team", "created_by").get(pk=run_id)
    clear_pdf_cache()
    report = Report.objects.create(
        team=run.team,
        run=run,
        kind=kind,
        language="zh-hans",
        created_by=run.created_by,
        stamp=f"bench-{time.time_ns()}",
    )
    before = _peak_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    outcome = jobs.run("report", report.pk)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    report.refresh_from_db()
    figures = {"kind": kind, "outcome": outcome, "error": report.error, "wall_s": wall,
               "cpu_s": cpu, "peak_mb": _peak_mb(), "start_mb": before,
               "bytes": report.size_bytes}  # fmt: skip
    print(json.dumps(figures))


def _child(run_id: int, kind: str) -> subprocess.Popen[str]:
    script = str(Path(__file__).resolve())
    return subprocess.Popen([sys.executable, script, "--build", str(run_id), kind],
                            stdout=subprocess.PIPE, text=True)  # fmt: skip


def _latency(client, urls: list[str], seconds: float) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Highest and median answer time of each URL, asked in turn for `seconds`."""
    times: dict[str, list[float]] = {u: [] for u in urls}
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or not all(times.values()):
        for u in urls:
            t0 = time.perf_counter()
            status = client.get(u).status_code
            times[u].append(time.perf_counter() - t0)
            assert status == 200, (u, status)
    out = {}
    for u, ts in times.items():
        ts.sort()
        out[f"{u} p50"] = ts[len(ts) // 2]
        out[f"{u} max"] = ts[-1]
    return out


# The portal's modules are imported inside the functions: models cannot load before django.setup().
def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--offers", type=int, default=3000)
    parser.add_argument("--build", nargs=2, metavar=("RUN", "KIND"), help=argparse.SUPPRESS)
    parser.add_argument("--profile", action="store_true", help="cProfile the warm PDF build")
    parser.add_argument("--parts", action="store_true", help="where the PDF's time goes")
    parser.add_argument("--run", type=int, help="measure this finished run (kept) instead")
    args = parser.parse_args()
    if args.build:
        build_one(int(args.build[0]), args.build[1])
        return
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from accounts.models import Membership, Team
    from quotes.testing import make_quote, make_vendor, make_workload
    from rankings.models import RankingRun
    from rankings.tasks import run_job as rank_job

    if args.run:  # an existing run (e.g. kept from an earlier set-up): measured, not deleted
        run = RankingRun.objects.select_related("team", "created_by").get(pk=args.run)
        print(f"offers ranked: {run.results.count()} (run {run.pk}, ranking time not measured)")
        measure(run, run.created_by, None, args)
        return
    stamp = str(int(time.time()))
    team = Team.objects.create(name=f"bench reports {stamp}", slug=f"bench-rep-{stamp}")
    user = get_user_model().objects.create_user(username=f"bench-rep-{stamp}")
    Membership.objects.create(user=user, team=team, role="analyst")
    try:
        t0 = time.perf_counter()
        vendors = []
        for i in range(args.offers):
            fabric, gbps = [("tcp", 10), ("roce", 25), ("roce", 100), ("ib", 200)][i % 4]
            if i % 10 == 0:
                vendors.append(make_vendor(team, f"基准供应商 {i // 10:03d} Bench vendor",
                                           fabric=fabric, gbps=gbps))  # fmt: skip
            make_quote(team, user, vendors[-1], label=f"{gbps}G {fabric} #{i}",
                       price_per_node_month=Decimal(30000 + 3 * i) + Decimal("0.10"))  # fmt: skip
        print(f"set-up: {args.offers} offers, {len(vendors)} vendors in "
              f"{time.perf_counter() - t0:.0f} s")  # fmt: skip
        run = RankingRun.objects.create(team=team, created_by=user, workload=make_workload(team))
        t0 = time.perf_counter()
        rank_job(run.pk)
        t_rank = time.perf_counter() - t0
        run.refresh_from_db()
        assert run.status == "done", run.error
        print(f"offers ranked: {run.results.count()}; ranking: {t_rank:.1f} s")
        measure(run, user, t_rank, args)
    finally:
        team.delete()
        user.delete()


def measure(run, user, t_rank: float | None, args) -> None:  # type: ignore[no-untyped-def]
    """Each file built in its own process; then latencies, quiet and during a build."""
    from django.test import Client

    for kind in ("pdf", "xlsx"):
        out, _err = _child(run.pk, kind).communicate()
        f = json.loads(out.strip().splitlines()[-1])
        assert f["outcome"] == "done", f
        ratio = f"{f['wall_s'] / t_rank:.2f} x the ranking; " if t_rank else ""
        verdict = "OK" if f["peak_mb"] < GOAL_MB else "OVER"
        print(f"{kind}: {f['wall_s']:.1f} s wall ({f['cpu_s']:.1f} s CPU), PEAK "
              f"{f['peak_mb']:.0f} MB in the worker process (after start-up "
              f"{f['start_mb']:.0f} MB), {f['bytes']:,} bytes; {ratio}"
              f"{verdict} (goal < {GOAL_MB} MB)")  # fmt: skip
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    urls = [f"/rankings/{run.pk}/", "/api/v1/reports/", f"/reports/ranking/{run.pk}/",
            "/api/v1/rankings/"]  # fmt: skip
    for u in urls:  # a cold cache is each page's own cost, not the export's
        client.get(u)
    quiet = _latency(client, urls, 5)
    child = _child(run.pk, "xlsx")  # a build running beside the requests
    busy = _latency(client, urls, 8)
    child.communicate()
    for key in quiet:
        print(f"latency {key}: quiet {quiet[key] * 1000:.0f} ms, during an export "
              f"{busy[key] * 1000:.0f} ms, RATIO {busy[key] / quiet[key]:.2f}")  # fmt: skip
    own = list(busy.values())
    print(f"highest latency during an export: {max(own) * 1000:.0f} ms "
          "(pinned < 1 s in tests/faults/test_export_worker.py)")  # fmt: skip
    if args.parts:
        pdf_parts(run)
    if args.profile:
        profile_pdf(run)
    else:
        page_bytes(user, run)


def pdf_parts(run) -> None:  # type: ignore[no-untyped-def]
    """Where the warm PDF's time goes: data, chart images, HTML, WeasyPrint."""
    from django.template.loader import render_to_string
    from django.utils import translation

    from reports.charts import chart_images
    from reports.pdf import pdf_context, write_pdf
    from reports.selectors import report_data

    with translation.override("zh-hans"):
        t = [time.perf_counter()]
        data = report_data(run=run)
        t.append(time.perf_counter())
        chart_images(data.results, data.sensitivity)
        t.append(time.perf_counter())
        ctx = pdf_context(data)
        html = render_to_string("reports/pdf/report.html", ctx)
        t.append(time.perf_counter())
        write_pdf(html, ctx["chart_images"])
        t.append(time.perf_counter())
    names = ("data", "charts", "html (charts again)", "weasyprint")
    print(
        "pdf parts: "
        + ", ".join(f"{n} {b - a:.2f} s" for n, a, b in zip(names, t, t[1:], strict=False))
    )


def profile_pdf(run) -> None:  # type: ignore[no-untyped-def]
    """The 25 most expensive functions (cumulative) of one warm PDF build."""
    import cProfile
    import pstats

    from django.utils import translation

    from reports.pdf import build_pdf, clear_pdf_cache
    from reports.selectors import report_data

    clear_pdf_cache()  # profile a build, not a cache hit
    with translation.override("zh-hans"):
        data = report_data(run=run)
        profiler = cProfile.Profile()
        profiler.runcall(build_pdf, data)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def page_bytes(user, run) -> None:  # type: ignore[no-untyped-def]
    """Bytes a browser transfers for the ranking page with its scripts and styles, with the
    production static files (collectstatic: hashed names, Brotli / gzip variants)."""
    import re
    import subprocess
    import tempfile

    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    html = client.get(f"/rankings/{run.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content
    assets = re.findall(rb'(?:src|href)="/static/([^"?#]+)"', html)
    with tempfile.TemporaryDirectory() as root:
        env = dict(os.environ, DJANGO_DEBUG="false", DJANGO_SECRET_KEY="bench-only-" + "x" * 50,
                   STATIC_ROOT=root)  # fmt: skip
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                       cwd=Path(__file__).resolve().parent.parent, env=env, check=True)  # fmt: skip
        t_collect = time.perf_counter() - t0
        total, parts = len(html), [f"html {len(html):,}"]
        for name in (a.decode() for a in assets):
            plain = Path(root, name)
            best = min((p for p in (Path(f"{plain}.br"), Path(f"{plain}.gz"), plain) if p.exists()),
                       key=lambda p: p.stat().st_size)  # fmt: skip
            total += best.stat().st_size
            parts.append(f"{name} {best.stat().st_size:,} ({best.suffix or 'plain'})")
    print(f"collectstatic (production storage): {t_collect:.1f} s")
    print("ranking page transfer: " + "; ".join(parts))
    print(f"TRANSFER first chart page: {total:,} bytes = {total / 1e6:.2f} MB (goal <= 1.5 MB)")


if __name__ == "__main__":
    main()
