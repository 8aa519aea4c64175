"""Read side of rankings: the quotes a run ranks, runs and their results for pages and API."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from quotes.models import Quote

from .models import RankingResult, RankingRun


def ranking_quotes(*, team, quote_ids: list[int] | None = None) -> QuerySet[Quote]:  # type: ignore[no-untyped-def]
    """Quotes with everything the model needs in one query (as the ranking and benchmark load)."""
    qs = Quote.objects.for_team(team).filter(current_version__isnull=False)
    qs = qs.filter(is_current=True) if quote_ids is None else qs.filter(pk__in=quote_ids)
    return qs.select_related("vendor", "current_version__gpu", "data_centre__network").order_by(
        "pk"
    )


def ranking_runs(*, team) -> QuerySet[RankingRun]:  # type: ignore[no-untyped-def]
    return RankingRun.objects.for_team(team).select_related("workload", "created_by")


def ranking_detail(*, team, pk: int) -> RankingRun:  # type: ignore[no-untyped-def]
    results = Prefetch("results", queryset=RankingResult.objects.order_by("rank"))
    return ranking_runs(team=team).prefetch_related(results).get(pk=pk)


def ranking_lesson(results: list[RankingResult]) -> dict[str, RankingResult | None]:
    """The offer with the cheapest rent and the one cheapest per effective training hour."""
    if not results:
        return {"cheapest_rent": None, "cheapest_eth": None}
    return {
        "cheapest_rent": min(results, key=lambda r: (r.hourly_cost, r.rank)),
        "cheapest_eth": min(results, key=lambda r: r.rank),
    }
