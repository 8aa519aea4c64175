"""A vendor's delivery track record discounts its next bandwidth claims, never its evidence."""

from dataclasses import replace

from domain import ranking
from domain.trainmodel import gpu_table

GPUS = gpu_table()
WORKLOAD = ranking.workload_of(
    {"params_b": 13, "tokens_per_step": 4_000_000, "strategy": "zero1", "nodes": 4}
)
CLAIM = ranking.Offer(id="claim", gpu="A100-SXM4-80GB", gpus_per_node=8, nodes=4,
                      price_per_node_month=40_000.0, nic_gbps=100.0, fabric="roce")  # fmt: skip


def _one(offer: ranking.Offer) -> ranking.OfferResult:
    (result,) = ranking.rank(WORKLOAD, [offer], GPUS).results
    return result


def test_a_vendor_that_delivered_60_percent_has_its_claim_counted_at_60_percent():
    full, discounted = _one(CLAIM), _one(replace(CLAIM, delivered_ratio=0.6))
    assert discounted.bandwidth_gbps == full.bandwidth_gbps * 0.6
    assert discounted.cost_per_eth > full.cost_per_eth  # slower links, same bill
    (warning,) = [w for w in discounted.warnings if w.code == "claim_discounted_by_track_record"]
    assert "60%" in warning.en and "60%" in warning.zh
    assert not [w for w in full.warnings if w.code == "claim_discounted_by_track_record"]


def test_admitted_evidence_is_never_discounted_and_a_record_above_one_adds_nothing():
    measured = replace(CLAIM, measured_gbps=90.0, measured_kind="link")
    assert _one(replace(measured, delivered_ratio=0.5)).cost_per_eth == _one(measured).cost_per_eth
    assert _one(replace(CLAIM, delivered_ratio=1.3)).cost_per_eth == _one(CLAIM).cost_per_eth


def test_a_negative_record_is_a_problem_with_its_reason():
    out = ranking.rank(WORKLOAD, [replace(CLAIM, delivered_ratio=-0.1)], GPUS)
    assert not out.results and out.problems[0].messages[0].code == "offer_delivered_ratio_negative"
