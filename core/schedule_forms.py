"""The compensation schedule as plain form fields (availability bands as rows, one field per
clause figure), shared by the contract form and the vendor's SLA form: both store the shape of
``domain.delivery.terms`` (``core.compensation``), whose rules judge what is entered."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from .compensation import schedule_errors

BAND_ROWS = 4
SCALAR_FIELDS = ("bw_threshold_pct", "bw_min_minutes", "bw_credit_pct_per_hour",
                 "lat_min_minutes", "lat_credit_pct_per_hour", "response_credit_pct_per_hour",
                 "repair_credit_pct_per_hour", "cap_pct", "claim_window_days")  # fmt: skip


def _scalar_fields() -> dict[str, forms.Field]:
    return {
        "bw_threshold_pct": forms.FloatField(
            label=_("Bandwidth breach below this share of the committed figure (%)"),
            required=False, help_text=_("Empty: no bandwidth clause."),
        ),
        "bw_min_minutes": forms.FloatField(label=_("…for at least (minutes)"), required=False),
        "bw_credit_pct_per_hour": forms.FloatField(
            label=_("Bandwidth credit per server-hour (share of the monthly fee, %)"),
            required=False,
        ),
        "lat_min_minutes": forms.FloatField(
            label=_("Latency above commitment for at least (minutes)"), required=False,
            help_text=_("Empty: no latency clause."),
        ),
        "lat_credit_pct_per_hour": forms.FloatField(
            label=_("Latency credit per server-hour (share of the monthly fee, %)"),
            required=False,
        ),
        "response_credit_pct_per_hour": forms.FloatField(
            label=_("Late response credit per hour late (share of the monthly fee, %)"),
            required=False,
        ),
        "repair_credit_pct_per_hour": forms.FloatField(
            label=_("Late repair credit per hour late (share of the monthly fee, %)"),
            required=False,
        ),
        "cap_pct": forms.FloatField(label=_("Cap (share of the monthly fee, %)"), required=False,
                                    initial=100),
        "claim_window_days": forms.IntegerField(label=_("Claim window (days)"), required=False,
                                                initial=30),
    }  # fmt: skip


class ScheduleFieldsMixin:
    """Adds the schedule's fields to a form (``add_schedule_fields`` in ``__init__``), fills them
    from a stored schedule, turns them back into the stored shape and says the domain's
    problems as form errors (``schedule_problems`` in ``clean``)."""

    fields: dict[str, forms.Field]
    initial: dict[str, Any]
    cleaned_data: dict[str, Any]

    def add_schedule_fields(self, schedule: dict[str, Any] | None, *, has_label: Any,
                            default_on: bool) -> None:  # fmt: skip
        self.fields["has_schedule"] = forms.BooleanField(label=has_label, required=False,
                                                         initial=default_on)  # fmt: skip
        for i in range(BAND_ROWS):
            self.fields[f"band_{i}_below"] = forms.FloatField(
                label=_("Availability below (%)"), required=False)  # fmt: skip
            self.fields[f"band_{i}_credit"] = forms.FloatField(
                label=_("credit (share of the monthly fee, %)"), required=False)  # fmt: skip
        self.fields.update(_scalar_fields())
        if schedule is not None:
            self._schedule_initial(schedule)

    def schedule_field_names(self) -> list[str]:
        bands = [f"band_{i}_{p}" for i in range(BAND_ROWS) for p in ("below", "credit")]
        return ["has_schedule", *bands, *SCALAR_FIELDS]

    def _schedule_initial(self, sched: dict[str, Any]) -> None:
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
        form = cast(Any, self)  # a forms.BaseForm: bound fields by name
        return [(form[f"band_{i}_below"], form[f"band_{i}_credit"]) for i in range(BAND_ROWS)]

    def schedule_fields(self) -> list[Any]:
        form = cast(Any, self)
        return [form[n] for n in SCALAR_FIELDS]

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

    def clean_bw_threshold_pct(self) -> float | None:
        """The threshold is typed in percent: said in percent (the domain checks a fraction and
        would answer "at most 1 (got 2.5)" to a 250 typed here)."""
        value = self.cleaned_data.get("bw_threshold_pct")  # type: ignore[attr-defined]
        if value is not None and not (0 < value <= 100):
            raise forms.ValidationError(
                _(
                    "The bandwidth threshold is a percentage of the committed figure: more than 0 "
                    "and at most 100 (got %(value)s %%)."
                )
                % {"value": f"{value:g}"},
                code="percent",
            )
        return value  # type: ignore[no-any-return]

    def schedule_problems(self) -> list[str]:
        return schedule_errors(self.schedule_data())
