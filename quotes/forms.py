"""Forms of the quotes app; the rules themselves live in quotes.validation and the models."""

from __future__ import annotations

import copy
from types import SimpleNamespace

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.widgets import IsoDateInput
from domain import money, plausibility
from domain.trainmodel import TrainModelError
from domain.trainmodel import presets as v2_presets
from domain.trainmodel.workload import check_architecture, message_field
from vendors.forms import VendorChoiceField
from vendors.models import DataCentre, Vendor

from .choices import InvoiceType
from .models import GpuModel, QuoteVersion, WorkloadProfile
from .presets import architecture_from_fields, architecture_initial, preset_links
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


class VatIncludedSelect(forms.NullBooleanSelect):
    """Yes / no / not stated, showing a stored True or False as chosen (a plain Select compared
    the stored True with the option "true" and pre-selected "not stated" on every edit)."""

    def __init__(self, attrs=None):  # type: ignore[no-untyped-def]
        super().__init__(attrs)
        self.choices = list(VAT_INCLUDED_CHOICES)  # unknown / true / false, as this widget reads


class QuoteForm(forms.ModelForm):
    """One form for the quote and its terms; saving an edit makes a new version."""

    vendor = VendorChoiceField(queryset=Vendor.objects.none(), label=_("vendor"))
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
        widget=VatIncludedSelect,
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
            "valid_until": IsoDateInput(),  # YYYY-MM-DD whatever the page's language
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

    def clean_rail_optimised(self):  # type: ignore[no-untyped-def]
        # the same: an unknown word is refused, not stored as "not stated"
        raw = self.data.get(self.add_prefix("rail_optimised"))
        if raw not in _VAT_INCLUDED_WORDS and not isinstance(raw, bool):
            raise forms.ValidationError(
                _("Say whether the network is rail-optimised: yes, no or not stated.")
            )
        return self.cleaned_data.get("rail_optimised")

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
            # a new field, not the shared one changed: import row forms share their fields
            # with QuoteForm's declared ones, and every later form would show the checkbox
            shown = copy.copy(self.fields["confirm_outliers"])
            shown.widget = forms.CheckboxInput()
            self.fields["confirm_outliers"] = shown
            self._bound_fields_cache.pop("confirm_outliers", None)  # bound to the hidden one
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


GROUP_SEPARATORS = str.maketrans("", "", ",_ \u00a0\u202f，")


class GroupedNumberInput(forms.TextInput):
    """A count written with thousands separators (4,000,000 rather than 4000000.0, which a
    preset's float filled in); typed separators are read back by `GroupedFloatField`."""

    input_type = "text"

    def __init__(self, attrs=None):  # type: ignore[no-untyped-def]
        super().__init__({"inputmode": "numeric", **(attrs or {})})

    def format_value(self, value):  # type: ignore[no-untyped-def]
        whole = isinstance(value, int | float) and not isinstance(value, bool)
        if whole and float(value).is_integer() and abs(value) < 1e18:
            return f"{int(value):,}"
        return super().format_value(value)


class _GroupedMixin:
    def to_python(self, value):  # type: ignore[no-untyped-def]
        if isinstance(value, str):
            value = value.translate(GROUP_SEPARATORS)
        return super().to_python(value)  # type: ignore[misc]


class GroupedFloatField(_GroupedMixin, forms.FloatField):
    widget = GroupedNumberInput


class GroupedIntegerField(_GroupedMixin, forms.IntegerField):
    widget = GroupedNumberInput


def _workload_presets() -> list[tuple[str, str]]:
    return [("", "—"), *preset_links()]


def _whole(label: str, low: int, high: int) -> forms.IntegerField:
    return forms.IntegerField(label=label, required=False, min_value=low, max_value=high)


class WorkloadForm(forms.ModelForm):
    """The workload as the analyst knows it: size and batch, optionally the architecture
    (a preset of the training-time model fills it) and a fixed parallel layout; what is left
    empty the ranking searches per offer (docs/MODEL.md §15)."""

    preset = forms.ChoiceField(choices=_workload_presets, required=False, label=_("preset"))
    layers = _whole(_("Layers"), 1, 10_000)
    hidden = _whole(_("Hidden size"), 64, 1_000_000)
    heads = _whole(_("Attention heads"), 1, 100_000)
    kv_heads = _whole(_("KV heads (grouped-query attention)"), 1, 100_000)
    ffn = _whole(_("FFN size"), 1, 10_000_000)
    vocab = _whole(_("Vocabulary"), 1, 10_000_000)
    seq_len = _whole(_("Sequence length"), 1, 100_000_000)
    moe_experts = _whole(_("MoE experts"), 0, 100_000)
    moe_top_k = _whole(_("Active experts per token"), 1, 100_000)
    moe_active_params_b = forms.FloatField(
        label=_("Active parameters (billions)"), required=False, min_value=0
    )
    # not posted (older clients, scripts): BF16, the model's default
    precision = forms.TypedChoiceField(
        label=_("compute precision"),
        choices=[("bf16", "BF16"), ("fp8", "FP8")],
        required=False,
        empty_value="bf16",
    )
    moe_shared_experts = _whole(_("Shared experts (see every token)"), 0, 64)
    moe_dense_layers = _whole(_("Dense leading layers"), 0, 10_000)
    moe_expert_ffn = _whole(_("FFN size of one expert"), 1, 10_000_000)
    moe_node_limit = _whole(_("Servers per token at most (node-limited routing)"), 1, 1024)
    tp = _whole(_("Tensor parallel (tp)"), 1, 1_000_000)
    pp = _whole(_("Pipeline parallel (pp)"), 1, 1_000_000)
    dp = _whole(_("Data parallel (dp)"), 1, 1_000_000)
    zero_stage = forms.TypedChoiceField(
        label=_("ZeRO stage"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=[("", _("Search per offer")), ("0", "0"), ("1", "1"), ("2", "2"), ("3", "3")],
    )
    microbatch = _whole(_("Microbatch (sequences)"), 1, 1_000_000)

    ARCH_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "seq_len")
    MOE_FIELDS = (
        "moe_experts", "moe_top_k", "moe_active_params_b", "moe_shared_experts",
        "moe_dense_layers", "moe_expert_ffn", "moe_node_limit",
    )  # fmt: skip
    PARALLEL_FIELDS = ("tp", "pp", "dp", "zero_stage", "microbatch")
    BASIC_FIELDS = (
        "name", "preset", "params_b", "tokens_per_step", "train_tokens", "precision",
        "flops_per_token_factor", "grad_bytes", "strategy", "overlap", "mfu", "nodes", "notes",
    )  # fmt: skip

    class Meta:
        model = WorkloadProfile
        fields = [
            "name", "preset", "params_b", "tokens_per_step", "precision", "flops_per_token_factor",
            "grad_bytes", "strategy", "overlap", "mfu", "nodes", "train_tokens", "notes",
        ]  # fmt: skip
        widgets = {"notes": forms.Textarea(attrs={"rows": 2})}
        labels = {"mfu": _("MFU")}  # an acronym: never "Mfu"
        field_classes = {"tokens_per_step": GroupedIntegerField, "train_tokens": GroupedFloatField}

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        arch = self.instance.architecture if self.instance.pk else None
        if arch and not self.is_bound:
            self.initial.update(architecture_initial(arch))

    def workload_data(self) -> dict:  # type: ignore[type-arg]
        """cleaned_data as WorkloadProfile fields (the architecture packed in its JSON)."""
        data = {k: v for k, v in self.cleaned_data.items() if k in self._meta.fields}
        data["architecture"] = self.instance.architecture
        return data

    def fieldsets(self):  # type: ignore[no-untyped-def]
        """(legend, fields) groups for the page."""
        return [
            (_("Workload"), [self[f] for f in self.BASIC_FIELDS]),
            (_("Architecture (optional: a preset fills it)"), [self[f] for f in self.ARCH_FIELDS]),
            (_("Mixture of experts (optional)"), [self[f] for f in self.MOE_FIELDS]),
            (
                _("Parallel layout (optional: empty values are searched per offer)"),
                [self[f] for f in self.PARALLEL_FIELDS],
            ),
        ]

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
        self._clean_architecture(data)
        return data

    def _clean_architecture(self, data) -> None:  # type: ignore[no-untyped-def]
        """Pack the architecture fields into WorkloadProfile.architecture, checked by the model's
        own rules (domain/trainmodel/workload.py); each message goes to the field it is about."""
        if self.errors:
            return
        arch = architecture_from_fields(data, data.get("preset") or "")
        self.instance.architecture = arch
        if arch is None:
            return
        if (
            not any(data.get(f) is not None for f in ("layers", "hidden", "heads", "seq_len"))
            and (data.get("preset") or "") not in v2_presets()
        ):
            missing = _("Enter the layers, hidden size, heads and sequence length (or pick a "
                        "preset of a real model) to fix a layout or MoE experts.")  # fmt: skip
            self.instance.architecture = None
            self.add_error("layers", missing)
            return
        try:
            check_architecture(arch, data["params_b"], float(data["tokens_per_step"]))
        except TrainModelError as exc:
            self.instance.architecture = None  # the model's clean would repeat them
            lang = get_language()
            for m in exc.messages:
                field = message_field(m.code)
                self.add_error(field if field in self.fields else None, m.text(lang))

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
