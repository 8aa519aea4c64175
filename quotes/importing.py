"""Import quotes from CSV or XLSX: every row goes through the same form as the create page.

Nothing is written while any row is bad, unless the user explicitly asks for the valid rows.
"""

from __future__ import annotations

import csv
import io
import zipfile
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.utils.translation import gettext as _

from vendors.models import DataCentre, Vendor

from .forms import QuoteForm
from .models import Quote
from .services import quote_create

COLUMNS = ("vendor", "data_centre", "label", "is_current") + tuple(QuoteForm.Meta.fields)
_TRUE = {"1", "true", "yes", "y", "是", "x"}
MAX_ROWS = 2000  # each row is validated like a form submission; more is a batch job, not a page
XLSX_MAX_INFLATED_BYTES = 50 * 1024 * 1024  # a sheet of MAX_ROWS quotes is well under 5 MB


class ImportFileError(Exception):
    """The file as a whole cannot be imported; the message is for the user."""


@dataclass
class ImportReport:
    created: list[Quote] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # "Row 3, nodes: ..." in the active language
    rows: int = 0
    bad_rows: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def _too_many_rows() -> ImportFileError:
    return ImportFileError(
        _("The file has more than %(max)s data rows; split it into smaller files.")
        % {"max": MAX_ROWS}
    )


def _rows_csv(raw: bytes) -> list[dict[str, Any]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFileError(
            _("The file is not UTF-8 text: save it as “CSV UTF-8” or as XLSX.")
        ) from exc
    if "\x00" in text:
        raise ImportFileError(_("The file contains NUL bytes: it is not a CSV text file."))
    rows: list[dict[str, Any]] = []
    # newline=None reads old Mac (\r), Unix and Windows line ends alike.
    for row in csv.DictReader(io.StringIO(text, newline=None)):
        if len(rows) == MAX_ROWS:
            raise _too_many_rows()
        rows.append(dict(row))
    return rows


def _check_xlsx_container(raw: bytes) -> None:
    """Refuse a zip bomb before openpyxl inflates it: zipfile never inflates a member past its
    declared size, so the declared sizes bound what reading the workbook can cost."""
    try:
        infos = zipfile.ZipFile(io.BytesIO(raw)).infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ImportFileError(_("The file is not a valid XLSX workbook (damaged zip).")) from exc
    if sum(i.file_size for i in infos) > XLSX_MAX_INFLATED_BYTES or len(infos) > 1000:
        raise ImportFileError(
            _("The XLSX file unpacks to more than %(mb)s MB; it is refused.")
            % {"mb": XLSX_MAX_INFLATED_BYTES // (1024 * 1024)}
        )


def _rows_xlsx(raw: bytes) -> list[dict[str, Any]]:
    from openpyxl import load_workbook

    _check_xlsx_container(raw)
    sheet = load_workbook(io.BytesIO(raw), read_only=True, data_only=True).worksheets[0]
    header: list[str] | None = None
    rows: list[dict[str, Any]] = []
    for r in sheet.iter_rows(values_only=True):
        if header is None:
            header = [str(h).strip() if h is not None else "" for h in r]
            continue
        if not any(c not in (None, "") for c in r):
            continue
        if len(rows) == MAX_ROWS:
            raise _too_many_rows()
        rows.append(dict(zip(header, r, strict=False)))
    return rows


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
    except ImportFileError as exc:
        report.errors.append(str(exc))
        return report
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
    good: list[tuple[int, dict[str, Any]]] = []
    for number, row in enumerate(rows, start=2):  # row 1 is the header
        form = QuoteForm(data=_form_data(row, team, vendors, dcs), team=team)
        if form.is_valid():
            good.append((number, form.cleaned_data))
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
    _create_rows(report, team, user, good, valid_rows)
    return report


class _Rollback(Exception):
    pass


def _create_rows(report: ImportReport, team, user, good, valid_rows: bool) -> None:  # type: ignore[no-untyped-def]
    """Create the checked rows; a row the service or the database still refuses is reported by
    its number and, unless only the valid rows were asked for, undoes the whole import."""
    created: list[Quote] = []
    try:
        with transaction.atomic():
            for number, data in good:
                try:
                    with transaction.atomic():
                        created.append(quote_create(team=team, user=user, data=data))
                except (ValidationError, DatabaseError) as exc:
                    messages = getattr(exc, "messages", None) or [_("it could not be saved.")]
                    report.bad_rows += 1
                    report.errors.extend(
                        _("Row %(row)s: %(msg)s") % {"row": number, "msg": m} for m in messages
                    )
                    if not valid_rows:
                        raise _Rollback from exc
    except _Rollback:
        created = []
    report.created = created
