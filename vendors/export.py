"""The vendor list as CSV or XLSX: the page's filters and order, every page, the user's language."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from core.export import table_response
from core.templatetags.portal import bilingual

from .templatetags.vendor_rows import network_of


def _rows(vendors: Any) -> Iterator[list[Any]]:
    english = (get_language() or "").startswith("en")
    for v in vendors:
        dcs = list(v.data_centres.all())
        yield [
            bilingual(v, "name"), v.name_zh if english else v.name_en, v.short_name,
            v.credit_code, v.get_home_province_display(),
            "; ".join(f"{dc.city or dc.name} ({dc.get_ownership_display()})" for dc in dcs),
            "; ".join(sorted({n.get_fabric_display() for n in map(network_of, dcs) if n})),
            v.findings_critical, v.findings_warning, v.founded_year,
        ]  # fmt: skip


def vendor_list_export(fmt: str, vendors: Any) -> HttpResponse:
    """`vendors`: the list's filtered, sorted queryset with its data centres prefetched."""
    header = [
        _("Vendor"), _("Name in the other language"), _("Short name"), _("Credit code"),
        _("Registered in province"), _("Data centres"), _("Fabric"), _("Critical findings"),
        _("Warnings"), _("Founded"),
    ]  # fmt: skip
    stamp = timezone.localdate().isoformat()
    return table_response(
        fmt, f"{_('vendors')}-{stamp}", header, _rows(vendors), title=_("Vendors")
    )
