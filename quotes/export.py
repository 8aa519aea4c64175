"""Downloads of the quotes app: the filtered, sorted quote list (every page of it) and the
import template, as CSV or XLSX, in the user's language."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from typing import Any

from django.http import HttpResponse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.export import table_response
from core.templatetags.portal import bilingual

from .importing import COLUMNS
from .models import Quote, QuoteVersion


def _header() -> list[str]:
    return [
        _("Vendor"), _("Quote"), _("Current"), _("GPU model"), _("Nodes"), _("GPUs per node"),
        _("NICs per node"), _("NIC (Gbit/s)"), _("Fabric"),
        _("Rent per month (CNY, comparison basis)"), _("Quote currency"),
        _("Measured bandwidth (Gbit/s)"), _("Measured by"), _("Version"), _("Last change"),
    ]  # fmt: skip


def _rows(quotes: Any) -> Iterator[list[Any]]:
    yes, no = _("yes"), _("no")
    fabrics = {k: str(v) for k, v in QuoteVersion._meta.get_field("fabric").flatchoices}
    kinds = {k: str(v) for k, v in Quote._meta.get_field("measured_kind").flatchoices}
    tz = timezone.get_current_timezone()
    for q in quotes.iterator(chunk_size=1000):
        v = q.current_version
        yield [
            bilingual(q.vendor, "name"), q.label, yes if q.is_current else no,
            v.gpu.key if v and v.gpu else None, v.nodes if v else None,
            v.gpus_per_node if v else None, v.nics_per_node if v else None,
            v.nic_gbps if v else None, fabrics.get(v.fabric, v.fabric) if v else None,
            round(q.rent, 2) if q.rent is not None else None, v.currency if v else None,
            q.measured_typical_gbps,
            kinds.get(q.measured_kind, q.measured_kind) if q.measured_typical_gbps else None,
            f"v{v.number}" if v else None,
            timezone.localtime(q.updated_at, tz).strftime("%Y-%m-%d %H:%M"),
        ]  # fmt: skip


def quote_list_export(fmt: str, quotes: Any) -> HttpResponse:
    """`quotes`: the list's filtered, sorted queryset (with `rent`: filters.with_monthly_rent)."""
    stamp = timezone.localdate().isoformat()
    return table_response(
        fmt, f"{_('quotes')}-{stamp}", _header(), _rows(quotes), title=_("Quotes")
    )


# -- the import template -----------------------------------------------------------------------

# One plausible row of the import's columns (the vendor's name is the team's first vendor's
# when it has one, so the example imports as it is).
EXAMPLE: dict[str, Any] = {
    "vendor": "", "data_centre": "", "label": "", "is_current": "yes",
    "gpu": "H100-SXM", "gpus_per_node": 8, "nodes": 4, "price_per_node_month": 98000,
    "currency": "CNY", "fx_to_cny": 1, "monthly_fees": 0, "nic_gbps": 400, "nics_per_node": 8,
    "fabric": "ib", "rack_uplink_gbps": "", "servers_per_rack": "", "availability": Decimal("0.99"),
    "whole_offer_only": "no", "term_months": 12, "trial_days": 7, "valid_until": "",
    "setup_fee": 0, "storage_tb": 0, "storage_price_tb_month": 0, "public_bandwidth_mbps": 100,
    "bandwidth_billing": "fixed", "bandwidth_price": 30, "bandwidth_elastic": "no", "notes": "",
    # tax basis (domain/money.py): the price excludes VAT at 6 %, a special VAT invoice is issued
    "prices_include_vat": "no", "vat_rate": 6, "invoice_type": "special",
    # inputs of the training-time model v2: empty means the assumed default (docs/MODEL.md)
    "rail_optimised": "", "storage_write_gbyte_s": "", "repair_hours": "", "spare_nodes": "",
    "confirm_outliers": "no",
}  # fmt: skip


def _field(name: str) -> Any:
    if name == "confirm_outliers":  # not a model field: the import's own confirmation column
        from django.db import models

        return models.BooleanField(
            _("confirm unusual values"),
            help_text=_("yes: the row's unusual values (a soft-bound warning) are right"),
        )
    model = Quote if name in ("vendor", "data_centre", "label", "is_current") else QuoteVersion
    return model._meta.get_field(name)


def _help(name: str) -> str:
    """What the column holds, in the active language: the field's name, its help, its codes."""
    from .forms import QuoteForm

    field = _field(name)
    form_field = QuoteForm.base_fields.get(name)
    parts = [
        str(form_field.label if form_field is not None and form_field.label else field.verbose_name)
    ]
    if field.help_text:
        parts.append(str(field.help_text))
    if field.choices:
        parts.append(", ".join(f"{k} = {v}" for k, v in field.flatchoices if k != ""))
    if name == "vendor":
        parts.append(_("the vendor's name as in the vendor list (Chinese or English)"))
    elif name == "gpu":
        parts.append(_("a key of the GPU table, e.g. H100-SXM"))
    elif field.get_internal_type() == "BooleanField":
        parts.append(_("yes or no"))
    elif field.get_internal_type() == "DateField":
        parts.append(_("date as YYYY-MM-DD"))
    required = form_field is not None and form_field.required
    parts.append(_("required") if required else _("optional"))
    return "; ".join(parts)


def import_template(fmt: str, vendor_name: str = "") -> HttpResponse:
    """The import's exact columns, a header row and one example row; the XLSX has a second
    sheet explaining every column in English and Chinese (the import reads the first sheet
    only, so the help never becomes a row)."""
    example = dict(EXAMPLE, vendor=vendor_name or _("Example Compute Co."))
    example["label"] = _("H100, 4 nodes, 12 months")
    example["valid_until"] = date(timezone.localdate().year + 1, 12, 31).isoformat()
    row = [example[c] for c in COLUMNS]
    help_rows = []
    for c in COLUMNS:
        with translation.override("en"):
            en = _help(c)
        with translation.override("zh-hans"):
            zh = _help(c)
        help_rows.append([c, en, zh])
    help_sheet = (_("Help"), ["column", "English", "中文"], help_rows)
    return table_response(
        fmt, "quote-import-template", list(COLUMNS), [row], title=_("Quotes"),
        extra_sheets=[help_sheet],
    )  # fmt: skip
