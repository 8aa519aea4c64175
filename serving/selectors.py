"""Read side of serving: quotes as serving offers, the serving ranking, mixed-plan evaluation.

Everything is computed on read (a few quotes take milliseconds): there is no stored run to go stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import get_language

from domain import billing, labels, money
from domain import decision_serving as ds
from domain import eligibility as el
from domain import serving as sv
from domain.messages import Message
from quotes.models import Quote
from rankings.selectors import team_risk_policy
from rankings.services import quote_findings

from .models import MixedPlan, ServingWorkload, TrafficUpload


def workload_list(*, team) -> QuerySet[ServingWorkload]:  # type: ignore[no-untyped-def]
    return ServingWorkload.objects.for_team(team)


def plan_list(*, team) -> QuerySet[MixedPlan]:  # type: ignore[no-untyped-def]
    """The team's plans with everything `mixed_plan_evaluate` reads (no query per plan)."""
    return MixedPlan.objects.for_team(team).select_related(
        "team",
        "serving_workload",
        "training_quote__vendor",
        "training_quote__current_version__gpu",
        "serving_quote__vendor",
        "serving_quote__current_version__gpu",
    )


def serving_quotes(*, team) -> QuerySet[Quote]:  # type: ignore[no-untyped-def]
    return (
        Quote.objects.for_team(team)
        .filter(is_current=True, current_version__isnull=False)
        .select_related("vendor", "current_version__gpu")
        .order_by("pk")
    )


def domain_workload(w: ServingWorkload) -> sv.InferenceWorkload:
    return sv.InferenceWorkload(
        params_b=w.params_b, precision=w.precision, mean_rps=w.mean_rps, peak_rps=w.peak_rps,
        tokens_in=w.tokens_in, tokens_out=w.tokens_out, response_bytes=w.response_kb * 1000,
        latency_target_s=w.latency_target_s, gpus_per_replica=w.gpus_per_replica,
        tokens_per_s_per_replica=w.tokens_per_s_per_replica,
        bandwidth_headroom=w.bandwidth_headroom, peak_hours_per_day=w.peak_hours_per_day,
    )  # fmt: skip


def domain_offer(quote: Quote, *, basis: str = money.DEFAULT_TAX_BASIS) -> sv.ServingOffer:
    """A quote's current version as a serving offer on the team's tax `basis` (domain/money.py);
    its public bandwidth is billed apart, so the offer's fees leave it out."""
    v = quote.current_version
    assert v is not None
    bill = v.bill(basis=basis)
    on_basis = bill.tax_multiply / bill.tax_divide
    fees = (bill.fees - bill.public_bandwidth) * on_basis
    price = float(v.bandwidth_price * on_basis)
    plans = ((str(v.bandwidth_billing), price),) if v.bandwidth_price > 0 else ()
    fx = money.rate_from(v.currency, {v.currency: v.fx_to_cny})
    return sv.ServingOffer(
        id=str(quote.pk), label=quote.label, vendor=str(quote.vendor), gpu=v.gpu.key,
        gpus_per_node=v.gpus_per_node, nodes=v.nodes,
        price_per_node_month=float(bill.per_node()),
        monthly_fees=float(fees), currency=v.currency, fx_to_cny=float(fx or 0),
        public_bandwidth_mbps=float(v.public_bandwidth_mbps), plans=plans,
        whole_offer_only=v.whole_offer_only, bandwidth_elastic=v.bandwidth_elastic,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Measured traffic samples

_SUMMARY_FIELDS = (
    "id", "original_name", "size_bytes", "sha256", "uploaded_at", "status", "in_use", "error",
    "bad_rows", "warnings", "interval_s", "sample_count", "missing_samples", "unit", "first_at",
    "last_at", "peak_mbps", "p95_mbps", "mean_mbps", "monthly_gb", "workload_id", "plan_id",
)  # fmt: skip


def traffic_uploads(*, team, workload=None, plan=None) -> QuerySet[TrafficUpload]:  # type: ignore[no-untyped-def]
    """A target's uploads, newest first, without the samples themselves (summaries only)."""
    target = {"workload": workload} if workload is not None else {"plan": plan}
    return TrafficUpload.objects.for_team(team).filter(**target).only(*_SUMMARY_FIELDS)


def traffic_in_use(*, workload=None, plan=None) -> TrafficUpload | None:  # type: ignore[no-untyped-def]
    target = {"workload": workload} if workload is not None else {"plan": plan}
    return TrafficUpload.objects.filter(**target, in_use=True).first()


@dataclass(frozen=True)
class TrafficInUse:
    """The team's uploads in use, by workload id and by plan id: one query for a whole report."""

    workloads: dict[int, TrafficUpload]
    plans: dict[int, TrafficUpload]

    @classmethod
    def of_team(cls, team) -> TrafficInUse:  # type: ignore[no-untyped-def]
        workloads: dict[int, TrafficUpload] = {}
        plans: dict[int, TrafficUpload] = {}
        for u in TrafficUpload.objects.for_team(team).filter(in_use=True):
            if u.workload_id is not None:
                workloads[u.workload_id] = u
            elif u.plan_id is not None:
                plans[u.plan_id] = u
        return cls(workloads, plans)


def traffic_profile(upload: TrafficUpload) -> billing.TrafficProfile:
    return billing.TrafficProfile.from_samples(upload.samples_mbps, upload.interval_s or 300.0)


def traffic_dict(upload: TrafficUpload | None) -> dict[str, Any] | None:
    if upload is None:
        return None
    return {
        "id": upload.pk, "file_name": upload.original_name, "size_bytes": upload.size_bytes,
        "sha256": upload.sha256, "uploaded_at": upload.uploaded_at.isoformat(),
        "status": upload.status, "in_use": upload.in_use, "error": upload.error or None,
        "bad_rows": upload.bad_rows, "warnings": upload.warnings, "unit": upload.unit,
        "samples": upload.sample_count, "interval_s": upload.interval_s,
        "missing_samples": upload.missing_samples,
        "first_at": upload.first_at.isoformat() if upload.first_at else None,
        "last_at": upload.last_at.isoformat() if upload.last_at else None,
        "peak_mbps": upload.peak_mbps, "p95_mbps": upload.p95_mbps, "mean_mbps": upload.mean_mbps,
        "monthly_gb": upload.monthly_gb,
    }  # fmt: skip


@dataclass(frozen=True)
class RankingView:
    """The serving ranking with the labels the pages, API and report show."""

    outcome: sv.ServingOutcome
    offers: dict[str, sv.ServingOffer]
    error: tuple[Message, ...] = ()
    traffic: TrafficUpload | None = None  # the measured samples billed, if any
    policy_applied: bool = False  # the team's risk policy ordered the results

    def label(self, offer_id: str) -> str:
        o = self.offers.get(offer_id)
        # a generated label ("… · serving · fixed") in the reader's language
        return f"{o.vendor} · {labels.shown(o.label, get_language())}" if o else offer_id


def serving_offers(*, team) -> dict[str, sv.ServingOffer]:  # type: ignore[no-untyped-def]
    """The team's current quotes as serving offers, by quote id (one query)."""
    return serving_inputs(team=team)[0]


Findings = dict[str, tuple[el.RiskItem, ...]]


def serving_inputs(*, team) -> tuple[dict[str, sv.ServingOffer], Findings, el.RiskPolicy]:  # type: ignore[no-untyped-def]
    """The team's current quotes as serving offers, each offer's due-diligence findings and the
    team's risk policy: what the training ranking applies, read the same way."""
    basis = team.tax_basis
    quotes = list(serving_quotes(team=team))
    offers = {str(q.pk): domain_offer(q, basis=basis) for q in quotes}
    findings = {
        str(pk): tuple(el.finding_item(f) for f in found)
        for pk, found in quote_findings(quotes).items()
        if found
    }
    return offers, findings, team_risk_policy(team=team)


def serving_ranking(  # type: ignore[no-untyped-def]
    *, team, workload: ServingWorkload,
    inputs: tuple[dict[str, sv.ServingOffer], Findings, el.RiskPolicy] | None = None,
    traffic: TrafficInUse | None = None,
) -> RankingView:  # fmt: skip
    """Rank the team's current quotes for the workload by cost per million served tokens, the
    team's risk policy applied (excluded offers last, with their reasons; premiums counted).

    `inputs` (serving_inputs) and `traffic` let a caller ranking many workloads read them once."""
    offers, findings, policy = inputs if inputs is not None else serving_inputs(team=team)
    if traffic is None:
        upload = traffic_in_use(workload=workload)
    else:
        upload = traffic.workloads.get(workload.pk)
    measured = traffic_profile(upload) if upload else None
    try:
        outcome = sv.rank_offers(domain_workload(workload), offers.values(), measured)
    except sv.ServingInputError as exc:
        return RankingView(sv.ServingOutcome((), ()), offers, exc.messages, upload)
    decided = ds.decide(outcome, findings, policy)
    return RankingView(decided, offers, traffic=upload, policy_applied=True)


def result_dict(r: sv.ServingResult, label: str) -> dict[str, Any]:
    s = r.sizing
    return {
        "rank": r.rank, "quote": int(r.offer_id), "label": label,
        "cost_per_million_tokens_cny": r.cost_per_million_cny,
        "total_cny_month": r.total_cny_month, "compute_cny_month": r.compute_cny_month,
        "bandwidth_cny_month": r.bandwidth_cny_month, "best_plan": r.best_plan,
        "bills": [{"kind": b.kind, "price": b.price, "bill_cny_month": b.bill_cny,
                   "cost_per_million_tokens_cny": b.cost_per_million_cny} for b in r.bills],
        "replicas": s.replicas, "gpus": s.gpus, "nodes": s.nodes, "nodes_billed": r.nodes_billed,
        "replica_tokens_per_s": s.replica_tokens_per_s, "latency_s": s.latency_s,
        "warnings": [m.as_dict() for m in r.warnings],
        "eligible": r.eligible, "risk_premium_pct": r.risk_premium_pct,
        "risk_adjusted_cost_per_million_tokens_cny": r.risk_adjusted_cost_per_million_cny,
        "risk_marks": [m.as_dict() for m in r.risk_marks],
        "eligibility_reasons": [m.as_dict() for m in r.eligibility_reasons],
    }  # fmt: skip


def ranking_dict(view: RankingView) -> dict[str, Any]:
    out = view.outcome
    return {
        "errors": [m.as_dict() for m in view.error],
        "public_bandwidth_mbps": out.bandwidth_mbps,
        "monthly_traffic_gb": out.traffic_gb,
        "monthly_tokens": out.monthly_tokens,
        "measured_traffic": traffic_dict(view.traffic),
        "results": [result_dict(r, view.label(r.offer_id)) for r in out.results],
        "problems": [
            {"quote": int(p.offer_id), "label": view.label(p.offer_id),
             "messages": [m.as_dict() for m in p.messages]}
            for p in out.problems
        ],
    }  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Mixed plans


@dataclass(frozen=True)
class PlanView:
    plan: MixedPlan
    outcome: sv.MixedPlanOutcome | None
    serving: sv.ServingResult | None
    errors: tuple[Message, ...] = ()
    traffic: TrafficUpload | None = None  # the plan's samples, else its workload's


def _training_cny_month(plan: MixedPlan) -> float:
    """Rent of the training nodes and the quote's other fees; its bandwidth is the plan's line."""
    offer = domain_offer(plan.training_quote, basis=plan.team.tax_basis)
    nodes = offer.nodes
    if plan.training_nodes and not offer.whole_offer_only:
        nodes = min(plan.training_nodes, offer.nodes)
    return money.monthly_total(
        nodes, offer.price_per_node_month, offer.monthly_fees, offer.fx_to_cny
    )


def mixed_plan_evaluate(plan: MixedPlan, *, traffic: TrafficInUse | None = None) -> PlanView:
    """The plan month by month; explains (never raises) what stops it from being computed.

    `traffic` (the team's uploads in use) saves the two look-ups per plan in a report."""
    if plan.training_quote.current_version is None or plan.serving_quote.current_version is None:
        msg = Message("plan_quote_no_version", "A quote of the plan has no terms yet.",
                      "方案中的报价尚无条款。")  # fmt: skip
        return PlanView(plan, None, None, (msg,))
    w = domain_workload(plan.serving_workload)
    if traffic is None:
        upload = traffic_in_use(plan=plan) or traffic_in_use(workload=plan.serving_workload_id)
    else:
        upload = traffic.plans.get(plan.pk) or traffic.workloads.get(plan.serving_workload_id)
    try:
        profile = traffic_profile(upload) if upload else sv.serving_traffic(w)
        serving = sv.evaluate_offer(
            w,
            domain_offer(plan.serving_quote, basis=plan.team.tax_basis),
            profile,
            measured=upload is not None,
            bandwidth_priced_apart=True,  # the plan's own bandwidth price bills it
        )
        parts = (
            sv.PlanPart(role="training", label=str(plan.training_quote),
                        vendor=str(plan.training_quote.vendor_id),
                        compute_cny_month=_training_cny_month(plan), first_month=1,
                        last_month=plan.training_months,
                        bandwidth_mbps=plan.training_bandwidth_mbps),
            sv.PlanPart(role="serving", label=str(plan.serving_quote),
                        vendor=str(plan.serving_quote.vendor_id),
                        compute_cny_month=serving.compute_cny_month,
                        first_month=plan.serving_first_month, last_month=plan.horizon_months,
                        bandwidth_mbps=serving.sizing.bandwidth_mbps),
        )  # fmt: skip
        outcome = sv.mixed_plan(
            sv.MixedPlanInput(
                parts=parts, horizon_months=plan.horizon_months,
                price_cny_mbps_month=float(plan.bandwidth_price_mbps_month),
                elastic_premium=plan.elastic_premium,
            )
        )  # fmt: skip
    except sv.ServingInputError as exc:
        return PlanView(plan, None, None, exc.messages, upload)
    return PlanView(plan, outcome, serving, traffic=upload)


def plan_dict(view: PlanView) -> dict[str, Any]:
    out = view.outcome
    body: dict[str, Any] = {
        "errors": [m.as_dict() for m in view.errors],
        "measured_traffic": traffic_dict(view.traffic),
    }
    if out is None:
        return body
    body.update({
        "total_fixed_cny": out.total_fixed_cny, "total_elastic_cny": out.total_elastic_cny,
        "elastic_saving_cny": out.saving_cny, "monthly_average_cny": out.monthly_average_cny,
        "shares": out.shares, "totals_cny": out.totals,
        "serving_nodes": view.serving.nodes_billed if view.serving else None,
        "serving_bandwidth_mbps": view.serving.sizing.bandwidth_mbps if view.serving else None,
        "serving_bandwidth_bill_cny_month":
            view.serving.bandwidth_cny_month if view.serving else None,
        "serving_bandwidth_plan": view.serving.best_plan if view.serving else None,
        "months": [
            {"month": m.month, "compute_cny": m.compute_cny, "need_mbps": m.need_mbps,
             "bandwidth_fixed_cny": m.bandwidth_fixed_cny,
             "bandwidth_elastic_cny": m.bandwidth_elastic_cny,
             "total_fixed_cny": m.total_fixed_cny, "total_elastic_cny": m.total_elastic_cny}
            for m in out.months
        ],
    })  # fmt: skip
    return body


def serving_report_section(*, team) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Everything the PDF/XLSX report's serving section shows, as plain data (no figures)."""
    inputs = serving_inputs(team=team)  # the same quotes for every workload: read once
    traffic = TrafficInUse.of_team(team)
    workloads = []
    for w in workload_list(team=team):
        ranking = serving_ranking(team=team, workload=w, inputs=inputs, traffic=traffic)
        workloads.append({"id": w.pk, "name": w.name, **ranking_dict(ranking)})
    plans = []
    for p in plan_list(team=team):
        view = mixed_plan_evaluate(p, traffic=traffic)
        plans.append({"id": p.pk, "name": p.name, **plan_dict(view)})
    return {"workloads": workloads, "plans": plans}
