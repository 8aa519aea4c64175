"""Benchmark evidence: uploaded logs, the concurrent test runs they belong to, and thresholds."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.models import Job, TeamScoped
from domain import labels
from domain.benchlogs.verdict import DEFAULT_THRESHOLDS

from .choices import MeasuredKind, RunFabric, StartedTogether, TestKind, TrustLevel, Verdict

VERDICTS = [v for v, _label in Verdict.choices]


def log_upload_path(instance: BenchmarkLog, filename: str) -> str:
    """Raw files live under MEDIA_ROOT/benchmarks/<team>/<sha256 prefix>/, never under a URL."""
    return f"benchmarks/team-{instance.team_id}/{instance.sha256[:2]}/{instance.sha256}.log"


class TestRun(TeamScoped, Job):
    """Logs from pairs of servers that ran at the same time, judged together.

    The summary fields are written by ``test_run_summarise`` from the parsed logs; ``tail_p5_gbps``
    (P5 over every pair's intervals) is the measured figure the cost model uses.
    """

    __test__ = False  # not a pytest class, despite the name

    vendor = models.ForeignKey(
        "vendors.Vendor",
        on_delete=models.CASCADE,
        related_name="test_runs",
        verbose_name=_("vendor"),
    )
    data_centre = models.ForeignKey(
        "vendors.DataCentre",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="test_runs",
        verbose_name=_("data centre"),
    )
    quote = models.ForeignKey(
        "quotes.Quote",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="test_runs",
        verbose_name=_("quote"),
        help_text=_("The quote this run is evidence for; its measured bandwidth is updated."),
    )
    name = models.CharField(_("name"), max_length=200)
    notes = models.TextField(_("notes"), blank=True)
    line_rate_gbps = models.DecimalField(
        _("line rate per port (Gbit/s)"),
        max_digits=7,
        decimal_places=1,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.1"))],
        help_text=_("Leave empty to use the data centre's NIC port speed."),
    )
    fabric = models.CharField(_("fabric"), max_length=8, choices=RunFabric.choices, blank=True)
    started_together = models.CharField(
        _("tests started at the same time"),
        max_length=3,
        choices=StartedTogether.choices,
        blank=True,
        default=StartedTogether.NOT_STATED,
        help_text=_(
            'Only "yes" makes logs without a clock (perftest, nccl-tests, iperf3 text) on '
            "distinct links one simultaneous test; otherwise they are counted link by link."
        ),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    # Summary (written by the summarise service only).
    pairs = models.PositiveIntegerField(_("pairs"), default=0)
    aggregate_gbps = models.FloatField(_("aggregate (Gbit/s)"), null=True, blank=True)
    min_pair_gbps = models.FloatField(_("slowest pair (Gbit/s)"), null=True, blank=True)
    max_pair_gbps = models.FloatField(_("fastest pair (Gbit/s)"), null=True, blank=True)
    jain_index = models.FloatField(_("Jain's fairness index"), null=True, blank=True)
    aggregate_vs_line = models.FloatField(
        _("aggregate / (pairs × line rate)"), null=True, blank=True
    )
    tail_p5_gbps = models.FloatField(_("tail P5 (Gbit/s)"), null=True, blank=True)
    p50_gbps = models.FloatField(_("median interval (Gbit/s)"), null=True, blank=True)
    measured_kind = models.CharField(
        _("measured kind"), max_length=16, choices=MeasuredKind.choices, blank=True
    )
    effective_line_rate_gbps = models.FloatField(
        _("line rate used (Gbit/s)"), null=True, blank=True
    )
    verdict = models.CharField(_("verdict"), max_length=8, choices=Verdict.choices, blank=True)
    verdict_reasons = models.JSONField(_("verdict reasons"), default=list, blank=True)
    # The domain's notes on the run, written by the summary; None for runs summarised before.
    run_notes = models.JSONField(_("notes on the run"), null=True, blank=True, editable=False)
    summarised_at = models.DateTimeField(_("summarised at"), null=True, blank=True)

    class Meta:
        verbose_name = _("test run")
        verbose_name_plural = _("test runs")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(line_rate_gbps__isnull=True) | Q(line_rate_gbps__gt=0),
                name="testrun_line_rate_positive",
            ),
            models.CheckConstraint(
                condition=Q(jain_index__isnull=True) | Q(jain_index__gte=0, jain_index__lte=1),
                name="testrun_jain_in_unit_interval",
            ),
            models.CheckConstraint(condition=Q(verdict__in=VERDICTS), name="testrun_verdict_valid"),
            models.CheckConstraint(condition=~Q(name=""), name="testrun_has_a_name"),
        ]

    def __str__(self) -> str:
        return f"{self.name_shown} ({self.vendor})" if self.vendor_id else self.name_shown

    @property
    def name_shown(self) -> str:
        """The name in the reader's language where the portal generated it (an RFQ's evidence or
        acceptance test; domain/labels.py)."""
        return labels.shown(self.name, get_language())


class BenchmarkLog(TeamScoped, Job):
    """One uploaded log file, kept as evidence with its SHA-256, uploader and time.

    The raw file is kept even when it cannot be parsed; ``error_en`` / ``error_zh`` then hold the
    parser's message. A zip upload is one row with ``is_archive`` set, plus one row per member.
    """

    test_run = models.ForeignKey(
        TestRun, on_delete=models.CASCADE, related_name="logs", verbose_name=_("test run")
    )
    archive = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="members",
        verbose_name=_("from archive"),
    )
    is_archive = models.BooleanField(_("zip archive"), default=False)
    file = models.FileField(_("raw file"), upload_to=log_upload_path, max_length=300)
    original_name = models.CharField(_("original file name"), max_length=255)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(_("uploaded at"), default=timezone.now)
    # Parsed result (written by the parse service only).
    result = models.JSONField(_("parsed result"), null=True, blank=True)
    # What the pages show, without the per-interval arrays (a day-long log's result is tens of
    # megabytes): written with ``result`` (benchmarks/summary.py); None for logs parsed before.
    summary = models.JSONField(_("page summary"), null=True, blank=True, editable=False)
    tool = models.CharField(_("tool"), max_length=40, blank=True)
    test_kind = models.CharField(_("test"), max_length=16, choices=TestKind.choices, blank=True)
    throughput_gbps = models.FloatField(_("throughput (Gbit/s)"), null=True, blank=True)
    error_code = models.CharField(_("error code"), max_length=80, blank=True)
    error_en = models.TextField(_("parse error (English)"), blank=True)
    error_zh = models.TextField(_("parse error (Chinese)"), blank=True)
    archive_refusals = models.JSONField(_("refused archive members"), default=list, blank=True)
    verdict = models.CharField(_("verdict"), max_length=8, choices=Verdict.choices, blank=True)
    verdict_reasons = models.JSONField(_("verdict reasons"), default=list, blank=True)
    # Trust (domain/evidence): how the log came in (set at upload), then what it proves about
    # itself (written with the parsed result).
    origin = models.JSONField(_("how it was uploaded"), default=dict, blank=True, editable=False)
    witnessed = models.BooleanField(
        _("run by the team"),
        default=False,
        help_text=_("A team member ran this test on the vendor's machines."),
    )
    integrity = models.JSONField(_("integrity"), null=True, blank=True, editable=False)
    provenance = models.JSONField(_("provenance"), null=True, blank=True, editable=False)
    challenge = models.JSONField(_("challenge token check"), null=True, blank=True, editable=False)
    fingerprint = models.CharField(_("test fingerprint"), max_length=64, blank=True, default="")
    trust_level = models.CharField(
        _("trust level"), max_length=16, choices=TrustLevel.choices, default=TrustLevel.SUPPLIED
    )
    # The evidence record's checks (domain/evidence/record.py ``Checks``), the digest of the
    # log's body (white space and kit lines left out: a re-typed copy has the same), and the
    # log's admission for its run's offer (domain/evidence/admission.py), written by the run
    # summary: admitted, or set aside with its reasons.
    checks = models.JSONField(_("evidence checks"), null=True, blank=True, editable=False)
    body_sha256 = models.CharField(_("body digest"), max_length=64, blank=True, default="")
    admission = models.JSONField(_("admission"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("benchmark log")
        verbose_name_plural = _("benchmark logs")
        ordering = ["test_run_id", "original_name", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "sha256"], name="benchlog_sha256_unique_per_team"
            ),
            models.CheckConstraint(
                condition=Q(sha256__regex=r"^[0-9a-f]{64}$"), name="benchlog_sha256_hex"
            ),
            models.CheckConstraint(
                condition=Q(verdict__in=VERDICTS), name="benchlog_verdict_valid"
            ),
            models.CheckConstraint(
                condition=Q(throughput_gbps__isnull=True) | Q(throughput_gbps__gte=0),
                name="benchlog_throughput_not_negative",
            ),
        ]
        indexes = [
            models.Index(fields=["team", "status"]),
            models.Index(fields=["team", "fingerprint"], name="benchlog_team_fingerprint"),
            models.Index(fields=["team", "body_sha256"], name="benchlog_team_body"),
        ]

    def __str__(self) -> str:
        return f"{self.original_name} [{self.sha256[:12]}]"

    def error_text(self, language: str | None) -> str:
        if language and language.lower().startswith("zh"):
            return self.error_zh or self.error_en
        return self.error_en or self.error_zh


class AcceptanceThresholds(TeamScoped):
    """The team's pass / warn / fail limits for one log (defaults: domain DEFAULT_THRESHOLDS)."""

    rdma_min_line_fraction = models.FloatField(
        _("RDMA: minimum share of line rate"),
        default=DEFAULT_THRESHOLDS.rdma_min_efficiency,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
    )
    tcp_min_line_fraction = models.FloatField(
        _("TCP: minimum share of line rate"),
        default=DEFAULT_THRESHOLDS.tcp_min_efficiency,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
    )
    max_cv = models.FloatField(
        _("maximum coefficient of variation"),
        default=DEFAULT_THRESHOLDS.max_cv,
        validators=[MinValueValidator(0), MaxValueValidator(10)],
    )
    warn_margin = models.FloatField(
        _("warning band below a limit"),
        default=DEFAULT_THRESHOLDS.efficiency_fail_margin,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text=_("A figure within this share below a limit is a warning, not a failure."),
    )
    p99_latency_ib_us = models.FloatField(
        _("P99 latency limit, InfiniBand (µs)"),
        default=DEFAULT_THRESHOLDS.p99_limit_us_ib,
        validators=[MinValueValidator(0)],
    )
    p99_latency_roce_us = models.FloatField(
        _("P99 latency limit, RoCE (µs)"),
        default=DEFAULT_THRESHOLDS.p99_limit_us_roce,
        validators=[MinValueValidator(0)],
    )
    p99_latency_tcp_us = models.FloatField(
        _("P99 latency limit, TCP (µs)"),
        default=DEFAULT_THRESHOLDS.p99_limit_us_tcp,
        validators=[MinValueValidator(0)],
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("acceptance thresholds")
        verbose_name_plural = _("acceptance thresholds")
        constraints = [
            models.UniqueConstraint(fields=["team"], name="thresholds_one_per_team"),
            models.CheckConstraint(
                condition=Q(rdma_min_line_fraction__gte=0, rdma_min_line_fraction__lte=1)
                & Q(tcp_min_line_fraction__gte=0, tcp_min_line_fraction__lte=1),
                name="thresholds_fractions_in_unit_interval",
            ),
            models.CheckConstraint(
                condition=Q(max_cv__gte=0)
                & Q(warn_margin__gte=0)
                & Q(p99_latency_ib_us__gte=0)
                & Q(p99_latency_roce_us__gte=0)
                & Q(p99_latency_tcp_us__gte=0),
                name="thresholds_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{_('Acceptance thresholds')} · {self.team}"
