"""The quote list's one FilterSet (django-filter), shared by the page and the API.

`QuoteFilter` serves /quotes/ (its form is the page's filter bar), the page's CSV / XLSX export
and /api/v1/quotes/, so the same parameters give the same rows everywhere. The API's older
names stay accepted as aliases of the page's: ``measured=true|false`` (``evidence=``),
``is_current=true|false`` (``current=1``), ``ordering=`` (``sort=``, see the API view). The
vendor filter offers only the team's vendors (core.filters.TeamFilterSet).
"""

from __future__ import annotations

from decimal import Decimal

import django_filters
from django.db.models import Case, DecimalField, ExpressionWrapper, F, Q, QuerySet, Value, When
from django.db.models.functions import Greatest, Round
from django.utils.translation import gettext_lazy as _

from core.filters import TeamFilterSet, TeamOrdering
from domain import money
from vendors.choices import Fabric
from vendors.models import Vendor

from .models import GpuModel, Quote

MONEY = DecimalField(max_digits=16, decimal_places=2)
_EXACT = DecimalField(max_digits=40, decimal_places=20)


def _tax_factor(v: str, basis: str) -> tuple[Case, Case]:
    """`domain.money.tax_factor` in SQL: (multiply, divide) of a version's price on `basis`."""
    one = Value(Decimal(1), output_field=_EXACT)
    gross = Value(Decimal(1), output_field=_EXACT) + F(f"{v}vat_rate") * Value(
        Decimal("0.01"), output_field=_EXACT
    )
    stated = Q(**{f"{v}vat_rate__isnull": False, f"{v}prices_include_vat__isnull": False})
    inclusive = stated & Q(**{f"{v}prices_include_vat": True})
    exclusive = stated & Q(**{f"{v}prices_include_vat": False})
    if basis == money.BASIS_EXCLUDING_VAT:
        special = Q(**{f"{v}invoice_type": money.INVOICE_SPECIAL})
        multiply = Case(When(exclusive & ~special, then=gross), default=one, output_field=_EXACT)
        divide = Case(When(inclusive & special, then=gross), default=one, output_field=_EXACT)
    else:
        multiply = Case(When(exclusive, then=gross), default=one, output_field=_EXACT)
        divide = one
    return multiply, divide


def with_monthly_rent(qs: QuerySet[Quote], basis: str = money.DEFAULT_TAX_BASIS) -> QuerySet[Quote]:
    """Annotate `rent`: the current version's monthly bill in CNY on the tax `basis`, to the
    cent, exactly as `domain.money.Bill.comparable` computes it (the one money rule; a test over
    generated quotes holds the two equal), so the list sorts by it in the database:

        round(((rent + other + storage + bandwidth) x term + set-up) x fx x multiply
              / (term x divide), 2)

    with bandwidth 0 when billed per GB and fx 1 for CNY."""
    money.tax_factor(money.TaxTerms(), basis)  # an unknown basis fails here, not in SQL
    v = "current_version__"
    bandwidth = Case(
        When(
            **{f"{v}bandwidth_billing": money.BANDWIDTH_PER_GB},
            then=Value(0, output_field=MONEY),
        ),
        default=F(f"{v}public_bandwidth_mbps") * F(f"{v}bandwidth_price"),
        output_field=MONEY,
    )
    term = Greatest(F(f"{v}term_months"), Value(1))
    fx = Case(
        When(**{f"{v}currency": "CNY"}, then=Value(Decimal(1), output_field=_EXACT)),
        default=F(f"{v}fx_to_cny"),
        output_field=_EXACT,
    )
    multiply, divide = _tax_factor(v, basis)
    monthly = (
        F(f"{v}nodes") * F(f"{v}price_per_node_month")
        + F(f"{v}monthly_fees")
        + F(f"{v}storage_tb") * F(f"{v}storage_price_tb_month")
        + bandwidth
    )
    top = (monthly * term + F(f"{v}setup_fee")) * fx * multiply
    rent = Round(
        ExpressionWrapper(top / (term * divide), output_field=_EXACT), 2, output_field=MONEY
    )
    total_gpus = ExpressionWrapper(F(f"{v}nodes") * F(f"{v}gpus_per_node"), output_field=MONEY)
    return qs.annotate(rent=rent, total_gpus=total_gpus)


def sorts_by_rent(data) -> bool:  # type: ignore[no-untyped-def]
    """Whether the list's order (``sort=``, comma-separated) reads the annotations of
    `with_monthly_rent`: a list that does not show them sorts without building them (their
    expression tree cost more than the rest of the query)."""
    sort = (data.get("sort") if data else None) or ""
    return any(part.strip().lstrip("-") in ("rent", "gpus") for part in sort.split(","))


def gpu_choices() -> list[tuple[str, str]]:
    return [(key, key) for key in GpuModel.objects.order_by("key").values_list("key", flat=True)]


class VendorChoiceFilter(django_filters.ModelChoiceFilter):
    """A vendor id of the team (ModelChoiceFilter: scoped by TeamFilterSet, and an id of
    another team is refused like a missing one)."""


class QuoteFilter(TeamFilterSet):
    # Parameters that only alias another (the API's older names): accepted everywhere, not
    # shown in the page's filter bar.
    ALIASES = ("measured", "is_current")
    OPTION_LABELS = {"vendor": ("name_zh", "name_en")}

    search = django_filters.CharFilter(
        label=_("Search"), method="filter_search",
        help_text=_("Part of the quote's label or of the vendor's name."),
    )  # fmt: skip
    vendor = VendorChoiceFilter(label=_("Vendor"), queryset=Vendor.objects.all())
    gpu = django_filters.ChoiceFilter(
        label=_("GPU model"), field_name="current_version__gpu__key", choices=gpu_choices
    )
    fabric = django_filters.ChoiceFilter(
        label=_("Fabric"), field_name="current_version__fabric", choices=Fabric.choices
    )
    min_nic_gbps = django_filters.NumberFilter(
        label=_("NIC at least (Gbit/s)"),
        field_name="current_version__nic_gbps",
        lookup_expr="gte",
        min_value=0,
    )
    evidence = django_filters.ChoiceFilter(
        label=_("Bandwidth evidence"),
        method="filter_evidence",
        choices=[("measured", _("measured")), ("unverified", _("claimed only"))],
    )
    measured = django_filters.BooleanFilter(
        label=_("Measured bandwidth"), method="filter_measured",
        help_text=_("true: only quotes with measured bandwidth; false: only claimed bandwidth"),
    )  # fmt: skip
    current = django_filters.ChoiceFilter(
        label=_("Versions"),
        method="filter_current",
        choices=[("1", _("current quotes only"))],
        empty_label=_("all quotes"),
    )
    is_current = django_filters.BooleanFilter(label=_("Current quote"), field_name="is_current")
    per_page = django_filters.ChoiceFilter(
        label=_("Rows per page"),
        method="filter_per_page",
        choices=[("25", "25"), ("50", "50"), ("100", "100")],
        empty_label=None,
    )
    sort = TeamOrdering(
        label=_("Sort by"),
        tie_break=("label",),  # quotes of one vendor, equal rents
        fields=(
            ("vendor__name_zh", "vendor"),
            ("label", "label"),
            ("rent", "rent"),
            ("total_gpus", "gpus"),
            ("current_version__nic_gbps", "nic"),
            ("measured_typical_gbps", "measured"),
            ("updated_at", "updated"),
        ),
        field_labels={
            "vendor__name_zh": _("vendor"),
            "label": _("quote"),
            "rent": _("rent per month"),
            "total_gpus": _("GPUs"),
            "current_version__nic_gbps": _("NIC speed"),
            "measured_typical_gbps": _("measured bandwidth"),
            "updated_at": _("last change"),
        },
    )

    class Meta:
        model = Quote
        fields: list[str] = []

    def filter_search(self, qs, name, value):  # type: ignore[no-untyped-def]
        value = value.strip()
        if not value:
            return qs
        return qs.filter(
            Q(label__icontains=value)
            | Q(vendor__name_zh__icontains=value)
            | Q(vendor__name_en__icontains=value)
        )

    def filter_evidence(self, qs, name, value):  # type: ignore[no-untyped-def]
        if value == "measured":
            return qs.filter(measured_typical_gbps__isnull=False)
        if value == "unverified":
            return qs.filter(measured_typical_gbps__isnull=True)
        return qs

    def filter_measured(self, qs, name, value):  # type: ignore[no-untyped-def]
        if value is None:
            return qs
        return self.filter_evidence(qs, name, "measured" if value else "unverified")

    def filter_per_page(self, qs, name, value):  # type: ignore[no-untyped-def]
        return qs  # read by the view (`rows_per_page`), not a filter of the rows

    def rows_per_page(self, default: int) -> int:
        if not self.is_bound:
            return default
        form = self.form
        value = form.cleaned_data.get("per_page") if form.is_valid() else None
        return int(value) if value else default

    def filter_current(self, qs, name, value):  # type: ignore[no-untyped-def]
        return qs.filter(is_current=True) if value == "1" else qs


QuoteListFilter = QuoteFilter  # the page's former name
