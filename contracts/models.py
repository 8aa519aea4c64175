"""Signed contracts, the evidence of what was delivered under them, and the stored evaluations.

A contract holds the committed figures and the structured compensation schedule; delivery
evidence arrives as uploads (kept raw, read by a job), Prometheus pulls and incidents; the
evaluate job runs the delivery engine (``domain.delivery``) and stores its report, which pages,
the API and the vendor track record read.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.compensation import schedule_outline
from core.models import Job, TeamScoped
from quotes.choices import CURRENCY_CHOICES

from .choices import BandwidthSource, ContractStatus, IncidentKind, UploadKind, UploadOrigin
from .engine import schedule_errors

KIT_TOKEN_DAYS = 400  # a year's term and a little more; a new token can be issued at any time


def new_kit_token() -> str:
    return secrets.token_urlsafe(32)


def default_kit_expiry():  # type: ignore[no-untyped-def]
    return timezone.now() + timedelta(days=KIT_TOKEN_DAYS)


class Contract(TeamScoped):
    """A signed rental contract: the vendor's committed figures and what it owes when it misses
    them (``schedule``: the structured compensation schedule of ``domain.delivery.terms``)."""

    vendor = models.ForeignKey(
        "vendors.Vendor", on_delete=models.PROTECT, related_name="contracts",
        verbose_name=_("vendor"),
    )  # fmt: skip
    quote = models.ForeignKey(
        "quotes.Quote", on_delete=models.SET_NULL, null=True, blank=True, related_name="contracts",
        verbose_name=_("quote"),
    )  # fmt: skip
    quote_version = models.ForeignKey(
        "quotes.QuoteVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("quote version"),
    )  # fmt: skip
    award = models.ForeignKey(
        "sourcing.Award", on_delete=models.SET_NULL, null=True, blank=True,
        related_name="contracts", verbose_name=_("RFQ award"),
    )  # fmt: skip
    title = models.CharField(_("title"), max_length=160)
    status = models.CharField(
        _("status"), max_length=16, choices=ContractStatus.choices, default=ContractStatus.SIGNED
    )
    starts_on = models.DateField(_("term starts"))
    ends_on = models.DateField(_("term ends"))
    monthly_fee = models.DecimalField(_("monthly fee"), max_digits=14, decimal_places=2)
    currency = models.CharField(
        _("currency"), max_length=3, choices=CURRENCY_CHOICES, default="CNY"
    )
    fee_includes_vat = models.BooleanField(
        _("fee includes VAT"), null=True, blank=True, help_text=_("Empty: not stated.")
    )
    committed_gbps = models.FloatField(
        _("committed bandwidth per server (Gbit/s)"),
        help_text=_("The aggregate network bandwidth each server must deliver, all pairs at once."),
    )
    committed_gbps_source = models.CharField(
        _("source of the committed bandwidth"), max_length=16, choices=BandwidthSource.choices,
        default=BandwidthSource.AGREED,
    )  # fmt: skip
    availability_pct = models.DecimalField(
        _("committed availability (%)"), max_digits=6, decimal_places=3, default=99
    )
    p99_latency_us = models.FloatField(
        _("committed P99 latency (µs)"), null=True, blank=True, help_text=_("Empty: not agreed.")
    )
    response_minutes = models.PositiveIntegerField(
        _("response time (minutes)"), null=True, blank=True
    )
    repair_hours = models.FloatField(_("repair time (hours)"), null=True, blank=True)
    # Enforced at the door by domain.delivery.terms.schedule_from_dict (model clean, form and
    # serializer) and, for its outline, by the database check below.
    schedule = models.JSONField(_("compensation schedule"), default=dict, blank=True)
    kit_token = models.CharField(
        _("delivery kit token"), max_length=64, unique=True, default=new_kit_token, editable=False
    )
    kit_token_expires_at = models.DateTimeField(
        _("kit token expires"), default=default_kit_expiry, editable=False
    )
    notes = models.TextField(_("notes"), blank=True)
    is_demo = models.BooleanField(_("demo data"), default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )  # fmt: skip
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("contract")
        verbose_name_plural = _("contracts")
        ordering = ["-starts_on", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(ends_on__gt=F("starts_on")),
                                   name="contract_term_ends_after_start"),
            models.CheckConstraint(condition=Q(monthly_fee__gte=0),
                                   name="contract_fee_not_negative"),
            models.CheckConstraint(condition=Q(committed_gbps__gt=0),
                                   name="contract_committed_positive"),
            models.CheckConstraint(
                condition=Q(availability_pct__gt=0) & Q(availability_pct__lte=100),
                name="contract_availability_0_100",
            ),
            models.CheckConstraint(
                condition=Q(p99_latency_us__isnull=True) | Q(p99_latency_us__gt=0),
                name="contract_latency_positive",
            ),
            models.CheckConstraint(
                condition=Q(repair_hours__isnull=True) | Q(repair_hours__gt=0),
                name="contract_repair_positive",
            ),
            # The schedule's outline: empty (nothing agreed) or the domain's stored shape with
            # every key (the domain checks the values at the door and stores them normalised).
            models.CheckConstraint(condition=schedule_outline(), name="contract_schedule_outline"),
        ]  # fmt: skip
        indexes = [models.Index(fields=["team", "status"]), models.Index(fields=["vendor"])]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        errors: dict[str, list[str]] = {}
        if self.starts_on and self.ends_on and self.ends_on <= self.starts_on:
            errors["ends_on"] = [str(_("The term must end after it starts."))]
        if self.monthly_fee is not None and self.monthly_fee < 0:
            from .instants import negative_fee_message

            errors["monthly_fee"] = [negative_fee_message()]
        if self.vendor_id and self.team_id and self.vendor.team_id != self.team_id:
            errors["vendor"] = [str(_("Choose one of your team's records."))]
        if self.quote_id and self.team_id and self.quote.team_id != self.team_id:
            errors["quote"] = [str(_("Choose one of your team's records."))]
        problems = schedule_errors(self.schedule)
        if problems:
            errors["schedule"] = problems
        if errors:
            raise ValidationError(errors)

    @property
    def claim_window_days(self) -> int | None:
        """Days to file a claim after an episode (the schedule's; None: no schedule)."""
        return (self.schedule or {}).get("claim_window_days")

    @property
    def kit_token_valid(self) -> bool:
        return self.kit_token_expires_at > timezone.now()

    def term_span(self, margin_days: int = 0) -> tuple[Any, Any]:
        """The term as the engine counts it (first day's midnight to the last day's, in the
        portal's zone), widened by ``margin_days`` on each side."""
        from datetime import datetime, time, timedelta

        zone = timezone.get_default_timezone()
        margin = timedelta(days=margin_days)
        return (datetime.combine(self.starts_on, time(), zone) - margin,
                datetime.combine(self.ends_on, time(), zone) + margin)  # fmt: skip


class ContractServer(models.Model):
    """One rented server named in the contract (evidence for other hosts is refused)."""

    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="servers")
    hostname = models.CharField(_("host name"), max_length=253)
    rack = models.CharField(_("rack"), max_length=60, blank=True)
    leaf = models.CharField(_("leaf switch"), max_length=60, blank=True)

    class Meta:
        verbose_name = _("contract server")
        verbose_name_plural = _("contract servers")
        ordering = ["contract_id", "hostname"]
        constraints = [
            models.UniqueConstraint(fields=["contract", "hostname"], name="cs_host_once"),
            models.CheckConstraint(condition=~Q(hostname=""), name="cs_host_not_empty"),
        ]

    def __str__(self) -> str:
        return self.hostname

    @property
    def team_id(self) -> int:
        return self.contract.team_id


class MaintenanceWindow(models.Model):
    """Agreed maintenance: time in it counts neither as delivered nor as missed."""

    contract = models.ForeignKey(
        Contract, on_delete=models.CASCADE, related_name="maintenance_windows"
    )
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    note = models.CharField(_("note"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("maintenance window")
        verbose_name_plural = _("maintenance windows")
        ordering = ["contract_id", "starts_at"]
        constraints = [
            models.CheckConstraint(condition=Q(ends_at__gt=F("starts_at")),
                                   name="mw_ends_after_start"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.starts_at:%Y-%m-%d %H:%M} – {self.ends_at:%Y-%m-%d %H:%M}"

    @property
    def team_id(self) -> int:
        return self.contract.team_id


class Incident(models.Model):
    """An outage or fault: when it started and ended, the vendor's ticket and its times."""

    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="incidents")
    kind = models.CharField(
        _("kind"), max_length=16, choices=IncidentKind.choices, default=IncidentKind.OUTAGE
    )
    started_at = models.DateTimeField(_("started"))
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)
    hosts = models.JSONField(_("hosts"), default=list, blank=True,
                             help_text=_("Empty: every server of the contract."))  # fmt: skip
    vendor_ticket = models.CharField(_("vendor ticket"), max_length=80, blank=True)
    opened_at = models.DateTimeField(_("ticket opened"), null=True, blank=True)
    responded_at = models.DateTimeField(_("vendor responded"), null=True, blank=True)
    repaired_at = models.DateTimeField(_("repaired"), null=True, blank=True)
    description = models.TextField(_("description"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("incident")
        verbose_name_plural = _("incidents")
        ordering = ["contract_id", "-started_at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(ended_at__isnull=True)
                                   | Q(ended_at__gt=F("started_at")), name="inc_ends_after_start"),
            models.CheckConstraint(condition=Q(responded_at__isnull=True)
                                   | Q(opened_at__isnull=False), name="inc_response_needs_ticket"),
            models.CheckConstraint(condition=Q(responded_at__isnull=True)
                                   | Q(responded_at__gte=F("opened_at")),
                                   name="inc_response_after_ticket"),
            models.CheckConstraint(condition=Q(repaired_at__isnull=True)
                                   | Q(repaired_at__gte=F("started_at")),
                                   name="inc_repair_after_start"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.started_at:%Y-%m-%d %H:%M}"

    @property
    def team_id(self) -> int:
        return self.contract.team_id


def delivery_upload_path(instance: DeliveryUpload, filename: str) -> str:
    """Raw files live under MEDIA_ROOT/contracts/<team>/<sha256 prefix>/, never under a URL."""
    ext = {"prometheus_json": "json", "csv": "csv"}.get(instance.kind, "log")
    return (
        f"contracts/team-{instance.contract.team_id}/{instance.sha256[:2]}/{instance.sha256}.{ext}"
    )


class DeliveryUpload(Job):
    """One file of delivery evidence, kept raw and read by a job into ``DeliveryWindow`` rows.

    A file the reader refuses keeps its message in ``error`` (in both languages) and its raw
    bytes; no window of it is stored (the job writes a file's windows all at once or not at all).
    """

    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="uploads")
    kind = models.CharField(_("kind"), max_length=16, choices=UploadKind.choices)
    origin = models.CharField(
        _("origin"), max_length=12, choices=UploadOrigin.choices, default=UploadOrigin.USER
    )
    file = models.FileField(_("raw file"), upload_to=delivery_upload_path, max_length=300)
    original_name = models.CharField(_("file name"), max_length=255)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    source_timezone = models.CharField(
        _("time zone of the file's times"), max_length=64, default="Asia/Shanghai",
        help_text=_("Used for times written without an offset (CSV)."),
    )  # fmt: skip
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )  # fmt: skip
    uploaded_at = models.DateTimeField(_("uploaded at"), default=timezone.now)
    # What the reader said: a list of domain Messages as dicts ({"code", "en", "zh"}).
    notes = models.JSONField(_("reader's notes"), default=list, blank=True)
    error_message = models.JSONField(_("reader's refusal"), default=dict, blank=True)
    # What was read: hosts, series and samples (monitoring) or the kit's header (host, peer,
    # times, host facts, files).
    summary = models.JSONField(_("summary"), default=dict, blank=True)
    window_count = models.PositiveIntegerField(_("windows"), default=0)
    first_at = models.DateTimeField(_("first sample"), null=True, blank=True)
    last_at = models.DateTimeField(_("last sample"), null=True, blank=True)

    class Meta:
        verbose_name = _("delivery evidence upload")
        verbose_name_plural = _("delivery evidence uploads")
        ordering = ["-uploaded_at", "-pk"]
        indexes = [
            models.Index(fields=["contract", "status"]),
            # the page's latest 20 of a contract's files (a pull every 15 minutes keeps one
            # each: thousands over a term) without sorting them all
            models.Index(fields=["contract", "-uploaded_at", "-id"], name="du_contract_latest"),
        ]

    def __str__(self) -> str:
        return self.original_name

    @property
    def team_id(self) -> int:
        return self.contract.team_id


class PrometheusSource(Job):
    """The team's Prometheus for one contract: its URL and the queries the pull job runs.

    ``queries`` maps a measure (``bytes_rx``, ``bytes_tx``, ``up``, …) to a PromQL selector
    whose series carry the host in the ``instance`` (or ``host``) label.
    """

    contract = models.OneToOneField(Contract, on_delete=models.CASCADE, related_name="prometheus")
    url = models.URLField(_("Prometheus URL"), max_length=300)
    queries = models.JSONField(_("queries"), default=dict)
    step_s = models.PositiveIntegerField(_("step (seconds)"), default=60)
    host_label = models.CharField(_("host label"), max_length=60, default="instance")
    pulled_until = models.DateTimeField(_("pulled up to"), null=True, blank=True)
    enabled = models.BooleanField(_("pull on a schedule"), default=True)
    last_notes = models.JSONField(_("last pull's notes"), default=list, blank=True)

    class Meta:
        verbose_name = _("Prometheus source")
        verbose_name_plural = _("Prometheus sources")
        constraints = [
            models.CheckConstraint(condition=Q(step_s__gte=1) & Q(step_s__lte=3600),
                                   name="prom_step_1_3600"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return self.url

    @property
    def team_id(self) -> int:
        return self.contract.team_id


class DeliveryWindow(models.Model):
    """Stored aggregate of one host over one window (the engine's input; raw files stay apart).

    ``origin`` names where it came from (``upload:<id>`` or ``prometheus:<id>``): windows of one
    origin are replaced together when it is read again, never duplicated. ``kind`` and
    ``saturating`` are the domain's: traffic seen by monitoring proves capacity only when it
    reaches the commitment; a kit test fills the links, so it proves a shortfall.
    """

    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="windows")
    upload = models.ForeignKey(
        DeliveryUpload, on_delete=models.CASCADE, null=True, blank=True, related_name="windows"
    )
    origin = models.CharField(_("origin"), max_length=40)
    kind = models.CharField(
        _("kind"),
        max_length=16,
        default="monitoring",
        help_text=_("monitoring (traffic) or kit (a saturating test)"),
    )
    saturating = models.BooleanField(_("saturating test"), default=False)
    samples = models.PositiveIntegerField(_("samples"), default=0)
    host = models.CharField(_("host"), max_length=253)
    starts_at = models.DateTimeField(_("starts"))
    seconds = models.PositiveIntegerField(_("length (s)"))
    delivered_gbps = models.FloatField(_("delivered (Gbit/s)"), null=True, blank=True)
    up_fraction = models.FloatField(_("up fraction"), null=True, blank=True)
    coverage = models.FloatField(_("share of the window with data"))
    latency_p99_us = models.FloatField(_("P99 latency (µs)"), null=True, blank=True)

    class Meta:
        verbose_name = _("delivery window")
        verbose_name_plural = _("delivery windows")
        ordering = ["contract_id", "starts_at", "host"]
        constraints = [
            models.UniqueConstraint(fields=["contract", "origin", "host", "starts_at"],
                                    name="dw_once_per_source"),
            models.CheckConstraint(condition=Q(coverage__gte=0) & Q(coverage__lte=1),
                                   name="dw_coverage_0_1"),
            models.CheckConstraint(condition=Q(up_fraction__isnull=True)
                                   | (Q(up_fraction__gte=0) & Q(up_fraction__lte=1)),
                                   name="dw_up_0_1"),
            models.CheckConstraint(condition=Q(delivered_gbps__isnull=True)
                                   | Q(delivered_gbps__gte=0), name="dw_delivered_not_negative"),
            models.CheckConstraint(condition=Q(seconds__gt=0), name="dw_seconds_positive"),
        ]  # fmt: skip
        indexes = [models.Index(fields=["contract", "starts_at"])]

    def __str__(self) -> str:
        return f"{self.host} {self.starts_at:%Y-%m-%d %H:%M}"


class DeliveryEvaluation(Job):
    """One run of the delivery engine over a contract's stored evidence, and its report.

    ``report`` is ``domain.delivery.engine.report_to_dict`` output; the denormalised figures
    (ratio, breaches, credits) feed lists and the vendor's track record without reading it.
    ``inputs_stamp`` identifies the evidence it saw: a stale evaluation is recomputed.
    """

    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="evaluations")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )  # fmt: skip
    inputs_stamp = models.CharField(_("inputs stamp"), max_length=64, blank=True)
    computed_at = models.DateTimeField(_("computed at"), null=True, blank=True)
    report = models.JSONField(_("report"), default=dict, blank=True)
    # The report as the contract page shows it, written with it: the timeline downsampled to
    # the chart's points (contracts.figures.MAX_CHART_POINTS), so a page rendered afresh reads
    # and rebuilds a third as much (a 90-day term: 718 points, 183 kB instead of 2,152, 530 kB).
    page_report = models.JSONField(_("report as the page shows it"), default=dict, blank=True)
    delivered_ratio = models.FloatField(_("delivered ÷ committed"), null=True, blank=True)
    breach_count = models.PositiveIntegerField(_("breach episodes"), default=0)
    credit_total = models.DecimalField(_("credits due"), max_digits=14, decimal_places=2, default=0)
    no_data_hours = models.FloatField(_("hours without data"), default=0)
    measured_hours = models.FloatField(_("hours with data"), default=0)

    class Meta:
        verbose_name = _("delivery evaluation")
        verbose_name_plural = _("delivery evaluations")
        ordering = ["contract_id", "-queued_at", "-pk"]
        indexes = [models.Index(fields=["contract", "status", "-computed_at"])]
        constraints = [
            models.CheckConstraint(condition=Q(credit_total__gte=0),
                                   name="de_credit_not_negative"),
            models.CheckConstraint(condition=Q(delivered_ratio__isnull=True)
                                   | Q(delivered_ratio__gte=0), name="de_ratio_not_negative"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.contract} @ {self.computed_at or self.queued_at:%Y-%m-%d %H:%M}"

    @property
    def team_id(self) -> int:
        return self.contract.team_id


def claim_pack_path(instance: ClaimPack, filename: str) -> str:
    return f"contracts/team-{instance.contract.team_id}/claims/{instance.pk or 'new'}-{filename}"


class ClaimPack(Job):
    """A claim for the vendor, built by a job: the PDF (clause, episodes, figures, credit) in the
    team's language and a ZIP of the raw evidence with a SHA-256 manifest."""

    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="claim_packs")
    evaluation = models.ForeignKey(
        DeliveryEvaluation, on_delete=models.CASCADE, related_name="claim_packs"
    )
    language = models.CharField(_("language"), max_length=8, default="zh-hans")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )  # fmt: skip
    pdf = models.FileField(_("claim (PDF)"), upload_to=claim_pack_path, blank=True,
                           max_length=300)  # fmt: skip
    evidence_zip = models.FileField(_("evidence (ZIP)"), upload_to=claim_pack_path, blank=True,
                                    max_length=300)  # fmt: skip
    zip_sha256 = models.CharField(_("ZIP SHA-256"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("claim pack")
        verbose_name_plural = _("claim packs")
        ordering = ["contract_id", "-queued_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.contract} claim {self.pk}"

    @property
    def team_id(self) -> int:
        return self.contract.team_id


class ClaimReminder(models.Model):
    """A mailed warning that an episode's claim window closes soon (sent once per episode)."""

    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="reminders")
    episode_key = models.CharField(_("episode"), max_length=80)
    deadline = models.DateTimeField(_("claim deadline"))
    sent_at = models.DateTimeField(_("sent at"), default=timezone.now)

    class Meta:
        verbose_name = _("claim reminder")
        verbose_name_plural = _("claim reminders")
        constraints = [
            models.UniqueConstraint(fields=["contract", "episode_key"], name="cr_once"),
        ]

    def __str__(self) -> str:
        return f"{self.contract} {self.episode_key}"


class VendorTrackRecord(TeamScoped):
    """A vendor's delivery standing with this team (``domain.delivery.engine.track_record`` over
    its contracts' latest reports), stored by the evaluate job and read by pages and the API."""

    vendor = models.ForeignKey(
        "vendors.Vendor", on_delete=models.CASCADE, related_name="+", verbose_name=_("vendor")
    )
    contracts = models.PositiveIntegerField(_("contracts"), default=0)
    measured_hours = models.FloatField(_("hours measured"), default=0)
    delivered_ratio = models.FloatField(_("delivered ÷ committed"), null=True, blank=True)
    breaches = models.PositiveIntegerField(_("breach episodes"), default=0)
    record = models.JSONField(_("track record"), default=dict, blank=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("vendor delivery record")
        verbose_name_plural = _("vendor delivery records")
        constraints = [
            models.UniqueConstraint(fields=["team", "vendor"], name="vtr_once_per_vendor"),
            models.CheckConstraint(condition=Q(delivered_ratio__isnull=True)
                                   | Q(delivered_ratio__gte=0), name="vtr_ratio_not_negative"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.vendor}: {self.delivered_ratio}"
