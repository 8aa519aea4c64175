"""Ranking by the training-time model: cost per ETH = the hourly bill ÷ the model's rate."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain import ranking
from domain.trainmodel import api, gpu_table

GPUS = gpu_table()


def _workload(params_b: float = 7, **kw: object) -> ranking.Workload:
    base = {"tokens_per_step": 4_000_000, "strategy": "zero1", "overlap": 0.5, "nodes": 2,
            "train_tokens": 1e11}  # fmt: skip
    base.update(kw)
    return ranking.workload_of({"params_b": params_b, **base})


def _offer(oid: str, gpu: str = "H100-SXM", price: float = 50_000, **kw: object) -> ranking.Offer:
    base = {"gpus_per_node": 8, "nodes": 2, "nic_gbps": 100, "nics_per_node": 1,
            "fabric": "roce"}  # fmt: skip
    base.update(kw)
    return ranking.Offer(id=oid, gpu=gpu, price_per_node_month=price, **base)  # type: ignore[arg-type]


def test_cost_per_eth_is_the_hourly_bill_over_the_models_effective_training_rate() -> None:
    out = ranking.rank(_workload(), [_offer("a")], GPUS)
    (r,) = out.results
    # the bill: 2 servers x 50,000 a month, no fees, over 730 hours a month
    assert r.hourly_cost == pytest.approx(2 * 50_000 / 730)
    assert r.cost_per_eth == pytest.approx(r.hourly_cost / r.eth_per_hour)
    d = r.model_detail
    assert d is not None
    eth = d["mfu"] * d["gpus_used"] * 989e12 * d["failures"]["goodput"] / (989e12 * 0.45)
    assert r.eth_per_hour == pytest.approx(eth, rel=1e-6)
    assert d["memory"]["total_gb"] <= d["memory"]["card_gb"] == 80
    step = d["step"]
    parts = step["compute_s"] + step["exposed_comm_s"] + step["bubble_s"] + step["optimizer_s"]
    assert parts == pytest.approx(step["step_s"], rel=1e-6)
    assert d["layout"]["tp"] * d["layout"]["pp"] * d["layout"]["dp"] == d["gpus_used"] <= 16
    assert d["layouts_evaluated"] > 1
    assert r.job_cost == pytest.approx(r.hourly_cost * r.job_hours)
    assert d["failures"]["checkpoint_interval_s"] > 0 and 0 < d["failures"]["ettr"] < 1
    assert {"storage_gbyte_s", "repair_hours", "architecture"} <= set(d["assumed"])
    assert d["architecture"] == "gpt_shape"


def test_offers_where_nothing_fits_are_problems_and_the_rest_ranked_by_the_model() -> None:
    offers = [
        _offer("4090", "RTX4090", price=5_000),
        _offer("h100"),
        _offer("a100", "A100-SXM4-80GB"),
    ]
    out = ranking.rank(_workload(70, strategy="fsdp"), offers, GPUS)
    assert [p.offer_id for p in out.problems] == ["4090"]
    assert out.problems[0].messages[0].code == "workload_does_not_fit"
    assert "GB" in out.problems[0].messages[0].zh
    assert [r.rank for r in out.results] == [1, 2]
    costs = [r.cost_per_eth for r in out.results]
    assert costs == sorted(costs)


def test_a_faster_network_wins_for_a_communication_heavy_job() -> None:
    # The seeds' case in small: same cards and price, 10G TCP vs 100G RoCE.
    offers = [_offer("tcp", nic_gbps=10, fabric="tcp"), _offer("roce")]
    out = ranking.rank(_workload(7, strategy="ddp", overlap=0.0), offers, GPUS)
    assert [r.offer_id for r in out.results] == ["roce", "tcp"]
    assert out.results[1].cost_per_eth > 1.5 * out.results[0].cost_per_eth


def test_failure_and_checkpoint_knobs_move_the_goodput() -> None:
    w, offers = _workload(70, strategy="fsdp", nodes=8), [_offer("a", nodes=8)]
    base = ranking.rank(w, offers, GPUS).results[0]
    rare = ranking.rank(w, offers, GPUS, scenario=ranking.Scenario(mtbf_scale=10)).results[0]
    slow = ranking.rank(w, offers, GPUS, scenario=ranking.Scenario(checkpoint_write_s=600)).results[
        0
    ]
    assert rare.eth_per_hour > base.eth_per_hour > slow.eth_per_hour
    assert slow.model_detail["failures"]["checkpoint_write_s"] == 600
    assert rare.model_detail["failures"]["mtbf_h"] == pytest.approx(
        10 * base.model_detail["failures"]["mtbf_h"]
    )


def test_a_spare_server_or_a_quick_repair_raises_goodput() -> None:
    w = _workload(70, strategy="fsdp", nodes=8)
    plain, spare, quick = (
        _offer("plain", nodes=8), _offer("spare", nodes=8, spare_nodes=1),
        _offer("quick", nodes=8, repair_hours=0.5),
    )  # fmt: skip
    by_id = {r.offer_id: r for r in ranking.rank(w, [plain, spare, quick], GPUS).results}
    assert by_id["spare"].eth_per_hour > by_id["quick"].eth_per_hour > by_id["plain"].eth_per_hour
    assert "repair_hours" not in by_id["quick"].model_detail["assumed"]


@pytest.mark.parametrize(
    ("scenario", "code"),
    [
        (ranking.Scenario(mtbf_scale=0), "scenario_mtbf_scale"),
        (ranking.Scenario(mtbf_scale=float("nan")), "scenario_mtbf_scale"),
        (ranking.Scenario(checkpoint_write_s=-1), "scenario_checkpoint_write_s"),
    ],
)
def test_absurd_knobs_are_refused_in_both_languages(scenario: ranking.Scenario, code: str) -> None:
    with pytest.raises(ranking.ModelInputError) as exc:
        ranking.rank(_workload(), [_offer("a")], GPUS, scenario=scenario)
    (message,) = exc.value.messages
    assert message.code == code and message.en and message.zh != message.en


def test_identical_hardware_shapes_are_estimated_once() -> None:
    w = _workload(13.5, nodes=4)  # a size no other test uses: nothing memoised yet
    offers = [_offer(f"o{i}", nodes=4, price=40_000 + i) for i in range(300)]
    offers += [_offer(f"p{i}", nodes=4, price=40_000 + i, fabric="ib") for i in range(300)]
    before = api._estimate.cache_info()
    out = ranking.rank(w, offers, GPUS)
    after = api._estimate.cache_info()
    assert len(out.results) == 600
    assert (after.misses - before.misses) + (after.hits - before.hits) == 2


def test_a_preset_architecture_is_used_when_given() -> None:
    from domain.trainmodel import preset

    p = preset("llama3-70b")
    values = {"params_b": 70.6, "tokens_per_step": 4_000_000, "strategy": "fsdp", "nodes": 8}
    w = ranking.workload_of(
        values, model=p.model, parallel=p.parallel, train_tokens=p.train_tokens, source=p.key
    )
    assert not w.assumed_architecture and w.model == p.model
    r = ranking.rank(w, [_offer("a", nodes=8)], GPUS).results[0]
    assert r.model_detail["architecture"] == "llama3-70b"
    assert "architecture" not in r.model_detail["assumed"]
    assert r.job_hours is not None  # the preset's tokens to train


def test_the_measured_p50_gives_the_low_end() -> None:
    o = _offer("m", measured_gbps=50.0, measured_kind="collective", measured_p50_gbps=90.0)
    r = ranking.rank(_workload(7, strategy="ddp", overlap=0.0), [o], GPUS).results[0]
    assert r.cost_per_eth_low < r.cost_per_eth == r.cost_per_eth_high
    same = ranking.rank(
        _workload(7, strategy="ddp", overlap=0.0), [replace(o, measured_p50_gbps=None)], GPUS
    )
    assert same.results[0].cost_per_eth_low == same.results[0].cost_per_eth


def test_compute_and_exposed_time_add_up_to_the_step_for_the_charts() -> None:
    r = ranking.rank(_workload(70, strategy="fsdp", nodes=8), [_offer("a", nodes=8)], GPUS).results[
        0
    ]
    assert r.compute_time_s + r.exposed_comm_s == pytest.approx(r.step_time_s)
    d = r.model_detail["step"]
    assert r.comm_time_s == pytest.approx(d["exposed_comm_s"])
    assert r.exposed_comm_s >= r.comm_time_s + d["bubble_s"]
