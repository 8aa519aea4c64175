"""Collectives over many ranks (docs/MODEL.md §18.5): at a fixed number of bytes per rank, the
data-parallel time a step exposes grows with the ranks in the collective, because every step of
a ring pays the link's latency and a ring over n ranks has n - 1 steps per bucket."""

from __future__ import annotations

import pytest

from domain.trainmodel import gpu_spec
from domain.trainmodel.cases import predict_case
from domain.trainmodel.inputs import Cluster, Layout, ModelSpec
from domain.trainmodel.links import (
    RING_STEP_ALPHA_S,
    collective_latency_s,
    collective_s,
    links_for,
    reduce_s,
    transfer_s,
)
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


def _series(shard_ranks: int | None, zero_reduce: str = "reduce_scatter") -> list[float]:
    """Tokens/s per GPU over SERIES_RANKS, ZeRO-1, 200G IB x 8 per server."""
    rates = []
    for n in SERIES_RANKS:
        cluster = Cluster(
            gpu=gpu_spec("A100-SXM4-80GB"), gpus=n, gpus_per_node=8, nic_gbps=200,
            nics_per_node=8, fabric="ib",
        )  # fmt: skip
        layout = Layout(1, 1, n, 1, 1, 1, 1, "none", 1, False, True)
        step = step_time(
            SERIES_MODEL, cluster, links_for(cluster), layout, 8 * n, shard_ranks=shard_ranks,
            zero_reduce=zero_reduce,
        )  # fmt: skip
        rates.append(8 * SERIES_MODEL.seq_len / step.step_s)
    return rates


def _fall(rates: list[float]) -> float:
    return 1.0 - rates[-1] / rates[0]


def test_sharding_inside_a_server_loses_far_less_than_sharding_over_every_rank():
    everywhere, inside = _series(None), _series(8)
    assert everywhere == sorted(everywhere, reverse=True)  # more ranks, more exposed latency
    assert _fall(everywhere) > 0.10  # the model: 11.5% with one reduce-scatter per bucket
    assert _fall(inside) < _fall(everywhere) / 2  # the model: 3.9% (published: it holds)
    # at 1,024 ranks the intra-server optimizer is the faster layout
    assert inside[-1] > everywhere[-1]


def test_all_rank_zero1_falls_as_much_as_the_published_series():
    """docs/MODEL.md §21.1: a ZeRO-1 that reduces each owner's slice with its own NCCL Reduce
    (DeepSpeed's stage_1_and_2.py) issues ~n Reduces per step, each a chain over all n ranks:
    the latency grows as n x n, ~3.3 s at 1,024 ranks (published, backed out: ~3.2 s); sharded
    inside each server the Reduces stay on NVLink and the series holds."""
    everywhere = _series(None, "per_rank")
    inside = _series(8, "per_rank")
    assert everywhere == sorted(everywhere, reverse=True)
    assert 0.35 <= _fall(everywhere) <= 0.55  # published: 44%
    assert _fall(inside) < 0.10  # published: it holds
    # the same stack exposes 3 s or more of data-parallel time at 1,024 ranks, under 0.2 s on 8
    cluster = Cluster(
        gpu=gpu_spec("A100-SXM4-80GB"), gpus=1024, gpus_per_node=8, nic_gbps=200,
        nics_per_node=8, fabric="ib",
    )  # fmt: skip
    layout = Layout(1, 1, 1024, 1, 1, 1, 1, "none", 1, False, True)
    wide = step_time(
        SERIES_MODEL, cluster, links_for(cluster), layout, 8 * 1024, zero_reduce="per_rank"
    )
    assert 3.0 < wide.dp_exposed_s < 4.0


def test_one_reduce_per_owner_costs_ranks_squared_latency_a_reduce_scatter_does_not():
    links = links_for(
        Cluster(
            gpu=gpu_spec("A100-SXM4-80GB"),
            gpus=1024,
            gpus_per_node=8,
            nic_gbps=200,
            nics_per_node=8,
            fabric="ib",
        )  # fmt: skip
    )
    grads = 6.7e9 * 4.0
    per_owner = {n: n * reduce_s(grads / n, n, 1, links) for n in (64, 256, 1024)}
    scatter = {n: collective_s("rs", grads, n, 1, links) for n in (64, 256, 1024)}
    # 4x the ranks: the per-owner Reduces take ~16x the latency, the reduce-scatter ~4x
    assert per_owner[1024] / per_owner[256] > 8
    assert scatter[1024] / scatter[256] < 4.5
    # NCCL's tuning model at 1,024 ranks: LL, 1,024 hops of 2.7 us each, plus the bytes at a
    # quarter of the ring's bus bandwidth
    one = reduce_s(grads / 1024, 1024, 1, links)
    busbw = min(links.inter_bps * 8, links.intra_bps)
    expected = 3.6e-6 + 1024 * 2.7e-6 + grads / 1024 / (0.25 * busbw)
    assert one == pytest.approx(expected)


def _case(parallel: dict) -> dict:  # type: ignore[type-arg]
    return {
        "id": "7b-1024", "gpu": "A100-SXM4-80GB", "gpus": 1024, "gpus_per_node": 8,
        "nic_gbps": 200, "nics_per_node": 8, "fabric": "ib",
        "model": {"params_b": 6.7, "layers": 32, "hidden": 4096, "heads": 32, "seq_len": 2048,
                  "vocab": 32000},
        "parallel": {"zero_stage": 1, "global_batch_tokens": 8 * 1024 * 2048, **parallel},
    }  # fmt: skip


def test_predict_runs_takes_the_reduce_scheme_and_the_search_sees_its_cost():
    fixed = predict_case(_case({"tp": 1, "pp": 1, "zero_reduce": "per_rank"}))
    scatter = predict_case(_case({"tp": 1, "pp": 1}))
    inside = predict_case(
        _case({"tp": 1, "pp": 1, "zero_reduce": "per_rank", "zero_shard_ranks": 8})
    )
    assert fixed["breakdown_s"]["dp_exposed"] > 3 * scatter["breakdown_s"]["dp_exposed"]
    assert inside["tokens_per_s"] > 1.3 * fixed["tokens_per_s"]
    # the optimizer replicated across servers costs memory: 1/8 of the states instead of 1/dp
    assert inside["memory_gb_per_gpu"] > fixed["memory_gb_per_gpu"]
    # free to choose, the search shrinks the data-parallel group rather than pay n x n latency
    searched = predict_case(_case({"zero_reduce": "per_rank"}))
    assert searched["layout"]["dp"] < 1024 // 2
    assert searched["tokens_per_s"] > 1.2 * fixed["tokens_per_s"]


def test_an_unknown_reduce_scheme_is_refused_in_both_languages():
    out = predict_case(_case({"zero_reduce": "ring"}))
    assert out["fits"] is False
    assert "zero_reduce must be reduce_scatter or per_rank" in out["reason"]
    assert "zero_reduce 必须是" in out["reason_zh"]
    bad = predict_case(_case({"zero_shard_ranks": 0}))
    assert bad["fits"] is False and "zero_shard_ranks" in bad["reason"]
