"""Benchmark: rank 10,000 quotes for a 70B workload vs loading them from the database.

The workload is the Llama 3 70B preset of the training-time model (its architecture, batch and
tokens), FSDP on BENCH_NODES servers (default 16; BENCH_NODES=0 takes each offer's own size, so
far more distinct hardware shapes), ranked with v2's layout search per distinct shape. Prints
the layouts evaluated per offer and the number of distinct shapes estimated.

Run: DJANGO_SETTINGS_MODULE=portal.settings .venv/bin/python scripts/bench_ranking.py
(SQLite by default, PostgreSQL with DATABASE_URL). Creates a throwaway team, bulk-creates the
quotes, times (a) loading them exactly as a ranking does (`rankings.selectors.ranking_quotes`) and
(b) ranking them (snapshot build + `rank_snapshot` + `decide`: eligibility, ranges and ties, the
code path of the web ranking), prints both and the ratio (goal <= 2), then deletes the team.
Without BENCH_NODES it runs both settings, each in a fresh process (cold caches): 16 servers and
each offer's own size, and prints both ratios at the end.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")


def _both() -> None:
    """Run the benchmark at 16 servers and at each offer's own size; print both ratios."""
    ratios = {}
    for nodes in ("16", "0"):
        env = {**os.environ, "BENCH_NODES": nodes}
        run = subprocess.run(
            [sys.executable, __file__], env=env, capture_output=True, text=True, check=False
        )
        print(f"--- BENCH_NODES={nodes}\n{run.stdout}{run.stderr}", flush=True)
        found = re.search(r"ratio rank / load = ([0-9.]+)", run.stdout)
        ratios[nodes] = found.group(1) if found else "failed"
    print(
        f"ratios rank / load: BENCH_NODES=16 {ratios['16']}, BENCH_NODES=0 (per offer) "
        f"{ratios['0']} (goal <= 2)"
    )


if __name__ == "__main__" and "BENCH_NODES" not in os.environ:
    _both()
    sys.exit(0)

import django  # noqa: E402

django.setup()

from django.db import transaction  # noqa: E402

from accounts.models import Team  # noqa: E402
from quotes.models import GpuModel, Quote, QuoteVersion, WorkloadProfile  # noqa: E402
from rankings.decision import decide  # noqa: E402
from rankings.selectors import ranking_quotes  # noqa: E402
from rankings.services import rank_snapshot, snapshot_build  # noqa: E402
from vendors.models import DataCentre, NetworkProfile, Vendor  # noqa: E402

N = int(os.environ.get("BENCH_QUOTES", "10000"))
NODES = int(os.environ.get("BENCH_NODES", "16")) or None
FABRICS = (("tcp", 10.0), ("tcp", 25.0), ("roce", 25.0), ("roce", 100.0), ("ib", 200.0))


def _setup(team: Team) -> WorkloadProfile:
    rnd = random.Random(7)
    gpus = list(GpuModel.objects.filter(key__in=["A100-SXM4-80GB", "H800-SXM", "H20", "L40S"]))
    vendors, dcs = [], []
    for i, (fabric, _gbps) in enumerate(FABRICS):
        v = Vendor.objects.create(team=team, name_en=f"bench vendor {i}")
        dc = DataCentre.objects.create(vendor=v, name=f"bench dc {i}")
        NetworkProfile.objects.create(data_centre=dc, fabric=fabric, pfc=True, ecn=True)
        vendors.append(v)
        dcs.append(dc)
    quotes = Quote.objects.bulk_create(
        [Quote(team=team, vendor=vendors[i % 5], data_centre=dcs[i % 5], label=f"q{i}")
         for i in range(N)],
        batch_size=2000,
    )  # fmt: skip
    versions = []
    for i, q in enumerate(quotes):
        fabric, gbps = FABRICS[i % 5]
        versions.append(QuoteVersion(
            quote=q, number=1, gpu=gpus[i % len(gpus)], gpus_per_node=8, nodes=rnd.randint(8, 32),
            price_per_node_month=Decimal(rnd.randint(20000, 60000)), monthly_fees=Decimal("3000"),
            nic_gbps=gbps, nics_per_node=rnd.choice((1, 2, 4)), fabric=fabric,
            availability=Decimal("0.99"), servers_per_rack=4, rack_uplink_gbps=gbps * 4,
        ))  # fmt: skip
    versions = QuoteVersion.objects.bulk_create(versions, batch_size=2000)
    for q, v in zip(quotes, versions, strict=True):
        q.current_version = v
    Quote.objects.bulk_update(quotes, ["current_version"], batch_size=2000)
    return WorkloadProfile.objects.create(
        team=team, name="bench Llama 3 70B", preset="llama3-70b", params_b=70.6,
        tokens_per_step=8_388_608, strategy="fsdp", nodes=NODES, train_tokens=15e12,
    )  # fmt: skip


def main() -> None:
    tag = uuid.uuid4().hex[:8]
    team = Team.objects.create(name=f"bench (throwaway {tag})", slug=f"bench-{tag}")
    try:
        t0 = time.perf_counter()
        with transaction.atomic():
            workload = _setup(team)
        print(f"created {N} quotes in {time.perf_counter() - t0:.2f} s")
        ranking_quotes(team=team)[:1].exists()  # warm the connection
        t0 = time.perf_counter()
        quotes = list(ranking_quotes(team=team))
        load_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        snapshot = snapshot_build(workload=workload, quotes=quotes, fx={})
        build_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        outcome = rank_snapshot(snapshot)
        rank_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        decisions, _decision = decide(snapshot, outcome)
        decide_s = time.perf_counter() - t0
        total = build_s + rank_s + decide_s
        print(f"load {len(quotes)} quotes from the database: {load_s:.3f} s")
        print(
            f"rank them (snapshot {build_s:.3f} s + model {rank_s:.3f} s + decision "
            f"{decide_s:.3f} s): {total:.3f} s"
        )
        print(f"eligible {sum(d.eligible for d in decisions)}, tied {len(_decision['tied'])}")
        print(f"ranked {len(outcome.results)}, problems {len(outcome.problems)}")
        details = [r.model_detail for r in outcome.results if r.model_detail]
        evaluated = sorted(d["layouts_evaluated"] for d in details)
        if evaluated:
            print(
                f"layouts evaluated per offer: mean {sum(evaluated) / len(evaluated):.1f}, "
                f"median {evaluated[len(evaluated) // 2]}, max {evaluated[-1]} "
                f"(workload {snapshot.get('workload_preset')}, nodes {NODES or 'per offer'})"
            )
        shapes = {(o["gpu"], o["nodes"] if NODES is None else NODES, o["nic_gbps"],
                   o["nics_per_node"], o["fabric"]) for o in snapshot["offers"]}  # fmt: skip
        offers = len(snapshot["offers"])
        print(f"distinct hardware shapes estimated: {len(shapes)} for {offers} offers")
        print(f"ratio rank / load = {total / load_s:.2f} (goal <= 2)")
    finally:
        team.delete()


if __name__ == "__main__":
    main()
