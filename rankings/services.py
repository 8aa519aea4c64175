"""Ranking runs: start (validate, store, enqueue) and compute (snapshot -> domain -> results).

`rank_snapshot` is the one code path from plain inputs to a ranking: the web run, the what-if
endpoint, the `rank_offers` command and the benchmark all go through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from core import jobs
from core.heap import heap_frozen
from core.models import JobStatus
from domain import eligibility, money, ranking
from domain.messages import Message
from domain.trainmodel import presets as v2_presets
from domain.trainmodel.workload import combine
from quotes.models import GpuModel, Quote, WorkloadProfile
from vendors.selectors import vendor_findings, vendor_prefetch_checks

from .decision import OfferDecision, decide
from .inputs import (
    finite,
    message_dicts,
    result_dict,
    snapshot_inputs,
)
from .models import RankingResult, RankingRun
from .selectors import ranking_quotes, team_risk_policy

SNAPSHOT_VERSION = 2  # 2: risk_policy and risk_findings


# ---------------------------------------------------------------------------------------------
# Inputs as plain dicts


GPU_V2_COLUMNS = ("hbm_tbps", "intra_kind", "efficiency", "fp8_tflops")


def gpu_table() -> dict[str, dict[str, Any]]:
    """The GPU reference table from the database, as snapshot rows (empty values left out: the
    model's data file fills them for known keys, rankings.inputs.snapshot_gpus)."""
    rows = GpuModel.objects.values(
        "key", "tflops_bf16", "memory_gb", "intra_node_gbyte_s", "default_mfu", *GPU_V2_COLUMNS
    )
    table: dict[str, dict[str, Any]] = {}
    for row in rows:
        key = row.pop("key")
        table[key] = {k: v for k, v in row.items() if v not in (None, "")}
    return table


def workload_dict(w: WorkloadProfile) -> dict[str, Any]:
    return {
        "params_b": w.params_b,
        "tokens_per_step": float(w.tokens_per_step),
        "flops_per_token_factor": w.flops_per_token_factor,
        "grad_bytes": w.grad_bytes,
        "strategy": w.strategy,
        "overlap": w.overlap,
        "mfu": w.mfu,
        "nodes": w.nodes,
        "train_tokens": w.train_tokens,
    }


Finding = dict[str, str]  # {code, severity, subject, en, zh}


def _vendor_findings(quotes: Iterable[Quote]) -> dict[int, list[Finding]]:
    """Every due-diligence finding per vendor, with its severity and subject (computed live,
    once per vendor, for the vendors whose denormalised count says they have any)."""
    found: dict[int, list[Finding]] = {}
    checked = []
    for quote in quotes:
        vendor = quote.vendor
        if vendor.pk in found:
            continue
        found[vendor.pk] = []
        if vendor.findings_total or vendor.findings_critical:
            checked.append(vendor)
    # what the checks read, for every vendor at once (not a few queries per vendor)
    vendor_prefetch_checks(checked)
    for vendor in checked:
        found[vendor.pk] = [
            {"severity": str(f.severity), "subject": f.subject, **f.message.as_dict()}
            for f in vendor_findings(vendor)
        ]
    return found


def _for_quote(quote: Quote, findings: list[Finding]) -> list[Finding]:
    """A vendor's findings that concern this offer: company-wide ones and those of the quote's own
    data centre (another site's re-leased room or missing PFC says nothing about this offer)."""
    own = f"datacentre:{quote.data_centre_id}"
    return [f for f in findings if f["subject"] == own or not f["subject"].startswith("datacentre")]


def quote_findings(quotes: list[Quote]) -> dict[int, list[Finding]]:
    """Each quote's due-diligence findings (its vendor's company-wide ones and those of its own
    data centre), as the ranking's snapshot keeps them: serving applies the same policy."""
    by_vendor = _vendor_findings(quotes)
    return {q.pk: _for_quote(q, by_vendor.get(q.vendor_id, [])) for q in quotes}


def _vendor_flags(quotes: Iterable[Quote]) -> dict[int, list[tuple[str, dict[str, str]]]]:
    """Critical findings per vendor with their subject (the form `_flags_for_quote` reads)."""
    return {
        pk: [(f["subject"], {"code": f["code"], "en": f["en"], "zh": f["zh"]})
             for f in found if f["severity"] == "critical"]
        for pk, found in _vendor_findings(quotes).items()
    }  # fmt: skip


def _flags_for_quote(quote: Quote, flags: list[tuple[str, dict[str, str]]]) -> list[dict[str, str]]:
    own = f"datacentre:{quote.data_centre_id}"
    return [m for subject, m in flags if not subject.startswith("datacentre:") or subject == own]


def _flags(findings: list[Finding]) -> list[dict[str, str]]:
    """The critical findings, as the cost model's warnings carry them."""
    return [
        {"code": f["code"], "en": f["en"], "zh": f["zh"]}
        for f in findings
        if f["severity"] == "critical"
    ]


def offer_dict(
    quote: Quote, flags: list[dict[str, str]], basis: str = money.DEFAULT_TAX_BASIS
) -> dict[str, Any]:
    """A quote's current version as model inputs; PFC/ECN from its data centre's network.
    Prices and fees are on the team's tax `basis` (domain/money.py); `tax` says how."""
    v = quote.current_version
    assert v is not None
    bill = v.bill(basis=basis)
    network = getattr(quote.data_centre, "network", None) if quote.data_centre_id else None
    return {
        "id": str(v.pk),
        "label": quote.label,
        "vendor": str(quote.vendor),
        "vendor_en": quote.vendor.name_en or "",
        "quote_id": quote.pk,
        # the vendor's delivered ÷ committed bandwidth on past contracts (None: no record)
        "delivered_ratio": quote.vendor.delivered_ratio,
        "version": v.number,
        "gpu": v.gpu.key,
        "gpus_per_node": v.gpus_per_node,
        "nodes": v.nodes,
        "price_per_node_month": float(bill.per_node()),
        "currency": v.currency,
        "monthly_fees": float(bill.fees_on_basis()),
        "nic_gbps": float(v.nic_gbps),
        "nics_per_node": v.nics_per_node,
        "fabric": v.fabric,
        "rack_uplink_gbps": v.rack_uplink_gbps,
        "servers_per_rack": v.servers_per_rack,
        "measured_gbps": quote.measured_gbps,
        "measured_p50_gbps": quote.measured_p50_gbps,
        "measured_kind": quote.measured_kind or "link",
        "evidence": _evidence(quote),
        "availability": float(v.availability),
        "whole_offer_only": v.whole_offer_only,
        "pfc": getattr(network, "pfc", None),
        "ecn": getattr(network, "ecn", None),
        "vendor_flags": flags,
        # training-time model v2 (MODEL.md §15): empty values are assumed defaults
        "storage_gbyte_s": v.storage_write_gbyte_s,
        "repair_hours": _repair_hours(quote),
        "spare_nodes": v.spare_nodes,
        "rail_optimised": v.rail_optimised,
        "tax": {
            "prices_include_vat": v.prices_include_vat, "vat_rate": v.vat_rate,
            "invoice_type": v.invoice_type, "assumed": bill.tax_assumed,
            "factor": float(bill.tax_multiply / bill.tax_divide),
            "price_as_entered": float(v.price_per_node_month),
        },
        "confirmed_outliers": list(v.outliers_confirmed or []),
        "term_months": v.term_months,
    }  # fmt: skip


def _evidence(quote: Quote) -> dict[str, Any] | None:
    """The derivation of the quote's measured figure, for display beside it (not a model input)."""
    found = quote.measured_derivation if quote.measured_gbps is not None else None
    if not found:
        return None
    keys = ("code", "en", "zh", "low_gbps", "high_gbps", "ports", "ports_tested", "trust")
    out = {key: found.get(key) for key in keys}
    if found.get("sentence"):  # the one sentence every surface prints (PDF, workbook, pages)
        out["sentence"] = found["sentence"]
    graded = found.get("envelope")
    if isinstance(graded, dict) and graded.get("status"):
        # The card's acceptance-envelope grade beside the figure: the offer's grade and sentence,
        # not each log's (the run page lists those).
        out["envelope"] = {
            key: graded.get(key) for key in ("status", "envelope", "source", "code", "en", "zh")
        }
    return out


def _repair_hours(quote: Quote) -> float | None:
    """The quote's repair time, else the vendor's SLA hardware replacement time."""
    v = quote.current_version
    if v is not None and v.repair_hours is not None:
        return float(v.repair_hours)
    sla = getattr(quote.vendor, "sla", None)
    hours = getattr(sla, "hw_replacement_hours", None)
    return None if hours is None else float(hours)


def snapshot_build(  # type: ignore[no-untyped-def]
    *,
    workload: WorkloadProfile,
    quotes: list[Quote],
    fx: Mapping[str, float],
    policy: eligibility.RiskPolicy | None = None,
    findings: bool = True,
):
    """Every input of a run as JSON, the team's risk policy (or `policy`) and each offer's
    due-diligence findings included, so that ranking it again gives the same decision.

    ``findings=False`` leaves the findings out (no vendor flags on the offers, no risk
    findings): for a page that shows the costs only (the compare page), which they do not
    change; they are computed live per vendor, the dearest part of the snapshot."""
    with heap_frozen():
        return _snapshot_build(workload, quotes, fx, policy, findings)


def _snapshot_build(  # type: ignore[no-untyped-def]
    workload: WorkloadProfile,
    quotes: list[Quote],
    fx: Mapping[str, float],
    policy: eligibility.RiskPolicy | None,
    findings: bool,
):
    by_vendor = _vendor_findings(quotes) if findings else {}
    per_quote = {q.pk: _for_quote(q, by_vendor.get(q.vendor_id, [])) for q in quotes}
    if policy is None:
        policy = team_risk_policy(team=workload.team)
    basis = workload.team.tax_basis
    rates = {}
    for q in quotes:  # a quote's own rate fills in what the run did not give
        v = q.current_version
        if v is not None and v.currency != "CNY" and v.fx_to_cny is not None:
            rates.setdefault(v.currency, float(v.fx_to_cny))
    rates.update({k: float(x) for k, x in fx.items()})
    return {
        "version": SNAPSHOT_VERSION,
        "workload": workload_dict(workload),
        "workload_name": workload.name,
        "workload_precision": workload.precision,
        # a workload made from a preset of the training-time model brings its architecture
        "workload_preset": workload.preset if workload.preset in v2_presets() else None,
        # the architecture and fixed layout the analyst entered (wins over the preset's)
        "workload_architecture": (
            combine(workload.architecture, workload.params_b, float(workload.tokens_per_step))
            if workload.architecture
            else None
        ),
        "offers": [
            offer_dict(q, _flags(per_quote[q.pk]), basis) for q in quotes if q.current_version_id
        ],
        "tax_basis": basis,
        "gpus": gpu_table(),
        "fx_to_cny": rates,
        "risk_policy": eligibility.policy_to_dict(policy),
        "risk_findings": {
            str(q.current_version_id): per_quote[q.pk]
            for q in quotes
            if q.current_version_id and per_quote[q.pk]
        },
    }


# ---------------------------------------------------------------------------------------------
# The one ranking code path


def rank_snapshot(
    snapshot: Mapping[str, Any],
    *,
    overlap: float | None = None,
    mfu_scale: float = 1.0,
    bandwidth_scale: float = 1.0,
    mtbf_scale: float = 1.0,
    checkpoint_write_s: float | None = None,
    storage_scale: float = 1.0,
) -> ranking.RankingOutcome:
    """Rank the offers of a snapshot by cost per ETH (domain/ranking, docs/MODEL.md); raises
    InputFileError / ModelInputError on bad input.

    What-if knobs: `overlap` replaces the workload's (0: data-parallel traffic never overlaps
    the backward pass; above 0: it overlaps as the model allows), `mfu_scale` and
    `bandwidth_scale` scale compute efficiency and network bandwidth, `mtbf_scale` divides the
    interruption rate (2 = failures half as often), `checkpoint_write_s` replaces every offer's
    checkpoint write time, `storage_scale` multiplies every offer's checkpoint storage write
    bandwidth. Offers on which the job fits in no parallel layout are problems, not results."""
    with heap_frozen():
        return _rank_snapshot(
            snapshot, overlap, mfu_scale, bandwidth_scale, mtbf_scale, checkpoint_write_s,
            storage_scale,
        )  # fmt: skip


def _rank_snapshot(
    snapshot: Mapping[str, Any],
    overlap: float | None,
    mfu_scale: float,
    bandwidth_scale: float,
    mtbf_scale: float,
    checkpoint_write_s: float | None,
    storage_scale: float,
) -> ranking.RankingOutcome:
    workload, offers, gpus, fx = snapshot_inputs(snapshot)
    scenario = ranking.Scenario(
        mfu_scale=mfu_scale,
        bandwidth_scale=bandwidth_scale,
        mtbf_scale=mtbf_scale,
        checkpoint_write_s=checkpoint_write_s,
        storage_scale=storage_scale,
        dp_overlap=None if overlap is None else overlap > 0,
    )
    return ranking.rank(workload, offers, gpus, fx_to_cny=fx, scenario=scenario)


def outcome_dict(outcome: ranking.RankingOutcome) -> dict[str, Any]:
    return {
        "results": [result_dict(r) for r in outcome.results],
        "problems": [
            {"id": p.offer_id, "messages": message_dicts(p.messages)} for p in outcome.problems
        ],
    }


# ---------------------------------------------------------------------------------------------
# Runs


def ranking_start(
    *,
    team,  # type: ignore[no-untyped-def]
    user,  # type: ignore[no-untyped-def]
    workload: WorkloadProfile,
    quotes: Iterable[Quote] | None = None,
    fx_to_cny: Mapping[str, float] | None = None,
    label: str = "",
    standings: Mapping[int, tuple[str, Message]] | None = None,
) -> RankingRun:
    """Store a run for the workload and quotes (None: all current quotes) and enqueue it.

    `standings` (an RFQ's ranking): quote id -> ("knocked_out" | "ranked_last", the reason);
    the decision then never recommends a knocked-out bid and ranks the others after every
    conforming one."""
    if workload.team_id != team.pk:
        raise ValidationError({"workload": _("Choose one of your team's workloads.")})
    chosen = list(quotes) if quotes is not None else None
    if chosen and any(q.team_id != team.pk for q in chosen):
        raise ValidationError({"quotes": _("Choose your team's quotes only.")})
    if chosen is not None and not chosen:
        raise ValidationError({"quotes": _("Choose at least one quote.")})
    if chosen is None and not Quote.objects.for_team(team).filter(is_current=True).exists():
        raise ValidationError({"quotes": _("Your team has no current quote to rank yet.")})
    rates = {str(k).upper(): float(v) for k, v in (fx_to_cny or {}).items()}
    if any(v <= 0 for v in rates.values()):
        raise ValidationError({"fx_to_cny": _("Every rate to CNY must be above 0.")})
    with transaction.atomic():
        run = RankingRun.objects.create(
            team=team,
            created_by=user,
            workload=workload,
            all_current=chosen is None,
            fx_to_cny=rates,
            label=label or workload.name,
            standings=_standings_dict(standings or {}),
        )
        if chosen:
            run.quotes.set(chosen)
        transaction.on_commit(lambda: _enqueue(run))
    return run


def ranking_rerun(*, run: RankingRun, user, quotes: list[Quote] | None) -> RankingRun:  # type: ignore[no-untyped-def]
    """A new run of `run`'s workload over the same quotes at their current versions (a stale
    run's "rank again"), with the same rates, label and RFQ standings."""
    if run.workload is None:
        raise ValidationError(_("The run's workload was deleted."))
    standings = {
        int(qid): (d["status"], Message(**d["reason"])) for qid, d in (run.standings or {}).items()
    }
    return ranking_start(
        team=run.team, user=user, workload=run.workload, quotes=quotes,
        fx_to_cny=run.fx_to_cny, label=run.label, standings=standings,
    )  # fmt: skip


def _standings_dict(standings: Mapping[int, tuple[str, Message]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for quote_id, (status, reason) in standings.items():
        if status not in STANDINGS or not isinstance(reason, Message):
            raise ValueError(f"bad RFQ standing for quote {quote_id}: {status!r}")
        out[str(int(quote_id))] = {"status": status, "reason": reason.as_dict()}
    return out


STANDINGS = ("knocked_out", "ranked_last")


def _enqueue(run: RankingRun) -> bool:
    """Send the run to a worker; False (run kept pending, noted) when the queue is down."""
    return jobs.submit("rank", run)


def _problem_messages(outcome: ranking.RankingOutcome, offers: list[dict[str, Any]]) -> list[dict]:  # type: ignore[type-arg]
    labels = {o["id"]: f"{o.get('vendor', '')} · {o.get('label', o['id'])}" for o in offers}
    return [
        {"id": p.offer_id, "label": labels.get(p.offer_id, p.offer_id),
         "messages": message_dicts(p.messages)}
        for p in outcome.problems
    ]  # fmt: skip


def _run_quotes(run: RankingRun) -> list[Quote]:
    ids = None if run.all_current else list(run.quotes.values_list("pk", flat=True))
    return list(ranking_quotes(team=run.team, quote_ids=ids))


def ranking_compute(*, run_id: int, progress: Callable[[int], None] | None = None) -> RankingRun:
    """Compute a run's results; running it again replaces them (never duplicates)."""
    run = RankingRun.objects.select_related("team", "workload").get(pk=run_id)
    report = progress or (lambda p: None)
    if not run.snapshot:
        if run.workload is None:
            raise ValidationError(_("The run's workload was deleted."))
        quotes = _run_quotes(run)
        snapshot = snapshot_build(workload=run.workload, quotes=quotes, fx=run.fx_to_cny)
        snapshot["standings"] = {
            str(q.current_version_id): run.standings[str(q.pk)]
            for q in quotes
            if q.current_version_id and str(q.pk) in (run.standings or {})
        }
        RankingRun.objects.filter(pk=run.pk).update(snapshot=snapshot)
        run.snapshot = snapshot
    report(30)
    outcome, problems, decisions, decision = compute_snapshot(run.snapshot)
    report(45)
    rows = result_rows(run, outcome, decisions)
    from .page_data import page_data_build  # it imports the what-if, which imports this module

    # the page's sweep and charts (rankings/page_data.py): the page never runs the model
    page = page_data_build(run.snapshot, rows, lambda share: report(45 + int(share * 24)))
    report(70)  # everything computed, nothing written yet
    _save_results(run, rows, problems, decision, page)
    report(100)
    return run


def ranking_recompute(*, run: RankingRun) -> RankingRun:
    """Compute a finished run again over its own snapshot (same results), by the job path: for
    a run stored before its page's sweep and charts were (`page_data.is_current`)."""
    with transaction.atomic():
        RankingRun.objects.filter(pk=run.pk).update(
            status=JobStatus.PENDING, progress=0, error="", finished_at=None
        )
        transaction.on_commit(lambda: _enqueue_fresh(run))
    run.refresh_from_db()
    return run


def _enqueue_fresh(run: RankingRun) -> bool:
    """Send a run a user asked to compute again: its attempts start from zero."""
    return jobs.submit("rank", run, fresh=True)


def compute_snapshot(
    snapshot: Mapping[str, Any],
) -> tuple[ranking.RankingOutcome, list[dict[str, Any]], list[OfferDecision], dict[str, Any]]:
    """A snapshot's outcome, problems and decision: the saved run and the what-if both come
    here. A snapshot's ``scenario`` (what-if settings saved as a run) holds `rank_snapshot`'s
    keyword arguments."""
    problems: list[dict[str, Any]] = []
    try:
        outcome = rank_snapshot(snapshot, **(snapshot.get("scenario") or {}))
    except ranking.ModelInputError as exc:
        outcome = ranking.RankingOutcome(results=(), problems=())
        problems = [{"id": "", "label": _("Workload"), "messages": message_dicts(exc.messages)}]
    else:
        problems = _problem_messages(outcome, snapshot["offers"])
    if not snapshot["offers"]:
        empty = Message("no_offers", "No current quote to rank.", "没有可排名的当前报价。")
        problems.append({"id": "", "label": "", "messages": [empty.as_dict()]})
    decisions, decision = decide(snapshot, outcome)
    return outcome, problems, decisions, decision


def priced_versions(snapshot: Mapping[str, Any]) -> dict[str, int]:
    """{quote id: version id} of the offers a snapshot prices (what staleness is judged by)."""
    out: dict[str, int] = {}
    for o in snapshot.get("offers") or ():
        quote, version = o.get("quote_id"), str(o.get("id", ""))
        if quote is not None and version.isdigit():
            out[str(int(quote))] = int(version)
    return out


def _save_results(
    run: RankingRun,
    rows: list[RankingResult],
    problems: list[dict],  # type: ignore[type-arg]
    decision: dict[str, Any],
    page: dict[str, Any],
) -> None:
    with transaction.atomic():
        RankingRun.objects.select_for_update().filter(pk=run.pk).first()
        RankingResult.objects.filter(run=run).delete()
        RankingResult.objects.bulk_create(rows, batch_size=1000)
        RankingRun.objects.filter(pk=run.pk).update(
            problems=problems, decision=decision, page_data=page,
            priced_versions=priced_versions(run.snapshot),
        )  # fmt: skip
    run.problems = problems
    run.decision = decision
    run.page_data = page


def result_rows(
    run: RankingRun, outcome: ranking.RankingOutcome, decisions: list[OfferDecision]
) -> list[RankingResult]:
    """The (unsaved) result rows of an outcome: what a run stores and what the what-if shows."""
    offers = {o["id"]: o for o in run.snapshot["offers"]}
    rows = []
    for r, d in zip(outcome.results, decisions, strict=True):
        o = offers.get(r.offer_id, {})
        rows.append(
            RankingResult(
                run=run,
                quote_version_id=int(r.offer_id) if r.offer_id.isdigit() else None,
                offer_id=r.offer_id,
                label=o.get("label", ""),
                vendor_name=o.get("vendor", ""),
                vendor_name_en=o.get("vendor_en", "") or "",
                rank=r.rank,
                cost_per_eth=r.cost_per_eth,
                cost_per_eth_low=d.cost_per_eth_low,  # the full range (domain/uncertainty.py)
                cost_per_eth_high=d.cost_per_eth_high,
                currency=r.currency,
                step_time_s=r.step_time_s,
                compute_time_s=r.compute_time_s,
                comm_time_s=r.comm_time_s,
                exposed_comm_s=r.exposed_comm_s,
                utilisation=r.utilisation,
                eth_per_hour=r.eth_per_hour,
                hourly_cost=r.hourly_cost,
                job_hours=finite(r.job_hours),
                job_cost=finite(r.job_cost),
                bandwidth_gbps=r.bandwidth_gbps,
                bandwidth_basis=r.bandwidth_basis,
                nodes_used=r.nodes_used,
                oversubscription=r.oversubscription,
                monthly_rent=r.hourly_cost * ranking.HOURS_PER_MONTH,
                warnings=message_dicts(r.warnings) + ([d.term_warning] if d.term_warning else []),
                model_detail=_with_evidence(r.model_detail, o.get("evidence")),
                eligible=d.eligible,
                risk_action=d.risk_action,
                risk_marks=d.risk_marks,
                eligibility_reasons=d.eligibility_reasons,
                risk_premium_pct=d.risk_premium_pct,
                risk_premium_month=d.risk_premium_month,
                risk_adjusted_cost_per_eth=d.risk_adjusted_cost_per_eth,
                risk_adjusted_low=d.risk_adjusted_low,
                risk_adjusted_high=d.risk_adjusted_high,
                decision_rank=d.decision_rank,
                tie_with_winner=d.tie_with_winner,
                recommended=d.recommended,
            )
        )
    return rows


def _with_evidence(detail: dict[str, Any] | None, evidence: Any) -> dict[str, Any] | None:
    """The model's breakdown plus how the offer's measured figure was derived (pages, API, PDF
    read it from the stored result)."""
    if not evidence:
        return detail
    return {**(detail or {}), "evidence": evidence}


def ranking_run_sync(*, run: RankingRun) -> RankingRun:
    """Compute a run in the calling process (demo loader, tests), with the Job bookkeeping."""
    from .tasks import run_job

    run_job(run.pk)
    run.refresh_from_db()
    return run
