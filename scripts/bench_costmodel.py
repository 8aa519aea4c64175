"""Micro-benchmark of `domain.costmodel.rank`: prints the time to rank 1,000 and 10,000 offers.

Run from the repository root: `python3 scripts/bench_costmodel.py`. The offers are a deterministic
mix of GPUs, fabrics, measured and nominal bandwidth and racks, so every code path is exercised.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.costmodel import Offer, Workload, default_gpus, rank  # noqa: E402


def make_offers(count: int, seed: int = 7) -> list[Offer]:
    rnd = random.Random(seed)
    gpus = [g for g in default_gpus() if g != "Ascend910B"]
    offers = []
    for i in range(count):
        measured = rnd.random() < 0.5
        nic = rnd.choice((10.0, 25.0, 50.0, 100.0, 200.0, 400.0))
        offers.append(
            Offer(
                id=f"offer-{i}",
                gpu=rnd.choice(gpus),
                gpus_per_node=8,
                nodes=rnd.choice((1, 2, 4, 8, 16, 32, 64)),
                price_per_node_month=rnd.uniform(20_000, 120_000),
                monthly_fees=rnd.uniform(0, 10_000),
                nic_gbps=nic,
                nics_per_node=rnd.choice((1, 2, 4, 8)),
                fabric=rnd.choice(("tcp", "roce", "ib")),
                rack_uplink_gbps=rnd.choice((None, 400.0, 1600.0)),
                servers_per_rack=rnd.choice((None, 4, 8)),
                measured_gbps=nic * 0.8 if measured else None,
                measured_p50_gbps=nic * 0.9 if measured else None,
                pfc=rnd.choice((None, True, False)),
                ecn=rnd.choice((None, True)),
            )
        )
    return offers


def best_of(workload: Workload, offers: list[Offer], repeat: int = 10) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds of `repeat` rankings (CPU time shows through load)."""
    gpus = default_gpus()
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        outcome = rank(workload, offers, gpus)
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    assert len(outcome.results) == len(offers), outcome.problems[:3]
    return wall, cpu


def main() -> None:
    workload = Workload(params_b=7.0, tokens_per_step=4e6, train_tokens=1e12)
    for count in (1_000, 10_000):
        wall, cpu = best_of(workload, make_offers(count))
        per_offer = wall / count * 1e6
        print(
            f"rank {count:>6,} offers: {wall * 1000:7.2f} ms wall, {cpu * 1000:7.2f} ms CPU "
            f"({per_offer:.2f} us/offer)"
        )


if __name__ == "__main__":
    main()
