"""Read side of reports: everything a report shows, gathered once per report (no N+1)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db.models import F, Prefetch, QuerySet
from django.utils import timezone
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from benchmarks.models import BenchmarkLog, TestRun
from core.models import JobStatus
from domain import decision as dd
from domain import money, ranking
from domain.credentials import Severity
from quotes.models import Quote
from rankings.inputs import InputFileError
from rankings.models import RankingResult, RankingRun
from rankings.page_data import is_current
from rankings.selectors import stale_priced_versions, stale_quotes
from rankings.whatif import sensitivity_rows, stored_sensitivity
from vendors.models import Vendor
from vendors.selectors import vendor_findings, vendor_prefetch

from .models import Report

log = logging.getLogger(__name__)


def report_list(*, team, run: RankingRun | None = None) -> QuerySet[Report]:  # type: ignore[no-untyped-def]
    # a run's snapshot and stored page hold every offer (megabytes for thousands of offers):
    # a list of its files names the run only
    qs = Report.objects.for_team(team).select_related("run", "created_by").defer(*RUN_BULK)
    return qs.filter(run=run) if run is not None else qs


RUN_FIELDS_BULK = ("snapshot", "page_data", "problems", "decision")
RUN_BULK = tuple(f"run__{name}" for name in RUN_FIELDS_BULK)


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
    # The run's stored decision (rankings/decision.py, domain/decision.py): runner-up, savings
    # against eligible offers, contract-term fits; every builder reads it, none recomputes it.
    decision: dict[str, Any] = field(default_factory=dict)
    savings_rows: list[dict[str, Any]] = field(default_factory=list)
    # Stale means said: the quotes that got new terms (or were deleted) since the run priced
    # them, read when the file is built; the report names them and asks for a new ranking.
    stale: list[Quote] = field(default_factory=list)
    stale_version_ids: set[int] = field(default_factory=set)

    @property
    def excluded(self) -> list[RankingResult]:
        """The offers the decision left out (risk policy, RFQ knock-out): listed, not ranked."""
        return [r for r in self.results if not r.eligible]

    @property
    def stale_results(self) -> list[RankingResult]:
        """The ranked offers whose quote changed (or was deleted) since the ranking."""
        return [r for r in self.results if r.quote_version_id in self.stale_version_ids]

    @property
    def winner_term(self) -> dict[str, Any] | None:
        w = self.winner
        return None if w is None else (self.decision.get("terms") or {}).get(str(w.offer_id))

    @property
    def term_short(self) -> list[RankingResult]:
        short = set(self.decision.get("term_short") or ())
        return [r for r in self.results if str(r.offer_id) in short]

    def to_cny(self, amount: float | None, currency: str) -> float | None:
        if amount is None:
            return None
        rate = money.rate_from(currency, self.fx_to_cny)
        return None if rate is None else amount * float(rate)


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
    except (ranking.ModelInputError, InputFileError, KeyError, TypeError, ValueError):
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


def english_name(name_en: str | None, name_zh: str | None) -> str:
    """An English reader's name of a vendor: the English name with the legal (Chinese) name
    beside it when both are recorded, else whichever is."""
    if name_en and name_zh and name_en != name_zh:
        return f"{name_en} ({name_zh})"
    return name_en or name_zh or ""


def _vendor_name(vendor: Vendor) -> str:
    """The vendor as a reader of this language knows it: the Chinese name alone in Chinese
    (no "示例… / Example…" pairs), the English name with the legal name beside in English."""
    if (get_language() or "").startswith("zh"):
        return str(vendor)
    return english_name(vendor.name_en, vendor.name_zh)


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
    ranked = [r for r in unverified if r.eligible]
    if ranked:
        out.append(ngettext("%(n)d ranked offer rests on claimed (unmeasured) bandwidth.",
                            "%(n)d ranked offers rest on claimed (unmeasured) bandwidth.",
                            len(ranked)) % {"n": len(ranked)})  # fmt: skip
    return out


def report_data(*, run: RankingRun, user=None) -> ReportData:  # type: ignore[no-untyped-def]
    """Everything a report shows about one run, in a fixed number of queries."""
    run = RankingRun.objects.select_related("team", "workload", "created_by").get(pk=run.pk)
    # the decision's order: eligible offers by their rank, then the excluded ones (no rank)
    results = list(
        RankingResult.objects.filter(run=run).order_by(
            F("decision_rank").asc(nulls_last=True), "rank"
        )
    )
    snapshot = run.snapshot or {}
    offers = {str(o.get("id")): o for o in snapshot.get("offers", [])}
    eligible = sorted(
        (r for r in results if r.eligible and r.decision_rank), key=lambda r: r.decision_rank
    )
    unverified = [r for r in results if r.bandwidth_basis != "measured"]
    who = user or run.created_by
    vendors = _vendor_sections(run, offers)
    _name_results(results, offers, vendors)
    decision = _decision(run, results, offers)
    by_id = {str(r.offer_id): r for r in results}
    runner_up = by_id.get(str(decision.get("runner_up")))
    savings_rows = [
        {
            **s,
            "result": by_id[str(s["offer_id"])],
            "hours_longer": -s["hours_saved"] if (s.get("hours_saved") or 0) < 0 else None,
        }
        for s in decision.get("savings") or ()
        if str(s["offer_id"]) in by_id
    ]
    cheapest = next((s["result"] for s in savings_rows if s["kind"] == "cheapest_rent"), None)
    return ReportData(
        run=run,
        team_name=run.team.name,
        user_name=(who.get_full_name() or who.get_username()) if who else "",
        today=timezone.localdate(),
        results=results,
        # The recommendation is the run's decision (rankings.selectors.recommended_result): the
        # best *eligible* offer under the team's risk policy, never an excluded one.
        winner=eligible[0] if eligible else None,
        runner_up=runner_up,
        cheapest_rent=cheapest,
        offers=offers,
        workload=dict(snapshot.get("workload") or {}),
        fx_to_cny={k: float(v) for k, v in (snapshot.get("fx_to_cny") or {}).items()},
        gpus=dict(snapshot.get("gpus") or {}),
        sensitivity=_sensitivity(snapshot, run.page_data),
        vendors=vendors,
        unverified=unverified,
        problems=list(run.problems or []),
        missing=_missing(run, results, unverified),
        decision=decision,
        savings_rows=savings_rows,
        stale=stale_quotes(run=run),
        stale_version_ids=stale_priced_versions(run=run),
    )


def _name_results(
    results: list[RankingResult], offers: dict[str, dict[str, Any]], vendors: list[VendorSection]
) -> None:
    """Each result's `display_name` ("vendor · offer") in the reader's language: English names
    where recorded (the legal name beside) for English readers."""
    english = not (get_language() or "").startswith("zh")
    recorded: dict[str, Vendor] = {}
    for s in vendors:
        for o in s.offers:
            if s.vendor is not None:
                recorded[str(o.get("id"))] = s.vendor
    for r in results:
        vendor_name = r.vendor_name
        if english:
            v = recorded.get(str(r.offer_id))
            name_en = (offers.get(str(r.offer_id)) or {}).get("vendor_en") or (v and v.name_en)
            vendor_name = english_name(name_en, r.vendor_name) or r.vendor_name
        r.display_vendor = vendor_name
        r.display_name = f"{vendor_name} · {r.label}" if vendor_name else str(r.label)


def _decision(
    run: RankingRun, results: list[RankingResult], offers: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The run's stored decision; a run stored before savings and terms were part of it gets
    them from the same domain function, from its stored results."""
    stored = dict(run.decision or {})
    if "savings" in stored:
        return stored
    facts = [
        dd.OfferFacts(
            str(r.offer_id),
            f"{r.vendor_name} · {r.label}",
            r.eligible,
            r.decision_rank,
            r.currency,
            r.hourly_cost,
            r.job_cost,
            r.job_hours,
            (offers.get(str(r.offer_id)) or {}).get("term_months"),
        )  # fmt: skip
        for r in results
    ]
    return {**stored, **dd.summarise(facts, (run.snapshot or {}).get("fx_to_cny") or {})}
