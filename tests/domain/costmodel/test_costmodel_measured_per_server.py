"""A measured figure is per server: a link figure pays the fabric efficiency exactly as the nominal
NICs × rate does, and evidence above the quote counts as the quote (domain/evidence/offer.py)."""

from __future__ import annotations

from dataclasses import replace

from pytest import approx

from domain import costmodel as cm
from domain.costmodel.inputs import Offer, Workload, default_gpus
from domain.trainmodel.ranking import rank as rank_v2

GPUS = default_gpus()
WORKLOAD = Workload(params_b=7.0, tokens_per_step=4e6, nodes=16, train_tokens=1e12)
BASE = Offer(
    id="claim", gpu="H800-SXM", gpus_per_node=8, nodes=16, price_per_node_month=82000.0,
    nic_gbps=400.0, nics_per_node=8, fabric="ib",
)  # fmt: skip


def _costs(offers: list[Offer]) -> dict[str, float]:
    first = {r.offer_id: r.cost_per_eth for r in cm.rank(WORKLOAD, offers, GPUS).results}
    second = {r.offer_id: r.cost_per_eth for r in rank_v2(WORKLOAD, offers, GPUS).results}
    assert first.keys() == second.keys()
    return second | {f"first:{k}": v for k, v in first.items()}


def test_a_link_figure_at_98_6_percent_costs_exactly_the_shortfall() -> None:
    evidence = replace(BASE, id="evidence", measured_gbps=8 * 394.4, measured_p50_gbps=8 * 394.4)
    quoting = replace(BASE, id="quoting", nic_gbps=394.4)
    costs = _costs([BASE, evidence, quoting])
    assert costs["evidence"] == approx(costs["quoting"], rel=1e-12)
    assert costs["first:evidence"] == approx(costs["first:quoting"], rel=1e-12)
    assert costs["claim"] < costs["evidence"]


def test_evidence_above_the_quote_counts_as_the_quote() -> None:
    above = replace(BASE, id="above", measured_gbps=9000.0, measured_p50_gbps=9500.0)
    collective = replace(above, id="collective", measured_kind="collective")
    costs = _costs([BASE, above, collective])
    assert costs["above"] == approx(costs["claim"], rel=1e-12)
    assert costs["first:above"] == approx(costs["first:claim"], rel=1e-12)
    # A collective figure is busbw already: capped at NICs × rate, with no efficiency again.
    assert costs["collective"] <= costs["claim"]
