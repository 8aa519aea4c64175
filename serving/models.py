"""Serving workloads (inference profiles) and mixed plans (training + serving, month by month)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from core.models import TeamScoped

from .choices import Precision


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
