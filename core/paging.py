"""Paging that sorts narrow rows: the page's ids first, then its full rows.

A list page that joins several tables (select_related) and sorts by a joined column makes the
database sort every matching row at full width before it can cut the page. Sorting only the
ids (with just the joins the ordering and the filters need) and loading the full rows of only
those 25–100 ids gives the same page for a fraction of the work; both happen in one query (the
ids as a sliced subquery), after the count.
"""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet


def page_by_ids(qs: QuerySet, per_page: int, number, rows: QuerySet | None = None) -> Page:  # type: ignore[type-arg,no-untyped-def]
    """The page `number` of `qs` (ordered), as `Paginator(qs, per_page).get_page(number)` would
    give it, but sorted on the ids alone. Rows come in `qs`'s order, loaded from `rows` when
    given (e.g. only the columns the page shows; it need not repeat `qs`'s filters, the ids are
    chosen already), else from `qs` with its own annotations and select_related joins."""
    ids = qs.values_list("pk", flat=True)
    page = Paginator(ids, per_page).get_page(number)
    # One query: the page's ids (sorted narrow, cut with LIMIT/OFFSET) as a subquery, and the
    # full rows of just those ids, sorted again in the same order.
    source = qs if rows is None else rows.order_by(*qs.query.order_by)
    page.object_list = list(source.filter(pk__in=page.object_list))
    return page
