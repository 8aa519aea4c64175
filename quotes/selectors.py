"""Read side of quotes: lists, details, comparison."""

from __future__ import annotations

import functools

from django.db.models import QuerySet

from .models import Quote, WorkloadProfile


def quote_list(*, team, current_only: bool = False) -> QuerySet[Quote]:  # type: ignore[no-untyped-def]
    qs = Quote.objects.for_team(team).select_related(
        "vendor", "data_centre__network", "current_version__gpu"
    )
    if current_only:
        qs = qs.filter(is_current=True)
    return qs.order_by("vendor__name_zh", "vendor__name_en", "label", "pk")


def quote_list_rows(*, team) -> QuerySet[Quote]:  # type: ignore[no-untyped-def]
    """The team's quotes with the columns the quote list shows and no others (the list loads
    rows of six joined tables otherwise: vendor findings, data-centre evidence, network details
    it never prints), and the monthly rent. Built afresh rather than from the filtered list
    query: the page's ids are chosen already. Keep in step with templates/quotes/quote_list.html;
    tests pin its query count."""
    if team is None:
        return Quote.objects.none()
    return _list_rows(team.tax_basis).filter(team=team)


# The columns the quote list prints (quotes.templatetags.quote_rows reads them by name).
LIST_ROW_FIELDS = (
    "pk", "label", "is_current", "measured_typical_gbps", "measured_kind", "vendor__name_zh",
    "vendor__name_en", "current_version_id", "current_version__nodes",
    "current_version__gpus_per_node", "current_version__gpu__key",
    "current_version__nics_per_node", "current_version__nic_gbps", "current_version__fabric",
    "current_version__number", "rent",
)  # fmt: skip


@functools.cache
def _list_rows(basis: str) -> QuerySet[Quote]:
    """quote_list_rows of every team, per tax basis, built once per process: resolving the
    rent's expression tree cost a list request more than its SQL did. Never evaluated itself:
    each use is a filtered clone. Rows are named tuples of `LIST_ROW_FIELDS` (a model instance
    per quote, vendor, version and GPU cost more than the rows' SQL)."""
    from .filters import with_monthly_rent

    return with_monthly_rent(Quote.objects.all(), basis).values_list(*LIST_ROW_FIELDS, named=True)


def quote_get(*, team, pk: int) -> Quote:  # type: ignore[no-untyped-def]
    return quote_list(team=team).get(pk=pk)


def quote_compare(*, team, quote_ids: list[int] | None = None) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    """One column per vendor, each with the quotes of that vendor (current ones by default)."""
    qs = quote_list(team=team, current_only=not quote_ids)
    if quote_ids:
        qs = qs.filter(pk__in=quote_ids)
    columns: dict[int, dict] = {}  # type: ignore[type-arg]
    for quote in qs:
        col = columns.setdefault(quote.vendor_id, {"vendor": quote.vendor, "quotes": []})
        col["quotes"].append(quote)
    return list(columns.values())


def workload_list(*, team) -> QuerySet[WorkloadProfile]:  # type: ignore[no-untyped-def]
    return WorkloadProfile.objects.for_team(team).order_by("name", "pk")
