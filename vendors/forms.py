"""Forms for vendor profiles. Validation lives on the models; forms only shape the inputs."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from domain.regions import PROVINCE_CHOICES

from .choices import BUSINESS_CODES, Service
from .models import Certification, DataCentre, IcpFiling, Licence, NetworkProfile, SlaTerms, Vendor

_DATE = forms.DateInput(attrs={"type": "date"})
_TRISTATE = forms.NullBooleanSelect
VERIFY_FIELDS = ["state", "evidence", "verification_note"]


class VendorForm(forms.ModelForm):
    services = forms.MultipleChoiceField(
        label=_("services sold"),
        choices=Service.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    class Meta:
        model = Vendor
        fields = [
            "name_zh",
            "name_en",
            "short_name",
            "credit_code",
            "registered_capital_cny",
            "founded_year",
            "website",
            "home_province",
            "services",
            "notes",
        ]


class LicenceForm(forms.ModelForm):
    business_codes = forms.MultipleChoiceField(
        label=_("business codes"),
        choices=BUSINESS_CODES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    coverage_regions = forms.MultipleChoiceField(
        label=_("coverage regions"),
        choices=[("national", _("Nationwide"))] + list(PROVINCE_CHOICES),
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 6}),
    )

    class Meta:
        model = Licence
        fields = [
            "number",
            "business_codes",
            "issuing_authority",
            "issuer_scope",
            "issuer_province",
            "coverage_regions",
            "valid_from",
            "valid_until",
            *VERIFY_FIELDS,
        ]
        widgets = {"valid_from": _DATE, "valid_until": _DATE}


class IcpFilingForm(forms.ModelForm):
    class Meta:
        model = IcpFiling
        fields = ["number", "website", *VERIFY_FIELDS]


class CertificationForm(forms.ModelForm):
    class Meta:
        model = Certification
        fields = ["kind", "name", "number", "issuer", "valid_from", "valid_until", *VERIFY_FIELDS]
        widgets = {"valid_from": _DATE, "valid_until": _DATE}


class DataCentreForm(forms.ModelForm):
    class Meta:
        model = DataCentre
        fields = [
            "name",
            "city",
            "province",
            "ownership",
            "power_per_rack_kw",
            "tier",
            *VERIFY_FIELDS,
        ]


class NetworkProfileForm(forms.ModelForm):
    class Meta:
        model = NetworkProfile
        fields = [
            "fabric",
            "pfc",
            "ecn",
            "dcqcn",
            "topology",
            "mgmt_separated",
            "nic_gbps",
            "nics_per_node",
            "rack_uplink_gbps",
            "servers_per_rack",
            "switch_model",
            "nic_model",
            "dedicated_cross_site",
            "congestion_tuning_by",
            *VERIFY_FIELDS,
        ]
        widgets = {
            "pfc": _TRISTATE,
            "ecn": _TRISTATE,
            "dcqcn": _TRISTATE,
            "mgmt_separated": _TRISTATE,
            "dedicated_cross_site": _TRISTATE,
        }


class SlaTermsForm(forms.ModelForm):
    class Meta:
        model = SlaTerms
        fields = [
            "availability",
            "response_minutes",
            "hw_replacement_hours",
            "bandwidth_in_contract",
            "compensation_clause",
            "credits",
            *VERIFY_FIELDS,
        ]
        widgets = {"bandwidth_in_contract": _TRISTATE, "compensation_clause": _TRISTATE}


# kind slug -> (form class, model, verbose label); the generic child views dispatch on it.
CHILD_FORMS = {
    "licence": LicenceForm,
    "icp": IcpFilingForm,
    "certification": CertificationForm,
    "datacentre": DataCentreForm,
    "sla": SlaTermsForm,
}
