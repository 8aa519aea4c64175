"""Token counts read as a buyer writes them: grouped integers in the workload form (a preset
filled 15600000000000.0), separators accepted back, and a 1e40 count refused as out of range
without echoing 41 digits."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotes.forms import WorkloadForm
from quotes.models import WorkloadProfile
from quotes.presets import preset_links
from quotes.testing import make_workload

pytestmark = pytest.mark.django_db


def _value(html: str, name: str) -> str:
    match = re.search(rf'<input[^>]*name="{name}"[^>]*>', html)
    assert match, name
    found = re.search(r'value="([^"]*)"', match.group(0))
    return found.group(1) if found else ""


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_a_preset_fills_grouped_integers(client_as, analyst_a, lang):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    for key, _label in preset_links()[:4]:
        page = client.get(
            reverse("quotes:workload_create") + f"?preset={key}", HTTP_ACCEPT_LANGUAGE=lang
        ).content.decode()
        for name in ("train_tokens", "tokens_per_step"):
            value = _value(page, name)
            assert ".0" not in value and not re.search(r"\d{4}", value.replace(",", "X")), value
            if value:
                assert re.fullmatch(r"\d{1,3}(,\d{3})*", value), value


def test_grouped_values_are_read_back_and_an_edit_changes_nothing(team_a):  # type: ignore[no-untyped-def]
    workload = make_workload(team_a, train_tokens=15_600_000_000_000.0)
    form = WorkloadForm(instance=workload)
    assert 'value="15,600,000,000,000"' in str(form["train_tokens"])
    data = {name: form[name].value() for name in form.fields}
    data["train_tokens"] = "15,600,000,000,000"
    data["tokens_per_step"] = "4 000 000"
    bound = WorkloadForm(data={k: v for k, v in data.items() if v is not None}, instance=workload)
    assert bound.is_valid(), bound.errors
    assert bound.cleaned_data["train_tokens"] == 15_600_000_000_000.0
    assert bound.cleaned_data["tokens_per_step"] == 4_000_000


def test_a_1e40_token_count_is_out_of_range_without_41_digits(client_as, analyst_a, team_a):  # type: ignore[no-untyped-def]
    workload = make_workload(team_a)
    form = WorkloadForm(instance=workload)
    data = {name: form[name].value() for name in form.fields}
    data["train_tokens"] = "1e40"
    for lang, words in (("en", "out of range"), ("zh-hans", "超出范围")):
        r = client_as(analyst_a).post(
            reverse("quotes:workload_edit", kwargs={"pk": workload.pk}),
            {k: v for k, v in data.items() if v is not None},
            HTTP_ACCEPT_LANGUAGE=lang,
        )
        text = r.content.decode()
        assert words in text and not re.search(r"\d{16}|\d{1,3}(,\d{3}){6,}", text)
    assert WorkloadProfile.objects.get(pk=workload.pk).train_tokens != 1e40
