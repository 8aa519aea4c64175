"""Serving workloads (inference profiles) and mixed plans (training + serving, month by month)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.models import TeamScoped

from .choices import Precision, TrafficStatus


class ServingWorkload(TeamScoped):
    """An inference service to size and rank offers for (domain.serving.InferenceWorkload)."""

    name = models.CharField(_("name"), max_length=120)
    params_b = models.FloatField(_("model parameters (billions)"))
    precision = models.CharField(
        _("precision"), max_length=8, choices=Precision.choices, default=Precision.BF16
    )
    mean_rps = models.FloatField(_("mean requests per second"))
    peak_rps = models.FloatField(_("peak requests per second"))
    tokens_in = models.FloatField(_("tokens in per request"))
    tokens_out = models.FloatField(_("tokens out per request"))
    response_kb = models.FloatField(
        _("response payload (kB)"),
        help_text=_("Bytes sent back per request, in kB (1 kB = 1000 B)."),
    )
    latency_target_s = models.FloatField(_("latency target (s)"), null=True, blank=True)
    gpus_per_replica = models.PositiveSmallIntegerField(_("GPUs per replica"), default=1)
    tokens_per_s_per_replica = models.FloatField(
        _("generated tokens per second per replica"),
        null=True,
        blank=True,
        help_text=_("Empty: the GPU's default (7B at BF16 per GPU, scaled by size and precision)."),
    )
    bandwidth_headroom = models.FloatField(
        _("bandwidth headroom"), default=0.3, help_text=_("0.3 = 30 % above the peak payload.")
    )
    peak_hours_per_day = models.FloatField(_("peak hours per day"), default=4.0)
    notes = models.TextField(_("notes"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("serving workload")
        verbose_name_plural = _("serving workloads")
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(params_b__gt=0), name="sw_params_positive"),
            models.CheckConstraint(condition=Q(mean_rps__gt=0), name="sw_mean_positive"),
            models.CheckConstraint(condition=Q(peak_rps__gte=models.F("mean_rps")),
                                   name="sw_peak_at_least_mean"),
            models.CheckConstraint(condition=Q(tokens_in__gte=0), name="sw_tokens_in_not_negative"),
            models.CheckConstraint(condition=Q(tokens_out__gt=0), name="sw_tokens_out_positive"),
            models.CheckConstraint(condition=Q(response_kb__gt=0), name="sw_response_positive"),
            models.CheckConstraint(condition=Q(gpus_per_replica__gt=0), name="sw_gpus_positive"),
            models.CheckConstraint(
                condition=Q(bandwidth_headroom__gte=0) & Q(bandwidth_headroom__lte=5),
                name="sw_headroom_0_5",
            ),
            models.CheckConstraint(
                condition=Q(peak_hours_per_day__gt=0) & Q(peak_hours_per_day__lte=24),
                name="sw_peak_hours_0_24",
            ),
        ]  # fmt: skip

    def __str__(self) -> str:
        return self.name


class MixedPlan(TeamScoped):
    """A training part and a serving part (possibly at two vendors) over a horizon of months.

    Training runs months 1…`training_months` on `training_quote`; serving runs from
    `serving_start_month` (empty: the month after training) to the horizon on `serving_quote`.
    """

    name = models.CharField(_("name"), max_length=120)
    training_quote = models.ForeignKey(
        "quotes.Quote", on_delete=models.CASCADE, related_name="+", verbose_name=_("training quote")
    )
    training_nodes = models.PositiveIntegerField(
        _("training nodes"), null=True, blank=True, help_text=_("Empty: all nodes of the quote.")
    )
    training_months = models.PositiveSmallIntegerField(_("training months"), default=3)
    training_bandwidth_mbps = models.FloatField(
        _("public bandwidth during training (Mbit/s)"),
        default=1000.0,
        help_text=_("Data sets in, checkpoints out: the heavy phase."),
    )
    serving_workload = models.ForeignKey(
        ServingWorkload, on_delete=models.CASCADE, related_name="plans",
        verbose_name=_("serving workload"),
    )  # fmt: skip
    serving_quote = models.ForeignKey(
        "quotes.Quote", on_delete=models.CASCADE, related_name="+", verbose_name=_("serving quote")
    )
    serving_start_month = models.PositiveSmallIntegerField(
        _("serving starts in month"), null=True, blank=True,
        help_text=_("Empty: the month after training ends."),
    )  # fmt: skip
    horizon_months = models.PositiveSmallIntegerField(_("horizon (months)"), default=12)
    bandwidth_price_mbps_month = models.DecimalField(
        _("bandwidth price per Mbit/s and month (CNY)"), max_digits=10, decimal_places=2
    )
    elastic_premium = models.FloatField(
        _("elastic premium"), default=0.0, help_text=_("0.1 = elastic bandwidth costs 10 % more.")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("mixed plan")
        verbose_name_plural = _("mixed plans")
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(training_months__gt=0), name="mp_training_positive"),
            models.CheckConstraint(
                condition=Q(horizon_months__gt=0) & Q(horizon_months__lte=120),
                name="mp_horizon_1_120",
            ),
            models.CheckConstraint(condition=Q(training_bandwidth_mbps__gte=0),
                                   name="mp_bandwidth_not_negative"),
            models.CheckConstraint(condition=Q(bandwidth_price_mbps_month__gte=0),
                                   name="mp_price_not_negative"),
            models.CheckConstraint(
                condition=Q(elastic_premium__gte=0) & Q(elastic_premium__lte=3),
                name="mp_premium_0_3",
            ),
        ]  # fmt: skip

    def __str__(self) -> str:
        return self.name

    @property
    def serving_first_month(self) -> int:
        return self.serving_start_month or self.training_months + 1

    def clean(self) -> None:
        errors: dict[str, str] = {}
        for field in ("training_quote", "serving_quote", "serving_workload"):
            obj = getattr(self, field, None) if getattr(self, f"{field}_id") else None
            if obj is not None and obj.team_id != self.team_id:
                errors[field] = str(_("Choose one of your team's records."))
        if (
            self.training_months
            and self.horizon_months
            and self.training_months > self.horizon_months
        ):
            errors["training_months"] = str(_("Training cannot last longer than the horizon."))
        if (
            self.horizon_months
            and self.training_months
            and self.serving_first_month > self.horizon_months
        ):
            errors["serving_start_month"] = str(_("Serving must start within the horizon."))
        if errors:
            raise ValidationError(errors)


def traffic_upload_path(instance: TrafficUpload, filename: str) -> str:
    """Raw files live under MEDIA_ROOT/serving/<team>/<sha256 prefix>/, never under a URL."""
    return f"serving/team-{instance.team_id}/{instance.sha256[:2]}/{instance.sha256}.csv"


class TrafficUpload(TeamScoped):
    """One uploaded CSV of measured public-traffic samples (a billing month) for a serving workload
    or a mixed plan. The raw file is kept; a refused file keeps the message that says why.

    The upload `in_use` replaces the modelled traffic profile in its target's bills.
    """

    workload = models.ForeignKey(
        ServingWorkload, on_delete=models.CASCADE, null=True, blank=True,
        related_name="traffic_uploads", verbose_name=_("serving workload"),
    )  # fmt: skip
    plan = models.ForeignKey(
        MixedPlan, on_delete=models.CASCADE, null=True, blank=True,
        related_name="traffic_uploads", verbose_name=_("mixed plan"),
    )  # fmt: skip
    file = models.FileField(_("raw file"), upload_to=traffic_upload_path, max_length=300)
    original_name = models.CharField(_("file name"), max_length=255)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(_("uploaded at"), default=timezone.now)
    status = models.CharField(_("status"), max_length=8, choices=TrafficStatus.choices)
    in_use = models.BooleanField(_("in use"), default=False)
    error = models.JSONField(_("error"), default=dict, blank=True)  # a domain Message as a dict
    bad_rows = models.JSONField(_("bad rows"), default=list, blank=True)
    warnings = models.JSONField(_("warnings"), default=list, blank=True)
    samples_mbps = models.JSONField(_("samples (Mbit/s)"), default=list, blank=True)
    interval_s = models.FloatField(_("sample interval (s)"), null=True, blank=True)
    sample_count = models.PositiveIntegerField(_("samples"), default=0)
    missing_samples = models.PositiveIntegerField(_("missing samples"), default=0)
    unit = models.CharField(_("unit in the file"), max_length=16, blank=True)
    first_at = models.DateTimeField(_("first sample"), null=True, blank=True)
    last_at = models.DateTimeField(_("last sample"), null=True, blank=True)
    peak_mbps = models.FloatField(_("peak (Mbit/s)"), null=True, blank=True)
    p95_mbps = models.FloatField(_("95th percentile (Mbit/s)"), null=True, blank=True)
    mean_mbps = models.FloatField(_("mean (Mbit/s)"), null=True, blank=True)
    monthly_gb = models.FloatField(_("volume (GB)"), null=True, blank=True)

    class Meta:
        verbose_name = _("traffic samples upload")
        verbose_name_plural = _("traffic samples uploads")
        ordering = ["-uploaded_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(workload__isnull=False) & Q(plan__isnull=True))
                | (Q(workload__isnull=True) & Q(plan__isnull=False)),
                name="tu_one_target",
            ),
            models.CheckConstraint(
                condition=Q(status="ok") | Q(in_use=False), name="tu_only_read_files_in_use"
            ),
            models.UniqueConstraint(
                fields=["workload"], condition=Q(in_use=True), name="tu_one_in_use_per_workload"
            ),
            models.UniqueConstraint(
                fields=["plan"], condition=Q(in_use=True), name="tu_one_in_use_per_plan"
            ),
        ]

    def __str__(self) -> str:
        return self.original_name
