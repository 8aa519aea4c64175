"""Choices of the benchmarks app."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class TestKind(models.TextChoices):
    TCP = "tcp", _("TCP throughput")
    UDP = "udp", _("UDP throughput")
    RDMA_BW = "rdma_bw", _("RDMA bandwidth")
    RDMA_LAT = "rdma_lat", _("RDMA latency")
    NCCL = "nccl", _("NCCL collective")


class Verdict(models.TextChoices):
    PENDING = "", _("Not judged yet")
    PASS = "pass", _("Pass")
    WARN = "warn", _("Warning")
    FAIL = "fail", _("Fail")
    UNKNOWN = "unknown", _("Cannot judge")


class RunFabric(models.TextChoices):
    UNKNOWN = "", _("Unknown")
    IB = "ib", _("InfiniBand")
    ROCE = "roce", _("RoCE (RDMA over Ethernet)")
    TCP = "tcp", _("TCP / Ethernet")


class StartedTogether(models.TextChoices):
    """The uploader's declaration that a run's tests were started at the same time: only "yes"
    makes its logs without a clock one simultaneous test (domain/evidence/sets.py)."""

    NOT_STATED = "", _("Not stated")
    YES = "yes", _("Yes, started at the same time")
    NO = "no", _("No")


class MeasuredKind(models.TextChoices):
    NONE = "", _("None")
    LINK = "link", _("Point-to-point link")
    COLLECTIVE = "collective", _("Collective (bus bandwidth)")


class TrustLevel(models.TextChoices):
    """Who ran a log's test and what it proves of that (domain/evidence/trust.py)."""

    WITNESSED = "witnessed", _("Witnessed by the team")
    KIT_VERIFIED = "kit_verified", _("Kit-verified")
    SUPPLIED = "supplied", _("Supplied by the vendor")
