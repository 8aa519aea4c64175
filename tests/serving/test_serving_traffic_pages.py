"""Traffic-sample uploads on the serving pages (WorkloadTrafficView, PlanTrafficView).

A good month replaces the modelled traffic in the bills and the page says so. Every refusal is a
400 (or 403 / 404) with a message that says what to fix, never a 500, and leaves the database
as it was: the upload in use stays in use, the workload and plan are unchanged, and a file that
is refused before reading (too large, empty) is not stored at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from serving.models import MixedPlan, ServingWorkload, TrafficUpload
from serving.selectors import mixed_plan_evaluate, plan_dict, ranking_dict, serving_ranking
from serving.services import TRAFFIC_MAX_BYTES, traffic_upload_create

from .conftest import GOOD_MONTH, month_csv

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def stored_files() -> set[Path]:
    root = Path(settings.MEDIA_ROOT) / "serving"
    return {p for p in root.rglob("*") if p.is_file()} if root.exists() else set()


def snapshot(setup) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """What a refusal must not change."""
    w, p = setup["workload"], setup["plan"]
    return {
        "workload": ServingWorkload.objects.filter(pk=w.pk).values().get(),
        "plan": MixedPlan.objects.filter(pk=p.pk).values().get(),
        "in_use": set(TrafficUpload.objects.filter(in_use=True).values_list("pk", flat=True)),
        "ok": set(TrafficUpload.objects.filter(status="ok").values_list("pk", flat=True)),
        "uploads": TrafficUpload.objects.count(),
    }


def serve_bill(team, workload, quote) -> dict:  # type: ignore[no-untyped-def, type-arg]
    body = ranking_dict(serving_ranking(team=team, workload=workload))
    return next(r for r in body["results"] if r["quote"] == quote.pk)


# --- good uploads -------------------------------------------------------------------------------


def test_a_good_month_on_a_workload_is_billed_and_shown(
    serving_setup, team_a, analyst_a, client_as, csv_file
):  # type: ignore[no-untyped-def]
    workload, serve = serving_setup["workload"], serving_setup["serve"]
    modelled = serve_bill(team_a, workload, serve)
    client = client_as(analyst_a)
    url = reverse("serving:workload_traffic", args=[workload.pk])
    r = client.post(url, {"file": csv_file(name="november.csv")}, **EN)
    assert r.status_code == 302 and r["Location"] == reverse("serving:workload", args=[workload.pk])

    row = TrafficUpload.objects.get()
    assert (row.status, row.in_use, row.workload_id, row.plan_id) == ("ok", True, workload.pk, None)
    assert row.sample_count == 8_640 and row.p95_mbps == 500.0 and row.peak_mbps == 800.0
    assert row.monthly_gb == pytest.approx(47_925.0) and row.uploaded_by == analyst_a
    assert Path(row.file.path).read_bytes() == GOOD_MONTH  # the raw file is kept as sent

    # the bill now comes from the samples: the 95th percentile of 500 Mbit/s at 25 CNY
    measured = serve_bill(team_a, workload, serve)
    p95 = next(b for b in measured["bills"] if b["kind"] == "p95")
    assert p95["bill_cny_month"] == pytest.approx(500 * 25)
    assert measured["bandwidth_cny_month"] != modelled["bandwidth_cny_month"]

    page = client.get(r["Location"], **EN).content.decode()
    assert "8,640 samples read; the bills now use them." in page
    assert 'id="traffic-in-use"' in page and "november.csv" in page
    assert "500.0 Mbit/s" in page  # the 95th percentile in the summary


def test_a_good_month_on_a_plan_is_billed_and_shown(
    serving_setup, team_a, analyst_a, client_as, csv_file
):  # type: ignore[no-untyped-def]
    plan = serving_setup["plan"]
    before = plan_dict(mixed_plan_evaluate(plan))
    assert before["measured_traffic"] is None
    client = client_as(analyst_a)
    r = client.post(reverse("serving:plan_traffic", args=[plan.pk]), {"file": csv_file()}, **EN)
    assert r.status_code == 302 and r["Location"] == reverse("serving:plan", args=[plan.pk])

    row = TrafficUpload.objects.get()
    assert (row.plan_id, row.workload_id, row.in_use) == (plan.pk, None, True)
    after = plan_dict(mixed_plan_evaluate(plan))
    assert after["measured_traffic"]["id"] == row.pk
    assert after["serving_bandwidth_bill_cny_month"] == pytest.approx(500 * 25)
    assert after["total_elastic_cny"] != before["total_elastic_cny"]

    page = client.get(r["Location"], **EN).content.decode()
    assert 'id="traffic-in-use"' in page and "(from the uploaded samples)" in page


def test_a_second_month_replaces_the_first_and_stop_goes_back_to_the_model(
    serving_setup, analyst_a, client_as, csv_file
):  # type: ignore[no-untyped-def]
    workload = serving_setup["workload"]
    client = client_as(analyst_a)
    url = reverse("serving:workload_traffic", args=[workload.pk])
    client.post(url, {"file": csv_file()})
    second = month_csv([200.0] * 8_640)
    assert client.post(url, {"file": csv_file(second, name="december.csv")}).status_code == 302
    first, latest = TrafficUpload.objects.order_by("pk")
    assert (first.in_use, latest.in_use, latest.p95_mbps) == (False, True, 200.0)

    r = client.post(url, {"stop": "1"}, **EN)
    assert r.status_code == 302
    assert not TrafficUpload.objects.filter(in_use=True).exists()
    assert TrafficUpload.objects.count() == 2  # the files stay stored
    page = client.get(r["Location"], **EN).content.decode()
    assert "The modelled traffic profile is used again." in page
    assert 'id="traffic-in-use"' not in page


def test_a_path_in_the_file_name_is_dropped(serving_setup, analyst_a, client_as, csv_file):  # type: ignore[no-untyped-def]
    workload = serving_setup["workload"]
    url = reverse("serving:workload_traffic", args=[workload.pk])
    client_as(analyst_a).post(url, {"file": csv_file(name="..\\..\\etc\\passwd.csv")})
    row = TrafficUpload.objects.get()
    assert row.original_name == "passwd.csv"
    assert Path(row.file.path).resolve().is_relative_to(Path(settings.MEDIA_ROOT).resolve())


# --- refusals -----------------------------------------------------------------------------------

# content -> what the English message says (the parser's own words)
UNREADABLE = {
    "non-numeric": (
        b"timestamp,Mbit/s\n2026-11-01 00:00,12\n2026-11-01 00:05,lots\n",
        "Rows without a number in the bandwidth column: 3.",
    ),
    "wrong columns": (
        b"vendor,region,price\nA,B,C\nD,E,F\n",
        "Unknown unit in the header",
    ),
    "negative": (
        b"timestamp,Mbit/s\n2026-11-01 00:00,12\n2026-11-01 00:05,-4\n",
        "Bandwidth cannot be negative: rows 3.",
    ),
    "binary garbage": (
        bytes(range(256)) * 40,
        "This is not a text CSV file (it looks binary).",
    ),
    "an image": (
        b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(2_000),
        "This is not a text CSV file",
    ),
}


@pytest.fixture
def in_use(serving_setup, team_a, analyst_a, csv_file):  # type: ignore[no-untyped-def]
    """A good month already in use on the workload and one on the plan."""
    w = traffic_upload_create(team=team_a, user=analyst_a, upload=csv_file(),
                              workload=serving_setup["workload"])  # fmt: skip
    p = traffic_upload_create(team=team_a, user=analyst_a, upload=csv_file(),
                              plan=serving_setup["plan"])  # fmt: skip
    return {"workload": w, "plan": p}


@pytest.mark.parametrize("target", ["workload", "plan"])
@pytest.mark.parametrize("case", list(UNREADABLE))
def test_an_unreadable_file_is_refused_with_the_parsers_message(
    case, target, serving_setup, in_use, analyst_a, client_as, csv_file
):  # type: ignore[no-untyped-def]
    content, expected = UNREADABLE[case]
    before = snapshot(serving_setup)
    obj = serving_setup[target]
    url = reverse(f"serving:{target}_traffic", args=[obj.pk])
    r = client_as(analyst_a).post(url, {"file": csv_file(content, name="bad.csv")}, **EN)
    assert r.status_code == 400
    page = r.content.decode()
    assert 'id="traffic-errors"' in page and expected in page
    # the refused file is kept with its reason, for the table; nothing else changes
    after = snapshot(serving_setup)
    assert after["uploads"] == before["uploads"] + 1
    assert {k: after[k] for k in ("workload", "plan", "in_use", "ok")} == {
        k: before[k] for k in ("workload", "plan", "in_use", "ok")
    }
    refused = TrafficUpload.objects.latest("pk")
    assert (refused.status, refused.in_use, refused.sample_count) == ("refused", False, 0)
    assert refused.samples_mbps == [] and refused.p95_mbps is None
    assert expected in refused.error["en"] and refused.error["zh"]
    assert TrafficUpload.objects.get(pk=in_use[target].pk).in_use
    assert len(stored_files()) == after["uploads"]


def test_the_refusal_is_in_chinese_for_a_chinese_reader(serving_setup, analyst_a, client_as,
                                                        csv_file):  # fmt: skip
    url = reverse("serving:workload_traffic", args=[serving_setup["workload"].pk])
    content, _ = UNREADABLE["negative"]
    r = client_as(analyst_a).post(url, {"file": csv_file(content)}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400
    page = r.content.decode()
    assert TrafficUpload.objects.get().error["zh"] in page
    assert "Bandwidth cannot be negative" not in page


@pytest.mark.parametrize("target", ["workload", "plan"])
def test_a_file_over_the_limit_is_refused_before_anything_is_stored(
    target, serving_setup, in_use, analyst_a, client_as, csv_file
):  # type: ignore[no-untyped-def]
    before, files = snapshot(serving_setup), stored_files()
    big = b"2026-11-01 00:00,1\n" * (TRAFFIC_MAX_BYTES // 19 + 1)
    assert len(big) > TRAFFIC_MAX_BYTES
    url = reverse(f"serving:{target}_traffic", args=[serving_setup[target].pk])
    r = client_as(analyst_a).post(url, {"file": csv_file(big)}, **EN)
    assert r.status_code == 400
    page = r.content.decode()
    assert "The file is 5.2 MB; a month of traffic samples is well under 5 MB" in page
    assert snapshot(serving_setup) == before and stored_files() == files


def test_exactly_the_limit_is_not_refused_for_its_size(serving_setup, analyst_a, client_as,
                                                       csv_file):  # fmt: skip
    padded = GOOD_MONTH + b"\n" * (TRAFFIC_MAX_BYTES - len(GOOD_MONTH))
    assert len(padded) == TRAFFIC_MAX_BYTES
    url = reverse("serving:workload_traffic", args=[serving_setup["workload"].pk])
    r = client_as(analyst_a).post(url, {"file": csv_file(padded)}, **EN)
    assert "MB; a month" not in r.content.decode()
    assert TrafficUpload.objects.count() == 1  # read (or refused by the parser), not by size


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"file": b""}, "The submitted file is empty."),
        ({}, "This field is required."),
        ({"file_text": "12\n13\n"}, "This field is required."),
    ],
    ids=["empty", "no file", "text instead of a file"],
)
def test_an_empty_or_missing_file_is_refused_and_nothing_is_stored(
    data, expected, serving_setup, in_use, analyst_a, client_as, csv_file
):  # type: ignore[no-untyped-def]
    before, files = snapshot(serving_setup), stored_files()
    if "file" in data:
        data = {"file": csv_file(data["file"], name="empty.csv")}
    url = reverse("serving:plan_traffic", args=[serving_setup["plan"].pk])
    r = client_as(analyst_a).post(url, data, **EN)
    assert r.status_code == 400 and expected in r.content.decode()
    assert snapshot(serving_setup) == before and stored_files() == files


@pytest.mark.parametrize("target", ["workload", "plan"])
def test_another_teams_target_is_a_404_and_nothing_is_stored(
    target, serving_setup, in_use, analyst_b, client_as, csv_file
):  # type: ignore[no-untyped-def]
    before, files = snapshot(serving_setup), stored_files()
    client = client_as(analyst_b)
    url = reverse(f"serving:{target}_traffic", args=[serving_setup[target].pk])
    assert client.post(url, {"file": csv_file()}).status_code == 404
    assert client.post(url, {"stop": "1"}).status_code == 404
    assert snapshot(serving_setup) == before and stored_files() == files


@pytest.mark.parametrize("target", ["workload", "plan"])
def test_a_viewer_cannot_upload_or_stop_and_sees_no_upload_form(
    target, serving_setup, in_use, viewer_a, client_as, csv_file
):  # type: ignore[no-untyped-def]
    before, files = snapshot(serving_setup), stored_files()
    client = client_as(viewer_a)
    url = reverse(f"serving:{target}_traffic", args=[serving_setup[target].pk])
    r = client.post(url, {"file": csv_file()}, **EN)
    assert r.status_code == 403
    assert "Your role (viewer) can read but not change data." in r.content.decode()
    assert client.post(url, {"stop": "1"}).status_code == 403
    assert snapshot(serving_setup) == before and stored_files() == files
    page = client.get(reverse(f"serving:{target}", args=[serving_setup[target].pk]), **EN)
    html = page.content.decode()
    assert page.status_code == 200 and 'id="traffic-in-use"' in html
    assert 'id="traffic-form"' not in html and 'name="stop"' not in html


def test_a_get_on_the_upload_url_is_not_a_500(serving_setup, analyst_a, client_as):  # type: ignore[no-untyped-def]
    url = reverse("serving:workload_traffic", args=[serving_setup["workload"].pk])
    assert client_as(analyst_a).get(url).status_code == 405
