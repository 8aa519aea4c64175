"""Choices of the rankings app."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class RiskAction(models.TextChoices):
    """What a severity of finding does to an offer (domain.eligibility.ACTIONS)."""

    EXCLUDE = "exclude", _("Exclude the offer")
    PREMIUM = "premium", _("Rank with a risk mark and a premium")
    MARK = "mark", _("Rank with a risk mark")
    IGNORE = "ignore", _("Ignore")


class UnverifiedSeverity(models.TextChoices):
    CRITICAL = "critical", _("critical finding")
    WARNING = "warning", _("warning")
    INFO = "info", _("notice")
    NONE = "none", _("no risk")
