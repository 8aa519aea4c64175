"""The contracts API: CRUD scoped to the team (another team's contract is 404, a viewer cannot
write), the list's query count pinned, the schedule checked at the door in both languages."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from contracts.models import Contract
from contracts.services import contract_create, contract_servers_set
from quotes.testing import make_vendor

from .conftest import SCHEDULE, contract_data

pytestmark = pytest.mark.django_db
URL = "/api/v1/contracts/"


def _body(vendor, **over):  # type: ignore[no-untyped-def]
    data = contract_data(**over)
    body = {k: (str(v) if k in ("starts_on", "ends_on", "monthly_fee", "availability_pct") else v)
            for k, v in data.items()}  # fmt: skip
    body.update(vendor=vendor.pk, servers=[{"hostname": "n1", "rack": "R1"}, {"hostname": "n2"}])
    return body


def test_an_analyst_creates_reads_and_updates_a_contract(analyst_a, vendor_a, api_as):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    r = api.post(URL, _body(vendor_a), format="json")
    assert r.status_code == 201, r.content
    pk = r.json()["id"]
    got = api.get(f"{URL}{pk}/").json()
    assert got["vendor_name"] == str(vendor_a) and [s["hostname"] for s in got["servers"]] == [
        "n1", "n2"]  # fmt: skip
    assert "kit_token" not in got
    r = api.patch(f"{URL}{pk}/", {"title": "renamed", "servers": [{"hostname": "n3"}]},
                  format="json")  # fmt: skip
    assert r.status_code == 200, r.content
    c = Contract.objects.get(pk=pk)
    assert c.title == "renamed" and list(c.servers.values_list("hostname", flat=True)) == ["n3"]


@pytest.mark.parametrize(("lang", "needle"), [("en", "overlap"), ("zh-hans", "重叠")])
def test_overlapping_bands_get_a_400_in_the_callers_language(
    analyst_a, vendor_a, api_as, lang, needle
):  # type: ignore[no-untyped-def]
    bad = {**SCHEDULE, "availability_bands": [{"below_pct": 99, "credit_pct": 10},
                                              {"below_pct": 99, "credit_pct": 20}]}  # fmt: skip
    r = api_as(analyst_a).post(URL, _body(vendor_a, schedule=bad), format="json",
                               HTTP_ACCEPT_LANGUAGE=lang)  # fmt: skip
    assert r.status_code == 400
    assert needle in " ".join(r.json()["schedule"])
    assert not Contract.objects.exists()


def test_a_negative_cap_gets_a_400_and_nothing_is_written(analyst_a, vendor_a, api_as):  # type: ignore[no-untyped-def]
    r = api_as(analyst_a).post(URL, _body(vendor_a, schedule={**SCHEDULE, "cap_pct": -1}),
                               format="json")  # fmt: skip
    assert r.status_code == 400 and "schedule" in r.json()
    assert not Contract.objects.exists()


def test_another_teams_contract_is_404_and_its_vendor_cannot_be_named(
    contract_a, analyst_b, team_b, api_as
):  # type: ignore[no-untyped-def]
    api = api_as(analyst_b)
    for path in ("", "uploads/", "incidents/", "breaches/", "credits/"):
        assert api.get(f"{URL}{contract_a.pk}/{path}").status_code == 404
    assert api.post(f"{URL}{contract_a.pk}/evaluate/").status_code == 404
    assert api.patch(f"{URL}{contract_a.pk}/", {"title": "x"}, format="json").status_code == 404
    assert api.get(URL).json()["count"] == 0
    r = api.post(URL, _body(contract_a.vendor), format="json")
    assert r.status_code == 400 and "vendor" in r.json()


def test_a_viewer_reads_but_cannot_write(contract_a, viewer_a, api_as):  # type: ignore[no-untyped-def]
    api = api_as(viewer_a)
    assert api.get(f"{URL}{contract_a.pk}/").status_code == 200
    assert api.patch(f"{URL}{contract_a.pk}/", {"title": "x"}, format="json").status_code == 403
    assert api.post(f"{URL}{contract_a.pk}/evaluate/").status_code == 403
    assert api.post(f"{URL}{contract_a.pk}/incidents/", {}, format="json").status_code == 403
    assert api.delete(f"{URL}{contract_a.pk}/").status_code == 403


def test_the_list_costs_the_same_queries_for_three_or_thirty_contracts(team_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    def make(n: int) -> None:
        for i in range(n):
            vendor = make_vendor(team_a, f"V{Contract.objects.count()}-{i}")
            c = contract_create(team=team_a, user=analyst_a, vendor=vendor,
                                data=contract_data(title=f"C{i}"))  # fmt: skip
            contract_servers_set(contract=c, servers=[{"hostname": f"h{i}-{k}"} for k in range(3)])

    api = api_as(analyst_a)
    make(3)
    with CaptureQueriesContext(connection) as few:
        assert api.get(URL).status_code == 200
    make(27)
    with CaptureQueriesContext(connection) as many:
        r = api.get(URL)
    assert r.json()["count"] == 30
    assert len(many) == len(few) <= 8, [q["sql"][:80] for q in many.captured_queries]


def test_an_incident_is_recorded_and_an_unknown_host_refused(contract_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    url = f"{URL}{contract_a.pk}/incidents/"
    r = api.post(url, {"started_at": "2026-11-05T10:00:00+08:00", "hosts": ["gpu-77"]},
                 format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert r.status_code == 400 and "gpu-77" in str(r.json())
    r = api.post(url, {"started_at": "2026-11-05T10:00:00+08:00",
                       "ended_at": "2026-11-05T13:00:00+08:00", "hosts": ["gpu-01"],
                       "vendor_ticket": "INC-7"}, format="json")  # fmt: skip
    assert r.status_code == 201, r.content
    assert [i["vendor_ticket"] for i in api.get(url).json()] == ["INC-7"]


def test_breaches_and_credits_are_empty_before_any_evaluation(contract_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    assert api.get(f"{URL}{contract_a.pk}/breaches/").json() == {"evaluation": None,
                                                                 "episodes": []}  # fmt: skip
    assert api.get(f"{URL}{contract_a.pk}/credits/").json() == {"evaluation": None, "credits": []}


def test_maintenance_windows_are_added_and_a_reversed_one_refused(contract_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    url = f"{URL}{contract_a.pk}/maintenance/"
    two, one, four = (f"2026-11-10T0{h}:00:00+08:00" for h in (2, 1, 4))
    r = api.post(url, {"starts_at": two, "ends_at": one}, format="json",
                 HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert r.status_code == 400 and "维护窗口" in str(r.json())
    r = api.post(url, {"starts_at": two, "ends_at": four, "note": "firmware"}, format="json")
    assert r.status_code == 201, r.content
    assert [m["note"] for m in api.get(url).json()] == ["firmware"]


def test_a_prometheus_source_is_set_read_and_pulled_by_a_job(
    contract_a, analyst_a, viewer_a, analyst_b, api_as
):  # type: ignore[no-untyped-def]
    url = f"{URL}{contract_a.pk}/prometheus/"
    body = {"url": "http://127.0.0.1:9090", "queries": {"tx": "node_network_transmit_bytes_total"},
            "step_s": 60, "enabled": True}  # fmt: skip
    api = api_as(analyst_a)
    assert api.get(url).status_code == 404
    assert api_as(viewer_a).put(url, body, format="json").status_code == 403
    assert api_as(analyst_b).put(url, body, format="json").status_code == 404
    assert api.put(url, {**body, "queries": {}}, format="json").status_code == 400
    r = api.put(url, body, format="json")
    assert r.status_code == 200 and r.json()["queries"] == body["queries"]
    assert api.get(url).json()["url"] == body["url"]
    r = api.post(f"{url}pull/")
    assert r.status_code == 202 and r.json()["status"] == "pending"
