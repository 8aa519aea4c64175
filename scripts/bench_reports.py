"""Time the PDF and the XLSX of a ranking of 50 offers against the ranking itself (same run).

Usage: DATABASE_URL=... .venv/bin/python scripts/bench_reports.py [--offers 50]
Creates a throw-away team in the database, ranks its offers in-process, builds both reports and
prints each time divided by the ranking time; the team is deleted afterwards.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")


def main() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from accounts.models import Membership, Team
    from quotes.testing import make_quote, make_vendor, make_workload
    from rankings.models import RankingRun
    from rankings.tasks import run_job as rank_job
    from reports.services import report_build_sync

    parser = argparse.ArgumentParser()
    parser.add_argument("--offers", type=int, default=50)
    args = parser.parse_args()
    stamp = str(int(time.time()))
    team = Team.objects.create(name=f"bench reports {stamp}", slug=f"bench-rep-{stamp}")
    user = get_user_model().objects.create_user(username=f"bench-rep-{stamp}")
    Membership.objects.create(user=user, team=team, role="analyst")
    try:
        for i in range(args.offers):
            fabric, gbps = [("tcp", 10), ("roce", 25), ("roce", 100), ("ib", 200)][i % 4]
            vendor = make_vendor(team, f"基准供应商 {i:02d} Bench vendor", fabric=fabric, gbps=gbps)
            make_quote(team, user, vendor, label=f"{gbps}G {fabric} #{i}",
                       price_per_node_month=Decimal(30000 + 300 * i))  # fmt: skip
        run = RankingRun.objects.create(team=team, created_by=user, workload=make_workload(team))
        t0 = time.perf_counter()
        rank_job(run.pk)
        t_rank = time.perf_counter() - t0
        run.refresh_from_db()
        times = {}
        # The first PDF in a process starts the chart renderer (a headless Chromium); a worker
        # process starts it when it starts (reports.tasks), so the warm figure is what users see.
        for kind, name in (("pdf", "pdf, renderer cold"), ("pdf", "pdf"), ("xlsx", "xlsx")):
            t0 = time.perf_counter()
            report = report_build_sync(team=team, user=user, run=run, kind=kind, language="zh-hans")
            times[name] = time.perf_counter() - t0
            assert report.status == "done", report.error
            print(f"{name}: {report.size_bytes:,} bytes")
        print(f"offers ranked: {run.results.count()}")
        print(f"ranking: {t_rank:.3f} s")
        for name, t in times.items():
            print(f"{name}: {t:.3f} s = {t / t_rank:.1f} x the ranking")
    finally:
        team.delete()
        user.delete()


if __name__ == "__main__":
    main()
