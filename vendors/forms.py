"""Forms for vendor profiles. Validation lives on the models; forms only shape the inputs."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.forms import StrictTristates
from core.schedule_forms import ScheduleFieldsMixin
from core.widgets import IsoDateInput
from domain import plausibility
from domain.regions import PROVINCE_CHOICES, province_names

from .choices import BUSINESS_CODES, Service
from .concurrency import stamp
from .models import Certification, DataCentre, IcpFiling, Licence, NetworkProfile, SlaTerms, Vendor
from .validators import plausibility_errors

_DATE = IsoDateInput()  # YYYY-MM-DD whatever the page's language
_TRISTATE = forms.NullBooleanSelect
VERIFY_FIELDS = ["state", "evidence", "verification_note"]


def localise_provinces(form_fields) -> None:  # type: ignore[no-untyped-def]
    """Province choices in the page's language only (广东 / Guangdong, not "广东 Guangdong")."""
    names = province_names(get_language())
    for field in form_fields.values():
        choices = getattr(field, "choices", None)
        if choices and any(str(k) in names for k, _label in choices):
            field.choices = [(k, names.get(str(k), label)) for k, label in choices]


class VendorChoiceField(forms.ModelChoiceField):
    """A vendor drop-down in the reader's language (English pages listed Chinese names)."""

    def label_from_instance(self, obj: Vendor) -> str:  # type: ignore[override]
        return obj.name_for_reader()


class ProvinceLabelsMixin:
    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        localise_provinces(self.fields)  # type: ignore[attr-defined]


class PlausibleMixin:
    """Bounds of domain/plausibility.py on the form's numbers: beyond a hard bound is a field error;
    beyond a soft one the form shows "I confirm these unusual values" and needs it ticked."""

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        self.outlier_warnings: list[str] = []
        self.fields["confirm_outliers"] = forms.BooleanField(  # type: ignore[attr-defined]
            required=False, label=_("I confirm these unusual values"), widget=forms.HiddenInput
        )

    def clean(self):  # type: ignore[no-untyped-def]
        data = super().clean()  # type: ignore[misc]
        kind = self._meta.model._meta.model_name  # type: ignore[attr-defined]
        errors, warnings = plausibility_errors(kind, data.get)
        for field, messages in errors.items():
            if field in self.fields and field not in self.errors:  # type: ignore[attr-defined]
                for message in messages:
                    self.add_error(field, message)  # type: ignore[attr-defined]
        self.outlier_warnings = [w.message.text(get_language()) for w in warnings]
        if warnings:
            self.fields["confirm_outliers"].widget = forms.CheckboxInput()  # type: ignore[attr-defined]
            if not data.get("confirm_outliers"):
                self.add_error(None, plausibility.CONFIRM_NEEDED.text(get_language()))  # type: ignore[attr-defined]
                for text in self.outlier_warnings:
                    self.add_error("confirm_outliers", text)  # type: ignore[attr-defined]
        return data


class VendorForm(ProvinceLabelsMixin, PlausibleMixin, forms.ModelForm):
    services = forms.MultipleChoiceField(
        label=_("services sold"),
        choices=Service.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    # The stamp of the vendor the form was filled from (vendors.concurrency); an edit based on
    # an older one is refused (409 with what changed since). Empty when creating.
    based_on = forms.CharField(required=False, max_length=32, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk and self.instance.updated_at:
            self.initial["based_on"] = stamp(self.instance)

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


class LicenceForm(ProvinceLabelsMixin, forms.ModelForm):
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


class DataCentreForm(ProvinceLabelsMixin, PlausibleMixin, forms.ModelForm):
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


class NetworkProfileForm(StrictTristates, PlausibleMixin, forms.ModelForm):
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


class SlaTermsForm(StrictTristates, ScheduleFieldsMixin, PlausibleMixin, forms.ModelForm):
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
        widgets = {"bandwidth_in_contract": _TRISTATE, "compensation_clause": _TRISTATE,
                   "credits": forms.Textarea(attrs={"rows": 3})}  # fmt: skip

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_schedule_fields(self.instance.schedule or {},
                                 has_label=_("The SLA states a compensation schedule"),
                                 default_on=False)  # fmt: skip

    def plain_fields(self) -> list[Any]:
        """The SLA's own fields (the page shows the schedule's apart, as a contract's)."""
        names = set(self.schedule_field_names())
        return [f for f in self.visible_fields() if f.name not in names]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors:
            problems = self.schedule_problems()
            for p in problems:
                self.add_error(None, p)
            if not problems:
                self.instance.schedule = self.schedule_data()
        return data


# kind slug -> (form class, model, verbose label); the generic child views dispatch on it.
CHILD_FORMS = {
    "licence": LicenceForm,
    "icp": IcpFilingForm,
    "certification": CertificationForm,
    "datacentre": DataCentreForm,
    "sla": SlaTermsForm,
}
