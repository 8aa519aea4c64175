"""Import quotes from CSV or XLSX: every row goes through the same form as the create page.

Nothing is written while any row is bad, unless the user explicitly asks for the valid rows.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from vendors.models import DataCentre, Vendor

from .forms import QuoteForm
from .models import Quote
from .services import quote_create

COLUMNS = ("vendor", "data_centre", "label", "is_current") + tuple(QuoteForm.Meta.fields)
_TRUE = {"1", "true", "yes", "y", "是", "x"}


@dataclass
class ImportReport:
    created: list[Quote] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # "Row 3, nodes: ..." in the active language
    rows: int = 0
    bad_rows: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def _rows_csv(raw: bytes) -> list[dict[str, Any]]:
    text = raw.decode("utf-8-sig")
    return [dict(r) for r in csv.DictReader(io.StringIO(text))]


def _rows_xlsx(raw: bytes) -> list[dict[str, Any]]:
    from openpyxl import load_workbook

    sheet = load_workbook(io.BytesIO(raw), read_only=True, data_only=True).worksheets[0]
    rows = list(sheet.iter_rows(values_only=True))
    if not rows:
        return []
    header = [str(h).strip() if h is not None else "" for h in rows[0]]
    return [
        dict(zip(header, r, strict=False)) for r in rows[1:] if any(c not in (None, "") for c in r)
    ]


def read_rows(name: str, raw: bytes) -> list[dict[str, Any]]:
    return _rows_xlsx(raw) if name.lower().endswith(".xlsx") else _rows_csv(raw)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        return value.isoformat()[:10]
    return str(value).strip()


def _form_data(row: dict[str, Any], team, vendors: dict[str, int], dcs: dict[tuple[int, str], int]):  # type: ignore[no-untyped-def]
    data = {k: _cell(row.get(k)) for k in COLUMNS if k in row}
    vendor_name = data.get("vendor", "")
    data["vendor"] = str(vendors.get(vendor_name.lower(), vendor_name))
    vendor_id = vendors.get(vendor_name.lower())
    dc_name = data.get("data_centre", "")
    data["data_centre"] = str(dcs.get((vendor_id, dc_name.lower()), dc_name)) if dc_name else ""
    for flag in ("is_current", "whole_offer_only", "bandwidth_elastic"):
        if flag in data:
            data[flag] = "on" if data[flag].lower() in _TRUE else ""
        elif flag == "is_current":
            data[flag] = "on"
    data.setdefault("currency", "CNY")
    for key, default in (("nics_per_node", "1"), ("availability", "0.99"), ("term_months", "12"),
                         ("monthly_fees", "0"), ("trial_days", "0"), ("setup_fee", "0"),
                         ("storage_tb", "0"), ("storage_price_tb_month", "0"),
                         ("public_bandwidth_mbps", "0"), ("bandwidth_billing", "fixed"),
                         ("bandwidth_price", "0")):  # fmt: skip
        if not data.get(key):
            data[key] = default
    return data


def _lookups(team):  # type: ignore[no-untyped-def]
    vendors: dict[str, int] = {}
    for v in Vendor.objects.for_team(team).only("pk", "name_zh", "name_en", "short_name"):
        for name in (v.name_zh, v.name_en, v.short_name, str(v.pk)):
            if name:
                vendors.setdefault(name.lower(), v.pk)
    dcs = {
        (vendor_id, name.lower()): pk
        for pk, vendor_id, name in DataCentre.objects.filter(vendor__team=team).values_list(
            "pk", "vendor_id", "name"
        )
    }
    return vendors, dcs


def quotes_import(*, team, user, name: str, raw: bytes, valid_rows: bool = False) -> ImportReport:  # type: ignore[no-untyped-def]
    """Check every row, then create all (or, when asked, the valid ones) in one transaction."""
    report = ImportReport()
    try:
        rows = read_rows(name, raw)
    except Exception:  # noqa: BLE001 - any unreadable file gets one clear message
        report.errors.append(_("The file could not be read as CSV (UTF-8) or XLSX."))
        return report
    if not rows:
        report.errors.append(_("The file has no data rows."))
        return report
    missing = [c for c in ("vendor", "label", "gpu", "nodes") if c not in rows[0]]
    if missing:
        report.errors.append(_("Missing columns: %(cols)s.") % {"cols": ", ".join(missing)})
        return report
    vendors, dcs = _lookups(team)
    good: list[dict[str, Any]] = []
    for number, row in enumerate(rows, start=2):  # row 1 is the header
        form = QuoteForm(data=_form_data(row, team, vendors, dcs), team=team)
        if form.is_valid():
            good.append(form.cleaned_data)
            continue
        report.bad_rows += 1
        for fname, messages in form.errors.items():
            for message in messages:
                report.errors.append(
                    _("Row %(row)s, %(field)s: %(msg)s")
                    % {"row": number, "field": fname, "msg": message}
                )
    report.rows = len(rows)
    if report.errors and not valid_rows:
        return report
    with transaction.atomic():
        for data in good:
            report.created.append(quote_create(team=team, user=user, data=data))
    return report
