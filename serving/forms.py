"""Forms of the serving app; the rules live in services and domain.serving."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from domain import serving as sv
from quotes.models import Quote

from .models import MixedPlan, ServingWorkload

WORKLOAD_FIELDS = (
    "name", "params_b", "precision", "mean_rps", "peak_rps", "tokens_in", "tokens_out",
    "response_kb", "latency_target_s", "gpus_per_replica", "tokens_per_s_per_replica",
    "bandwidth_headroom", "peak_hours_per_day", "notes",
)  # fmt: skip
PLAN_FIELDS = (
    "name", "training_quote", "training_nodes", "training_months", "training_bandwidth_mbps",
    "serving_workload", "serving_quote", "serving_start_month", "horizon_months",
    "bandwidth_price_mbps_month", "elastic_premium",
)  # fmt: skip


def workload_field_limits() -> dict[str, float]:
    """The upper bound of each numeric workload field, in the form's units (response in kB),
    from domain.serving.WORKLOAD_LIMITS."""
    limits = {name: high for name, (high, _en, _zh) in sv.WORKLOAD_LIMITS.items()}
    limits["response_kb"] = limits.pop("response_bytes") / 1000
    return limits


class ServingWorkloadForm(forms.ModelForm):
    class Meta:
        model = ServingWorkload
        fields = WORKLOAD_FIELDS
        widgets = {"notes": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        # the browser's own hint; the service checks the same bounds with the domain's message
        for name, high in workload_field_limits().items():
            self.fields[name].widget.attrs["max"] = f"{high:.0f}"

    def _post_clean(self) -> None:  # the service checks, with the domain's clear messages
        pass


class MixedPlanForm(forms.ModelForm):
    class Meta:
        model = MixedPlan
        fields = PLAN_FIELDS

    def __init__(self, *args, team, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        quotes = Quote.objects.for_team(team).filter(current_version__isnull=False)
        quotes = quotes.select_related("vendor").order_by("vendor_id", "label")
        self.fields["training_quote"].queryset = quotes
        self.fields["serving_quote"].queryset = quotes
        self.fields["serving_workload"].queryset = ServingWorkload.objects.for_team(team)

    def _post_clean(self) -> None:  # the service runs the model's clean with the team set
        pass


class TrafficUploadForm(forms.Form):
    file = forms.FileField(
        label=_("Traffic samples (CSV)"),
        help_text=_("One billing month of five-minute samples: timestamp,Mbit/s rows (or one "
                    "column of Mbit/s; a Gbit/s header is converted); comma or semicolon."),
    )  # fmt: skip
