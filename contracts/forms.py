"""Forms of the contracts app. The compensation schedule is entered as plain fields (bands as
rows) and turned into the domain's stored shape; its rules are domain.delivery.terms'."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from vendors.models import Vendor

from .choices import UploadKind
from .engine import schedule_errors
from .models import Contract, Incident

CONTRACT_FORM_FIELDS = (
    "title", "vendor", "status", "starts_on", "ends_on", "monthly_fee", "currency",
    "fee_includes_vat", "committed_gbps", "committed_gbps_source", "availability_pct",
    "p99_latency_us", "response_minutes", "repair_hours", "notes",
)  # fmt: skip
BAND_ROWS = 4


class DateInput(forms.DateInput):
    input_type = "date"


class DateTimeInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="%Y-%m-%dT%H:%M", **kwargs)


class ContractForm(forms.ModelForm):
    """The contract's figures, its servers (one per line) and its compensation schedule."""

    servers = forms.CharField(
        label=_("Servers"), required=False, widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("One per line: host name, then rack and leaf switch if known "
                    "(separated by spaces or commas)."),
    )  # fmt: skip
    has_schedule = forms.BooleanField(label=_("The contract has a compensation schedule"),
                                      required=False, initial=True)  # fmt: skip
    bw_threshold_pct = forms.FloatField(
        label=_("Bandwidth breach below this share of the committed figure (%)"), required=False,
        help_text=_("Empty: no bandwidth clause."),
    )  # fmt: skip
    bw_min_minutes = forms.FloatField(label=_("…for at least (minutes)"), required=False)
    bw_credit_pct_per_hour = forms.FloatField(
        label=_("Bandwidth credit per server-hour (share of the monthly fee, %)"), required=False
    )
    lat_min_minutes = forms.FloatField(
        label=_("Latency above commitment for at least (minutes)"), required=False,
        help_text=_("Empty: no latency clause."),
    )  # fmt: skip
    lat_credit_pct_per_hour = forms.FloatField(
        label=_("Latency credit per server-hour (share of the monthly fee, %)"), required=False
    )
    response_credit_pct_per_hour = forms.FloatField(
        label=_("Late response credit per hour late (share of the monthly fee, %)"), required=False
    )
    repair_credit_pct_per_hour = forms.FloatField(
        label=_("Late repair credit per hour late (share of the monthly fee, %)"), required=False
    )
    cap_pct = forms.FloatField(label=_("Cap (share of the monthly fee, %)"), required=False,
                               initial=100)  # fmt: skip
    claim_window_days = forms.IntegerField(label=_("Claim window (days)"), required=False,
                                           initial=30)  # fmt: skip

    class Meta:
        model = Contract
        fields = CONTRACT_FORM_FIELDS
        widgets = {"starts_on": DateInput(), "ends_on": DateInput(),
                   "notes": forms.Textarea(attrs={"rows": 2})}  # fmt: skip

    def __init__(self, *args: Any, team: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["vendor"].queryset = Vendor.objects.for_team(team).order_by(
            "name_zh", "name_en", "pk"
        )
        for i in range(BAND_ROWS):
            self.fields[f"band_{i}_below"] = forms.FloatField(
                label=_("Availability below (%)"), required=False)  # fmt: skip
            self.fields[f"band_{i}_credit"] = forms.FloatField(
                label=_("credit (share of the monthly fee, %)"), required=False)  # fmt: skip
        if self.instance.pk:
            self._initial_from(self.instance)

    def _initial_from(self, contract: Contract) -> None:
        self.initial["servers"] = "\n".join(
            " ".join(x for x in (s.hostname, s.rack, s.leaf) if x) for s in contract.servers.all()
        )
        sched = contract.schedule or {}
        self.initial["has_schedule"] = bool(sched)
        for i, band in enumerate((sched.get("availability_bands") or [])[:BAND_ROWS]):
            self.initial[f"band_{i}_below"] = band["below_pct"]
            self.initial[f"band_{i}_credit"] = band["credit_pct"]
        if bw := sched.get("bandwidth"):
            self.initial.update(bw_threshold_pct=bw["threshold_fraction"] * 100,
                                bw_min_minutes=bw["min_duration_minutes"],
                                bw_credit_pct_per_hour=bw["credit_pct_per_hour"])  # fmt: skip
        if lat := sched.get("latency"):
            self.initial.update(lat_min_minutes=lat["min_duration_minutes"],
                                lat_credit_pct_per_hour=lat["credit_pct_per_hour"])  # fmt: skip
        for o in sched.get("overruns") or []:
            self.initial[f"{o['kind']}_credit_pct_per_hour"] = o["credit_pct_per_hour"]
        for key in ("cap_pct", "claim_window_days"):
            if key in sched:
                self.initial[key] = sched[key]

    def band_rows(self) -> list[tuple[Any, Any]]:
        return [(self[f"band_{i}_below"], self[f"band_{i}_credit"]) for i in range(BAND_ROWS)]

    def schedule_fields(self) -> list[Any]:
        names = ("bw_threshold_pct", "bw_min_minutes", "bw_credit_pct_per_hour",
                 "lat_min_minutes", "lat_credit_pct_per_hour", "response_credit_pct_per_hour",
                 "repair_credit_pct_per_hour", "cap_pct", "claim_window_days")  # fmt: skip
        return [self[n] for n in names]

    def contract_fields(self) -> list[Any]:
        return [self[n] for n in CONTRACT_FORM_FIELDS]

    def schedule_data(self) -> dict[str, Any]:
        """The schedule as the domain's JSON shape (unchecked: the domain checks it)."""
        d = self.cleaned_data
        if not d.get("has_schedule"):
            return {}
        bands = [{"below_pct": d[f"band_{i}_below"], "credit_pct": d[f"band_{i}_credit"]}
                 for i in range(BAND_ROWS)
                 if d.get(f"band_{i}_below") is not None
                 or d.get(f"band_{i}_credit") is not None]  # fmt: skip
        out: dict[str, Any] = {"availability_bands": bands, "overruns": []}
        if d.get("bw_threshold_pct") is not None:
            out["bandwidth"] = {"threshold_fraction": d["bw_threshold_pct"] / 100,
                                "min_duration_minutes": d.get("bw_min_minutes"),
                                "credit_pct_per_hour": d.get("bw_credit_pct_per_hour")}  # fmt: skip
        if d.get("lat_min_minutes") is not None:
            out["latency"] = {"min_duration_minutes": d["lat_min_minutes"],
                              "credit_pct_per_hour": d.get("lat_credit_pct_per_hour")}  # fmt: skip
        for kind in ("response", "repair"):
            rate = d.get(f"{kind}_credit_pct_per_hour")
            if rate is not None:
                out["overruns"].append({"kind": kind, "credit_pct_per_hour": rate})
        out["cap_pct"] = d["cap_pct"] if d.get("cap_pct") is not None else 100.0
        out["claim_window_days"] = d.get("claim_window_days") or 30
        return out

    def server_rows(self) -> list[dict[str, str]]:
        rows = []
        for line in (self.cleaned_data.get("servers") or "").splitlines():
            parts = [p for p in line.replace(",", " ").split() if p]
            if parts:
                rows.append({"hostname": parts[0], "rack": parts[1] if len(parts) > 1 else "",
                             "leaf": parts[2] if len(parts) > 2 else ""})  # fmt: skip
        return rows

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors:
            problems = schedule_errors(self.schedule_data())
            for p in problems:
                self.add_error(None, p)
        return data

    def _post_clean(self) -> None:  # the service runs the model's clean with the team set
        pass


class IncidentForm(forms.ModelForm):
    hosts_text = forms.CharField(label=_("Hosts"), required=False,
                                 help_text=_("Empty: every server. Else host names, one per "
                                             "line or separated by spaces."))  # fmt: skip

    class Meta:
        model = Incident
        fields = ("kind", "started_at", "ended_at", "vendor_ticket", "opened_at", "responded_at",
                  "repaired_at", "description")  # fmt: skip
        widgets = {f: DateTimeInput() for f in ("started_at", "ended_at", "opened_at",
                                                 "responded_at", "repaired_at")}  # fmt: skip
        widgets["description"] = forms.Textarea(attrs={"rows": 2})

    def hosts(self) -> list[str]:
        return (self.cleaned_data.get("hosts_text") or "").replace(",", " ").split()

    def _post_clean(self) -> None:
        pass


class UploadForm(forms.Form):
    file = forms.FileField(label=_("Evidence file"))
    kind = forms.ChoiceField(label=_("Kind"), choices=UploadKind.choices)
    source_timezone = forms.CharField(
        label=_("Time zone of times without an offset"), initial="Asia/Shanghai", max_length=64
    )
