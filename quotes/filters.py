"""Filters and ordering of the quote list page (django-filter), scoped to the viewer's team."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Case, DecimalField, ExpressionWrapper, F, Q, QuerySet, Value, When
from django.db.models.functions import Greatest
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _

from core.widgets import fast_widgets
from vendors.choices import Fabric
from vendors.models import Vendor

from .choices import BandwidthBilling
from .models import GpuModel, Quote

MONEY = DecimalField(max_digits=16, decimal_places=2)


def with_monthly_rent(qs: QuerySet[Quote]) -> QuerySet[Quote]:
    """Annotate `rent`: the current version's monthly bill as `QuoteVersion.monthly_rent` computes
    it (rent + other fees + storage + amortised set-up + public bandwidth unless billed per GB),
    so the list can sort by it in the database."""
    v = "current_version__"
    bandwidth = Case(
        When(
            **{f"{v}bandwidth_billing": BandwidthBilling.PER_GB},
            then=Value(0, output_field=MONEY),
        ),
        default=F(f"{v}public_bandwidth_mbps") * F(f"{v}bandwidth_price"),
        output_field=MONEY,
    )
    rent = ExpressionWrapper(
        F(f"{v}nodes") * F(f"{v}price_per_node_month")
        + F(f"{v}monthly_fees")
        + F(f"{v}storage_tb") * F(f"{v}storage_price_tb_month")
        + F(f"{v}setup_fee") / Greatest(F(f"{v}term_months"), Value(1))
        + bandwidth,
        output_field=MONEY,
    )
    total_gpus = ExpressionWrapper(F(f"{v}nodes") * F(f"{v}gpus_per_node"), output_field=MONEY)
    return qs.annotate(rent=rent, total_gpus=total_gpus)


def gpu_choices() -> list[tuple[str, str]]:
    return [(key, key) for key in GpuModel.objects.order_by("key").values_list("key", flat=True)]


def _descending(fmt: Any, label: Any) -> str:
    return str(fmt) % label


class Ordering(django_filters.OrderingFilter):
    descending_fmt = _("%s, descending")

    def build_choices(self, fields, labels):  # type: ignore[no-untyped-def]
        """django-filter formats "x, descending" once, at import, in the default language; the
        labels here stay lazy and are worded in the language of each request."""
        choices = super().build_choices(fields, labels)
        ascending = dict(choices[0::2])
        return [
            (value, label if not value.startswith("-") else
             lazy(_descending, str)(self.descending_fmt, ascending[value[1:]]))
            for value, label in choices
        ]  # fmt: skip

    def filter(self, qs, value):  # type: ignore[no-untyped-def]
        # Ties (quotes of one vendor, equal rents) are broken by label and id, so that a page
        # boundary falls at the same place in every query: no quote on two pages, none on none.
        qs = super().filter(qs, value)
        if value:
            qs = qs.order_by(*qs.query.order_by, "label", "pk")
        return qs


class QuoteListFilter(django_filters.FilterSet):
    search = django_filters.CharFilter(label=_("Search"), method="filter_search")
    # Plain choices (one values query each) rather than model choices: the form lists every
    # vendor of the team, and building 100 model instances per page view was a third of the
    # list's time.
    vendor = django_filters.ChoiceFilter(label=_("Vendor"), field_name="vendor_id", choices=[])
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
    current = django_filters.ChoiceFilter(
        label=_("Versions"),
        method="filter_current",
        choices=[("1", _("current quotes only"))],
        empty_label=_("all quotes"),
    )
    per_page = django_filters.ChoiceFilter(
        label=_("Rows per page"),
        method="filter_per_page",
        choices=[("25", "25"), ("50", "50"), ("100", "100")],
        empty_label=None,
    )
    sort = Ordering(
        label=_("Sort by"),
        fields=(
            ("vendor__name_zh", "vendor"),
            ("rent", "rent"),
            ("total_gpus", "gpus"),
            ("current_version__nic_gbps", "nic"),
            ("measured_gbps", "measured"),
            ("updated_at", "updated"),
        ),
        field_labels={
            "vendor__name_zh": _("vendor"),
            "rent": _("rent per month"),
            "total_gpus": _("GPUs"),
            "current_version__nic_gbps": _("NIC speed"),
            "measured_gbps": _("measured bandwidth"),
            "updated_at": _("last change"),
        },
    )

    class Meta:
        model = Quote
        fields: list[str] = []

    def __init__(self, *args, team, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        vendors = Vendor.objects.for_team(team).order_by("name_zh", "name_en")
        self.filters["vendor"].extra["choices"] = [
            (pk, zh or en) for pk, zh, en in vendors.values_list("pk", "name_zh", "name_en")
        ]

    @property
    def form(self):  # type: ignore[no-untyped-def]
        return fast_widgets(super().form)

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
            return qs.filter(measured_gbps__isnull=False)
        if value == "unverified":
            return qs.filter(measured_gbps__isnull=True)
        return qs

    def filter_per_page(self, qs, name, value):  # type: ignore[no-untyped-def]
        return qs  # read by the view (`rows_per_page`), not a filter of the rows

    def rows_per_page(self, default: int) -> int:
        form = self.form
        value = form.cleaned_data.get("per_page") if form.is_valid() else None
        return int(value) if value else default

    def filter_current(self, qs, name, value):  # type: ignore[no-untyped-def]
        return qs.filter(is_current=True) if value == "1" else qs
