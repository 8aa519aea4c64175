"""Vendor profiles: what a rental vendor claims and what the team verified."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from core.compensation import schedule_errors, schedule_normalised, schedule_outline
from core.models import TeamScoped
from core.shapes import StoredShape
from domain.regions import PROVINCE_CHOICES

from .choices import (
    CertificationKind,
    Fabric,
    IssuerScope,
    Ownership,
    Service,
    Topology,
    VerificationState,
)
from .schemas import stored_codes
from .validators import (
    licence_codes_consistent,
    validate_business_code_list,
    validate_credit_code,
    validate_icp_filing,
    validate_licence_number,
)


class Verifiable(models.Model):
    """Every claim carries its verification state, who checked it, when, and the evidence."""

    state = models.CharField(
        _("verification"),
        max_length=16,
        choices=VerificationState.choices,
        default=VerificationState.CLAIMED,
    )
    verified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("verified by"),
    )
    verified_at = models.DateTimeField(_("verified at"), null=True, blank=True)
    evidence = models.FileField(
        _("evidence file"), upload_to="evidence/%Y/%m/", blank=True, max_length=300
    )
    verification_note = models.TextField(_("verification note"), blank=True)

    class Meta:
        abstract = True


NAME_REQUIRED = _("Enter the vendor's legal name in Chinese or in English.")


def _expiry_after_issue(name: str) -> models.CheckConstraint:
    """Database form of the rule that a credential cannot expire before it was issued."""
    return models.CheckConstraint(
        condition=Q(valid_from__isnull=True)
        | Q(valid_until__isnull=True)
        | Q(valid_until__gte=F("valid_from")),
        name=name,
    )


def _expiry_error(obj) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The same rule for forms and the API, as a field error on valid_until."""
    if obj.valid_from and obj.valid_until and obj.valid_until < obj.valid_from:
        return {"valid_until": _("The expiry date is before the issue date.")}
    return {}


class Vendor(TeamScoped):
    """A rental vendor the team evaluates (one team's view of it; other teams never see it)."""

    name_zh = models.CharField(_("legal name (Chinese)"), max_length=200, blank=True)
    name_en = models.CharField(_("legal name (English)"), max_length=200, blank=True)
    short_name = models.CharField(_("short name"), max_length=80, blank=True)
    credit_code = models.CharField(
        _("unified social credit code"),
        max_length=18,
        blank=True,
        help_text=_("18 characters, GB 32100 (统一社会信用代码)"),
        validators=[validate_credit_code],
    )
    registered_capital_cny = models.DecimalField(
        _("registered capital (CNY)"),
        max_digits=16,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )
    founded_year = models.PositiveSmallIntegerField(
        _("founding year"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1949), MaxValueValidator(2100)],
    )
    website = models.URLField(_("website"), blank=True)
    home_province = models.CharField(
        _("registered in province"), max_length=4, choices=PROVINCE_CHOICES, blank=True
    )
    services = models.JSONField(
        _("services sold"),
        default=list,
        blank=True,
        help_text=_("What the vendor sells: IDC space, GPU rental, cloud, bare metal, CDN, ISP."),
        validators=[StoredShape("vendors.schemas.SERVICES")],
    )
    notes = models.TextField(_("notes"), blank=True)
    is_demo = models.BooleanField(_("demo data"), default=False)
    # Denormalised due-diligence summary, refreshed by vendors.services after every change (and
    # periodically for expiry), so the list can show badges and filter without recomputing.
    findings_critical = models.PositiveIntegerField(_("critical findings"), default=0)
    findings_warning = models.PositiveIntegerField(_("warnings"), default=0)
    findings_total = models.PositiveIntegerField(_("findings"), default=0)
    finding_codes = models.JSONField(default=list, blank=True, editable=False)
    findings_checked_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Delivered ÷ committed bandwidth over the team's evaluated contracts with this vendor
    # (written by the contracts' evaluation job; None: no evaluated contract). The ranking counts
    # the vendor's next bandwidth claims at this share (domain/ranking/network.py).
    delivered_ratio = models.FloatField(
        _("delivered ÷ committed bandwidth"), null=True, blank=True, editable=False
    )
    # The evaluated contracts behind that figure, [{"id", "title", "ratio"}] (written with it):
    # what a warning about the vendor's standing names.
    delivered_basis = models.JSONField(
        _("contracts behind the delivered ratio"), default=list, blank=True, editable=False
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    history = HistoricalRecords()

    class Meta:
        verbose_name = _("vendor")
        verbose_name_plural = _("vendors")
        ordering = ["name_zh", "name_en"]
        constraints = [
            models.CheckConstraint(
                condition=~(Q(name_zh="") & Q(name_en="")),
                name="vendor_has_a_name",
                violation_error_message=NAME_REQUIRED,
            ),
            models.CheckConstraint(
                condition=Q(registered_capital_cny__isnull=True) | Q(registered_capital_cny__gte=0),
                name="vendor_capital_not_negative",
            ),
            models.UniqueConstraint(
                fields=["team", "credit_code"],
                condition=~Q(credit_code=""),
                name="vendor_credit_code_unique_per_team",
            ),
        ]
        indexes = [
            # The quote list's default order (vendor name, then the quote's label): read in
            # this order, PostgreSQL cuts a page after the first vendors' quotes instead of
            # sorting every quote of the team (incremental sort).
            models.Index(fields=["name_zh", "name_en"], name="vendor_name_order"),
        ]

    def __str__(self) -> str:
        return self.name_zh or self.name_en

    def clean(self) -> None:
        """A credit code names one company: another vendor of the team holding it is a field
        error naming that vendor (vendor_credit_code_unique_per_team, said in words)."""
        if self.credit_code and self.team_id:
            twin = (
                Vendor.objects.filter(team_id=self.team_id, credit_code=self.credit_code)
                .exclude(pk=self.pk)
                .first()
            )
            if twin is not None:
                raise ValidationError(
                    {
                        "credit_code": _(
                            "Another vendor of your team already has this credit code: %(name)s."
                        )
                        % {"name": twin.name_for_reader()}
                    }
                )

    def name_for_reader(self) -> str:
        """The name in the reader's language when the vendor has one, else the other: what a
        drop-down shows (English pages listed Chinese names only). Stored labels and job
        results keep `str()`, whatever language the request or the worker had."""
        if (get_language() or "").lower().startswith("zh"):
            return self.name_zh or self.name_en
        return self.name_en or self.name_zh

    def standing_basis(self) -> list[tuple[str, float | None]]:
        """(contract title, its delivered ÷ committed) behind ``delivered_ratio``; a stored
        value of another shape reads as none."""
        rows = self.delivered_basis if isinstance(self.delivered_basis, list) else []
        out: list[tuple[str, float | None]] = []
        for row in rows:
            if isinstance(row, dict) and isinstance(row.get("title"), str):
                ratio = row.get("ratio")
                out.append((row["title"], float(ratio) if isinstance(ratio, int | float) else None))
        return out

    @property
    def display_names(self) -> str:
        if self.name_zh and self.name_en:
            return f"{self.name_zh} / {self.name_en}"
        return self.name_zh or self.name_en

    @property
    def services_display(self) -> str:
        """The services sold, in the reader's language ("GPU server rental, IDC"), not codes."""
        labels = dict(Service.choices)
        return ", ".join(str(labels.get(c, c)) for c in stored_codes(self.services))


class IcpFiling(Verifiable):
    """An ICP filing (ICP备案): registers a website; it is NOT an operating licence."""

    vendor = models.ForeignKey(Vendor, on_delete=models.CASCADE, related_name="icp_filings")
    number = models.CharField(
        _("ICP filing number"), max_length=64, validators=[validate_icp_filing]
    )
    website = models.CharField(_("website / domain"), max_length=200, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("ICP filing")
        verbose_name_plural = _("ICP filings")
        ordering = ["number"]

    def __str__(self) -> str:
        return self.number


class Licence(Verifiable):
    """A value-added telecom business licence (增值电信业务经营许可证) as claimed or verified."""

    vendor = models.ForeignKey(Vendor, on_delete=models.CASCADE, related_name="licences")
    number = models.CharField(
        _("licence number"), max_length=64, validators=[validate_licence_number]
    )
    business_codes = models.JSONField(
        _("business codes"),
        default=list,
        blank=True,
        help_text=_("e.g. B11, B12, B14, B25"),
        validators=[validate_business_code_list],
    )
    issuing_authority = models.CharField(_("issuing authority"), max_length=200, blank=True)
    issuer_scope = models.CharField(
        _("scope"), max_length=16, choices=IssuerScope.choices, default=IssuerScope.PROVINCIAL
    )
    issuer_province = models.CharField(
        _("issuing province"), max_length=4, choices=PROVINCE_CHOICES, blank=True
    )
    coverage_regions = models.JSONField(
        _("coverage regions"),
        default=list,
        blank=True,
        help_text=_("Province codes, or 'national'"),
        validators=[StoredShape("vendors.schemas.COVERAGE_REGIONS")],
    )
    valid_from = models.DateField(_("valid from"), null=True, blank=True)
    valid_until = models.DateField(_("valid until"), null=True, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("licence")
        verbose_name_plural = _("licences")
        ordering = ["number"]
        constraints = [_expiry_after_issue("licence_expiry_after_issue")]

    def __str__(self) -> str:
        return self.number

    @property
    def coverage_codes(self) -> list[str]:
        return stored_codes(self.coverage_regions)

    @property
    def business_code_list(self) -> list[str]:
        return stored_codes(self.business_codes)

    def clean(self) -> None:
        errors = _expiry_error(self)
        if self.number and self.business_codes:
            try:
                licence_codes_consistent(self.number, list(self.business_codes))
            except ValidationError as exc:
                errors["business_codes"] = exc.messages
        if errors:
            raise ValidationError(errors)


class Certification(Verifiable):
    """ISO 9001, ISO 27001 or another certificate."""

    vendor = models.ForeignKey(Vendor, on_delete=models.CASCADE, related_name="certifications")
    kind = models.CharField(_("kind"), max_length=16, choices=CertificationKind.choices)
    name = models.CharField(_("name"), max_length=200, blank=True)
    number = models.CharField(_("certificate number"), max_length=100, blank=True)
    issuer = models.CharField(_("issuer"), max_length=200, blank=True)
    valid_from = models.DateField(_("issued on"), null=True, blank=True)
    valid_until = models.DateField(_("expires on"), null=True, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("certification")
        verbose_name_plural = _("certifications")
        ordering = ["kind", "number"]
        constraints = [_expiry_after_issue("certification_expiry_after_issue")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.number}".strip()

    def clean(self) -> None:
        errors = _expiry_error(self)
        if errors:
            raise ValidationError(errors)


class DataCentre(Verifiable):
    """A data centre (机房) where the vendor's servers are hosted."""

    vendor = models.ForeignKey(Vendor, on_delete=models.CASCADE, related_name="data_centres")
    name = models.CharField(_("name"), max_length=200)
    city = models.CharField(_("city"), max_length=100, blank=True)
    province = models.CharField(_("province"), max_length=4, choices=PROVINCE_CHOICES, blank=True)
    ownership = models.CharField(
        _("ownership"), max_length=16, choices=Ownership.choices, default=Ownership.UNKNOWN
    )
    power_per_rack_kw = models.DecimalField(
        _("power per rack (kW)"),
        max_digits=6,
        decimal_places=1,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )
    tier = models.CharField(_("tier"), max_length=20, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("data centre")
        verbose_name_plural = _("data centres")
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(power_per_rack_kw__isnull=True) | Q(power_per_rack_kw__gte=0),
                name="dc_power_not_negative",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.city})" if self.city else self.name


class NetworkProfile(Verifiable):
    """The training network of one data centre: fabric, lossless features, topology."""

    data_centre = models.OneToOneField(DataCentre, on_delete=models.CASCADE, related_name="network")
    fabric = models.CharField(_("fabric"), max_length=8, choices=Fabric.choices)
    pfc = models.BooleanField(_("PFC"), null=True, blank=True)
    ecn = models.BooleanField(_("ECN"), null=True, blank=True)
    dcqcn = models.BooleanField(_("DCQCN"), null=True, blank=True)
    topology = models.CharField(
        _("topology"), max_length=16, choices=Topology.choices, default=Topology.UNKNOWN
    )
    mgmt_separated = models.BooleanField(
        _("management and business networks separated"), null=True, blank=True
    )
    nic_gbps = models.DecimalField(
        _("NIC port speed (Gbit/s)"),
        max_digits=7,
        decimal_places=1,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )
    nics_per_node = models.PositiveSmallIntegerField(_("NICs per server"), null=True, blank=True)
    rack_uplink_gbps = models.DecimalField(
        _("rack uplink (Gbit/s)"),
        max_digits=8,
        decimal_places=1,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )
    servers_per_rack = models.PositiveSmallIntegerField(
        _("servers per rack"), null=True, blank=True
    )
    switch_model = models.CharField(_("switch model"), max_length=120, blank=True)
    nic_model = models.CharField(_("NIC model"), max_length=120, blank=True)
    dedicated_cross_site = models.BooleanField(
        _("dedicated cross-site links"), null=True, blank=True
    )
    congestion_tuning_by = models.CharField(
        _("who tunes congestion control"), max_length=120, blank=True
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("network profile")
        verbose_name_plural = _("network profiles")

    def __str__(self) -> str:
        return f"{self.get_fabric_display()} @ {self.data_centre}"


class SlaTerms(Verifiable):
    """Service-level and bandwidth terms of the contract."""

    vendor = models.OneToOneField(Vendor, on_delete=models.CASCADE, related_name="sla")
    availability = models.DecimalField(
        _("availability"),
        max_digits=6,
        decimal_places=5,
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text=_("0–1, e.g. 0.999"),
    )
    response_minutes = models.PositiveIntegerField(
        _("response time (minutes)"), null=True, blank=True
    )
    hw_replacement_hours = models.DecimalField(
        _("hardware replacement (hours)"),
        max_digits=6,
        decimal_places=1,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )
    bandwidth_in_contract = models.BooleanField(
        _("bandwidth written into the contract"), null=True, blank=True
    )
    compensation_clause = models.BooleanField(
        _("compensation when not met (达标补偿)"), null=True, blank=True
    )
    credits = models.TextField(
        _("service credits"), blank=True, help_text=_("The vendor's own wording, as written.")
    )
    # The same structured schedule as a contract's (domain.delivery.terms' stored shape, checked
    # by core.compensation at every door: form, serializer, clean() and the database outline);
    # a contract made from this vendor's quote or award starts from it.
    schedule = models.JSONField(_("compensation schedule"), default=dict, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("SLA terms")
        verbose_name_plural = _("SLA terms")
        constraints = [
            models.CheckConstraint(
                condition=Q(availability__isnull=True)
                | (Q(availability__gte=0) & Q(availability__lte=1)),
                name="sla_availability_0_1",
            ),
            models.CheckConstraint(condition=schedule_outline(), name="sla_schedule_outline"),
        ]

    def __str__(self) -> str:
        return f"SLA {self.vendor}"

    def clean(self) -> None:
        super().clean()
        problems = schedule_errors(self.schedule)
        if problems:
            raise ValidationError({"schedule": problems})
        self.schedule = schedule_normalised(self.schedule)
