"""Choices of the quotes app (fabric choices are shared with vendors' network profiles)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from vendors.choices import Fabric  # noqa: F401 - re-exported: one list of fabrics in the portal


class MeasuredKind(models.TextChoices):
    LINK = "link", _("Link test (iperf3 / perftest)")
    COLLECTIVE = "collective", _("Collective test (nccl-tests busbw)")


class BandwidthBilling(models.TextChoices):
    FIXED = "fixed", _("Fixed (N Mbit/s per month)")
    PER_GB = "per_gb", _("Per GB of traffic")
    P95 = "p95", _("95th percentile of 5-minute samples")

    @classmethod
    def label_of(cls, code: str | None) -> str:
        """The model's name in the active language; an unknown code as it is; "" for none."""
        if not code:
            return ""
        try:
            return str(cls(code).label)
        except ValueError:
            return str(code)


class InvoiceType(models.TextChoices):
    """The invoice a vendor issues (domain/money.py: only a 专票 makes input VAT deductible)."""

    SPECIAL = "special", _("Special VAT invoice (专票)")
    ORDINARY = "ordinary", _("Ordinary VAT invoice (普票)")
    NONE = "none", _("No invoice")


class Strategy(models.TextChoices):
    DDP = "ddp", _("DDP")
    ZERO1 = "zero1", _("ZeRO-1")
    ZERO2 = "zero2", _("ZeRO-2")
    FSDP = "fsdp", _("FSDP")
    ZERO3 = "zero3", _("ZeRO-3")


CURRENCY_CHOICES = (
    ("CNY", _("CNY (yuan)")),
    ("USD", _("USD")),
    ("EUR", _("EUR")),
    ("HKD", _("HKD")),
    ("JPY", _("JPY")),
    ("SGD", _("SGD")),
)
