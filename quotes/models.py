"""Quotes (versioned rental offers), the shared GPU reference table and workload profiles."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.models import TeamScoped
from core.shapes import StoredShape
from domain import labels, money
from domain.trainmodel.workload import architecture_problems

from .choices import (
    CURRENCY_CHOICES,
    BandwidthBilling,
    Fabric,
    InvoiceType,
    MeasuredKind,
    Strategy,
)


class GpuModel(models.Model):
    """One row of the GPU reference table (COST-MODEL.md): the only data shared by all teams."""

    key = models.CharField(_("key"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=100, blank=True)
    tflops_bf16 = models.FloatField(_("peak dense BF16 TFLOPS"))
    memory_gb = models.FloatField(_("memory (GB)"))
    memory_type = models.CharField(_("memory type"), max_length=40, blank=True)
    intra_node_gbyte_s = models.FloatField(_("intra-node link per GPU (GB/s, one direction)"))
    intra_node_link = models.CharField(_("intra-node link"), max_length=80, blank=True)
    default_mfu = models.FloatField(
        _("default mfu"), validators=[MinValueValidator(0.01), MaxValueValidator(1)]
    )
    notes = models.TextField(_("notes"), blank=True)
    # What the training-time model v2 needs beyond the first-order table (docs/MODEL.md §11;
    # filled from domain/trainmodel/data/gpus.json for the known keys). Empty: the model's own
    # data file for a known key; a card known to neither cannot be estimated.
    hbm_tbps = models.FloatField(
        _("memory bandwidth (TB/s)"), null=True, blank=True, validators=[MinValueValidator(0.01)]
    )
    intra_kind = models.CharField(
        _("intra-node link kind"),
        max_length=8,
        blank=True,
        choices=[("nvlink", "NVLink"), ("pcie", "PCIe"), ("hccs", "HCCS")],
    )
    efficiency = models.FloatField(
        _("dense GEMM efficiency (share of peak)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0.05), MaxValueValidator(1)],
    )
    fp8_tflops = models.FloatField(
        _("peak dense FP8 TFLOPS"), null=True, blank=True, validators=[MinValueValidator(0)]
    )

    class Meta:
        verbose_name = _("GPU model")
        verbose_name_plural = _("GPU models")
        ordering = ["key"]
        constraints = [
            models.CheckConstraint(condition=Q(tflops_bf16__gt=0), name="gpu_tflops_positive"),
            models.CheckConstraint(condition=Q(memory_gb__gt=0), name="gpu_memory_positive"),
            models.CheckConstraint(
                condition=Q(default_mfu__gt=0) & Q(default_mfu__lte=1), name="gpu_mfu_0_1"
            ),
        ]

    def __str__(self) -> str:
        return self.key


class Quote(TeamScoped):
    """A vendor's offer as the team tracks it; its terms live in numbered `QuoteVersion` rows.

    Editing a quote adds a version, so a ranking that used version 1 keeps it after an edit.
    Measured bandwidth sits here (not on a version) because evidence belongs to the cluster.
    """

    vendor = models.ForeignKey(
        "vendors.Vendor", on_delete=models.CASCADE, related_name="quotes", verbose_name=_("vendor")
    )
    data_centre = models.ForeignKey(
        "vendors.DataCentre",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="quotes",
        verbose_name=_("data centre"),
    )
    label = models.CharField(_("label"), max_length=120)
    is_current = models.BooleanField(
        _("current"), default=True, help_text=_("Withdrawn or superseded quotes are not ranked.")
    )
    current_version = models.ForeignKey(
        "QuoteVersion",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
        verbose_name=_("latest version"),
    )
    # Per server, derived once from the admitted logs of the quote's test runs
    # (domain/evidence/admission.py, then offer.py): ``typical`` is the figure the offer is
    # priced at (the typical test's sustained rate: each test's P5 of its steady intervals, the
    # tail of tests run together), ``worst`` the lowest test's, ``low``…``high`` the range
    # (untested ports widen the low end). A set-aside log never feeds any of them.
    measured_typical_gbps = models.FloatField(
        _("measured bandwidth per server, typical (Gbit/s)"), null=True, blank=True
    )
    measured_worst_gbps = models.FloatField(
        _("measured bandwidth per server, worst test (Gbit/s)"), null=True, blank=True
    )
    # Read-only alias of the typical figure under its former name, for readers not yet moved
    # (a generated column, so it filters and orders like before).
    measured_gbps = models.GeneratedField(
        expression=F("measured_typical_gbps"),
        output_field=models.FloatField(),
        db_persist=True,
        verbose_name=_("measured bandwidth per server (Gbit/s)"),
    )
    measured_kind = models.CharField(
        _("measurement kind"), max_length=16, choices=MeasuredKind.choices, default="link"
    )
    # How the measured figure was derived from the run's logs (domain/evidence/offer.py): its
    # range, how many of the offer's ports were tested, and the sentence saying so in both
    # languages ({"code", "en", "zh", "notes": [...], "evidence_kind", "ports", ...}).
    measured_low_gbps = models.FloatField(
        _("measured bandwidth per server, low end (Gbit/s)"), null=True, blank=True
    )
    measured_high_gbps = models.FloatField(
        _("measured bandwidth per server, high end (Gbit/s)"), null=True, blank=True
    )
    measured_ports_tested = models.PositiveSmallIntegerField(
        _("ports tested"), null=True, blank=True
    )
    measured_derivation = models.JSONField(
        _("how the measured figure was derived"), null=True, blank=True, editable=False
    )
    measured_test_run_id = models.CharField(_("benchmark run"), max_length=64, blank=True)
    measured_at = models.DateTimeField(_("measured at"), null=True, blank=True)
    is_demo = models.BooleanField(_("demo data"), default=False)
    # Optimistic concurrency: every change adds one (in the same UPDATE that checks it), and a
    # write names the revision it was based on (API: ETag / If-Match; form: a hidden field).
    revision = models.PositiveIntegerField(_("revision"), default=1, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("quote")
        verbose_name_plural = _("quotes")
        ordering = ["vendor_id", "label", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(measured_typical_gbps__isnull=True) | Q(measured_typical_gbps__gt=0),
                name="quote_measured_typical_positive",
            ),
            models.CheckConstraint(
                condition=Q(measured_worst_gbps__isnull=True)
                | (
                    Q(measured_typical_gbps__isnull=False)
                    & Q(measured_worst_gbps__lte=F("measured_typical_gbps"))
                ),
                name="quote_measured_worst_at_most_typical",
            ),
            models.CheckConstraint(condition=Q(revision__gte=1), name="quote_revision_positive"),
        ]
        indexes = [models.Index(fields=["team", "is_current"])]

    def __str__(self) -> str:
        return self.label_shown

    @property
    def label_shown(self) -> str:
        """The label in the reader's language where the portal generated it (domain/labels.py)."""
        return labels.shown(self.label, get_language())

    @property
    def measured_p50_gbps(self) -> float | None:
        """Former name of the high end of the measured range (read-only; use
        ``measured_high_gbps``)."""
        return self.measured_high_gbps


class QuoteVersion(models.Model):
    """The terms of a quote at one point in time: every offer input of COST-MODEL.md and the
    contract terms. Never edited in place."""

    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(_("version"))
    gpu = models.ForeignKey(
        GpuModel, on_delete=models.PROTECT, related_name="+", verbose_name=_("GPU")
    )
    gpus_per_node = models.PositiveSmallIntegerField(_("GPUs per node"))
    nodes = models.PositiveIntegerField(_("nodes"))
    price_per_node_month = models.DecimalField(
        _("price per node and month"), max_digits=14, decimal_places=2
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=CURRENCY_CHOICES, default="CNY"
    )
    fx_to_cny = models.DecimalField(
        _("rate to CNY"),
        max_digits=12,
        decimal_places=6,
        null=True,
        blank=True,
        help_text=_("CNY per unit of the quote's currency; needed for any currency but CNY."),
    )
    monthly_fees = models.DecimalField(
        _("other monthly fees"), max_digits=14, decimal_places=2, default=Decimal("0")
    )
    nic_gbps = models.FloatField(_("NIC port speed (Gbit/s)"))
    nics_per_node = models.PositiveSmallIntegerField(_("NICs per node"), default=1)
    fabric = models.CharField(_("fabric"), max_length=8, choices=Fabric.choices)
    rack_uplink_gbps = models.FloatField(_("rack uplink (Gbit/s)"), null=True, blank=True)
    servers_per_rack = models.PositiveSmallIntegerField(
        _("servers per rack"), null=True, blank=True
    )
    availability = models.DecimalField(
        _("availability"), max_digits=6, decimal_places=5, default=Decimal("0.99")
    )
    whole_offer_only = models.BooleanField(_("only the whole offer can be rented"), default=False)
    # Contract terms
    term_months = models.PositiveSmallIntegerField(_("term (months)"), default=12)
    trial_days = models.PositiveSmallIntegerField(_("trial period (days)"), default=0)
    valid_until = models.DateField(_("quote valid until"), null=True, blank=True)
    setup_fee = models.DecimalField(
        _("setup fee"), max_digits=14, decimal_places=2, default=Decimal("0")
    )
    storage_tb = models.DecimalField(
        _("storage (TB)"), max_digits=10, decimal_places=2, default=Decimal("0")
    )
    storage_price_tb_month = models.DecimalField(
        _("storage price per TB and month"), max_digits=12, decimal_places=2, default=Decimal("0")
    )
    public_bandwidth_mbps = models.PositiveIntegerField(_("public bandwidth (Mbit/s)"), default=0)
    bandwidth_billing = models.CharField(
        _("public bandwidth billing"),
        max_length=8,
        choices=BandwidthBilling.choices,
        default=BandwidthBilling.FIXED,
    )
    bandwidth_price = models.DecimalField(
        _("public bandwidth price"),
        max_digits=12,
        decimal_places=4,
        default=Decimal("0"),
        help_text=_("Per Mbit/s and month (fixed, 95th percentile) or per GB (per-GB billing)."),
    )
    bandwidth_elastic = models.BooleanField(
        _("bandwidth adjustable during the term"), default=False
    )
    # Inputs of the training-time model v2 (docs/MODEL.md §15); empty: an assumed default,
    # shown as such on the ranking page.
    rail_optimised = models.BooleanField(_("rail-optimised network"), null=True, blank=True)
    storage_write_gbyte_s = models.FloatField(
        _("checkpoint storage write (GB/s per server)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0.01), MaxValueValidator(10_000)],
    )
    repair_hours = models.FloatField(
        _("repair or replacement time (hours)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(720)],
        help_text=_("Empty: the vendor's SLA hardware replacement time, else 4 hours assumed."),
    )
    spare_nodes = models.PositiveSmallIntegerField(
        _("spare servers kept ready"), null=True, blank=True, validators=[MaxValueValidator(1000)]
    )
    # --- VAT terms; rows from before them state none: their prices are compared
    # as entered (domain/money.py `Bill.tax_assumed`) and pages say so.
    prices_include_vat = models.BooleanField(
        _("prices include VAT"), null=True, blank=True,
        help_text=_("Empty: not stated (prices are then compared as entered)."),
    )  # fmt: skip
    vat_rate = models.PositiveSmallIntegerField(
        _("VAT rate (%)"), null=True, blank=True, choices=[(r, f"{r}%") for r in money.VAT_RATES]
    )
    invoice_type = models.CharField(
        _("invoice type"), max_length=10, blank=True, default="", choices=InvoiceType.choices
    )
    # --- Plausibility: the soft-bound warnings the analyst confirmed.
    outliers_confirmed = models.JSONField(_("confirmed unusual values"), default=list, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("quote version")
        verbose_name_plural = _("quote versions")
        ordering = ["quote_id", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["quote", "number"], name="quote_version_unique"),
            models.CheckConstraint(condition=Q(gpus_per_node__gt=0), name="qv_gpus_positive"),
            models.CheckConstraint(condition=Q(nodes__gt=0), name="qv_nodes_positive"),
            models.CheckConstraint(
                condition=Q(price_per_node_month__gte=0), name="qv_price_not_negative"
            ),
            models.CheckConstraint(condition=Q(monthly_fees__gte=0), name="qv_fees_not_negative"),
            models.CheckConstraint(condition=Q(nic_gbps__gt=0), name="qv_nic_positive"),
            models.CheckConstraint(condition=Q(nics_per_node__gt=0), name="qv_nics_positive"),
            models.CheckConstraint(
                condition=Q(availability__gt=0) & Q(availability__lte=1), name="qv_availability_0_1"
            ),
            models.CheckConstraint(
                condition=Q(rack_uplink_gbps__isnull=True) | Q(rack_uplink_gbps__gt=0),
                name="qv_uplink_positive",
            ),
            models.CheckConstraint(
                condition=Q(servers_per_rack__isnull=True) | Q(servers_per_rack__gt=0),
                name="qv_servers_per_rack_positive",
            ),
            models.CheckConstraint(
                condition=Q(fx_to_cny__isnull=True) | Q(fx_to_cny__gt=0), name="qv_fx_positive"
            ),
            models.CheckConstraint(
                condition=Q(currency="CNY") | Q(fx_to_cny__isnull=False), name="qv_fx_for_foreign"
            ),
            models.CheckConstraint(
                condition=Q(setup_fee__gte=0)
                & Q(storage_tb__gte=0)
                & Q(storage_price_tb_month__gte=0)
                & Q(bandwidth_price__gte=0),
                name="qv_terms_not_negative",
            ),
            models.CheckConstraint(condition=Q(term_months__gt=0), name="qv_term_positive"),
            models.CheckConstraint(
                condition=Q(vat_rate__isnull=True) | Q(vat_rate__in=money.VAT_RATES),
                name="qv_vat_rate_known",
            ),
            models.CheckConstraint(
                condition=Q(invoice_type__in=("", *money.INVOICE_TYPES)),
                name="qv_invoice_type_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quote} v{self.number}"

    def bill(
        self, *, basis: str = money.DEFAULT_TAX_BASIS, billed_nodes: int | None = None
    ) -> money.Bill:
        """This version's monthly bill (domain/money.py: the one money rule)."""
        return money.monthly_bill(self, basis=basis, billed_nodes=billed_nodes)

    @property
    def fees_breakdown(self) -> dict[str, Decimal]:
        """Monthly charges that enter the model's `monthly_fees` (COST-MODEL.md input table)."""
        return money.monthly_bill(self).fees_parts

    @property
    def total_monthly_fees(self) -> Decimal:
        return money.monthly_bill(self).fees

    @property
    def monthly_rent(self) -> Decimal:
        """What the vendor bills per month for the whole offer (rent plus fees), own currency."""
        return money.monthly_bill(self).monthly

    @property
    def total_gpus(self) -> int:
        return self.nodes * self.gpus_per_node


class QuoteChange(models.Model):
    """What one revision of a quote changed, by whom and when: a stale write is answered with
    the changes made since the revision it was based on. Creation (revision 1) has no row."""

    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="changes")
    revision = models.PositiveIntegerField(_("revision"))
    fields = models.JSONField(_("changed fields"), default=list)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed at"), auto_now_add=True)

    class Meta:
        verbose_name = _("quote change")
        verbose_name_plural = _("quote changes")
        ordering = ["quote_id", "revision"]
        constraints = [
            models.UniqueConstraint(fields=["quote", "revision"], name="quote_change_unique"),
            models.CheckConstraint(condition=Q(revision__gt=1), name="quote_change_after_first"),
        ]

    def __str__(self) -> str:
        return f"{self.quote_id} r{self.revision}: {', '.join(self.fields)}"


class WorkloadProfile(TeamScoped):
    """A training job to rank offers for (COST-MODEL.md workload inputs)."""

    name = models.CharField(_("name"), max_length=120)
    preset = models.CharField(_("preset"), max_length=40, blank=True)
    params_b = models.FloatField(_("parameters (billions)"))
    tokens_per_step = models.PositiveBigIntegerField(_("global batch (tokens per step)"))
    flops_per_token_factor = models.FloatField(_("FLOPs per token factor"), default=6.0)
    grad_bytes = models.FloatField(_("bytes per gradient element"), default=2.0)
    strategy = models.CharField(
        _("parallel strategy"), max_length=8, choices=Strategy.choices, default=Strategy.DDP
    )
    overlap = models.FloatField(_("overlap"), default=0.5)
    mfu = models.FloatField(_("mfu"), null=True, blank=True, help_text=_("Empty: per GPU table."))
    nodes = models.PositiveIntegerField(
        _("nodes used"), null=True, blank=True, help_text=_("Empty: all nodes of each offer.")
    )
    train_tokens = models.FloatField(_("tokens of the whole job"), null=True, blank=True)
    # The architecture and the fixed parallel layout as the analyst knows them (predict_runs'
    # names, without params_b and the batch: domain/trainmodel/workload.py); empty: a preset's
    # or a GPT shape of params_b, the layout searched per offer.
    architecture = models.JSONField(
        _("architecture and parallel layout"),
        null=True,
        blank=True,
        default=None,
        validators=[StoredShape("quotes.schemas.ARCHITECTURE")],
    )
    # What the linear layers compute in (docs/MODEL.md §3.1): FP8 runs them at the card's FP8
    # peak (attention core, head and optimizer stay BF16); a card without FP8 cannot run it.
    precision = models.CharField(
        _("compute precision"),
        max_length=4,
        choices=[("bf16", "BF16"), ("fp8", "FP8")],
        default="bf16",
    )
    notes = models.TextField(_("notes"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("workload profile")
        verbose_name_plural = _("workload profiles")
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(params_b__gt=0), name="wl_params_positive"),
            models.CheckConstraint(condition=Q(tokens_per_step__gt=0), name="wl_tokens_positive"),
            models.CheckConstraint(condition=Q(flops_per_token_factor__gt=0), name="wl_k_positive"),
            models.CheckConstraint(condition=Q(grad_bytes__gt=0), name="wl_grad_bytes_positive"),
            models.CheckConstraint(
                condition=Q(overlap__gte=0) & Q(overlap__lte=1), name="wl_overlap_0_1"
            ),
            models.CheckConstraint(
                condition=Q(mfu__isnull=True) | (Q(mfu__gt=0) & Q(mfu__lte=1)), name="wl_mfu_0_1"
            ),
            models.CheckConstraint(
                condition=Q(nodes__isnull=True) | Q(nodes__gt=0), name="wl_nodes_positive"
            ),
            models.CheckConstraint(
                condition=Q(train_tokens__isnull=True) | Q(train_tokens__gt=0),
                name="wl_train_tokens_positive",
            ),
            models.CheckConstraint(
                condition=Q(precision__in=["bf16", "fp8"]), name="wl_precision_known"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        if not self.architecture or self.params_b is None or not self.tokens_per_step:
            return
        problems = architecture_problems(
            self.architecture, self.params_b, float(self.tokens_per_step), get_language()
        )
        if problems:
            raise ValidationError({"architecture": problems})
