"""Forms of the quotes app; the rules themselves live in quotes.validation and the models."""

from __future__ import annotations

from types import SimpleNamespace

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from domain import money, plausibility
from vendors.models import DataCentre, Vendor

from .choices import InvoiceType
from .models import GpuModel, QuoteVersion, WorkloadProfile
from .presets import PRESETS
from .services import VERSION_FIELDS
from .validation import plausibility_check, quote_version_errors


class GpuChoiceField(forms.ModelChoiceField):
    default_error_messages = {
        "invalid_choice": _("Unknown GPU model: choose one of the GPU reference table."),
    }

    def label_from_instance(self, obj: GpuModel) -> str:  # type: ignore[override]
        return f"{obj.key} · {obj.tflops_bf16:g} TFLOPS · {obj.memory_gb:g} GB"


VAT_INCLUDED_CHOICES = [
    ("unknown", _("not stated")),
    ("true", _("yes, VAT included (含税)")),
    ("false", _("no, VAT excluded (不含税)")),
]
_VAT_INCLUDED_WORDS = {None, "", "unknown", "true", "false", "True", "False", "1", "0"}
VAT_RATE_ERROR = _("The VAT rate must be one of 0, 6, 9 or 13 (percent); got “%(value)s”.")
INVOICE_ERROR = _("Unknown invoice type “%(value)s”: use special (专票), ordinary (普票) or none.")


class QuoteForm(forms.ModelForm):
    """One form for the quote and its terms; saving an edit makes a new version."""

    vendor = forms.ModelChoiceField(queryset=Vendor.objects.none(), label=_("vendor"))
    data_centre = forms.ModelChoiceField(
        queryset=DataCentre.objects.none(), required=False, label=_("data centre")
    )
    label = forms.CharField(max_length=120, label=_("label"))
    is_current = forms.BooleanField(required=False, initial=True, label=_("current"))
    gpu = GpuChoiceField(queryset=GpuModel.objects.all(), to_field_name="key", label=_("GPU"))
    # The quote's revision the form was filled from; an edit based on an older one is refused
    # (the view answers 409 with what changed since). Empty when creating.
    revision = forms.IntegerField(
        widget=forms.HiddenInput, required=False, min_value=1, max_value=2**31 - 1
    )

    # VAT terms (domain/money.py): their own block; the choices' errors say what is accepted.
    prices_include_vat = forms.NullBooleanField(
        required=False,
        label=_("prices include VAT"),
        widget=forms.Select(choices=VAT_INCLUDED_CHOICES),
    )
    vat_rate = forms.TypedChoiceField(
        required=False,
        label=_("VAT rate (%)"),
        coerce=int,
        empty_value=None,
        choices=[("", "—")] + [(str(r), f"{r}%") for r in money.VAT_RATES],
        error_messages={"invalid_choice": VAT_RATE_ERROR},
    )
    invoice_type = forms.ChoiceField(
        required=False,
        label=_("invoice type"),
        choices=[("", "—"), *InvoiceType.choices],
        error_messages={"invalid_choice": INVOICE_ERROR},
    )

    # Plausibility (domain/plausibility.py): hidden until the values need it.
    confirm_outliers = forms.BooleanField(
        required=False, label=_("I confirm these unusual values"), widget=forms.HiddenInput
    )

    class Meta:
        model = QuoteVersion
        fields = [f for f in VERSION_FIELDS if f != "outliers_confirmed"]
        widgets = {
            "valid_until": forms.DateInput(attrs={"type": "date"}),
            "notes": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args, team, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.team = team
        self.outlier_warnings: list[str] = []
        self.fields["vendor"].queryset = Vendor.objects.for_team(team)
        self.fields["data_centre"].queryset = DataCentre.objects.filter(vendor__team=team)
        self.fields["vendor"].error_messages["invalid_choice"] = _(
            "Unknown vendor: choose one of your team's vendors."
        )

    def clean_prices_include_vat(self):  # type: ignore[no-untyped-def]
        # A NullBooleanField reads any unknown word as "not stated": say so instead.
        raw = self.data.get(self.add_prefix("prices_include_vat"))
        if raw not in _VAT_INCLUDED_WORDS and not isinstance(raw, bool):
            raise forms.ValidationError(
                _("Say whether the prices include VAT: yes (含税), no (不含税) or not stated.")
            )
        return self.cleaned_data.get("prices_include_vat")

    def clean(self):  # type: ignore[no-untyped-def]
        data = super().clean()
        # the rules read plain attributes: no model instance needed (the importer runs this
        # for up to 2,000 rows); a field that failed its own checks is missing here and skipped
        probe = SimpleNamespace(**{k: v for k, v in data.items() if k in VERSION_FIELDS})
        for field, messages in quote_version_errors(probe).items():
            if field in self.fields and field not in self.errors:
                for message in messages:
                    self.add_error(field, message)
        self._check_plausible(probe, data)
        dc, vendor = data.get("data_centre"), data.get("vendor")
        if dc is not None and vendor is not None and dc.vendor_id != vendor.pk:
            self.add_error("data_centre", _("The data centre must belong to the quote's vendor."))
        return data

    def _check_plausible(self, probe, data) -> None:  # type: ignore[no-untyped-def]
        """Hard bounds are errors; soft ones need the analyst's tick, stored on the version."""
        gpu = data.get("gpu")
        errors, warnings = plausibility_check(probe, getattr(gpu, "key", None))
        for field, messages in errors.items():
            if field in self.fields and field not in self.errors:
                for message in messages:
                    self.add_error(field, message)
        self.outlier_warnings = [w.message.text(get_language()) for w in warnings]
        data["outliers_confirmed"] = [w.as_dict() for w in warnings]
        if warnings:
            self.fields["confirm_outliers"].widget = forms.CheckboxInput()
            if not data.get("confirm_outliers"):
                self.add_error(None, plausibility.CONFIRM_NEEDED.text(get_language()))
                for text in self.outlier_warnings:
                    self.add_error("confirm_outliers", text)

    def _post_clean(self) -> None:
        # The quote itself is validated by the service; skip the unsaved version's FK check.
        exclude = self._get_validation_exclusions()
        exclude.add("quote")
        exclude.add("number")
        try:
            self.instance = forms.models.construct_instance(self, self.instance, self._meta.fields)
            self.instance.full_clean(exclude=exclude, validate_unique=False)
        except forms.ValidationError as e:
            self._update_errors(e)


class ImportForm(forms.Form):
    file = forms.FileField(label=_("CSV or XLSX file"))
    import_valid_rows = forms.BooleanField(
        required=False,
        label=_("Import the valid rows and skip the bad ones"),
        help_text=_("Off: nothing is imported while any row has an error."),
    )

    def clean_file(self):  # type: ignore[no-untyped-def]
        f = self.cleaned_data["file"]
        name = f.name.lower()
        if not (name.endswith(".csv") or name.endswith(".xlsx")):
            raise forms.ValidationError(_("Upload a .csv or .xlsx file."))
        return f


class WorkloadForm(forms.ModelForm):
    preset = forms.ChoiceField(
        choices=[("", "—")] + [(k, p["name"]) for k, p in PRESETS.items()],
        required=False,
        label=_("preset"),
    )

    class Meta:
        model = WorkloadProfile
        fields = [
            "name", "preset", "params_b", "tokens_per_step", "flops_per_token_factor",
            "grad_bytes", "strategy", "overlap", "mfu", "nodes", "train_tokens", "notes",
        ]  # fmt: skip
        widgets = {"notes": forms.Textarea(attrs={"rows": 2})}

    def clean(self):  # type: ignore[no-untyped-def]
        data = super().clean()
        checks = {
            "params_b": (lambda v: v > 0, _("The model needs more than 0 parameters.")),
            "flops_per_token_factor": (lambda v: v > 0, _("The factor must be above 0 (6 or 8).")),
            "grad_bytes": (lambda v: v > 0, _("Bytes per gradient element must be above 0.")),
            "overlap": (lambda v: 0 <= v <= 1, _("Overlap is a share between 0 and 1.")),
            "mfu": (lambda v: 0 < v <= 1, _("mfu is a share above 0 and at most 1, e.g. 0.45.")),
            "tokens_per_step": (lambda v: v > 0, _("A step needs at least one token.")),
            "nodes": (lambda v: v > 0, _("Leave it empty or use at least one node.")),
            "train_tokens": (lambda v: v > 0, _("Leave it empty or enter a positive number.")),
        }
        for field, (ok, message) in checks.items():
            value = data.get(field)
            if value is not None and field not in self.errors and not ok(value):
                self.add_error(field, message)
        # Upper bounds nobody can mean (domain/plausibility.py), e.g. a 100,000-billion model.
        probe = SimpleNamespace(**{k: data.get(k) for k in self.fields})
        hard, soft = plausibility.split(plausibility.workload_findings(probe))
        for f in hard:
            if f.field in self.fields and f.field not in self.errors and not f.low:
                self.add_error(f.field, f.message.text(get_language()))
        self._confirm_unusual(data, soft)
        return data

    # Soft bounds (domain/plausibility.py): the analyst ticks "I confirm these unusual values".
    confirm_outliers = forms.BooleanField(
        required=False, label=_("I confirm these unusual values"), widget=forms.HiddenInput
    )

    def _confirm_unusual(self, data, soft) -> None:  # type: ignore[no-untyped-def]
        confirmed = data.pop("confirm_outliers", False)  # not a field of the workload
        soft = [f for f in soft if f.field in self.fields and f.field not in self.errors]
        self.outlier_warnings = [f.message.text(get_language()) for f in soft]
        if soft:
            self.fields["confirm_outliers"].widget = forms.CheckboxInput()
            if not confirmed:
                self.add_error(None, plausibility.CONFIRM_NEEDED.text(get_language()))
                for text in self.outlier_warnings:
                    self.add_error("confirm_outliers", text)
