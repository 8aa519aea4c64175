"""Ranking runs (background jobs) and their per-offer results."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from core.models import Job, TeamScoped
from domain import eligibility, labels

from .choices import RiskAction, UnverifiedSeverity


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
    # Offers an RFQ's mandatory requirements knock out or rank last, by quote id:
    # {"<quote id>": {"status": "knocked_out" | "ranked_last", "reason": {code, en, zh}}}
    # (written by rankings.services.ranking_start, which checks this shape); the decision reads
    # them from the snapshot, so the run's own recommendation never names a knocked-out bid.
    standings = models.JSONField(_("RFQ standings"), default=dict, blank=True, editable=False)
    # The quote versions the run priced, {"<quote id>": <version id>} (written with its results):
    # a run whose quote has another current version since is stale, and says so.
    priced_versions = models.JSONField(
        _("quote versions priced"), default=dict, blank=True, editable=False
    )
    snapshot = models.JSONField(_("input snapshot"), default=dict, blank=True, editable=False)
    problems = models.JSONField(_("problems"), default=list, blank=True, editable=False)
    # The recommendation: policy used, recommended offer, tie, headline (see rankings/decision.py)
    decision = models.JSONField(_("decision"), default=dict, blank=True, editable=False)
    # What the run page shows besides the result rows, computed by the job (rankings/page_data.py):
    # the sensitivity sweep, the chart figures per language and the snapshot values the page needs
    page_data = models.JSONField(_("page data"), default=dict, blank=True, editable=False)
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
        return self.label_shown or f"#{self.pk}"

    @property
    def label_shown(self) -> str:
        """The label in the reader's language where the portal generated it (an RFQ's ranking;
        domain/labels.py)."""
        return labels.shown(self.label, get_language())


class RankingResult(models.Model):
    """One offer's figures in a run (COST-MODEL.md output names)."""

    run = models.ForeignKey(RankingRun, on_delete=models.CASCADE, related_name="results")
    quote_version = models.ForeignKey(
        "quotes.QuoteVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    offer_id = models.CharField(_("offer"), max_length=64)
    label = models.CharField(_("label"), max_length=200, blank=True)
    vendor_name = models.CharField(_("vendor"), max_length=200, blank=True)
    # The vendor's English (legal) name where recorded: what English readers see.
    vendor_name_en = models.CharField(_("vendor (English)"), max_length=200, blank=True)
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
    # The training-time model v2's breakdown (domain/trainmodel/ranking.py `detail`): layout,
    # memory per GPU, step-time split, failures and goodput, job time and cost, assumptions.
    model_detail = models.JSONField(_("model detail"), null=True, blank=True)
    # Risk in the decision (domain/eligibility.py) and uncertainty (domain/uncertainty.py):
    # cost_per_eth_low/high above hold the full uncertainty range of cost_per_eth.
    eligible = models.BooleanField(_("eligible"), default=True)
    risk_action = models.CharField(_("risk action"), max_length=16, default="none")
    risk_marks = models.JSONField(_("risk marks"), default=list, blank=True)
    eligibility_reasons = models.JSONField(_("eligibility reasons"), default=list, blank=True)
    risk_premium_pct = models.FloatField(_("risk premium (percent of cost)"), default=0.0)
    risk_premium_month = models.FloatField(_("risk premium per month"), default=0.0)
    risk_adjusted_cost_per_eth = models.FloatField(
        _("risk-adjusted cost per ETH"), null=True, blank=True
    )
    risk_adjusted_low = models.FloatField(_("risk-adjusted cost per ETH (low)"), null=True)
    risk_adjusted_high = models.FloatField(_("risk-adjusted cost per ETH (high)"), null=True)
    decision_rank = models.PositiveIntegerField(_("rank among eligible offers"), null=True)
    tie_with_winner = models.BooleanField(_("tie with the recommended offer"), default=False)
    recommended = models.BooleanField(_("recommended"), default=False)

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
            models.UniqueConstraint(
                fields=["run", "decision_rank"], name="ranking_result_decision_rank_unique"
            ),
            models.UniqueConstraint(
                fields=["run"],
                condition=models.Q(recommended=True),
                name="ranking_result_one_recommended",
            ),  # fmt: skip
            models.CheckConstraint(
                condition=models.Q(recommended=False) | models.Q(eligible=True, decision_rank=1),
                name="ranking_result_recommended_is_eligible_first",
            ),
            models.CheckConstraint(
                condition=models.Q(eligible=True) | models.Q(decision_rank__isnull=True),
                name="ranking_result_excluded_has_no_decision_rank",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.run} #{self.rank} {self.label}"

    @property
    def shown_rank(self) -> int | None:
        """The rank every surface prints: the decision's (risk premiums and RFQ standings
        applied), among eligible offers only; None for an excluded offer, which has no rank."""
        return self.decision_rank if self.eligible else None

    @property
    def premium_decides(self) -> bool:
        """True when a risk premium moved the deciding cost away from the bare cost per ETH."""
        return bool(self.eligible and self.risk_adjusted_cost_per_eth
                    and abs(self.risk_adjusted_cost_per_eth - self.cost_per_eth)
                    > 1e-9 * max(1.0, abs(self.cost_per_eth)))  # fmt: skip

    @property
    def deciding_cost_per_eth(self) -> float:
        """The figure the decision ranks by: the risk-adjusted cost where a premium decides,
        else the cost per ETH (surfaces show this one, the bare cost beside it when they
        differ)."""
        return self.risk_adjusted_cost_per_eth if self.premium_decides else self.cost_per_eth

    @property
    def deciding_range(self) -> tuple[float | None, float | None]:
        """The deciding figure's range (low, high), on the same basis as the figure."""
        if self.premium_decides:
            return self.risk_adjusted_low, self.risk_adjusted_high
        return self.cost_per_eth_low, self.cost_per_eth_high

    @property
    def label_shown(self) -> str:
        """The offer's label in the reader's language where the portal generated it."""
        return labels.shown(self.label, get_language())

    @property
    def vendor_shown(self) -> str:
        """The vendor's name in the reader's language: the English name for English readers
        where it was recorded, else the name the run stored."""
        english = (get_language() or "").startswith("en")
        return (self.vendor_name_en if english else "") or self.vendor_name


class TeamRiskPolicy(TeamScoped):
    """What each severity of due-diligence finding does to an offer in the team's rankings
    (domain/eligibility.py holds the rule and the premium formula). A team without a row uses
    the default: critical excludes, warning marks and adds 2 % per finding (cap 20 %), info marks.
    A run keeps the policy it used in its snapshot."""

    critical_action = models.CharField(
        _("critical findings"), max_length=16, choices=RiskAction.choices,
        default=RiskAction.EXCLUDE,
    )  # fmt: skip
    critical_premium_pct = models.FloatField(_("critical: premium (percent of cost)"), default=0.0)
    critical_premium_cny_month = models.DecimalField(
        _("critical: premium (CNY/month)"), max_digits=12, decimal_places=2, default=Decimal("0")
    )
    warning_action = models.CharField(
        _("warning findings"), max_length=16, choices=RiskAction.choices,
        default=RiskAction.PREMIUM,
    )  # fmt: skip
    warning_premium_pct = models.FloatField(_("warning: premium (percent of cost)"), default=2.0)
    warning_premium_cny_month = models.DecimalField(
        _("warning: premium (CNY/month)"), max_digits=12, decimal_places=2, default=Decimal("0")
    )
    info_action = models.CharField(
        _("notice findings"), max_length=16, choices=RiskAction.choices, default=RiskAction.MARK
    )
    info_premium_pct = models.FloatField(_("notice: premium (percent of cost)"), default=0.0)
    info_premium_cny_month = models.DecimalField(
        _("notice: premium (CNY/month)"), max_digits=12, decimal_places=2, default=Decimal("0")
    )
    unverified_bandwidth = models.CharField(
        _("unverified bandwidth counts as"), max_length=16, choices=UnverifiedSeverity.choices,
        default=UnverifiedSeverity.WARNING,
        help_text=_("Severity of a multi-node offer whose bandwidth no benchmark has verified."),
    )  # fmt: skip
    premium_cap_pct = models.FloatField(_("premium cap (percent of cost)"), default=20.0)
    supplied_evidence_is_claim = models.BooleanField(
        _("evidence the vendor supplied counts as a claim"),
        default=False,
        help_text=_(
            "Logs neither run by the team nor carrying the RFQ kit's token are then treated like "
            "an unverified bandwidth claim (its severity above)."
        ),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    # every saved version, who saved it and when: the team's policy history page compares them
    history = HistoricalRecords(excluded_fields=["updated_at"])

    class Meta:
        verbose_name = _("risk policy")
        verbose_name_plural = _("risk policies")
        constraints = [
            models.UniqueConstraint(fields=["team"], name="risk_policy_one_per_team"),
            *[
                models.CheckConstraint(
                    condition=models.Q(
                        **{
                            f"{s}_premium_pct__gte": 0,
                            f"{s}_premium_pct__lte": 100,
                            f"{s}_premium_cny_month__gte": 0,
                        }
                    ),
                    name=f"risk_policy_{s}_premium_range",
                )  # fmt: skip
                for s in ("critical", "warning", "info")
            ],
            models.CheckConstraint(
                condition=models.Q(premium_cap_pct__gte=0, premium_cap_pct__lte=100),
                name="risk_policy_cap_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.team} · {self._meta.verbose_name}"

    def to_domain(self) -> eligibility.RiskPolicy:
        def rule(s: str) -> eligibility.SeverityRule:
            return eligibility.SeverityRule(
                getattr(self, f"{s}_action"),
                float(getattr(self, f"{s}_premium_pct")),
                float(getattr(self, f"{s}_premium_cny_month")),
            )

        return eligibility.RiskPolicy(
            critical=rule("critical"), warning=rule("warning"), info=rule("info"),
            unverified_bandwidth=self.unverified_bandwidth, premium_cap_pct=self.premium_cap_pct,
            supplied_evidence_is_claim=self.supplied_evidence_is_claim,
        )  # fmt: skip

    def clean(self) -> None:
        problems = eligibility.policy_problems(self.to_domain())
        if problems:
            lang = get_language()
            raise ValidationError([m.text(lang) for m in problems])
