"""Choices of the contracts app."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class ContractStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    SIGNED = "signed", _("Signed")
    ENDED = "ended", _("Ended")
    TERMINATED = "terminated", _("Terminated")


class BandwidthSource(models.TextChoices):
    """Where the committed per-server bandwidth figure came from."""

    QUOTE = "quote", _("The quote (NIC ports)")
    MEASURED = "measured", _("The quote's measured evidence")
    ACCEPTANCE = "acceptance", _("The award's acceptance test")
    AGREED = "agreed", _("Agreed in the contract")


class UploadKind(models.TextChoices):
    PROMETHEUS_JSON = "prometheus_json", _("Prometheus range query answer (JSON)")
    CSV = "csv", _("Time series (CSV)")
    KIT_LOG = "kit_log", _("Delivery kit log")


class UploadOrigin(models.TextChoices):
    USER = "user", _("Uploaded by the team")
    KIT = "kit", _("Delivery kit (token)")
    PROMETHEUS = "prometheus", _("Pulled from Prometheus")


class IncidentKind(models.TextChoices):
    OUTAGE = "outage", _("Outage")
    DEGRADED = "degraded", _("Degraded service")
    HARDWARE = "hardware", _("Hardware fault")
