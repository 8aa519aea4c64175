"""Downloads of the list pages (quotes, vendors) as jobs: the request stores what to build (the
list, the format, the language, the page's filters and order) and a worker builds the file.

The row's ``key`` holds the list's change stamp (how many rows the filters select and when the
newest of them changed, the team's tax basis for the quote rents): asking again for an unchanged
list answers with the same file; a quote edited since gets a new file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Count, Max, Prefetch, QuerySet
from django.http import QueryDict
from django.utils import timezone, translation
from django.utils.text import get_valid_filename
from django.utils.translation import gettext_lazy as _

from core.models import JobStatus
from quotes.export import quote_list_export
from quotes.filters import QuoteListFilter, with_monthly_rent
from quotes.selectors import quote_list
from vendors.export import vendor_list_export
from vendors.filters import VendorFilter
from vendors.models import DataCentre
from vendors.selectors import vendor_filterset

from .choices import ListFormat, ListSource
from .models import ListExport

Progress = Callable[[int], None]
IGNORED = {"page", "per_page"}  # the download holds every page


@dataclass(frozen=True)
class Source:
    #: the list's filtered, ordered queryset for a team and the page's query parameters
    rows: Callable[[Any, QueryDict], QuerySet[Any]]
    #: the file as the list's app writes it: (format, rows) -> a response carrying the bytes
    write: Callable[[str, QuerySet[Any]], Any]
    #: the query parameters that shape the list (its filters and ``sort``); others are ignored,
    #: so junk parameters neither change the file nor make new jobs
    keys: Callable[[], set[str]] = set
    #: what besides the rows changes the file (the team's tax basis for quote rents)
    also: Callable[[Any], str] = lambda team: ""


def _quotes(team, data: QueryDict) -> QuerySet[Any]:  # type: ignore[no-untyped-def]
    qs = with_monthly_rent(quote_list(team=team), team.tax_basis)
    return QuoteListFilter(data or None, queryset=qs, team=team).qs


# The vendor export prints each data centre's city (or name), ownership and fabric only.
_DATA_CENTRES = Prefetch(
    "data_centres",
    queryset=DataCentre.objects.select_related("network")
    .only("pk", "vendor_id", "name", "city", "ownership", "network__id", "network__fabric")
    .order_by("pk"),
)


def _vendors(team, data: QueryDict) -> QuerySet[Any]:  # type: ignore[no-untyped-def]
    return vendor_filterset(team=team, data=data).qs.prefetch_related(_DATA_CENTRES)


def _keys(filterset: Any) -> Callable[[], set[str]]:
    return lambda: {*filterset.base_filters, "sort"}


SOURCES: dict[str, Source] = {
    ListSource.QUOTES: Source(_quotes, quote_list_export, _keys(QuoteListFilter),
                              lambda team: team.tax_basis),
    ListSource.VENDORS: Source(_vendors, vendor_list_export, _keys(VendorFilter)),
}  # fmt: skip


NAMES = {ListSource.QUOTES: _("quotes"), ListSource.VENDORS: _("vendors")}


def _params(source: str, data: QueryDict) -> str:
    """The list's own parameters in one canonical order (no page number, nothing unknown)."""
    keys = SOURCES[source].keys() - IGNORED
    pairs = sorted((k, v) for k in data for v in data.getlist(k) if k in keys)
    return urlencode(pairs)[:2000]


def list_stamp(source: str, team, data: QueryDict) -> str:  # type: ignore[no-untyped-def]
    """How many rows the filters select and when the newest changed: one aggregate query."""
    rows = SOURCES[source].rows(team, data).order_by()
    agg = rows.aggregate(n=Count("pk"), last=Max("updated_at"))
    last = agg["last"].isoformat() if agg["last"] else "-"
    return f"{agg['n']}:{last}:{SOURCES[source].also(team)}"


def list_export_request(
    *, team, user, source: str, fmt: str, data: QueryDict, restart: bool = False
) -> tuple[ListExport, bool]:  # type: ignore[no-untyped-def]
    """The one row of this download; True when this call created it or (``restart``) took a
    failed one back to pending: then it alone sends it to a worker, after the commit."""
    if source not in SOURCES or fmt not in ListFormat.values:
        raise ValueError(f"{source}.{fmt}")
    language = translation.get_language() or "zh-hans"
    params = _params(source, data)
    stamp = list_stamp(source, team, data)
    key = hashlib.sha256("|".join((source, fmt, language, params, stamp)).encode()).hexdigest()
    with transaction.atomic():
        export, created = ListExport.objects.get_or_create(
            team=team, key=key,
            defaults={"source": source, "fmt": fmt, "language": language, "params": params,
                      "created_by": user},
        )  # fmt: skip
        restarted = not created and restart and bool(
            ListExport.objects.filter(pk=export.pk, status=JobStatus.FAILED).update(
                status=JobStatus.PENDING, progress=0, error="", attempts=0, finished_at=None,
                queued_at=timezone.now(),
            )
        )  # fmt: skip
        if restarted:
            export.refresh_from_db()
        start = created or restarted
        if start:
            transaction.on_commit(lambda: _enqueue(export))
    return export, start


def _enqueue(export: ListExport) -> bool:
    from core import jobs

    return jobs.submit("list_export", export)


def list_export_generate(*, export_id: int, progress: Progress | None = None) -> ListExport:
    """Build the list's file (rows streamed from the database by the app's writer) and store
    it with its hash; running it again replaces the file."""
    export = ListExport.objects.select_related("team").get(pk=export_id)
    tick = progress or (lambda p: None)
    data = QueryDict(export.params)
    with translation.override(export.language):
        rows = SOURCES[export.source].rows(export.team, data)
        tick(20)
        response = SOURCES[export.source].write(export.fmt, rows)
        filename = get_valid_filename(f"{NAMES[export.source]}-{timezone.localdate():%Y-%m-%d}")
    tick(90)
    content = response.content
    old = export.file.name if export.file else ""
    export.file.save(f"{export.source}-{export.pk}.{export.fmt}", ContentFile(content), save=False)
    ListExport.objects.filter(pk=export.pk).update(
        file=export.file.name, filename=f"{filename[:190]}.{export.fmt}",
        sha256=hashlib.sha256(content).hexdigest(), size_bytes=len(content),
    )  # fmt: skip
    if old and old != export.file.name:
        export.file.storage.delete(old)
    return export
