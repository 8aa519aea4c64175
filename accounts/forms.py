"""The team's settings form: the standing rule for inviting vendors, the tax basis."""

from __future__ import annotations

import math

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import Team

TEAM_SETTINGS_FIELDS = ("min_delivered_ratio", "standing_rule_mode", "tax_basis")


class TeamSettingsForm(forms.ModelForm):  # type: ignore[type-arg]
    """What a team admin sets for the whole team. The ratio is a fraction: 0 < ratio ≤ 1, or
    empty for no rule (the database refuses anything else too)."""

    class Meta:
        model = Team
        fields = TEAM_SETTINGS_FIELDS
        widgets = {
            "min_delivered_ratio": forms.NumberInput(attrs={"step": "0.01", "min": "0.01",
                                                            "max": "1", "inputmode": "decimal"}),
            "standing_rule_mode": forms.RadioSelect,
            "tax_basis": forms.RadioSelect,
        }  # fmt: skip

    def clean_min_delivered_ratio(self) -> float | None:
        value = self.cleaned_data.get("min_delivered_ratio")
        if value is None:
            return None
        if not math.isfinite(value) or not 0 < value <= 1:
            raise forms.ValidationError(
                _(
                    "The minimum is a fraction above 0 and at most 1 (e.g. 0.8 for 80 percent); "
                    "leave it empty for no rule."
                ),  # fmt: skip
                code="range",
            )
        return float(value)
