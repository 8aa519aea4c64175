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


# Issue 37 item 9: a published 7B series on 8 -> 1,024 A100 whose tokens/s per GPU falls 44%
# with the optimizer sharded over every rank and holds with it sharded inside each server. The
# series is not in the shared validation set; its figures are the issue's. Per-rank batch:
# 8 sequences of 2,048 tokens, a step of ~3.8 s on 8 GPUs - what the 3.2 s of exposed
# communication at a 44% fall implies (3.2 s / (1 / 0.56 - 1) = 4.1 s).
SERIES_MODEL = ModelSpec(params_b=6.7, layers=32, hidden=4096, heads=32, seq_len=2048, vocab=32000)
SERIES_RANKS = (8, 64, 256, 1024)


def _series(shard_ranks: int | None) -> list[float]:
    """Tokens/s per GPU over SERIES_RANKS, ZeRO-1, 200G IB x 8 per server."""
    rates = []
    for n in SERIES_RANKS:
        cluster = Cluster(
            gpu=gpu_spec("A100-SXM4-80GB"), gpus=n, gpus_per_node=8, nic_gbps=200,
            nics_per_node=8, fabric="ib",
        )  # fmt: skip
        layout = Layout(1, 1, n, 1, 1, 1, 1, "none", 1, False, True)
        step = step_time(
            SERIES_MODEL, cluster, links_for(cluster), layout, 8 * n, shard_ranks=shard_ranks
        )
        rates.append(8 * SERIES_MODEL.seq_len / step.step_s)
    return rates


def _fall(rates: list[float]) -> float:
    return 1.0 - rates[-1] / rates[0]


def test_sharding_inside_a_server_loses_far_less_than_sharding_over_every_rank():
    everywhere, inside = _series(None), _series(8)
    assert everywhere == sorted(everywhere, reverse=True)  # more ranks, more exposed latency
    assert _fall(everywhere) > 0.10  # the model: 11.5% (published: 44%)
    assert _fall(inside) < _fall(everywhere) / 2  # the model: 3.9% (published: it holds)
    # at 1,024 ranks the intra-server optimizer is the faster layout
    assert inside[-1] > everywhere[-1]


@pytest.mark.xfail(
    strict=True,
    reason="Known gap (docs/MODEL.md §19.5): the published all-rank ZeRO-1 series falls 44% from "
    "8 to 1,024 A100; ring latency per bucket and NIC sharing give the model 11.5%.",
)
def test_all_rank_zero1_falls_as_much_as_the_published_series():
    assert _fall(_series(None)) >= 0.35
