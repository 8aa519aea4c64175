"""Ranking start form: workload, quotes (empty: all current), exchange rates to CNY."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from quotes.models import Quote, WorkloadProfile

from .models import TeamRiskPolicy


def parse_rates(text: str) -> dict[str, float]:
    """'USD=7.2, EUR=7.8' -> {'USD': 7.2, 'EUR': 7.8}; raises ValidationError on bad parts."""
    rates: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.replace(";", ",").split(","))):
        code, _sep, value = part.partition("=")
        code = code.strip().upper()
        try:
            rate = Decimal(value.strip())
        except InvalidOperation:
            rate = Decimal(0)
        if len(code) != 3 or not code.isalpha() or rate <= 0:
            raise forms.ValidationError(
                _("Write rates as CODE=rate, e.g. USD=7.2; %(part)s is not valid.") % {"part": part}
            )
        rates[code] = float(rate)
    return rates


def quote_choice_label(quote: Quote) -> str:
    """ "Vendor · label (8 nodes × 8 H100)": a quote as the start form lists it."""
    v = quote.current_version
    size = f" ({v.nodes} × {v.gpus_per_node} {v.gpu.key})" if v is not None else ""
    return f"{quote.vendor.name_for_reader()} · {quote.label}{size}"


class QuoteChoices(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Quote) -> str:  # type: ignore[override]
        return quote_choice_label(obj)


class RankingStartForm(forms.Form):
    workload = forms.ModelChoiceField(
        queryset=WorkloadProfile.objects.none(), label=gettext_lazy("workload")
    )
    quotes = QuoteChoices(
        queryset=Quote.objects.none(),
        required=False,
        label=gettext_lazy("quotes"),
        help_text=gettext_lazy("None chosen: all current quotes of the team."),
        widget=forms.CheckboxSelectMultiple,
    )
    fx_to_cny = forms.CharField(
        required=False,
        label=gettext_lazy("rates to CNY"),
        help_text=gettext_lazy(
            "e.g. USD=7.2, EUR=7.8 (only needed when quotes are in other currencies)"
        ),
    )

    def __init__(self, *args, team, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.team = team
        self.fields["workload"].queryset = WorkloadProfile.objects.for_team(team)
        self.fields["quotes"].queryset = (
            Quote.objects.for_team(team).filter(current_version__isnull=False)
            .select_related("vendor", "current_version__gpu").order_by("vendor_id", "label")
        )  # fmt: skip

    def clean_fx_to_cny(self) -> dict[str, float]:
        return parse_rates(self.cleaned_data.get("fx_to_cny") or "")

    def clean(self):  # type: ignore[no-untyped-def]
        data = super().clean()
        workload = data.get("workload")
        chosen = list(data.get("quotes") or [])
        if not chosen:
            chosen = list(self.fields["quotes"].queryset.filter(is_current=True))
        if not chosen:
            self.add_error("quotes", _("Your team has no current quote to rank yet."))
            return data
        if workload is not None and workload.nodes:
            # Offers too small for the workload are listed on the run as such (the cost model
            # makes them problems); only a choice in which no offer can run it is refused.
            short = [q for q in chosen if q.current_version.nodes < workload.nodes]
            if len(short) == len(chosen):
                for q in short:
                    self.add_error(
                        "quotes",
                        _(
                            "%(q)s has %(n)s nodes but the workload uses %(w)s: choose fewer "
                            "nodes or leave that quote out."
                        )
                        % {"q": quote_choice_label(q), "n": q.current_version.nodes,
                           "w": workload.nodes},
                    )  # fmt: skip
        rates = data.get("fx_to_cny") or {}
        currencies = {q.current_version.currency for q in chosen}
        if len(currencies) > 1:
            for q in chosen:
                v = q.current_version
                if v.currency != "CNY" and v.currency not in rates and v.fx_to_cny is None:
                    self.add_error(
                        "fx_to_cny",
                        _("%(q)s is in %(c)s while others are not: give a rate %(c)s=… to CNY.")
                        % {"q": quote_choice_label(q), "c": v.currency},
                    )
        return data


class RiskPolicyForm(forms.ModelForm):
    """The team's risk policy: per severity an action and its premium, unverified bandwidth's
    severity and the cap. `TeamRiskPolicy.clean` (domain.eligibility.policy_problems) checks it."""

    class Meta:
        model = TeamRiskPolicy
        fields = [
            "critical_action", "critical_premium_pct", "critical_premium_cny_month",
            "warning_action", "warning_premium_pct", "warning_premium_cny_month",
            "info_action", "info_premium_pct", "info_premium_cny_month",
            "unverified_bandwidth", "premium_cap_pct", "supplied_evidence_is_claim",
        ]  # fmt: skip

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        for name in ("critical", "warning", "info"):
            self.fields[f"{name}_premium_pct"].widget.attrs.update(min=0, max=100, step="0.5")
            self.fields[f"{name}_premium_cny_month"].widget.attrs.update(min=0, step="100")
        self.fields["premium_cap_pct"].widget.attrs.update(min=0, max=100, step="0.5")

    def clean(self):  # type: ignore[no-untyped-def]
        data = super().clean()
        for name in ("critical", "warning", "info"):
            pct = data.get(f"{name}_premium_pct")
            if pct is not None and not 0 <= pct <= 100:
                self.add_error(f"{name}_premium_pct", _("Give a percentage from 0 to 100."))
            money = data.get(f"{name}_premium_cny_month")
            if money is not None and money < 0:
                self.add_error(f"{name}_premium_cny_month", _("Give an amount of 0 or more."))
        cap = data.get("premium_cap_pct")
        if cap is not None and not 0 <= cap <= 100:
            self.add_error("premium_cap_pct", _("Give a percentage from 0 to 100."))
        return data
