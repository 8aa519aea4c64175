"""Choices of the serving app."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class Precision(models.TextChoices):
    BF16 = "bf16", _("BF16")
    FP16 = "fp16", _("FP16")
    FP8 = "fp8", _("FP8")
    INT8 = "int8", _("INT8")
    INT4 = "int4", _("INT4")
    FP32 = "fp32", _("FP32")


class TrafficStatus(models.TextChoices):
    OK = "ok", _("Read")
    REFUSED = "refused", _("Refused")
