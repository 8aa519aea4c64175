"""Read side of rankings: the quotes a run ranks, runs and their results for pages and API."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count, F, Prefetch, QuerySet
from django.db.models.fields.json import KT

from domain import eligibility
from domain.credentials_rules.catalogue import CATALOGUE as FINDING_CATALOGUE
from domain.messages import Message
from quotes.models import Quote

from .models import RankingResult, RankingRun


def ranking_quotes(*, team, quote_ids: list[int] | None = None) -> QuerySet[Quote]:  # type: ignore[no-untyped-def]
    """Quotes with everything the model needs in one query (as the ranking and benchmark load)."""
    qs = Quote.objects.for_team(team).filter(current_version__isnull=False)
    qs = qs.filter(is_current=True) if quote_ids is None else qs.filter(pk__in=quote_ids)
    return qs.select_related(
        "vendor", "vendor__sla", "current_version__gpu", "data_centre__network"
    ).order_by("pk")


def ranking_runs(*, team) -> QuerySet[RankingRun]:  # type: ignore[no-untyped-def]
    return RankingRun.objects.for_team(team).select_related("workload", "created_by")


def ranking_overview(*, team) -> QuerySet[RankingRun]:  # type: ignore[no-untyped-def]
    """Runs newest first, each with its number of ranked offers and its leader (`leaders`, the
    recommended result in a list of at most one: the best eligible offer, never an excluded
    one) in two queries whatever the number of runs."""
    leaders = Prefetch(
        "results", queryset=RankingResult.objects.filter(recommended=True), to_attr="leaders"
    )
    return (
        ranking_runs(team=team)
        .defer("snapshot", "page_data")  # every offer's inputs and the stored page: not listed
        .annotate(offers=Count("results"))
        .prefetch_related(leaders)
        .order_by("-created_at", "-pk")
    )


def _changed(priced: dict[int, dict[str, int]]) -> dict[int, list[int]]:
    """Per run, the quotes whose current version is no longer the one it priced (a deleted
    quote counts as changed): one query over the quotes, none over the results."""
    ids = {int(q) for versions in priced.values() for q in versions}
    current = dict(Quote.objects.filter(pk__in=ids).values_list("pk", "current_version_id"))
    return {
        run: [int(q) for q, v in versions.items() if current.get(int(q)) != v]
        for run, versions in priced.items()
    }


def stale_quotes(*, run: RankingRun) -> list[Quote]:
    """The quotes of a finished run that changed since it priced them (stale means said:
    pages name them and offer to rank again); a deleted quote is left out of the list but
    still makes the run stale (`stale_run_ids`)."""
    changed = _changed({run.pk: run.priced_versions or {}}).get(run.pk, [])
    return list(Quote.objects.filter(pk__in=changed).select_related("vendor").order_by("pk"))


def stale_priced_versions(*, run: RankingRun) -> set[int]:
    """The quote versions the run priced that are no longer current (their quote got new
    terms or was deleted): what a report marks row by row."""
    priced = run.priced_versions or {}
    changed = _changed({run.pk: priced}).get(run.pk, [])
    return {int(priced[str(q)]) for q in changed if priced.get(str(q)) is not None}


def stale_versions(*, run: RankingRun) -> str:
    """What changed since the run priced its quotes, as a short stable key ("" when nothing
    did): each changed quote with its current version (``x`` when deleted). A report of the run
    is built again when this changes, so a file built after a quote got new terms says so."""
    changed = sorted(_changed({run.pk: run.priced_versions or {}}).get(run.pk, []))
    if not changed:
        return ""
    current = dict(Quote.objects.filter(pk__in=changed).values_list("pk", "current_version_id"))
    return ",".join(f"{q}:{current.get(q, 'x')}" for q in changed)


def changed_quote_ids(runs: Iterable[RankingRun]) -> dict[int, list[int]]:
    """Per run, the quotes changed or deleted since it priced them, sorted (one query)."""
    return {run: sorted(quotes) for run, quotes in
            _changed({r.pk: r.priced_versions or {} for r in runs}).items()}  # fmt: skip


def stale_run_ids(runs: Iterable[RankingRun]) -> set[int]:
    """Which of these runs priced a quote version that is no longer current (one query)."""
    changed = _changed({r.pk: r.priced_versions or {} for r in runs})
    return {run for run, quotes in changed.items() if quotes}


def ranking_detail(*, team, pk: int) -> RankingRun:  # type: ignore[no-untyped-def]
    """The run of the run page, without its snapshot (every offer's inputs) and its stored page
    data (loaded only when the page's results section is rendered) but with the workload name
    the title shows."""
    return (
        ranking_runs(team=team)
        .defer("snapshot", "page_data")
        .annotate(
            workload_name=KT("snapshot__workload_name"), page_version=KT("page_data__version")
        )
        .get(pk=pk)
    )


# Severity of the cost model's own network caveats. Every other code on a result is a vendor red
# flag, and the ranking keeps only the critical due-diligence findings of a vendor as such flags.
_WARNING_SEVERITY = {
    "bandwidth_inference_only": "critical",
    "roce_without_lossless": "critical",
    "bandwidth_below_tier": "warning",
    "rack_oversubscribed": "warning",
    "roce_lossless_unknown": "warning",
    "bandwidth_unverified": "info",
    "job_longer_than_term": "warning",  # domain/decision.py
    "claim_discounted_by_track_record": "warning",  # domain/ranking/network.py
}
_SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}
WARNINGS_SHOWN = 3


def warning_severity(code: str) -> str:
    """How an offer's warning is shown: the ranking's own codes as listed here, a vendor
    finding at its catalogue severity (domain/credentials_rules), anything else a warning, so a
    new code never turns a recommended offer red by default."""
    if code in _WARNING_SEVERITY:
        return _WARNING_SEVERITY[code]
    found = FINDING_CATALOGUE.get(code)
    return str(found[0].value) if found else "warning"


def offer_warnings(warnings: list[dict[str, str]], *, shown: int = WARNINGS_SHOWN) -> dict:  # type: ignore[type-arg]
    """One offer's warnings once each (same code and text), most severe first, split into the
    first `shown` and the rest (the page folds the rest away)."""
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for w in warnings:
        key = (w.get("code", ""), w.get("en", ""), w.get("zh", ""))
        if key in seen:
            continue
        seen.add(key)
        unique.append({**w, "severity": warning_severity(key[0])})
    unique.sort(key=lambda w: _SEVERITY_ORDER[w["severity"]])  # stable: model order kept
    more = unique[shown:]
    label = Message("warnings_more", f"+{len(more)} more", f"另有 {len(more)} 条")
    return {"shown": unique[:shown], "more": more, "count": len(unique), "more_label": label}


def ranking_lesson(results: list[RankingResult]) -> dict[str, Any]:
    """The offer with the cheapest rent and the recommended one (`cheapest_eth`, also
    `recommended`: the cheapest per effective training hour among the eligible offers once risk
    counts), and the table rows of the results page (each result with its de-duplicated
    warnings). An excluded offer never gets the badge; with no eligible offer both are None (the
    page then shows the run's decision headline instead of the lesson)."""
    rows = [{"result": r, "warnings": offer_warnings(r.warnings or [])} for r in results]
    best = next((r for r in results if r.recommended and r.eligible), None)
    if best is None:
        return {"cheapest_rent": None, "cheapest_eth": None, "recommended": None,
                "rent_lesson": False, "result_rows": rows}  # fmt: skip
    cheapest = min(results, key=lambda r: (r.hourly_cost, r.rank))
    return {
        "cheapest_rent": cheapest,
        # the lesson ("cheapest rent is not the cheapest way to train") only where it is true:
        # an excluded or knocked-out offer that is cheaper per ETH teaches nothing of the kind
        "rent_lesson": cheapest.offer_id != best.offer_id
        and cheapest.deciding_cost_per_eth > best.deciding_cost_per_eth,
        "cheapest_eth": best,
        "recommended": best,
        "result_rows": rows,
    }


def money_marks(snapshot: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """Add to each results-table row the unusual values its quote's analyst confirmed
    (`outliers`, domain/plausibility.py) and whether its VAT terms were unstated (`tax_assumed`,
    domain/money.py), from the run's snapshot."""
    offers = {str(o.get("id")): o for o in snapshot.get("offers", [])}
    for row in rows:
        offer = offers.get(str(row["result"].offer_id), {})
        row["outliers"] = offer.get("confirmed_outliers") or []
        row["tax_assumed"] = bool((offer.get("tax") or {}).get("assumed"))


def team_risk_policy(*, team) -> eligibility.RiskPolicy:  # type: ignore[no-untyped-def]
    """The team's risk policy, or the default one when the team has not set its own."""
    from .models import TeamRiskPolicy

    row = TeamRiskPolicy.objects.filter(team=team).first() if team is not None else None
    return row.to_domain() if row is not None else eligibility.DEFAULT_POLICY


def recommended_result(run: RankingRun) -> RankingResult | None:
    """The offer a run recommends: the best eligible one by risk-adjusted cost per ETH, never
    an excluded one; None when the policy excludes every offer (see `run.decision`)."""
    return run.results.filter(recommended=True).first()


def decision_rows(run: RankingRun) -> list[RankingResult]:
    """The run's results in decision order: eligible offers by risk-adjusted cost per ETH, then
    the excluded ones by cost (each with `eligibility_reasons`)."""
    return list(run.results.order_by(F("decision_rank").asc(nulls_last=True), "rank"))


def ranking_decision(run: RankingRun, results: list[RankingResult] | None = None) -> dict[str, Any]:
    """What the page and the report say above the table: the headline and what decides a tie
    (bilingual dicts for the `msg` filter), the policy used, the recommended result, the tied
    and the excluded results (each with `eligibility_reasons`), and when the policy excluded
    every offer, the offers the default policy would allow (`eligible_under_default`)."""
    rows = results if results is not None else list(run.results.order_by("rank"))
    d = run.decision or {}
    by_id = {str(r.offer_id): r for r in rows}
    recommended = d.get("recommended")
    return {
        # runner-up, savings against eligible offers only, the job against the contract term
        # (domain/decision.py, stored by the job)
        "runner_up": by_id.get(str(d.get("runner_up"))),
        "savings": [{**s, "result": by_id.get(str(s["offer_id"]))} for s in d.get("savings") or ()],
        "term": (d.get("terms") or {}).get(str(recommended)) if recommended else None,
        "term_short": len(d.get("term_short") or ()),
        "headline": d.get("headline"),
        "deciders": d.get("deciders", []),
        "policy_note": d.get("policy_note"),
        "recommended": next((r for r in rows if r.recommended), None),
        "tie": bool(d.get("tie")),
        "tied": [r for r in rows if r.tie_with_winner],
        "excluded": [r for r in rows if not r.eligible],
        "all_excluded": bool(d.get("all_excluded")),
        "eligible_under_default": d.get("eligible_under_default", []),
    }
