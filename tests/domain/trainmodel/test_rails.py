"""Rail-optimised servers in the link model:
without rails a group over more servers than one rack crosses the spine (two more switch hops,
0.8 of the bandwidth); with rails, unknown rails, one rack or measured busbw nothing changes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain import ranking
from domain.trainmodel import gpu_spec, gpu_table
from domain.trainmodel.inputs import Cluster
from domain.trainmodel.links import (
    NON_RAIL_SPINE_EFFICIENCY,
    SWITCH_HOP_S,
    collective_s,
    links_for,
)

GB = 1e9


def _cluster(nodes: int = 16, **kw: object) -> Cluster:
    return Cluster(gpu_spec("H100-SXM"), nodes * 8, 8, 400, 8, "ib", **kw)  # type: ignore[arg-type]


def _dp_allreduce(cluster: Cluster, n: int = 16) -> float:
    # a data-parallel group of local rank 0 over n servers (stride 8: one rank per server)
    return collective_s("ar", GB, n, 8, links_for(cluster))


def test_without_rails_a_group_beyond_one_rack_pays_the_spine() -> None:
    rails = _dp_allreduce(_cluster(rail_optimised=True))
    flat = _dp_allreduce(_cluster(rail_optimised=False, servers_per_rack=4))
    links = links_for(_cluster())
    volume = 2 * 15 / 16 * GB
    depth = 4  # NCCL's tree over 16 servers: log2(16) levels, each way
    assert rails == pytest.approx(2 * depth * links.inter_alpha_s + volume / links.inter_bps)
    spine_alpha = links.inter_alpha_s + 2 * SWITCH_HOP_S["ib"]
    expected = 2 * depth * spine_alpha + volume / (links.inter_bps * NON_RAIL_SPINE_EFFICIENCY)
    assert flat == pytest.approx(expected)
    assert flat / rails == pytest.approx(1 / NON_RAIL_SPINE_EFFICIENCY, rel=0.01)


@pytest.mark.parametrize(
    "cluster",
    [
        _cluster(rail_optimised=None),  # not said: taken as rails (an assumption on the page)
        _cluster(rail_optimised=False, servers_per_rack=16),  # the group stays in one rack
        _cluster(rail_optimised=False, measured_busbw_gbps=300),  # measured: topology included
    ],
)
def test_nothing_changes_with_rails_unknown_rails_one_rack_or_evidence(cluster: Cluster) -> None:
    assert _dp_allreduce(cluster) == pytest.approx(
        _dp_allreduce(replace(cluster, rail_optimised=True))
    )


def test_the_rack_size_defaults_to_four_servers() -> None:
    four = _dp_allreduce(_cluster(rail_optimised=False), n=4)
    assert four == pytest.approx(_dp_allreduce(_cluster(rail_optimised=True), n=4))
    assert _dp_allreduce(_cluster(rail_optimised=False), n=8) > _dp_allreduce(
        _cluster(rail_optimised=True), n=8
    )


def test_the_ranking_prefers_rails_for_a_data_parallel_job_over_many_racks() -> None:
    gpus = gpu_table()
    work = ranking.workload_of({"params_b": 7, "tokens_per_step": 4_000_000, "strategy": "ddp",
                                "overlap": 0.0, "nodes": 16, "train_tokens": 1e11})  # fmt: skip
    base = {"gpu": "H100-SXM", "gpus_per_node": 8, "nodes": 16, "nic_gbps": 100,
            "nics_per_node": 2, "fabric": "roce", "price_per_node_month": 50_000,
            "servers_per_rack": 1}  # fmt: skip
    offers = [
        ranking.Offer(id="flat", rail_optimised=False, **base),  # type: ignore[arg-type]
        ranking.Offer(id="rails", rail_optimised=True, **base),  # type: ignore[arg-type]
    ]
    out = ranking.rank(work, offers, gpus)
    assert [r.offer_id for r in out.results] == ["rails", "flat"]
    flat, rails = out.results[1], out.results[0]
    assert flat.model_detail["step"]["step_s"] > rails.model_detail["step"]["step_s"]
    assert "rail_optimised" not in rails.model_detail["assumed"]
