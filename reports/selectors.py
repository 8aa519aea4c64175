"""Read side of reports: everything a report shows, gathered once per report (no N+1)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from benchmarks.models import BenchmarkLog, TestRun
from core.models import JobStatus
from domain import costmodel as cm
from domain import money
from domain.credentials import Severity
from quotes.choices import BandwidthBilling
from quotes.models import Quote
from rankings.inputs import InputFileError
from rankings.models import RankingResult, RankingRun
from rankings.page_data import is_current
from rankings.selectors import ranking_lesson
from rankings.whatif import sensitivity_rows, stored_sensitivity
from serving.selectors import serving_report_section
from vendors.models import Vendor
from vendors.selectors import vendor_findings, vendor_prefetch

from .models import Report

log = logging.getLogger(__name__)


def report_list(*, team, run: RankingRun | None = None) -> QuerySet[Report]:  # type: ignore[no-untyped-def]
    qs = Report.objects.for_team(team).select_related("run", "created_by")
    return qs.filter(run=run) if run is not None else qs


def report_latest(
    *, team, run: RankingRun, kind: str, language: str | None = None
) -> Report | None:  # type: ignore[no-untyped-def]
    """The newest finished report of a run and kind, in `language` when there is one."""
    qs = report_list(team=team, run=run).filter(kind=kind, status=JobStatus.DONE).exclude(sha256="")
    if language:
        preferred = qs.filter(language__startswith=language.split("-")[0]).first()
        if preferred is not None:
            return preferred
    return qs.first()


@dataclass
class VendorSection:
    vendor: Vendor | None
    name: str
    offers: list[dict[str, Any]]
    findings: list[Any] = field(default_factory=list)
    test_runs: list[TestRun] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def critical(self) -> list[Any]:
        return [f for f in self.findings if f.severity == Severity.CRITICAL]


@dataclass
class ReportData:
    """One ranking run with its inputs, results, risks and evidence, ready for any builder."""

    run: RankingRun
    team_name: str
    user_name: str
    today: date
    results: list[RankingResult]
    winner: RankingResult | None
    runner_up: RankingResult | None
    cheapest_rent: RankingResult | None
    offers: dict[str, dict[str, Any]]
    workload: dict[str, Any]
    fx_to_cny: dict[str, float]
    gpus: dict[str, dict[str, float]]
    sensitivity: list[dict[str, Any]]
    vendors: list[VendorSection]
    unverified: list[RankingResult]
    problems: list[dict[str, Any]]
    missing: list[str]
    serving: dict[str, Any] | None = None  # the team's serving workloads and mixed plans

    def to_cny(self, amount: float | None, currency: str) -> float | None:
        if amount is None:
            return None
        rate = money.rate_from(currency, self.fx_to_cny)
        return None if rate is None else amount * float(rate)

    def savings(self, other: RankingResult | None) -> dict[str, float | None] | None:
        """Whole-job cost and time of the winner against another offer (CNY, hours)."""
        w = self.winner
        if w is None or other is None or other.offer_id == w.offer_id:
            return None
        mine, theirs = (
            self.to_cny(w.job_cost, w.currency),
            self.to_cny(other.job_cost, other.currency),
        )
        return {
            "job_cost_cny": mine,
            "other_job_cost_cny": theirs,
            "saving_cny": None if mine is None or theirs is None else theirs - mine,
            "job_hours": w.job_hours,
            "other_job_hours": other.job_hours,
            "hours_saved": None
            if w.job_hours is None or other.job_hours is None
            else other.job_hours - w.job_hours,
        }


def _sensitivity(
    snapshot: dict[str, Any], stored: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The run's sensitivity sweep: the one its job stored (rankings/page_data.py), else (a run
    from before) swept again here, in the report's job."""
    if is_current(stored):
        return stored_sensitivity((stored or {}).get("sensitivity"))
    if not snapshot or not snapshot.get("offers"):
        return []
    try:
        return sensitivity_rows(snapshot)
    except (cm.ModelInputError, InputFileError, KeyError, TypeError, ValueError):
        return []


def _vendor_sections(run: RankingRun, offers: dict[str, dict[str, Any]]) -> list[VendorSection]:
    quote_ids = [o.get("quote_id") for o in offers.values() if o.get("quote_id")]
    quotes = {
        q.pk: q
        for q in Quote.objects.for_team(run.team).filter(pk__in=quote_ids).only("pk", "vendor_id")
    }
    vendor_ids = {q.vendor_id for q in quotes.values()}
    vendors = {v.pk: v for v in vendor_prefetch(Vendor.objects.filter(pk__in=vendor_ids))}
    logs = Prefetch(
        "logs",
        queryset=BenchmarkLog.objects.filter(is_archive=False).order_by("original_name", "pk"),
    )
    runs_by_vendor: dict[int, list[TestRun]] = {}
    test_runs = TestRun.objects.for_team(run.team).filter(vendor_id__in=vendor_ids)
    for tr in (
        test_runs.select_related("data_centre").prefetch_related(logs).order_by("-created_at")
    ):
        runs_by_vendor.setdefault(tr.vendor_id, []).append(tr)
    sections: dict[Any, VendorSection] = {}
    for offer in offers.values():
        quote = quotes.get(offer.get("quote_id"))
        vendor = vendors.get(quote.vendor_id) if quote else None
        key = vendor.pk if vendor else f"name:{offer.get('vendor', '')}"
        if key not in sections:
            sections[key] = _section(vendor, offer, runs_by_vendor)
        sections[key].offers.append(offer)
    return sorted(sections.values(), key=lambda s: s.name)


def _vendor_name(vendor: Vendor) -> str:
    """The vendor as a reader of this language knows it: the Chinese name alone in Chinese
    (no "示例… / Example…" pairs), both names in English."""
    if (get_language() or "").startswith("zh"):
        return str(vendor)
    return vendor.display_names


def _section(
    vendor: Vendor | None, offer: dict[str, Any], runs: dict[int, list[TestRun]]
) -> VendorSection:
    if vendor is None:
        return VendorSection(
            vendor=None, name=offer.get("vendor") or _("(unknown vendor)"), offers=[],
            missing=[_("The vendor record is no longer available.")],
        )  # fmt: skip
    missing = []
    if getattr(vendor, "sla", None) is None:
        missing.append(_("No SLA terms recorded."))
    if not vendor.data_centres.all():
        missing.append(_("No data centre recorded."))
    if not vendor.licences.all():
        missing.append(_("No telecom licence recorded."))
    if not runs.get(vendor.pk):
        missing.append(_("No benchmark evidence uploaded."))
    return VendorSection(
        vendor=vendor, name=_vendor_name(vendor), offers=[],
        findings=list(vendor_findings(vendor)), test_runs=runs.get(vendor.pk, []), missing=missing,
    )  # fmt: skip


def _missing(
    run: RankingRun, results: list[RankingResult], unverified: list[RankingResult]
) -> list[str]:
    out = []
    if run.status == JobStatus.FAILED:
        out.append(_("The ranking failed: %s") % (run.error or "?"))
    if not results:
        out.append(_("This ranking has no results: no offer could be ranked."))
    if results and all(r.job_cost is None for r in results):
        out.append(
            _("The workload has no total token count, so whole-job cost and time are unknown.")
        )
    if unverified:
        out.append(_("%d offer(s) are ranked on claimed (unmeasured) bandwidth.") % len(unverified))
    return out


SHARE_LABELS = {
    "training": gettext_lazy("Training"),
    "serving": gettext_lazy("Serving"),
    "bandwidth": gettext_lazy("Public bandwidth"),
}


def _plan_label(kind: str | None) -> str:
    return BandwidthBilling.label_of(kind) or "—"


def _serving(team) -> tuple[dict[str, Any] | None, list[str]]:  # type: ignore[no-untyped-def]
    """The team's serving rankings and mixed plans for the report, labels resolved.

    A serving workload that cannot be computed is reported inside the section; anything
    unexpected leaves the section out with a note instead of breaking the training report.
    """
    try:
        section = serving_report_section(team=team)
    except Exception:  # noqa: BLE001 - the training report must still be produced
        log.exception("serving section of the report failed")
        return None, [_("The serving section could not be computed; see the serving pages.")]
    if not section.get("workloads") and not section.get("plans"):
        return None, []
    for w in section.get("workloads", []):
        for r in w.get("results", []):
            r["best_plan_label"] = _plan_label(r.get("best_plan"))
    for p in section.get("plans", []):
        p["serving_bandwidth_plan_label"] = _plan_label(p.get("serving_bandwidth_plan"))
        for m in p.get("months") or []:
            compute = m.get("compute_cny") or {}
            m["training_cny"] = compute.get("training")
            m["serving_cny"] = compute.get("serving")
        p["share_rows"] = [
            (str(SHARE_LABELS.get(k, k)), v) for k, v in (p.get("shares") or {}).items()
        ]
    return section, []


def report_data(*, run: RankingRun, user=None) -> ReportData:  # type: ignore[no-untyped-def]
    """Everything a report shows about one run, in a fixed number of queries."""
    run = RankingRun.objects.select_related("team", "workload", "created_by").get(pk=run.pk)
    results = list(RankingResult.objects.filter(run=run).order_by("rank"))
    snapshot = run.snapshot or {}
    offers = {str(o.get("id")): o for o in snapshot.get("offers", [])}
    lesson = ranking_lesson(results)
    eligible = sorted(
        (r for r in results if r.eligible and r.decision_rank), key=lambda r: r.decision_rank
    )
    unverified = [r for r in results if r.bandwidth_basis != "measured"]
    who = user or run.created_by
    serving, serving_missing = _serving(run.team)
    return ReportData(
        run=run,
        team_name=run.team.name,
        user_name=(who.get_full_name() or who.get_username()) if who else "",
        today=timezone.localdate(),
        results=results,
        # The recommendation is the run's decision (rankings.selectors.recommended_result): the
        # best *eligible* offer under the team's risk policy, never an excluded one.
        winner=eligible[0] if eligible else None,
        runner_up=eligible[1] if len(eligible) > 1 else None,
        cheapest_rent=lesson["cheapest_rent"],
        offers=offers,
        workload=dict(snapshot.get("workload") or {}),
        fx_to_cny={k: float(v) for k, v in (snapshot.get("fx_to_cny") or {}).items()},
        gpus=dict(snapshot.get("gpus") or {}),
        sensitivity=_sensitivity(snapshot, run.page_data),
        vendors=_vendor_sections(run, offers),
        unverified=unverified,
        problems=list(run.problems or []),
        missing=_missing(run, results, unverified) + serving_missing,
        serving=serving,
    )
