"""The cost model stays pure Python and fast enough for 10,000 offers."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from domain.costmodel import Offer, Workload, default_gpus, rank

ROOT = Path(__file__).resolve().parents[3]


def test_importing_the_models_loads_no_web_framework() -> None:
    code = (
        "import sys\n"
        "import domain.costmodel, domain.sensitivity, domain.billing\n"
        "web = ('django', 'rest_framework', 'celery')\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in web]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_ranking_ten_thousand_offers_is_quick() -> None:
    fabrics = ("tcp", "roce", "ib")
    offers = [
        Offer(id=f"o{i}", gpu=("H100-SXM", "A100-SXM4-80GB", "H20")[i % 3], gpus_per_node=8,
              nodes=1 + i % 32, price_per_node_month=20_000.0 + i, nic_gbps=(25.0, 100.0)[i % 2],
              fabric=fabrics[i % 3], measured_gbps=None if i % 4 else 80.0,
              servers_per_rack=4, rack_uplink_gbps=400.0)
        for i in range(10_000)
    ]  # fmt: skip
    workload = Workload(params_b=7, tokens_per_step=4e6)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        outcome = rank(workload, offers, default_gpus())
        best = min(best, time.perf_counter() - start)
    assert len(outcome.results) == 10_000
    # The target is well under 0.1 s on a quiet machine; the bound leaves room for a busy CI.
    assert best < 1.0
