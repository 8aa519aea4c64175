"""Delivery evidence: uploads kept raw and read by a job into windows (all or none), bad files
answered with a clear message in both languages, the kit's token checked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from contracts.models import DeliveryUpload, DeliveryWindow
from contracts.services import contract_kit_token_renew

from .conftest import HOSTS, counter_series, prom_answer, upload_file

pytestmark = pytest.mark.django_db
URL = "/api/v1/contracts/"
KIT_URL = "/api/v1/contracts/kit/uploads/"
DEMO = Path(__file__).resolve().parents[2] / "benchmarks" / "demo_data"
START = datetime(2026, 11, 2, tzinfo=UTC)


def post_upload(api, contract, content: bytes, kind: str, name: str = "export.json", **extra):  # type: ignore[no-untyped-def]
    return api.post(f"{URL}{contract.pk}/uploads/", {"file": upload_file(content, name),
                                                     "kind": kind, **extra},
                    format="multipart")  # fmt: skip


@pytest.fixture
def run_jobs(django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Jobs run when the request's transaction commits (Celery is eager in tests)."""

    def run(call):  # type: ignore[no-untyped-def]
        with django_capture_on_commit_callbacks(execute=True):
            return call()

    return run


def test_a_prometheus_export_becomes_hourly_windows_per_host(
    contract_a, analyst_a, api_as, run_jobs
):  # type: ignore[no-untyped-def]
    answer = prom_answer([counter_series(h, START, 3, 80.0) for h in HOSTS])
    r = run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, answer, "prometheus_json"))
    assert r.status_code == 202, r.content
    row = DeliveryUpload.objects.get()
    assert row.status == "done", row.error
    assert row.file.read() == answer  # the raw file is kept as uploaded
    windows = DeliveryWindow.objects.filter(contract=contract_a, coverage__gt=0)
    assert sorted({w.host for w in windows}) == HOSTS
    assert all(abs(w.delivered_gbps - 80.0) < 0.5 for w in windows), [
        w.delivered_gbps for w in windows
    ]
    assert {w.saturating for w in windows} == {False}


def test_reading_the_same_file_again_does_not_duplicate_windows(
    contract_a, analyst_a, api_as, run_jobs
):  # type: ignore[no-untyped-def]
    from contracts.evidence import delivery_read

    answer = prom_answer([counter_series(h, START, 2, 50.0) for h in HOSTS])
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, answer, "prometheus_json"))
    first = DeliveryWindow.objects.count()
    delivery_read(upload_id=DeliveryUpload.objects.get().pk, progress=lambda _p: None)
    assert DeliveryWindow.objects.count() == first > 0


@pytest.mark.parametrize(("lang", "needle"), [("en", "too many"), ("zh-hans", "点")])
def test_a_prometheus_error_answer_is_refused_with_its_reason_and_kept(
    contract_a, analyst_a, api_as, run_jobs, lang, needle
):  # type: ignore[no-untyped-def]
    answer = (
        b'{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of '
        b'11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"}'
    )
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, answer, "prometheus_json"))
    row = DeliveryUpload.objects.get()
    assert row.status == "failed" and row.file.read() == answer
    assert not DeliveryWindow.objects.exists()
    r = api_as(analyst_a).get(f"{URL}{contract_a.pk}/uploads/", HTTP_ACCEPT_LANGUAGE=lang)
    text = r.json()[0]["error_message"]["text"]
    assert "11,000" in text or needle in text.lower(), text


def test_a_counter_going_backwards_is_a_reset_not_a_negative_rate(
    contract_a, analyst_a, api_as, run_jobs
):  # type: ignore[no-untyped-def]
    series = [counter_series(h, START, 2, 40.0, reset_at=70 if h == "gpu-01" else None)
              for h in HOSTS]  # fmt: skip
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, prom_answer(series),
                                 "prometheus_json"))  # fmt: skip
    assert DeliveryUpload.objects.get().status == "done"
    rates = list(DeliveryWindow.objects.filter(host="gpu-01", coverage__gt=0)
                 .values_list("delivered_gbps", flat=True))  # fmt: skip
    assert rates and all(0 <= g <= 40.5 for g in rates), rates
    assert min(rates) > 35, rates  # one lost minute of 60 at most, never a huge negative


def test_an_unknown_host_is_set_aside_and_said(contract_a, analyst_a, api_as, run_jobs):  # type: ignore[no-untyped-def]
    series = [counter_series(h, START, 1, 30.0) for h in (*HOSTS, "intruder-9")]
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, prom_answer(series),
                                 "prometheus_json"))  # fmt: skip
    row = DeliveryUpload.objects.get()
    assert row.status == "done"
    assert not DeliveryWindow.objects.filter(host__startswith="intruder").exists()
    r = api_as(analyst_a).get(f"{URL}{contract_a.pk}/uploads/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    notes = " ".join(n["text"] for n in r.json()[0]["notes"])
    assert "intruder-9" in notes


def test_samples_in_the_future_are_dropped_and_said(contract_a, analyst_a, api_as, run_jobs):  # type: ignore[no-untyped-def]
    soon = timezone.now().replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
    series = [counter_series(h, soon, 4, 30.0) for h in HOSTS]  # three hours ahead of now
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, prom_answer(series),
                                 "prometheus_json"))  # fmt: skip
    row = DeliveryUpload.objects.get()
    assert row.status == "done"
    assert row.last_at <= timezone.now() + timedelta(hours=1)
    codes = {n["code"] for n in row.notes}
    assert any("future" in c for c in codes), codes


def test_a_csv_in_another_time_zone_lands_at_the_right_utc_hours(
    contract_a, analyst_a, api_as, run_jobs
):  # type: ignore[no-untyped-def]
    rows = ["timestamp,host,device,metric,value"]
    rate = 60e9 / 8
    for h in HOSTS:
        for i in range(121):  # two hours, one sample a minute, Berlin local time (UTC+1)
            t = datetime(2026, 11, 2, 9, 0) + timedelta(minutes=i)
            rows.append(f"{t:%Y-%m-%d %H:%M:%S},{h},eth0,node_network_receive_bytes_total,"
                        f"{rate * 60 * i:.0f}")  # fmt: skip
    content = ("\n".join(rows) + "\n").encode()
    run_jobs(lambda: post_upload(api_as(analyst_a), contract_a, content, "csv", "series.csv",
                                 source_timezone="Europe/Berlin"))  # fmt: skip
    row = DeliveryUpload.objects.get()
    assert row.status == "done", row.error
    first = DeliveryWindow.objects.filter(coverage__gt=0).order_by("starts_at").first()
    assert first.starts_at == datetime(2026, 11, 2, 8, tzinfo=UTC)
    assert abs(first.delivered_gbps - 60.0) < 0.5


def test_an_unknown_time_zone_is_refused_before_anything_is_stored(contract_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    r = post_upload(api_as(analyst_a), contract_a, b"timestamp,host\n", "csv", "a.csv",
                    source_timezone="Mars/Olympus")  # fmt: skip
    assert r.status_code == 400 and "Mars/Olympus" in str(r.json())
    assert not DeliveryUpload.objects.exists()


def _kit(host: str, peer: str, iperf: bytes) -> bytes:
    return (b"GPK-DELIVERY-KIT 1\nhost: " + host.encode() + b"\npeer: " + peer.encode()
            + b"\nstarted: 2026-12-02T14:00:00Z\nfinished: 2026-12-02T14:00:12Z\nkernel: 6.1\n"
            + b"=== iperf3.json\n" + iperf + b"\n")  # fmt: skip


def test_a_kit_upload_with_the_contracts_token_becomes_a_saturating_window(
    contract_a, api_as, run_jobs, client
):  # type: ignore[no-untyped-def]
    iperf = (DEMO / "dg10g_pair1_iperf3_P2.json").read_bytes()
    r = run_jobs(lambda: client.post(KIT_URL, {"file": upload_file(_kit("gpu-01", "gpu-02", iperf),
                                                                   "kit.txt")},
                                     HTTP_AUTHORIZATION=f"Kit {contract_a.kit_token}"))  # fmt: skip
    assert r.status_code == 202, r.content
    row = DeliveryUpload.objects.get()
    assert (row.status, row.origin, row.kind) == ("done", "kit", "kit_log"), row.error
    assert row.summary["host"] == "gpu-01" and row.summary["facts"]["kernel"] == "6.1"
    w = DeliveryWindow.objects.get(host="gpu-01")
    assert w.saturating and abs(w.delivered_gbps - 9.45) < 0.05


@pytest.mark.parametrize(("lang", "needle"), [("en", "not valid"), ("zh-hans", "无效")])
def test_a_wrong_kit_token_is_a_401_in_the_callers_language(contract_a, client, lang, needle):  # type: ignore[no-untyped-def]
    r = client.post(KIT_URL, {"file": upload_file(b"x", "kit.txt")},
                    HTTP_AUTHORIZATION="Kit not-the-token", HTTP_ACCEPT_LANGUAGE=lang)  # fmt: skip
    assert r.status_code == 401 and needle in r.json()["detail"]
    assert not DeliveryUpload.objects.exists()


@pytest.mark.parametrize(("lang", "needle"), [("en", "expired"), ("zh-hans", "过期")])
def test_an_expired_kit_token_is_a_403_in_the_callers_language(contract_a, client, lang, needle):  # type: ignore[no-untyped-def]
    contract_kit_token_renew(contract=contract_a, days=-1)
    r = client.post(KIT_URL, {"file": upload_file(b"x", "kit.txt")},
                    HTTP_AUTHORIZATION=f"Kit {contract_a.kit_token}",
                    HTTP_ACCEPT_LANGUAGE=lang)  # fmt: skip
    assert r.status_code == 403 and needle in r.json()["detail"]
    assert not DeliveryUpload.objects.exists()


def test_a_kit_upload_from_a_host_outside_the_contract_is_refused(contract_a, client, run_jobs):  # type: ignore[no-untyped-def]
    iperf = (DEMO / "dg10g_pair1_iperf3_P2.json").read_bytes()
    run_jobs(lambda: client.post(KIT_URL, {"file": upload_file(_kit("rogue", "gpu-02", iperf))},
                                 HTTP_AUTHORIZATION=f"Kit {contract_a.kit_token}"))  # fmt: skip
    row = DeliveryUpload.objects.get()
    assert row.status == "failed" and "rogue" in row.error
    assert not DeliveryWindow.objects.exists()
