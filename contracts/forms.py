"""Forms of the contracts app. The compensation schedule is entered as plain fields (bands as
rows) and turned into the domain's stored shape; its rules are domain.delivery.terms'."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.core.validators import URLValidator
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from core.forms import KeepStoredInstants
from core.schedule_forms import ScheduleFieldsMixin
from core.widgets import IsoDateInput, LocalDateTimeInput
from vendors.models import Vendor

from .choices import UploadKind
from .instants import TermDateTimeField, negative_fee_message
from .models import Contract, Incident, MaintenanceWindow

CONTRACT_FORM_FIELDS = (
    "title", "vendor", "status", "starts_on", "ends_on", "monthly_fee", "currency",
    "fee_includes_vat", "committed_gbps", "committed_gbps_source", "availability_pct",
    "p99_latency_us", "response_minutes", "repair_hours", "notes",
)  # fmt: skip


class ContractForm(ScheduleFieldsMixin, forms.ModelForm):
    """The contract's figures, its servers (one per line) and its compensation schedule."""

    servers = forms.CharField(
        label=_("Servers"), required=False, widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("One per line: host name, then rack and leaf switch if known "
                    "(separated by spaces or commas)."),
    )  # fmt: skip

    class Meta:
        model = Contract
        fields = CONTRACT_FORM_FIELDS
        widgets = {"starts_on": IsoDateInput(), "ends_on": IsoDateInput(),
                   "notes": forms.Textarea(attrs={"rows": 2})}  # fmt: skip

    def __init__(self, *args: Any, team: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["vendor"].queryset = Vendor.objects.for_team(team).order_by(
            "name_zh", "name_en", "pk"
        )
        self.add_schedule_fields(
            self.instance.schedule if self.instance.pk else None,
            has_label=_("The contract has a compensation schedule"),
            default_on=True,
        )
        if self.instance.pk:
            self.initial["servers"] = "\n".join(
                " ".join(x for x in (s.hostname, s.rack, s.leaf) if x)
                for s in self.instance.servers.all()
            )

    def contract_fields(self) -> list[Any]:
        return [self[n] for n in CONTRACT_FORM_FIELDS]

    def server_rows(self) -> list[dict[str, str]]:
        rows = []
        for line in (self.cleaned_data.get("servers") or "").splitlines():
            parts = [p for p in line.replace(",", " ").split() if p]
            if parts:
                rows.append({"hostname": parts[0], "rack": parts[1] if len(parts) > 1 else "",
                             "leaf": parts[2] if len(parts) > 2 else ""})  # fmt: skip
        return rows

    def clean_monthly_fee(self) -> Any:
        fee = self.cleaned_data.get("monthly_fee")
        if fee is not None and fee < 0:
            raise forms.ValidationError(negative_fee_message(), code="negative")
        return fee

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors:
            for p in self.schedule_problems():
                self.add_error(None, p)
        return data

    def _post_clean(self) -> None:  # the service runs the model's clean with the team set
        pass


class IncidentForm(KeepStoredInstants, forms.ModelForm):
    hosts_text = forms.CharField(label=_("Hosts"), required=False,
                                 help_text=_("Empty: every server. Else host names, one per "
                                             "line or separated by spaces."))  # fmt: skip

    class Meta:
        model = Incident
        fields = ("kind", "started_at", "ended_at", "vendor_ticket", "opened_at", "responded_at",
                  "repaired_at", "description")  # fmt: skip
        widgets = {f: LocalDateTimeInput() for f in ("started_at", "ended_at", "opened_at",
                                                 "responded_at", "repaired_at")}  # fmt: skip
        widgets["description"] = forms.Textarea(attrs={"rows": 2})
        field_classes = dict.fromkeys(
            ("started_at", "ended_at", "opened_at", "responded_at", "repaired_at"),
            TermDateTimeField,
        )

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


def _example(words: Any, code: str) -> Any:
    """Help text with its example set as code (a URL or PromQL is no sentence to translate)."""
    return mark_safe(format_lazy("{} <code>{}</code>", words, escape(code)))  # noqa: S308


class PrometheusSourceForm(forms.Form):
    """The contract's Prometheus on its page: the URL and the queries, one per line as
    ``name: PromQL`` (the API takes the same as a JSON object)."""

    url = forms.CharField(label=_("Prometheus URL"), max_length=300,
                          help_text=_example(_("The server's base address, e.g."),
                                             "http://prometheus.internal:9090"))  # fmt: skip
    queries_text = forms.CharField(
        label=_("Queries"), widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_example(_("One per line: a name, a colon, the PromQL selector, e.g."),
                           'bytes_rx: node_network_receive_bytes_total{device=~"ib.*"}'),
    )  # fmt: skip
    step_s = forms.IntegerField(label=_("Step (seconds)"), initial=60, min_value=1,
                                max_value=3600)  # fmt: skip
    enabled = forms.BooleanField(label=_("Pull on a schedule"), required=False, initial=True)

    @staticmethod
    def initial_for(source: Any) -> dict[str, Any]:
        if source is None:
            return {}
        text = "\n".join(f"{k}: {v}" for k, v in (source.queries or {}).items())
        return {"url": source.url, "queries_text": text, "step_s": source.step_s,
                "enabled": source.enabled}  # fmt: skip

    def clean_url(self) -> str:
        url = (self.cleaned_data.get("url") or "").strip()
        if urlsplit(url).scheme.lower() not in ("http", "https") or not urlsplit(url).netloc:
            raise forms.ValidationError(
                _("The Prometheus URL must start with http:// or https://."), code="scheme"
            )
        URLValidator(schemes=["http", "https"], message=_("Enter a valid URL."))(url)
        return url

    def clean_queries_text(self) -> dict[str, str]:
        queries: dict[str, str] = {}
        bad: list[int] = []
        for number, line in enumerate((self.cleaned_data.get("queries_text") or "").splitlines(),
                                      start=1):  # fmt: skip
            if not line.strip():
                continue
            name, sep, promql = line.partition(":")
            if not sep or not name.strip() or not promql.strip():
                bad.append(number)
                continue
            queries[name.strip()] = promql.strip()
        if bad:
            raise forms.ValidationError(
                _("Lines %(lines)s are not \"name: PromQL\".") % {
                    "lines": ", ".join(str(n) for n in bad)}, code="line")  # fmt: skip
        if not queries:
            raise forms.ValidationError(_("Give at least one query, as name: PromQL."),
                                        code="empty")  # fmt: skip
        return queries


class MaintenanceWindowForm(KeepStoredInstants, forms.ModelForm):
    class Meta:
        model = MaintenanceWindow
        fields = ("starts_at", "ends_at", "note")
        widgets = {"starts_at": LocalDateTimeInput(), "ends_at": LocalDateTimeInput()}
        field_classes = {"starts_at": TermDateTimeField, "ends_at": TermDateTimeField}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        start, end = data.get("starts_at"), data.get("ends_at")
        if start and end and end <= start:
            self.add_error("ends_at", _("A maintenance window must end after it starts."))
        return data

    def _post_clean(self) -> None:  # the service checks the term and runs the model's clean
        pass
