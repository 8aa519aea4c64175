"""Collectives over many ranks (docs/MODEL.md §18.5): at a fixed number of bytes per rank, the
data-parallel time a step exposes grows with the ranks in the collective, because every step of
a ring pays the link's latency and a ring over n ranks has n - 1 steps per bucket."""

from __future__ import annotations

import pytest

from domain.trainmodel import gpu_spec
from domain.trainmodel.inputs import Cluster, Layout, ModelSpec
from domain.trainmodel.links import RING_STEP_ALPHA_S, collective_latency_s, links_for, transfer_s
from domain.trainmodel.steptime import step_time

# A 7B dense model (Llama 2 7B shapes), no model parallelism, the optimizer sharded over every
# data-parallel rank (ZeRO-1 / Megatron's distributed optimizer), 8 microbatches per rank: the
# compute and the gradient bytes per rank are the same at every size (weak scaling).
MODEL = ModelSpec(params_b=6.7, layers=32, hidden=4096, heads=32, seq_len=4096, vocab=32000)
PER_RANK_SEQUENCES = 8


def _step(ranks: int):  # type: ignore[no-untyped-def]
    cluster = Cluster(
        gpu=gpu_spec("A100-SXM4-80GB"), gpus=ranks, gpus_per_node=8, nic_gbps=200,
        nics_per_node=8, fabric="ib",
    )  # fmt: skip
    links = links_for(cluster)
    layout = Layout(1, 1, ranks, 1, 1, 1, 1, "none", 1, False, True)
    return step_time(MODEL, cluster, links, layout, PER_RANK_SEQUENCES * ranks), links


def test_exposed_data_parallel_time_grows_with_the_ranks_at_fixed_bytes_per_rank():
    sizes = (16, 64, 256, 1024)
    steps = [_step(n)[0] for n in sizes]
    assert len({s.compute_s for s in steps}) == 1  # the same compute per rank everywhere
    exposed = [s.dp_exposed_s for s in steps]
    assert exposed == sorted(exposed) and len(set(exposed)) == len(exposed), exposed
    # the bandwidth part hardly moves ((n - 1) / n of the same buffer per rank) ...
    grads = MODEL.params * 4.0 / MODEL.layers  # one fp32 bucket per layer
    links = _step(1024)[1]
    wide, narrow = transfer_s("rs", grads, 1024, 1, links), transfer_s("rs", grads, 64, 1, links)
    assert wide / narrow < 1.02
    # ... while the exposed time more than doubles: the ring's latency, n - 1 steps per bucket
    assert exposed[-1] > 2.0 * exposed[1]
    assert collective_latency_s("rs", 1024, 1, links) == pytest.approx(1023 * RING_STEP_ALPHA_S)


def test_the_same_bytes_inside_one_server_expose_less_than_over_a_thousand_ranks():
    inside, _ = _step(8)  # one server: NVLink, 7 ring steps
    spread, _ = _step(1024)
    assert inside.dp_exposed_s < spread.dp_exposed_s / 3
