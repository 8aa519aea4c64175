from django.db import models
from django.utils.translation import gettext_lazy as _


class ReportKind(models.TextChoices):
    PDF = "pdf", _("PDF management report")
    XLSX = "xlsx", _("Excel workbook (XLSX)")
    CSV = "csv", _("Ranking table (CSV)")


CONTENT_TYPES = {
    ReportKind.PDF: "application/pdf",
    ReportKind.XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ReportKind.CSV: "text/csv; charset=utf-8",
}


class ListSource(models.TextChoices):
    QUOTES = "quotes", _("Quote list")
    VENDORS = "vendors", _("Vendor list")


class ListFormat(models.TextChoices):
    CSV = "csv", "CSV"
    XLSX = "xlsx", "XLSX"
