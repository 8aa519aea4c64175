"""domain/decision_serving.py: the team's risk policy orders a serving ranking as a training one."""

from __future__ import annotations

from domain import decision_serving as ds
from domain import eligibility as el
from domain import serving as sv
from domain.messages import Message

WORKLOAD = sv.InferenceWorkload(params_b=7.0, mean_rps=20.0, peak_rps=60.0, tokens_in=800.0,
                                tokens_out=300.0, response_bytes=150_000.0)  # fmt: skip


def _offer(oid: str, price: float, plans=(("p95", 25.0),)) -> sv.ServingOffer:  # type: ignore[no-untyped-def]
    return sv.ServingOffer(id=oid, label=oid, gpu="L40S", gpus_per_node=8, nodes=6,
                           price_per_node_month=price, public_bandwidth_mbps=2000.0,
                           plans=plans)  # fmt: skip


CRITICAL = el.RiskItem(
    "licence_missing", "critical", Message("licence_missing", "No licence.", "无许可证。")
)
WARNING = el.RiskItem("sla_thin", "warning", Message("sla_thin", "Thin SLA.", "SLA 薄弱。"))


def test_an_offer_with_a_critical_finding_is_ranked_after_every_eligible_offer():
    outcome = sv.rank_offers(WORKLOAD, [_offer("cheap", 4000.0), _offer("fair", 16000.0)])
    assert outcome.results[0].offer_id == "cheap"  # on cost alone
    decided = ds.decide(outcome, {"cheap": (CRITICAL,)})
    first, last = decided.results
    assert first.offer_id == "fair" and first.rank == 1 and first.eligible
    assert last.offer_id == "cheap" and not last.eligible and last.rank == 0  # listed, unranked
    assert last.eligibility_reasons[0].code == "risk_excluded"
    assert decided.winner is not None and decided.winner.offer_id == "fair"


def test_a_warning_premium_raises_the_cost_the_ranking_orders_by():
    outcome = sv.rank_offers(WORKLOAD, [_offer("a", 16000.0), _offer("b", 16100.0)])
    decided = ds.decide(outcome, {"a": (WARNING,) * 1}, el.DEFAULT_POLICY)
    a = next(r for r in decided.results if r.offer_id == "a")
    assert a.risk_premium_pct == 2.0
    assert a.risk_adjusted_cost_per_million_cny == a.cost_per_million_cny * 1.02


def test_an_offer_without_a_bandwidth_price_is_a_problem_not_a_bill_of_zero():
    outcome = sv.rank_offers(WORKLOAD, [_offer("priced", 16000.0), _offer("unpriced", 15000.0, ())])
    assert [r.offer_id for r in outcome.results] == ["priced"]
    (problem,) = outcome.problems
    assert problem.offer_id == "unpriced"
    assert [m.code for m in problem.messages] == ["bandwidth_price_unknown"]


TRAINING_FLOOR = el.RiskItem(
    "network_nic_below_training_floor", "critical",
    Message("network_nic_below_training_floor", "10G: inference only, training will stall.",
            "10G：只适合推理，训练会卡。"),
)  # fmt: skip


def test_a_finding_about_the_training_fabric_neither_excludes_nor_marks_a_serving_offer():
    outcome = sv.rank_offers(WORKLOAD, [_offer("ten_g", 4000.0), _offer("fair", 16000.0)])
    decided = ds.decide(outcome, {"ten_g": (TRAINING_FLOOR,)})
    ten_g = next(r for r in decided.results if r.offer_id == "ten_g")
    assert ten_g.eligible and ten_g.rank == 1 and ten_g.risk_premium_pct == 0
    assert not ten_g.risk_marks and not ten_g.eligibility_reasons
    # the same finding still excludes the offer for training
    training = el.assess(
        el.offer_risks(
            (TRAINING_FLOOR,),
            nic_gbps=10.0,
            nominal_gbps=10.0,
            bandwidth_measured=True,
            nodes_used=4,
            policy=el.DEFAULT_POLICY,
        ),
        el.DEFAULT_POLICY,
    )
    assert not training.eligible
