"""Benchmark of `domain.trainmodel.estimate` for a ranking: 10,000 offers, Llama 3 70B workload.

Run from the repository root: `python3 scripts/bench_trainmodel.py [count]`. The offers are a
deterministic mix of GPUs, server counts, NICs, fabrics and measured busbw. Prints offers per
second (a ranking: identical hardware shapes are answered from the memo), the cold time per
distinct shape, and the layouts evaluated (step-time evaluations after pruning) per offer.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.trainmodel import Cluster, NoFit, gpu_spec, gpu_table  # noqa: E402
from domain.trainmodel.api import _estimate, estimate  # noqa: E402
from domain.trainmodel.presets import preset  # noqa: E402


def make_clusters(count: int, seed: int = 7) -> list[Cluster]:
    rnd = random.Random(seed)
    keys = [k for k in gpu_table() if not k.startswith(("V100", "P100"))]
    clusters = []
    for _ in range(count):
        nic = rnd.choice((10.0, 25.0, 100.0, 200.0, 400.0))
        fabric = rnd.choice(("tcp", "roce", "ib"))
        measured = rnd.choice((None, None, nic * 0.8))
        clusters.append(
            Cluster(
                gpu=gpu_spec(rnd.choice(keys)),
                gpus=8 * rnd.choice((1, 2, 4, 8, 16, 32, 64, 128)),
                gpus_per_node=8,
                nic_gbps=nic,
                nics_per_node=rnd.choice((1, 2, 4, 8)),
                fabric=fabric,
                measured_busbw_gbps=measured,
            )
        )
    return clusters


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    work = preset("llama3-70b")
    clusters = make_clusters(count)
    distinct = len(set(clusters))
    _estimate.cache_clear()
    start, cpu_start = time.perf_counter(), time.process_time()
    results = [estimate(work.model, c, work.parallel, None, work.train_tokens) for c in clusters]
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    evaluated = [r.layouts_evaluated for r in results]
    fits = sum(not isinstance(r, NoFit) for r in results)
    print(f"offers: {count}, distinct hardware shapes: {distinct}, fitting: {fits}")
    print(f"ranking time: {elapsed:.2f} s = {count / elapsed:,.0f} offers/s (memo on)")
    print(f"CPU time: {cpu:.2f} s = {count / cpu:,.0f} offers per CPU-second (shared machine)")
    print(f"{cpu / distinct * 1000:.1f} CPU-ms per distinct shape (memory answers are shared)")
    print(
        "layouts evaluated per offer: mean "
        f"{statistics.mean(evaluated):.1f}, median {statistics.median(evaluated):.0f}, "
        f"max {max(evaluated)}"
    )


if __name__ == "__main__":
    main()
