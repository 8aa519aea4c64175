"""Training model v3: idle GPUs allowed (an awkward server count is not punished), a
cross-server ring drives every NIC of the server, fp32 gradients held at 4 bytes, ZeRO-2 reduced
every micro-step and never searched with pipelines (docs/MODEL.md §4, §7, §9)."""

from __future__ import annotations

import pytest

from domain import ranking
from domain.trainmodel import gpu_spec, gpu_table
from domain.trainmodel.inputs import Cluster, Layout
from domain.trainmodel.links import collective_latency_s, collective_s, links_for
from domain.trainmodel.presets import preset
from domain.trainmodel.steptime import step_time

GPUS = gpu_table()


def _cost(key: str, params_b: float, nodes: int, nic: float, nics: int, fabric: str) -> float:
    p = preset(key)
    values = {"params_b": params_b, "tokens_per_step": p.parallel.global_batch_tokens,
              "strategy": "fsdp"}  # fmt: skip
    work = ranking.workload_of(values, model=p.model, parallel=p.parallel,
                               train_tokens=p.train_tokens, source=key)  # fmt: skip
    offer = ranking.Offer(
        id="x", gpu="H800-SXM", gpus_per_node=8, nodes=nodes, nic_gbps=nic, nics_per_node=nics,
        fabric=fabric, price_per_node_month=50_000,
    )  # fmt: skip
    out = ranking.rank(work, [offer], GPUS)
    assert not out.problems, out.problems
    return out.results[0].cost_per_eth


@pytest.mark.parametrize(
    ("key", "params_b", "nodes", "nic", "nics", "fabric"),
    [
        ("llama3-405b", 405, 16, 400, 8, "ib"),
        ("llama3-70b", 70.6, 20, 25, 1, "tcp"),
    ],
)
def test_one_more_server_raises_cost_per_eth_at_most_by_its_share_of_the_bill(
    key: str, params_b: float, nodes: int, nic: float, nics: int, fabric: str
) -> None:
    base = _cost(key, params_b, nodes, nic, nics, fabric)
    more = _cost(key, params_b, nodes + 1, nic, nics, fabric)
    assert more <= base * (nodes + 1) / nodes * (1 + 1e-9)


def test_a_layout_may_leave_gpus_idle_and_idle_servers_are_hot_spares() -> None:
    p = preset("llama3-405b")
    values = {"params_b": 405, "tokens_per_step": p.parallel.global_batch_tokens,
              "strategy": "fsdp", "train_tokens": p.train_tokens}  # fmt: skip
    work = ranking.workload_of(values, model=p.model, parallel=p.parallel)
    offer = ranking.Offer(id="x", gpu="H800-SXM", gpus_per_node=8, nodes=17, nic_gbps=400,
                          nics_per_node=8, fabric="ib", price_per_node_month=50_000)  # fmt: skip
    out = ranking.rank(work, [offer], GPUS)
    d = out.results[0].model_detail
    assert d is not None
    assert d["gpus_used"] < d["gpus_offered"] == 136  # 17 x 8 does not split the 126 layers
    lay = d["layout"]
    assert lay["tp"] * lay["pp"] * lay["dp"] * lay["cp"] == d["gpus_used"]
    # the whole offer is billed, and the idle server saves the wait for a repair
    assert out.results[0].hourly_cost == pytest.approx(17 * 50_000 / ranking.HOURS_PER_MONTH)
    assert d["failures"]["spare_nodes"] >= 1


def _cluster(nodes: int = 4) -> Cluster:
    return Cluster(gpu_spec("H100-SXM"), nodes * 8, 8, 400, 8, "ib")


@pytest.mark.parametrize(("tp", "local"), [(1, 8), (2, 4), (4, 2), (8, 1)])
def test_a_data_parallel_ring_gets_the_nics_its_ranks_hold_in_each_server(
    tp: int, local: int
) -> None:
    links = links_for(_cluster())
    size, n = 4e9, 32 // tp
    t = collective_s("ar", size, n, tp, links)
    # every NIC of the server, shared by the tp groups that reduce at the same time
    share = min(links.inter_bps * local, links.intra_bps)
    expected = collective_latency_s("ar", n, tp, links) + 2 * (n - 1) / n * size / share
    assert t == pytest.approx(expected)


def test_data_parallel_time_no_longer_grows_eightfold_when_tp_is_one() -> None:
    links = links_for(_cluster())
    whole = collective_s("ar", 4e9, 32, 1, links)  # 8 ranks per server
    per_rail = collective_s("ar", 4e9, 4, 8, links)  # 1 rank per server
    # the same bytes per rank: the group holding whole servers is not slower than one rail
    assert whole < per_rail


def _layout(**kw: object) -> Layout:
    base = {"tp": 8, "pp": 1, "dp": 4, "cp": 1, "ep": 1, "zero_stage": 2, "microbatch": 1,
            "recompute": "full", "interleave": 1, "sequence_parallel": True}  # fmt: skip
    base.update(kw)
    return Layout(**base)  # type: ignore[arg-type]


def test_zero2_reduces_on_every_micro_step_zero1_once() -> None:
    p = preset("llama3-70b")
    cluster = Cluster(gpu_spec("H100-SXM"), 32, 8, 100, 1, "roce")
    links = links_for(cluster)
    seqs = 64  # 16 micro-steps per replica at dp 4, microbatch 1
    z1 = step_time(p.model, cluster, links, _layout(zero_stage=1), seqs, dp_overlap=False)
    z2 = step_time(p.model, cluster, links, _layout(zero_stage=2), seqs, dp_overlap=False)
    assert z1.microbatches == 16
    assert z2.dp_exposed_s > 10 * z1.dp_exposed_s / 2  # 16 reduce-scatters against one


@pytest.mark.parametrize("nodes", [4, 8, 16])
def test_the_search_pairs_pipelines_only_with_zero1_or_none(nodes: int) -> None:
    from domain.trainmodel.api import Estimate, estimate
    from domain.trainmodel.inputs import ParallelRequest

    p = preset("llama3-70b")
    cluster = Cluster(gpu_spec("A100-SXM4-80GB"), nodes * 8, 8, 100, 1, "roce")
    found = estimate(p.model, cluster, ParallelRequest(global_batch_tokens=4_194_304))
    assert isinstance(found, Estimate)
    assert found.layout.pp == 1 or found.layout.zero_stage <= 1
