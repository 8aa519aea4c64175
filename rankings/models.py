"""Ranking runs (background jobs) and their per-offer results."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.models import Job, TeamScoped


class RankingRun(TeamScoped, Job):
    """One ranking of offers for one workload, with a snapshot of every input it used.

    `snapshot` holds the workload, the quote versions as model offers (measured bandwidth and vendor
    red flags included), the GPU rows and the exchange rates: ranking the snapshot again gives the
    same results, whatever was edited since.
    """

    label = models.CharField(_("label"), max_length=120, blank=True)
    workload = models.ForeignKey(
        "quotes.WorkloadProfile",
        on_delete=models.SET_NULL,
        null=True,
        related_name="rankings",
        verbose_name=_("workload"),
    )
    all_current = models.BooleanField(_("all current quotes"), default=True)
    quotes = models.ManyToManyField(
        "quotes.Quote", blank=True, related_name="rankings", verbose_name=_("quotes")
    )
    fx_to_cny = models.JSONField(_("rates to CNY"), default=dict, blank=True)
    snapshot = models.JSONField(_("input snapshot"), default=dict, blank=True, editable=False)
    problems = models.JSONField(_("problems"), default=list, blank=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("started by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("ranking run")
        verbose_name_plural = _("ranking runs")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.label or f"#{self.pk}"


class RankingResult(models.Model):
    """One offer's figures in a run (COST-MODEL.md output names)."""

    run = models.ForeignKey(RankingRun, on_delete=models.CASCADE, related_name="results")
    quote_version = models.ForeignKey(
        "quotes.QuoteVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    offer_id = models.CharField(_("offer"), max_length=64)
    label = models.CharField(_("label"), max_length=200, blank=True)
    vendor_name = models.CharField(_("vendor"), max_length=200, blank=True)
    rank = models.PositiveIntegerField(_("rank"))
    cost_per_eth = models.FloatField(_("cost per ETH"))
    cost_per_eth_low = models.FloatField(_("cost per ETH (low)"))
    cost_per_eth_high = models.FloatField(_("cost per ETH (high)"))
    currency = models.CharField(_("currency"), max_length=3)
    step_time_s = models.FloatField()
    compute_time_s = models.FloatField()
    comm_time_s = models.FloatField()
    exposed_comm_s = models.FloatField()
    utilisation = models.FloatField()
    eth_per_hour = models.FloatField()
    hourly_cost = models.FloatField()
    job_hours = models.FloatField(null=True, blank=True)
    job_cost = models.FloatField(null=True, blank=True)
    bandwidth_gbps = models.FloatField()
    bandwidth_basis = models.CharField(max_length=16)
    nodes_used = models.PositiveIntegerField()
    oversubscription = models.FloatField(default=1.0)
    tokens_per_gpu_to_hide_comm = models.FloatField(null=True, blank=True)
    monthly_rent = models.FloatField(_("monthly rent"), default=0.0)
    warnings = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name = _("ranking result")
        verbose_name_plural = _("ranking results")
        ordering = ["run_id", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["run", "rank"], name="ranking_result_rank_unique"),
            models.UniqueConstraint(fields=["run", "offer_id"], name="ranking_result_offer_unique"),
            models.CheckConstraint(
                condition=models.Q(rank__gt=0), name="ranking_result_rank_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.run} #{self.rank} {self.label}"
