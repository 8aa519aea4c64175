"""A vendor's SLA record keeps the vendor's own wording of its credits and the same structured
compensation schedule as a contract's, checked the same way by the form, the API, the model and
the database, and shown on the vendor page in both languages."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from vendors.models import SlaTerms, Vendor

pytestmark = pytest.mark.django_db

SCHEDULE = {
    "availability_bands": [{"below_pct": 99.5, "credit_pct": 10}, {"below_pct": 99.0,
                                                                    "credit_pct": 25}],
    "bandwidth": {"threshold_fraction": 0.8, "min_duration_minutes": 60,
                  "credit_pct_per_hour": 0.5},
    "overruns": [{"kind": "repair", "credit_pct_per_hour": 1.0}],
    "cap_pct": 30, "claim_window_days": 30,
}  # fmt: skip


@pytest.fixture
def own_vendor(team_a):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_a, name_zh="自有厂商", name_en="Own Vendor")


def _form(**over: str) -> dict[str, str]:
    data = {"availability": "0.999", "response_minutes": "30", "hw_replacement_hours": "24",
            "bandwidth_in_contract": "true", "compensation_clause": "true",
            "credits": "可用性低于99.5%返还当月10%服务费", "state": "claimed",
            "has_schedule": "on", "band_0_below": "99.5", "band_0_credit": "10",
            "band_1_below": "99", "band_1_credit": "25", "bw_threshold_pct": "80",
            "bw_min_minutes": "60", "bw_credit_pct_per_hour": "0.5",
            "repair_credit_pct_per_hour": "1", "cap_pct": "30",
            "claim_window_days": "30"}  # fmt: skip
    data.update(over)
    return data


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_the_sla_form_stores_the_schedule_beside_the_vendors_wording_and_the_page_shows_both(  # type: ignore[no-untyped-def]
    client_as, analyst_a, own_vendor, lang
):
    client = client_as(analyst_a)
    url = reverse("vendors:sla", args=[own_vendor.pk])
    assert 'id="sla-schedule"' in client.get(url, HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    r = client.post(url, _form(), HTTP_ACCEPT_LANGUAGE=lang)
    assert r.status_code == 302, r.content.decode()[:1500]
    sla = SlaTerms.objects.get(vendor=own_vendor)
    assert sla.credits == "可用性低于99.5%返还当月10%服务费"
    assert sla.schedule["bandwidth"]["threshold_fraction"] == 0.8
    assert sla.schedule["latency"] is None and sla.schedule["cap_pct"] == 30.0  # normalised
    page = client.get(f"/vendors/{own_vendor.pk}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert 'class="schedule"' in page
    assert ("Availability below 99.5 %" if lang == "en" else "99.5") in page
    # the edit form shows the stored schedule; submitted unchanged it stays the same
    again = client.get(url).content.decode()
    assert 'name="band_1_below"' in again and 'value="99.0"' in again
    assert client.post(url, _form()).status_code == 302
    assert SlaTerms.objects.get(pk=sla.pk).schedule == sla.schedule


@pytest.mark.parametrize(("lang", "over", "said"), [
    ("en", {"band_1_below": "99.5"}, "they overlap"),
    ("zh-hans", {"band_1_below": "99.5"}, "档位重叠"),
    ("en", {"cap_pct": "-5"}, "between 0 and 100"),
    ("en", {"bw_threshold_pct": "abc"}, "Enter a number"),
])  # fmt: skip
def test_a_bad_schedule_in_the_form_is_refused_and_nothing_is_stored(  # type: ignore[no-untyped-def]
    client_as, analyst_a, own_vendor, lang, over, said
):
    r = client_as(analyst_a).post(reverse("vendors:sla", args=[own_vendor.pk]), _form(**over),
                                  HTTP_ACCEPT_LANGUAGE=lang)  # fmt: skip
    assert r.status_code == 400 and said in r.content.decode()
    assert not SlaTerms.objects.exists()


def test_without_the_box_ticked_no_schedule_is_stored(client_as, analyst_a, own_vendor):  # type: ignore[no-untyped-def]
    data = _form()
    del data["has_schedule"]
    assert client_as(analyst_a).post(reverse("vendors:sla", args=[own_vendor.pk]),
                                     data).status_code == 302  # fmt: skip
    assert SlaTerms.objects.get().schedule == {}


def test_the_api_takes_a_schedule_normalised_and_refuses_a_bad_one_in_the_readers_language(  # type: ignore[no-untyped-def]
    api_as, analyst_a, own_vendor
):
    api = api_as(analyst_a)
    url = f"/api/v1/vendors/{own_vendor.pk}/sla/"
    bad = {**SCHEDULE, "availability_bands": [{"below_pct": 99, "credit_pct": 10},
                                              {"below_pct": 99, "credit_pct": 20}]}  # fmt: skip
    r = api.post(url, {"availability": "0.999", "schedule": bad}, format="json",
                 HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert r.status_code == 400 and "档位重叠" in str(r.json()["schedule"])
    r = api.post(url, {"availability": "0.999", "schedule": {**SCHEDULE, "cap_pct": -1}},
                 format="json")  # fmt: skip
    assert r.status_code == 400 and "schedule" in r.json()
    for shape in ("not an object", [1, 2], {"unknown": 1}):
        r = api.post(url, {"availability": "0.999", "schedule": shape}, format="json")
        assert r.status_code == 400 and "schedule" in r.json(), shape
    assert not SlaTerms.objects.exists()
    r = api.post(url, {"availability": "0.999", "schedule": SCHEDULE, "credits": "原文"},
                 format="json")  # fmt: skip
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["credits"] == "原文" and body["schedule"]["latency"] is None
    assert api.get(f"{url}{body['id']}/").json()["schedule"] == body["schedule"]


def test_the_model_and_the_database_refuse_a_schedule_outside_the_shape(own_vendor):  # type: ignore[no-untyped-def]
    sla = SlaTerms(vendor=own_vendor, schedule={**SCHEDULE, "cap_pct": 150})
    with pytest.raises(Exception) as exc:
        sla.full_clean()
    assert "schedule" in exc.value.message_dict  # type: ignore[attr-defined]
    sla = SlaTerms.objects.create(vendor=own_vendor)
    with pytest.raises(IntegrityError), transaction.atomic():
        SlaTerms.objects.filter(pk=sla.pk).update(schedule={"cap_pct": 10})
