"""Selector of the decision dashboard: what a team must decide and what evidence is missing."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Prefetch, Q
from django.db.models.fields.json import KT

from core.models import JobStatus
from quotes.models import Quote
from rankings.models import RankingResult, RankingRun
from rankings.selectors import stale_run_ids
from sourcing.choices import ACTIVE_AWARD_STATES, AwardState, RfqState
from sourcing.models import Award, Rfq
from vendors.models import Vendor


def decision_board(*, team) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Open evaluations and sourcing events, the leader per workload, red-flagged vendors, quotes
    without evidence (a fixed number of queries whatever the team's size).

    A sourcing event is open until its award is confirmed (or it is cancelled): an approved
    award still waits for its acceptance test."""
    if team is None:
        return {}
    # The leader is the run's recommendation (best eligible offer under the team's risk policy,
    # rankings/decision.py), never an excluded offer that merely costs least.
    leaders = Prefetch(
        "results", queryset=RankingResult.objects.filter(recommended=True), to_attr="leaders"
    )
    runs = list(
        RankingRun.objects.for_team(team)
        .select_related("workload")
        # every offer's inputs and the stored page are not read here: only the workload's name
        .defer("snapshot", "page_data", "problems")
        .annotate(snapshot_workload=KT("snapshot__workload_name"))
        .prefetch_related(leaders)
        .order_by("-created_at", "-pk")[:200]
    )
    per_workload: dict[Any, dict[str, Any]] = {}
    stale = stale_run_ids([r for r in runs if r.status == JobStatus.DONE])
    for run in runs:
        if run.status != JobStatus.DONE:
            continue
        key = run.workload_id or f"run:{run.pk}"
        name = run.snapshot_workload or run.label
        decided = run.decision or {}
        per_workload.setdefault(key, {
            "run": run, "leader": run.leaders[0] if run.leaders else None, "workload": name,
            "tie": bool(decided.get("tie")), "headline": decided.get("headline"),
            "all_excluded": bool(decided.get("all_excluded")), "stale": run.pk in stale,
        })  # fmt: skip
    vendors = Vendor.objects.for_team(team)
    missing = (
        Quote.objects.for_team(team)
        .filter(is_current=True, measured_gbps__isnull=True)
        .select_related("vendor")
        .order_by("vendor__name_zh", "label")
    )
    active_awards = Prefetch(
        "awards",
        queryset=Award.objects.filter(state__in=ACTIVE_AWARD_STATES).select_related("answer"),
        to_attr="active_awards",
    )
    rfqs = list(
        Rfq.objects.for_team(team)
        .exclude(state=RfqState.CANCELLED)
        .filter(~Q(state=RfqState.AWARDED) | Q(awards__state=AwardState.APPROVED))
        .annotate(
            invited=Count("invitations", distinct=True),
            answered=Count("answers", distinct=True),
        )
        .prefetch_related(active_awards)
        .order_by("deadline", "pk")
        .distinct()[:20]
    )
    return {
        "open_rfqs": rfqs,
        "open_runs": runs[:10],
        "stale_ids": stale,
        "leaders": list(per_workload.values()),
        "flagged": list(
            vendors.filter(findings_critical__gt=0).order_by("-findings_critical")[:20]
        ),
        "vendor_count": vendors.count(),
        "missing_evidence": list(missing[:50]),
    }
