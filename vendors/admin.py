from django.contrib import admin

from core.admin import TeamScopedAdmin
from core.deletion import delete_queryset_with_files

from .models import Certification, DataCentre, IcpFiling, Licence, NetworkProfile, SlaTerms, Vendor
from .services import vendor_delete


@admin.register(Vendor)
class VendorAdmin(TeamScopedAdmin):
    list_display = (
        "__str__",
        "name_en",
        "credit_code",
        "findings_critical",
        "findings_total",
        "is_demo",
    )
    search_fields = ("name_zh", "name_en", "credit_code")
    list_filter = ("is_demo", "home_province")
    readonly_fields = (
        "findings_critical",
        "findings_warning",
        "findings_total",
        "findings_checked_at",
    )

    def delete_model(self, request, obj) -> None:  # type: ignore[no-untyped-def]
        vendor_delete(vendor=obj)  # the uploaded files go too, after the commit

    def delete_queryset(self, request, queryset) -> None:  # type: ignore[no-untyped-def]
        delete_queryset_with_files(queryset)


class _VendorChildAdmin(TeamScopedAdmin):
    team_path = "vendor__team"
    list_select_related = ("vendor",)
    list_filter = ("state",)


@admin.register(Licence)
class LicenceAdmin(_VendorChildAdmin):
    list_display = ("number", "vendor", "issuer_scope", "valid_until", "state")


@admin.register(IcpFiling)
class IcpFilingAdmin(_VendorChildAdmin):
    list_display = ("number", "vendor", "state")


@admin.register(Certification)
class CertificationAdmin(_VendorChildAdmin):
    list_display = ("kind", "number", "vendor", "valid_until", "state")


@admin.register(DataCentre)
class DataCentreAdmin(_VendorChildAdmin):
    list_display = ("name", "city", "province", "ownership", "vendor", "state")


@admin.register(SlaTerms)
class SlaTermsAdmin(_VendorChildAdmin):
    list_display = ("vendor", "availability", "bandwidth_in_contract", "state")


@admin.register(NetworkProfile)
class NetworkProfileAdmin(TeamScopedAdmin):
    team_path = "data_centre__vendor__team"
    list_display = ("data_centre", "fabric", "pfc", "ecn", "topology", "state")
    list_select_related = ("data_centre",)
