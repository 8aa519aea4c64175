"""The vendor list's one FilterSet, shared by the page (/vendors/), its export and the API.

Province means one thing everywhere: the vendor has a data centre in that province **or** is
registered there (the page's meaning; the API used to match data centres only). The API's
other names stay accepted: ``search=`` (``q=``), ``has_critical=true|false`` (``findings=``),
``home_province=`` and ``is_demo=`` (exact fields, not in the page's filter bar).
"""

from __future__ import annotations

import django_filters
from django.db.models import Exists, OuterRef, Q
from django.utils.translation import gettext_lazy as _

from core.filters import TeamFilterSet, TeamOrdering
from domain.regions import PROVINCE_CHOICES

from .choices import Fabric
from .models import DataCentre, Vendor


class VendorFilter(TeamFilterSet):
    ALIASES = ("search", "has_critical", "home_province", "is_demo")

    q = django_filters.CharFilter(
        label=_("Search"), method="filter_search",
        help_text=_("Part of the name (Chinese or English), short name or credit code."),
    )  # fmt: skip
    search = django_filters.CharFilter(label=_("Search"), method="filter_search")
    province = django_filters.ChoiceFilter(
        label=_("Province"), choices=PROVINCE_CHOICES, method="filter_province",
        help_text=_("A data centre in the province, or registered there."),
    )  # fmt: skip
    fabric = django_filters.ChoiceFilter(
        label=_("Fabric"), choices=Fabric.choices, method="filter_fabric"
    )
    findings = django_filters.ChoiceFilter(
        label=_("Findings"),
        method="filter_findings",
        choices=[
            ("critical", _("with critical red flags")),
            ("any", _("with any finding")),
            ("none", _("without findings")),
        ],
    )
    has_critical = django_filters.BooleanFilter(
        label=_("Critical red flags"), method="filter_critical"
    )
    home_province = django_filters.ChoiceFilter(
        label=_("Registered in province"), choices=PROVINCE_CHOICES, field_name="home_province"
    )
    is_demo = django_filters.BooleanFilter(label=_("Demo data"), field_name="is_demo")
    sort = TeamOrdering(
        label=_("Sort by"),
        tie_break=("name_zh", "name_en"),
        fields=(
            ("name_zh", "name"),
            ("findings_critical", "findings"),
            ("founded_year", "founded"),
            ("updated_at", "updated"),
        ),
        field_labels={
            "name_zh": _("vendor"),
            "findings_critical": _("critical findings"),
            "founded_year": _("founded"),
            "updated_at": _("last change"),
        },
    )

    class Meta:
        model = Vendor
        fields: list[str] = []

    def filter_search(self, qs, name, value):  # type: ignore[no-untyped-def]
        value = value.strip()
        if not value:
            return qs
        return qs.filter(
            Q(name_zh__icontains=value)
            | Q(name_en__icontains=value)
            | Q(short_name__icontains=value)
            | Q(credit_code__icontains=value)
        )

    # Data-centre conditions as EXISTS subqueries: a vendor with several matching data
    # centres is listed once without DISTINCT over the whole list.
    def filter_province(self, qs, name, value):  # type: ignore[no-untyped-def]
        in_province = DataCentre.objects.filter(vendor=OuterRef("pk"), province=value)
        return qs.filter(Q(Exists(in_province)) | Q(home_province=value))

    def filter_fabric(self, qs, name, value):  # type: ignore[no-untyped-def]
        return qs.filter(
            Exists(DataCentre.objects.filter(vendor=OuterRef("pk"), network__fabric=value))
        )

    def filter_findings(self, qs, name, value):  # type: ignore[no-untyped-def]
        if value == "critical":
            return qs.filter(findings_critical__gt=0)
        if value == "any":
            return qs.filter(findings_total__gt=0)
        if value == "none":
            return qs.filter(findings_total=0)
        return qs

    def filter_critical(self, qs, name, value):  # type: ignore[no-untyped-def]
        if value is None:
            return qs
        return qs.filter(findings_critical__gt=0) if value else qs.filter(findings_critical=0)
