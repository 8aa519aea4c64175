"""Defects a reviewer reproduced on the demo contract: far-past dates answered with a 500,
impossible incidents that changed money, evidence refused with a raw exception or accepted
without a word, an expired kit token with no way forward, raw constraint names and a percent
judged as a fraction."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from contracts.models import Contract, DeliveryUpload, DeliveryWindow, Incident, MaintenanceWindow

from .conftest import HOSTS, counter_series, prom_answer
from .test_evidence_uploads import START, URL, post_upload
from .test_evidence_uploads import run_jobs as run_jobs  # the fixture

pytestmark = pytest.mark.django_db


def csv_upload(rows: list[tuple[str, str]]) -> bytes:
    lines = ["timestamp,host,device,metric,value"]
    lines += [f"{t},gpu-01,eth0,node_network_transmit_bytes_total,{v}" for t, v in rows]
    return ("\n".join(lines) + "\n").encode()


def good_rows() -> list[tuple[str, str]]:
    t0 = int(START.timestamp())
    return [(str(t0 + i * 60), str(i * 60 * 1e9)) for i in range(61)]


# --- 3. parse failures: a bilingual error_message, never the raw exception ---


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00", "-94608000000", "-1e300"])
def test_a_csv_of_only_far_past_stamps_fails_with_a_bilingual_message(
    contract_a, analyst_a, api_as, run_jobs, stamp
):  # type: ignore[no-untyped-def]
    content = csv_upload([(stamp, "1"), (stamp, "2")])
    r = run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, content, "csv",
                                     name="series.csv"))  # fmt: skip
    assert r.status_code == 202, r.content
    row = DeliveryUpload.objects.get()
    assert row.status == "failed"
    assert "out of range" not in row.error and "Error" not in row.error, row.error
    assert row.error_message and row.error_message["zh"] and row.error_message["en"]
    body = api_as(analyst_a).get(f"{URL}{contract_a.pk}/uploads/").json()[0]
    assert body["error_message"] is not None and body["error_message"]["text"]
    # and the reason is said: the samples lie outside the term
    assert any(n["code"] == "outside_term_set_aside" for n in body["notes"]), body


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00", "-5", "55"])
def test_far_past_samples_beside_good_ones_are_set_aside_with_a_note(
    contract_a, analyst_a, api_as, run_jobs, stamp
):  # type: ignore[no-untyped-def]
    content = csv_upload([(stamp, "0"), *good_rows()])
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, content, "csv",
                                 name="series.csv"))  # fmt: skip
    row = DeliveryUpload.objects.get()
    assert row.status == "done", row.error
    assert any(n["code"] == "outside_term_set_aside" for n in row.notes), row.notes
    first, _last = contract_a.term_span(1)
    assert not DeliveryWindow.objects.filter(contract=contract_a, starts_at__lt=first).exists()


def test_inf_and_nan_in_a_csv_are_said(contract_a, analyst_a, api_as, run_jobs):  # type: ignore[no-untyped-def]
    rows = good_rows()
    rows[3], rows[4] = (rows[3][0], "inf"), (rows[4][0], "nan")
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, csv_upload(rows), "csv",
                                 name="series.csv"))  # fmt: skip
    row = DeliveryUpload.objects.get()
    assert row.status == "done", row.error
    note = next(n for n in row.notes if n["code"] == "non_finite_set_aside")
    assert note["en"].startswith("2 sample(s)")


def test_a_counter_reset_is_said_with_its_host_and_device(contract_a, analyst_a, api_as, run_jobs):  # type: ignore[no-untyped-def]
    answer = prom_answer([counter_series("gpu-01", START, 2, 80.0, reset_at=30),
                          *(counter_series(h, START, 2, 80.0) for h in HOSTS[1:])])  # fmt: skip
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, answer, "prometheus_json"))
    row = DeliveryUpload.objects.get()
    assert row.status == "done", row.error
    note = next(n for n in row.notes if n["code"] == "counter_resets_handled")
    assert "gpu-01 eth0: 1" in note["en"]


def test_a_cut_off_json_is_not_valid_json(contract_a, analyst_a, api_as, run_jobs):  # type: ignore[no-untyped-def]
    answer = prom_answer([counter_series(h, START, 2, 80.0) for h in HOSTS])[:70]
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, answer, "prometheus_json"))
    row = DeliveryUpload.objects.get()
    assert row.status == "failed" and row.error_message["code"] == "prometheus_truncated"
    assert "cut off at byte 70?" in row.error_message["en"]


# --- 1./2. far-past and impossible incidents and maintenance windows ---


def lang_client(client, lang: str):  # type: ignore[no-untyped-def]
    client.cookies["django_language"] = lang
    return client


@pytest.mark.parametrize(("lang", "needle"), [("en", "term"), ("zh-hans", "合同期")])
def test_a_far_past_incident_on_the_page_is_a_form_error_not_a_500(
    contract_a, analyst_a, client_as, lang, needle
):  # type: ignore[no-untyped-def]
    client = lang_client(client_as(analyst_a), lang)
    r = client.post(f"/contracts/{contract_a.pk}/incidents/",
                    {"kind": "outage", "started_at": "0001-01-01T00:00"})  # fmt: skip
    assert r.status_code == 400
    assert needle in r.content.decode()
    assert not Incident.objects.exists()


@pytest.mark.parametrize("path", ["incidents", "maintenance"])
@pytest.mark.parametrize(("lang", "needle"), [("en", "term"), ("zh-hans", "合同期")])
def test_far_past_times_in_the_api_are_a_400_in_the_callers_language(
    contract_a, analyst_a, api_as, path, lang, needle
):  # type: ignore[no-untyped-def]
    body = ({"started_at": "0001-01-01T00:00:00", "kind": "outage"} if path == "incidents"
            else {"starts_at": "0001-01-01T00:00:00",
                  "ends_at": "0001-01-02T00:00:00"})  # fmt: skip
    r = api_as(analyst_a).post(f"{URL}{contract_a.pk}/{path}/", body, format="json",
                               HTTP_ACCEPT_LANGUAGE=lang)  # fmt: skip
    assert r.status_code == 400, r.content[:300]
    assert r["Content-Type"].startswith("application/json")
    assert needle in r.content.decode(), r.json()
    assert not Incident.objects.exists() and not MaintenanceWindow.objects.exists()


@pytest.mark.parametrize(
    ("start", "end"),
    [
        ("2026-11-01T00:00:00+08:00", "9999-12-31T00:00:00+08:00"),  # ends in the far future
        ("1900-01-01T00:00:00", "1900-01-02T00:00:00"),  # long before the term (LMT offsets)
        ("2026-11-03T00:00:00+08:00", "2026-11-02T00:00:00+08:00"),  # ends before it starts
        ("2027-06-01T00:00:00+08:00", None),  # starts after now
        ("2028-01-01T00:00:00+08:00", "2028-01-02T00:00:00+08:00"),  # after the term
    ],
)
def test_impossible_incidents_are_refused(contract_a, analyst_a, api_as, start, end):  # type: ignore[no-untyped-def]
    body = {"started_at": start, "kind": "outage", **({"ended_at": end} if end else {})}
    r = api_as(analyst_a).post(f"{URL}{contract_a.pk}/incidents/", body, format="json")
    assert r.status_code == 400, r.content[:300]
    assert not Incident.objects.exists()


def test_an_incident_inside_the_term_and_before_now_is_kept(contract_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    body = {"started_at": "2026-11-03T10:00:00+08:00", "ended_at": "2026-11-03T12:00:00+08:00",
            "kind": "outage"}  # fmt: skip
    r = api_as(analyst_a).post(f"{URL}{contract_a.pk}/incidents/", body, format="json")
    assert r.status_code == 201, r.content
    # a day before the term is still taken (a clock, a zone), and an incident still going on
    body = {"started_at": "2026-10-31T12:00:00+08:00", "kind": "outage"}
    r = api_as(analyst_a).post(f"{URL}{contract_a.pk}/incidents/", body, format="json")
    assert r.status_code == 201, r.content


# --- 5. an expired kit token has a way forward ---

KIT_URL = "/api/v1/contracts/kit/uploads/"


def _kit_post(client, token: str):  # type: ignore[no-untyped-def]
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(KIT_URL, {"file": SimpleUploadedFile("kit.txt", b"x")},
                       HTTP_AUTHORIZATION=f"Kit {token}")  # fmt: skip


def test_an_expired_token_says_expired_and_the_page_renews_it(
    contract_a, analyst_a, viewer_a, client_as, client
):  # type: ignore[no-untyped-def]
    from contracts.services import contract_kit_token_renew

    contract_kit_token_renew(contract=contract_a, days=-1)
    old = Contract.objects.get(pk=contract_a.pk).kit_token
    page = client_as(analyst_a).get(f"/contracts/{contract_a.pk}/").content.decode()
    assert "expired on" in page and "expires on" not in page and 'id="kit-token-renew"' in page
    # a viewer sees no renew button and cannot post it
    viewer = client_as(viewer_a)
    assert 'id="kit-token-renew"' not in viewer.get(f"/contracts/{contract_a.pk}/").content.decode()
    assert viewer.post(f"/contracts/{contract_a.pk}/kit/renew/").status_code == 403
    writer = client_as(analyst_a)
    r = writer.post(f"/contracts/{contract_a.pk}/kit/renew/")
    assert r.status_code == 302
    new = Contract.objects.get(pk=contract_a.pk)
    assert new.kit_token != old and new.kit_token_expires_at > timezone.now()
    page = writer.get(f"/contracts/{contract_a.pk}/").content.decode()  # the kept page changed
    assert "expires on" in page and "expired on" not in page
    script = writer.get(f"/contracts/{contract_a.pk}/kit/gpu-01.sh").content.decode()
    assert new.kit_token in script and old not in script
    assert _kit_post(client, old).status_code == 401  # the old token stops working
    assert _kit_post(client, new.kit_token).status_code == 202


def test_the_api_renews_the_token_for_the_write_role_only(
    contract_a, analyst_a, viewer_a, api_as, client
):  # type: ignore[no-untyped-def]
    old = contract_a.kit_token
    assert api_as(viewer_a).post(f"{URL}{contract_a.pk}/kit/renew/").status_code == 403
    r = api_as(analyst_a).post(f"{URL}{contract_a.pk}/kit/renew/")
    assert r.status_code == 200, r.content
    token = r.json()["kit_token"]
    assert token != old and Contract.objects.get(pk=contract_a.pk).kit_token == token
    assert _kit_post(client, old).status_code == 401


def test_the_page_says_expired_once_the_time_passes_even_when_kept(
    contract_a, analyst_a, client_as
):  # type: ignore[no-untyped-def]
    soon = timezone.now() + timedelta(seconds=2)
    Contract.objects.filter(pk=contract_a.pk).update(kit_token_expires_at=soon)
    client = client_as(analyst_a)
    assert "expires on" in client.get(f"/contracts/{contract_a.pk}/").content.decode()
    from unittest import mock

    later = soon + timedelta(minutes=1)
    with mock.patch("django.utils.timezone.now", return_value=later):
        assert "expired on" in client.get(f"/contracts/{contract_a.pk}/").content.decode()


# --- 6. messages in the user's words and language ---


@pytest.mark.parametrize(
    ("lang", "needle"), [("en", "cannot be negative"), ("zh-hans", "不能为负数")]
)
def test_a_negative_fee_is_a_field_error_not_a_constraint_name(
    contract_a, analyst_a, vendor_a, client_as, api_as, lang, needle
):  # type: ignore[no-untyped-def]
    from .test_contract_pages import _form

    client = lang_client(client_as(analyst_a), lang)
    r = client.post("/contracts/new/", _form(vendor_a, monthly_fee="-1000"))
    assert r.status_code == 400
    body = r.content.decode()
    assert needle in body and "contract_fee_not_negative" not in body
    r = api_as(analyst_a).patch(f"{URL}{contract_a.pk}/", {"monthly_fee": "-1000"},
                                format="json", HTTP_ACCEPT_LANGUAGE=lang)  # fmt: skip
    assert r.status_code == 400 and needle in r.json()["monthly_fee"][0], r.content
    assert "contract_fee_not_negative" not in r.content.decode()


def test_the_bandwidth_threshold_is_judged_in_percent(vendor_a, analyst_a, client_as):  # type: ignore[no-untyped-def]
    from .test_contract_pages import _form

    r = client_as(analyst_a).post("/contracts/new/", _form(vendor_a, bw_threshold_pct="250"))
    assert r.status_code == 400
    body = r.content.decode()
    assert "at most 100 (got 250 %)" in body and "at most 1 (got 2.5)" not in body


@pytest.mark.parametrize(
    ("lang", "shown", "hidden"),
    [("en", "Rack Company", "机架公司"), ("zh-hans", "机架公司", "Rack Company")],
)
def test_vendor_names_are_in_the_readers_language(
    contract_a, analyst_a, client_as, lang, shown, hidden
):  # type: ignore[no-untyped-def]
    vendor = contract_a.vendor
    vendor.name_en, vendor.name_zh = "Rack Company", "机架公司"
    vendor.save()
    client = lang_client(client_as(analyst_a), lang)
    for path in ("/contracts/", f"/contracts/{contract_a.pk}/"):
        body = client.get(path).content.decode()
        assert shown in body and hidden not in body, path


def test_new_evidence_after_the_evaluation_is_said_beside_it(
    evaluated, contract_a, analyst_a, client_as
):  # type: ignore[no-untyped-def]
    from contracts.services import incident_create

    from .conftest import T0

    client = client_as(analyst_a)
    url = f"/contracts/{contract_a.pk}/"
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="evaluation-outdated"' not in page  # the evaluation saw everything there is
    incident_create(contract=contract_a, data={
        "started_at": T0 + timedelta(hours=40), "ended_at": T0 + timedelta(hours=41),
        "vendor_ticket": "INC-2"})  # fmt: skip
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="evaluation-outdated"' in page and "evaluate again" in page
    zh = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "请重新评估" in zh
