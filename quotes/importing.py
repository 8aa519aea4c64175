"""Import quotes from CSV or XLSX: every row goes through the same form as the create page.

Nothing is written while any row is bad, unless the user explicitly asks for the valid rows.
Vendors, data centres and GPUs are read once per file and the rows are written in bulk, so the
number of queries does not grow with the rows (2,000 rows, the limit, take a few seconds).
"""

from __future__ import annotations

import codecs
import csv
import io
import zipfile
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import DatabaseError, transaction
from django.utils.translation import gettext as _

from vendors.models import DataCentre, Vendor

from .forms import QuoteForm
from .models import GpuModel, Quote
from .services import QuoteRowsError, quote_create, quotes_bulk_create

COLUMNS = ("vendor", "data_centre", "label", "is_current") + tuple(QuoteForm.Meta.fields)
COLUMNS += ("confirm_outliers",)  # yes: the row's unusual values are confirmed (plausibility)
_TRUE = {"1", "true", "yes", "y", "是", "x"}
_FALSE = {"0", "false", "no", "n", "否"}
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


# Signatures of binary files a user may rename to .csv by mistake (an image, a PDF, an archive
# or an old Excel file): named as such instead of read as a garbled header.
BINARY_SIGNATURES = (
    b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"%PDF", b"PK\x03\x04", b"\xd0\xcf\x11\xe0",
    b"RIFF", b"\x1f\x8b",
)  # fmt: skip
SNIFF_BYTES = 4096


def _looks_binary(raw: bytes) -> bool:
    if raw.startswith(BINARY_SIGNATURES):
        return True
    head = raw[:SNIFF_BYTES]
    if b"\x00" not in head:
        try:  # (a character cut at the end of the sniffed bytes is not an error)
            codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        except UnicodeDecodeError:
            pass
        else:
            # UTF-8 text: a stray control character is a bad cell, reported with its row and
            # column (two in one cell of a short file are over 1 % of its bytes)
            return False
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 13))
    return bool(head) and controls / len(head) > 0.01


def _rows_csv(raw: bytes) -> list[dict[str, Any]]:
    if _looks_binary(raw):
        raise ImportFileError(
            _(
                "This is not a text file (it looks like an image or another binary file): "
                "save the sheet as “CSV UTF-8” or as XLSX."
            )
        )
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


def _form_data(row: dict[str, Any], vendors: dict[str, int], dcs: dict[tuple[int, str], int]):  # type: ignore[no-untyped-def]
    data = {k: _cell(row.get(k)) for k in COLUMNS if k in row}
    vendor_name = data.get("vendor", "")
    data["vendor"] = str(vendors.get(vendor_name.lower(), vendor_name))
    vendor_id = vendors.get(vendor_name.lower())
    dc_name = data.get("data_centre", "")
    data["data_centre"] = str(dcs.get((vendor_id, dc_name.lower()), dc_name)) if dc_name else ""
    for flag in ("is_current", "whole_offer_only", "bandwidth_elastic", "confirm_outliers"):
        if flag in data:
            data[flag] = "on" if data[flag].lower() in _TRUE else ""
        elif flag == "is_current":
            data[flag] = "on"
    if data.get("rail_optimised"):  # yes / no / empty (unknown: assumed on the ranking page)
        word = data["rail_optimised"].lower()  # another word stays, and the form refuses it
        data["rail_optimised"] = "true" if word in _TRUE else "false" if word in _FALSE else word
    data.setdefault("currency", "CNY")
    _tax_cells(data)
    for key, default in (("nics_per_node", "1"), ("availability", "0.99"), ("term_months", "12"),
                         ("monthly_fees", "0"), ("trial_days", "0"), ("setup_fee", "0"),
                         ("storage_tb", "0"), ("storage_price_tb_month", "0"),
                         ("public_bandwidth_mbps", "0"), ("bandwidth_billing", "fixed"),
                         ("bandwidth_price", "0")):  # fmt: skip
        if not data.get(key):
            data[key] = default
    return data


# Spreadsheet words for the VAT terms (domain/money.py); anything else reaches the form as written
# and is refused there with a message naming what is accepted.
_VAT_INCLUDED = {"含税": "true", "是": "true", "yes": "true", "y": "true", "1": "true",
                 "true": "true", "不含税": "false", "否": "false", "no": "false", "n": "false",
                 "0": "false", "false": "false", "": "unknown"}  # fmt: skip
_INVOICES = {"专票": "special", "专用发票": "special", "增值税专用发票": "special",
             "普票": "ordinary", "普通发票": "ordinary", "增值税普通发票": "ordinary",
             "无": "none", "不开票": "none", "无发票": "none"}  # fmt: skip


def _tax_cells(data: dict[str, Any]) -> None:
    if "prices_include_vat" in data:
        raw = data["prices_include_vat"]
        data["prices_include_vat"] = _VAT_INCLUDED.get(raw.lower(), raw)
    if "vat_rate" in data:
        data["vat_rate"] = data["vat_rate"].rstrip("%％ ")
    if "invoice_type" in data:
        raw = data["invoice_type"]
        data["invoice_type"] = _INVOICES.get(raw, raw.lower())


class _Choice(forms.Field):
    """A choice among rows fetched once for the whole file (a form's ModelChoiceField runs one
    query per row); unknown values get the message of the field it replaces."""

    def __init__(self, rows: dict[str, Any], replaces: forms.Field) -> None:
        super().__init__(required=replaces.required, label=replaces.label)
        self.rows = rows
        self.error_messages = dict(replaces.error_messages)

    def to_python(self, value: Any) -> Any:
        if value in self.empty_values:
            return None
        try:
            return self.rows[str(value)]
        except KeyError:
            raise ValidationError(
                self.error_messages["invalid_choice"], code="invalid_choice",
                params={"value": value},
            ) from None  # fmt: skip


@dataclass
class _Lookups:
    """The team's vendors, data centres and the GPU table, read once per import."""

    vendor_ids: dict[str, int]  # any name of a vendor (lower case) or its id -> id
    dc_ids: dict[tuple[int, str], int]  # (vendor id, data centre name in lower case) -> id
    vendors: dict[str, Vendor]  # str(id) -> vendor
    dcs: dict[str, DataCentre]  # str(id) -> data centre
    gpus: dict[str, GpuModel]  # key -> GPU


def _lookups(team) -> _Lookups:  # type: ignore[no-untyped-def]
    vendor_ids: dict[str, int] = {}
    vendors = {}
    for v in Vendor.objects.for_team(team).only(
        "pk", "team_id", "name_zh", "name_en", "short_name"
    ):
        vendors[str(v.pk)] = v
        for name in (v.name_zh, v.name_en, v.short_name, str(v.pk)):
            if name:
                vendor_ids.setdefault(name.lower(), v.pk)
    dcs = {
        str(dc.pk): dc
        for dc in DataCentre.objects.filter(vendor__team=team).only("pk", "vendor_id", "name")
    }
    dc_ids = {(dc.vendor_id, dc.name.lower()): dc.pk for dc in dcs.values()}
    gpus = {g.key: g for g in GpuModel.objects.all()}
    return _Lookups(vendor_ids, dc_ids, vendors, dcs, gpus)


class ImportRowForm(QuoteForm):
    """QuoteForm for one imported row: the same fields, messages and rules, with vendors, data
    centres and GPUs from the import's lookups, and no query per row. The model's check
    constraints are not queried one by one: `quote_version_errors` (in `QuoteForm.clean`) holds
    the same rules, and the database checks them again on insert. Use `row_form_class`."""

    def __init__(self, *args, team, **kwargs):  # type: ignore[no-untyped-def]
        # not QuoteForm.__init__: its querysets are replaced by the lookups' choices
        forms.ModelForm.__init__(self, *args, **kwargs)
        self.team = team

    def _clean_fields(self) -> None:
        # Django's own loop, without building a BoundField per field and row (a fifth of an
        # import's time): these forms are never rendered, have no prefix nor disabled fields.
        for name, form_field in self.fields.items():
            try:
                value = form_field.widget.value_from_datadict(self.data, self.files, name)
                self.cleaned_data[name] = form_field.clean(value)
                if hasattr(self, f"clean_{name}"):
                    self.cleaned_data[name] = getattr(self, f"clean_{name}")()
            except ValidationError as e:
                self.add_error(name, e)

    def _post_clean(self) -> None:
        exclude = self._get_validation_exclusions() | {"quote", "number", "gpu", "created_by"}
        try:
            self.instance = forms.models.construct_instance(self, self.instance, self._meta.fields)
            self.instance.full_clean(
                exclude=exclude, validate_unique=False, validate_constraints=False
            )
        except forms.ValidationError as e:
            self._update_errors(e)


def row_form_class(lookups: _Lookups) -> type[ImportRowForm]:
    """ImportRowForm with the lookups' choices declared on the class, so that each row's form
    shares them (a form copies its declared fields; these copies keep one dict of rows)."""
    fields = {
        name: _Choice(rows, QuoteForm.base_fields[name])
        for name, rows in (("vendor", lookups.vendors), ("data_centre", lookups.dcs),
                           ("gpu", lookups.gpus))
    }  # fmt: skip
    vendor_messages = fields["vendor"].error_messages
    vendor_messages["invalid_choice"] = _("Unknown vendor: choose one of your team's vendors.")
    form_class = type("ImportRowForm", (ImportRowForm,), fields)
    form_class.base_fields = _SharedFields(form_class.base_fields)
    return form_class


class _SharedFields(dict):  # type: ignore[type-arg]
    """A row form's fields, shared by the rows' forms instead of copied for each: a form only
    reads its fields while it cleans, and these forms are never rendered nor changed (copying
    29 fields with their widgets for every row was the largest cost of an import)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, forms.Field]:
        return dict(self)


def quotes_import(*, team, user, name: str, raw: bytes, valid_rows: bool = False) -> ImportReport:  # type: ignore[no-untyped-def]
    """Check every row, then create all (or, when asked, the valid ones) in one transaction.

    A fixed number of queries whatever the row count: the lookups once, then three inserts and
    an update (`quotes_bulk_create`)."""
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
    lookups = _lookups(team)
    form_class = row_form_class(lookups)
    good: list[tuple[int, dict[str, Any]]] = []
    for number, row in enumerate(rows, start=2):  # row 1 is the header
        data = _form_data(row, lookups.vendor_ids, lookups.dc_ids)
        form = form_class(data=data, team=team)
        if form.is_valid():
            good.append((number, form.cleaned_data))
            continue
        report.bad_rows += 1
        for fname, messages in form.errors.items():
            for message in messages:
                report.errors.append(
                    _("Row %(row)s: %(msg)s") % {"row": number, "msg": message}
                    if fname == NON_FIELD_ERRORS
                    else _("Row %(row)s, %(field)s: %(msg)s")
                    % {"row": number, "field": fname, "msg": message}
                )
    report.rows = len(rows)
    if report.errors and not valid_rows:
        return report
    if good:
        _create_rows(report, team, user, good, valid_rows)
    return report


def _row_errors(report: ImportReport, number: int, messages: list[str]) -> None:
    report.bad_rows += 1
    report.errors.extend(_("Row %(row)s: %(msg)s") % {"row": number, "msg": m} for m in messages)


def _create_rows(report: ImportReport, team, user, good, valid_rows: bool) -> None:  # type: ignore[no-untyped-def]
    """Create the checked rows in one go. A row the service still refuses is reported by its
    number; so is a row the database refuses, found by creating the rows one by one (slow, but
    only after a failure nothing in the checks foresaw). Without `valid_rows`, any refused row
    leaves the import empty."""
    try:
        with transaction.atomic():
            report.created = quotes_bulk_create(
                team=team, user=user, rows=[data for _n, data in good]
            )
        return
    except QuoteRowsError as exc:
        refused = {good[index][0]: messages for index, messages in exc.rows.items()}
    except DatabaseError:
        refused = _refused_one_by_one(team, user, good)
        if not refused:  # no single row fails: the batch as a whole did
            report.errors.append(_("The quotes could not be saved; nothing was imported."))
            return
    for number in sorted(refused):
        _row_errors(report, number, refused[number] or [_("it could not be saved.")])
    if valid_rows:
        rest = [(n, data) for n, data in good if n not in refused]
        if rest:
            _create_rows(report, team, user, rest, valid_rows)


class _Rollback(Exception):
    pass


def _refused_one_by_one(team, user, good) -> dict[int, list[str]]:  # type: ignore[no-untyped-def]
    """Row number -> messages of the rows the database refuses, each tried in a savepoint; the
    whole trial is rolled back."""
    refused: dict[int, list[str]] = {}
    try:
        with transaction.atomic():
            for number, data in good:
                try:
                    with transaction.atomic():
                        quote_create(team=team, user=user, data=data)
                except (ValidationError, DatabaseError) as exc:
                    refused[number] = list(getattr(exc, "messages", None) or [])
            raise _Rollback
    except _Rollback:
        pass
    return refused
