"""Forms of the sourcing pages; every rule lives in the services, not here."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.forms import KeepStoredInstants
from core.widgets import LocalDateTimeInput
from domain import money
from domain.rfq_rules import MAX_INTERNODE_GBPS
from quotes.choices import InvoiceType
from quotes.forms import INVOICE_ERROR, VAT_RATE_ERROR, VatIncludedSelect
from quotes.models import GpuModel, QuoteVersion, WorkloadProfile
from vendors.forms import VendorChoiceField, localise_provinces
from vendors.models import Vendor

from .choices import Evidence, Nonconforming, Requirement
from .models import DEFAULT_WEIGHTS, Rfq
from .services import RFQ_FIELDS, WEIGHT_KEYS
from .terms import TERM_FIELDS


class CapfirstLabels:
    """Labels start with a capital like the model forms' ones (the msgids stay lower-case)."""

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        for field in self.fields.values():  # type: ignore[attr-defined]
            if field.label:
                field.label = capfirst(field.label)


class RfqForm(KeepStoredInstants, CapfirstLabels, forms.ModelForm):
    required_evidence = forms.MultipleChoiceField(
        label=_("required evidence"), choices=Evidence.choices, widget=forms.CheckboxSelectMultiple
    )
    mandatory = forms.MultipleChoiceField(
        label=_("mandatory requirements"), choices=Requirement.choices, required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("A bid that fails one of these is knocked out, or ranked after every "
                    "conforming bid (below)."),
    )  # fmt: skip
    weight_cost = forms.FloatField(label=_("weight: cost per ETH"), min_value=0)
    weight_network = forms.FloatField(label=_("weight: network evidence"), min_value=0)
    weight_diligence = forms.FloatField(label=_("weight: due-diligence findings"), min_value=0)
    weight_sla = forms.FloatField(label=_("weight: SLA"), min_value=0)

    class Meta:
        model = Rfq
        fields = [
            f for f in RFQ_FIELDS if f not in ("weights", "required_evidence", "mandatory")
        ] + ["gpu_models"]
        widgets = {"deadline": LocalDateTimeInput(),  # to the second, as stored
                   "gpu_models": forms.CheckboxSelectMultiple,
                   "nonconforming": forms.RadioSelect}  # fmt: skip

    def __init__(self, *args, team, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.fields["workload"].queryset = WorkloadProfile.objects.for_team(team)
        self.fields["gpu_models"].queryset = GpuModel.objects.all()
        localise_provinces(self.fields)  # the region in the page's language only
        weights = (self.instance.weights if self.instance.pk else None) or DEFAULT_WEIGHTS
        for key in WEIGHT_KEYS:
            self.fields[f"weight_{key}"].initial = weights[key]
        self.fields["required_evidence"].initial = self.instance.required_evidence
        self.fields["mandatory"].initial = self.instance.mandatory
        self.fields["nonconforming"].required = False  # not posted: knocked out (the default)
        # the browser's hint; the service checks the bound with its message (domain.rfq_rules)
        self.fields["min_internode_gbps"].widget.attrs["max"] = f"{MAX_INTERNODE_GBPS:.0f}"

    def _post_clean(self) -> None:  # the service validates the RFQ (team, weights, deadline)
        pass

    def service_data(self) -> dict[str, Any]:
        d = dict(self.cleaned_data)
        d["weights"] = {key: d.pop(f"weight_{key}") for key in WEIGHT_KEYS}
        d["required_evidence"] = list(d["required_evidence"])
        d["mandatory"] = list(d.get("mandatory") or [])
        d["nonconforming"] = d.get("nonconforming") or Nonconforming.KNOCK_OUT
        d["gpu_models"] = list(d.get("gpu_models") or [])
        return d


class InviteForm(CapfirstLabels, forms.Form):
    vendor = VendorChoiceField(label=_("vendor"), queryset=Vendor.objects.none())
    email = forms.EmailField(label=_("e-mail of the vendor's contact"))

    def __init__(self, *args, team, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.fields["vendor"].queryset = Vendor.objects.for_team(team)


class AnswerForm(CapfirstLabels, forms.ModelForm):
    """The offer terms, with the quote version's own fields and labels; the VAT terms as on the
    quote form, so the bid is compared on the team's tax basis (domain/money.py)."""

    prices_include_vat = forms.NullBooleanField(
        required=False, label=_("prices include VAT"), widget=VatIncludedSelect,
    )  # fmt: skip
    vat_rate = forms.TypedChoiceField(
        required=False, label=_("VAT rate (%)"), coerce=int, empty_value=None,
        choices=[("", "—")] + [(str(r), f"{r}%") for r in money.VAT_RATES],
        error_messages={"invalid_choice": VAT_RATE_ERROR},
    )  # fmt: skip
    invoice_type = forms.ChoiceField(
        required=False, label=_("invoice type"), choices=[("", "—"), *InvoiceType.choices],
        error_messages={"invalid_choice": INVOICE_ERROR},
    )  # fmt: skip
    supplier_notes = forms.CharField(label=_("notes"), required=False, widget=forms.Textarea)
    hosts = forms.CharField(
        label=_("host list"), required=False, max_length=64_000,
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false", "class": "mono"}),
        help_text=_("One offered server per line: its host name, then its NIC GUIDs or MAC "
                    "addresses and GPU UUIDs (optional). Kit logs from other hosts are not "
                    "kit-verified."),
    )  # fmt: skip

    class Meta:
        model = QuoteVersion
        fields = [f for f in TERM_FIELDS if f != "notes"]

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            if name in TERM_FIELDS and QuoteVersion._meta.get_field(name).has_default():
                field.required = False

    def _post_clean(self) -> None:  # terms are validated by the service, like a quote version
        pass

    def terms(self) -> dict[str, Any]:
        return {k: v for k, v in self.cleaned_data.items()
                if k in TERM_FIELDS and v not in (None, "")}  # fmt: skip


class ProposeForm(CapfirstLabels, forms.Form):
    answer = forms.ChoiceField(label=_("answer"))
    rationale = forms.CharField(label=_("rationale"), widget=forms.Textarea, required=False)
    min_line_fraction = forms.FloatField(
        label=_("acceptance: minimum share of line rate"), initial=0.9, min_value=0.01,
        max_value=1,
    )  # fmt: skip
    min_pairs = forms.IntegerField(label=_("acceptance: concurrent pairs"), min_value=1)
    trial_days = forms.IntegerField(label=_("trial period (days)"), min_value=0)
    override_reason = forms.CharField(
        label=_("override reason"), widget=forms.Textarea(attrs={"rows": 2}), required=False,
        max_length=2000,
        help_text=_("Only to award a knocked-out or excluded bidder: why, in writing. A second "
                    "team admin must approve the override."),
    )  # fmt: skip

    def __init__(self, *args, rfq, answers, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.fields["answer"].choices = [(a.pk, a.vendor.name_for_reader()) for a in answers]
        self.fields["min_pairs"].initial = rfq.kit_pairs
        self.fields["trial_days"].initial = rfq.min_trial_days


class DecisionForm(CapfirstLabels, forms.Form):
    decision = forms.ChoiceField(
        label=pgettext_lazy("award review", "decision"),
        choices=[("approve", _("Approve")), ("reject", _("Reject"))],
    )
    comment = forms.CharField(label=_("comment"), widget=forms.Textarea, required=False)
    confirm_override = forms.BooleanField(
        label=_("I approve the override (awarding despite the rules)"), required=False
    )


class UploadForm(CapfirstLabels, forms.Form):
    file = forms.FileField(label=_("log file or zip"))


class AcceptInvitationForm(CapfirstLabels, forms.Form):
    username = forms.CharField(label=_("user name"), max_length=150)
    password = forms.CharField(label=_("password"), widget=forms.PasswordInput)


class ExtensionForm(CapfirstLabels, forms.Form):
    """Propose a later deadline for a published RFQ; another admin approves it."""

    deadline = forms.DateTimeField(
        label=_("new deadline"),
        widget=LocalDateTimeInput(),
    )
    reason = forms.CharField(
        label=_("reason (sent to the suppliers)"), widget=forms.Textarea, max_length=2000
    )


class ExtensionDecisionForm(CapfirstLabels, forms.Form):
    extension = forms.IntegerField(widget=forms.HiddenInput, min_value=1, max_value=2**31 - 1)
    decision = forms.ChoiceField(
        label=pgettext_lazy("award review", "decision"),
        choices=[("approve", _("Approve")), ("reject", _("Reject"))],
    )
    comment = forms.CharField(label=_("comment"), widget=forms.Textarea, required=False)


class ResendForm(forms.Form):
    invitation = forms.IntegerField(min_value=1, max_value=2**31 - 1)
