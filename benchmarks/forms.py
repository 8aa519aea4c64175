"""Forms of the benchmark pages."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from quotes.models import Quote
from vendors.models import DataCentre, Vendor

from .choices import RunFabric, StartedTogether
from .models import AcceptanceThresholds, TestRun


class MultiFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultiFileField(forms.FileField):
    widget = MultiFileInput

    def clean(self, data, initial=None):  # type: ignore[no-untyped-def]
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(d, initial) for d in data]
        return [single(data, initial)] if data else []


class UploadForm(forms.Form):
    """Several files (or a zip) for a new or an existing test run."""

    files = MultiFileField(label=_("Log files or a zip"))
    test_run = forms.ModelChoiceField(
        TestRun.objects.none(), required=False, label=_("Existing test run"),
        empty_label=_("— a new test run —"),
    )  # fmt: skip
    vendor = forms.ModelChoiceField(Vendor.objects.none(), required=False, label=_("Vendor"))
    data_centre = forms.ModelChoiceField(
        DataCentre.objects.none(), required=False, label=_("Data centre")
    )
    name = forms.CharField(max_length=200, required=False, label=_("New test run name"))
    line_rate_gbps = forms.DecimalField(
        max_digits=7, decimal_places=1, min_value=0.1, required=False,
        label=_("Line rate per port (Gbit/s)"),
    )  # fmt: skip
    fabric = forms.ChoiceField(choices=RunFabric.choices, required=False, label=_("Fabric"))
    started_together = forms.ChoiceField(
        choices=StartedTogether.choices, required=False,
        label=_("The tests in this run were started at the same time"),
        help_text=_(
            "Only \"yes\" makes logs without a clock (perftest, nccl-tests, iperf3 text) on "
            "distinct links one simultaneous test; otherwise they are counted link by link. "
            "For an existing run, \"Not stated\" leaves its declaration as it is."
        ),
    )  # fmt: skip
    quote = forms.ModelChoiceField(
        Quote.objects.none(), required=False, label=_("Evidence for quote"),
        empty_label=_("— no quote —"),
        help_text=_("The quote these logs are evidence for; its measured bandwidth is updated."),
    )  # fmt: skip
    witnessed = forms.BooleanField(
        required=False,
        label=_("We ran these tests ourselves"),
        help_text=_("Tick only if a member of your team ran the tests on the vendor's machines."),
    )

    def __init__(self, *args, team, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.fields["test_run"].queryset = TestRun.objects.for_team(team).select_related("vendor")
        self.fields["vendor"].queryset = Vendor.objects.for_team(team)
        self.fields["data_centre"].queryset = DataCentre.objects.filter(vendor__team=team)
        self.fields["quote"].queryset = Quote.objects.for_team(team).select_related("vendor")

    def clean(self):  # type: ignore[no-untyped-def]
        data = super().clean()
        quote, run = data.get("quote"), data.get("test_run")
        if quote is not None and not data.get("vendor") and not run:
            data["vendor"] = quote.vendor
        if quote is not None and run is not None and run.quote_id not in (None, quote.pk):
            self.add_error("quote", _("This test run is already evidence for another quote."))
        vendor = run.vendor if run is not None else data.get("vendor")
        if quote is not None and vendor is not None and quote.vendor_id != vendor.pk:
            self.add_error("quote", _("This quote is from another vendor than the test run."))
        if not data.get("test_run"):
            if not data.get("vendor"):
                self.add_error("vendor", _("Choose the vendor of the new test run."))
            if not data.get("name"):
                self.add_error("name", _("Name the new test run."))
        return data


class StartedTogetherForm(forms.Form):
    """The uploader's declaration on a run's page."""

    started_together = forms.ChoiceField(
        choices=StartedTogether.choices, required=False,
        label=_("The tests in this run were started at the same time"),
    )  # fmt: skip


class ThresholdsForm(forms.ModelForm):
    class Meta:
        model = AcceptanceThresholds
        fields = [
            "rdma_min_line_fraction", "tcp_min_line_fraction", "max_cv", "warn_margin",
            "p99_latency_ib_us", "p99_latency_roce_us", "p99_latency_tcp_us",
        ]  # fmt: skip
