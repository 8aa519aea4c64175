"""Benchmark: import a CSV of 2,000 quotes (the documented limit) through `quotes_import`.

Run: DJANGO_SETTINGS_MODULE=portal.settings .venv/bin/python scripts/bench_import.py
(SQLite by default, PostgreSQL with DATABASE_URL; BENCH_ROWS changes the row count). Creates a
throwaway team with five vendors and their data centres, builds the CSV in memory (vendors and
data centres by name, several GPU models, foreign currencies), imports it once and prints the
time, rows/s, the number of SQL queries and this process's CPU time (the fairer figure on a busy
machine), checks that every row became a quote with its version 1, then deletes the team.
Goal: 2,000 rows well under 10 s; the query count independent of the rows.
"""

from __future__ import annotations

import csv
import io
import os
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from accounts.models import Team  # noqa: E402
from quotes.importing import MAX_ROWS, quotes_import  # noqa: E402
from quotes.models import Quote, QuoteVersion  # noqa: E402
from vendors.models import DataCentre, Vendor  # noqa: E402

N = int(os.environ.get("BENCH_ROWS", str(MAX_ROWS)))
GPUS = ("A100-SXM4-80GB", "H800-SXM", "H20", "L40S")


def bench_csv(vendor_names: list[str], rows: int) -> bytes:
    """A CSV of `rows` valid quotes over the given vendors (each with a data centre "<name> DC")."""
    header = [
        "vendor", "data_centre", "label", "is_current", "gpu", "gpus_per_node", "nodes",
        "price_per_node_month", "currency", "fx_to_cny", "monthly_fees", "nic_gbps",
        "nics_per_node", "fabric", "availability", "term_months", "valid_until", "notes",
        "whole_offer_only", "prices_include_vat", "vat_rate", "invoice_type",
    ]  # fmt: skip
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    for i in range(rows):
        vendor = vendor_names[i % len(vendor_names)]
        usd = i % 7 == 0
        writer.writerow([
            vendor, f"{vendor} DC", f"offer {i} 报价", "yes", GPUS[i % len(GPUS)], 8,
            1 + i % 32, (4200 if usd else 30000) + i, "USD" if usd else "CNY",
            "7.1" if usd else "", 1000, (10, 25, 100, 200)[i % 4], 1 + i % 4,
            ("tcp", "roce", "ib")[i % 3], "0.99", 12, "2027-06-30", f"row {i}", "no",
            ("含税", "不含税", "")[i % 3], ("6%", "13", "")[i % 3], ("专票", "普票", "")[i % 3],
        ])  # fmt: skip
    return out.getvalue().encode()


def main() -> None:
    tag = uuid.uuid4().hex[:8]
    team = Team.objects.create(name=f"bench import (throwaway {tag})", slug=f"bench-imp-{tag}")
    user = get_user_model().objects.create_user(username=f"bench-imp-{tag}")
    try:
        names = []
        for i in range(5):
            vendor = Vendor.objects.create(team=team, name_en=f"Bench vendor {i}")
            DataCentre.objects.create(vendor=vendor, name=f"Bench vendor {i} DC")
            names.append(vendor.name_en)
        raw = bench_csv(names, N)
        queries = []

        def count(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
            queries.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            t0, c0 = time.perf_counter(), time.process_time()
            report = quotes_import(team=team, user=user, name="bench.csv", raw=raw)
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        if not report.ok or len(report.created) != N:
            sys.exit(f"import failed: {report.errors[:5]}")
        versions = QuoteVersion.objects.filter(quote__team=team, number=1, created_by=user)
        assert versions.count() == N
        assert Quote.objects.filter(team=team, current_version__number=1).count() == N
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"imported {N} rows in {seconds:.2f} s: {N / seconds:,.0f} rows/s, "
              f"{len(queries)} SQL queries ({cpu:.2f} s CPU in this process; "
              f"load average {load:.1f})")  # fmt: skip
    finally:
        Quote.objects.filter(team=team).delete()
        team.delete()
        user.delete()


if __name__ == "__main__":
    main()
