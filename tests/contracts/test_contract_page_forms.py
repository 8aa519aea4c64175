"""The contract page's forms for what was API-only — the Prometheus source and the agreed
maintenance windows — in both languages, bad input included (a 400 with the reason, never a
500, nothing stored); datetime boxes that keep seconds; the page read from stored results with
a pinned number of queries, and a change shown on the next visit (versioned keys)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from contracts.forms import IncidentForm, MaintenanceWindowForm
from contracts.models import Incident, MaintenanceWindow, PrometheusSource
from contracts.services import contract_create, incident_create
from vendors.models import SlaTerms

from .conftest import SCHEDULE, contract_data

pytestmark = pytest.mark.django_db


def _post(client, url, data, lang):  # type: ignore[no-untyped-def]
    return client.post(url, data, HTTP_ACCEPT_LANGUAGE=lang)


GOOD_PROM = {"prom-url": "https://prometheus.example.internal:9090",
             "prom-queries_text": "bytes_rx: node_network_receive_bytes_total\n"
                                  "up: up{job=\"node\"}",
             "prom-step_s": "60", "prom-enabled": "on"}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_the_prometheus_form_saves_the_source_and_the_page_shows_it(  # type: ignore[no-untyped-def]
    contract_a, analyst_a, client_as, lang
):
    client = client_as(analyst_a)
    r = _post(client, f"/contracts/{contract_a.pk}/prometheus/", GOOD_PROM, lang)
    assert r.status_code == 302, r.content.decode()[:500]
    source = PrometheusSource.objects.get(contract=contract_a)
    assert source.url == GOOD_PROM["prom-url"] and source.queries == {
        "bytes_rx": "node_network_receive_bytes_total",
        "up": 'up{job="node"}',
    }
    page = client.get(f"/contracts/{contract_a.pk}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert 'class="prometheus-source"' in page and "prometheus.example.internal" in page


@pytest.mark.parametrize(("lang", "field", "value", "said"), [
    ("en", "prom-url", "ftp://prometheus.example:9090", "must start with http:// or https://"),
    ("zh-hans", "prom-url", "prometheus:9090", "http:// 或 https://"),
    ("en", "prom-queries_text", "   \n", "This field is required"),
    ("en", "prom-queries_text", "bytes_rx node_network_receive_bytes_total", "Lines 1 are not"),
    ("zh-hans", "prom-queries_text", "bytes_rx:", "第 1 行"),
    ("en", "prom-step_s", "0", "greater than or equal to 1"),
])  # fmt: skip
def test_bad_prometheus_input_is_refused_with_the_reason_and_stores_nothing(  # type: ignore[no-untyped-def]
    contract_a, analyst_a, client_as, lang, field, value, said
):
    r = _post(client_as(analyst_a), f"/contracts/{contract_a.pk}/prometheus/",
              {**GOOD_PROM, field: value}, lang)  # fmt: skip
    assert r.status_code == 400
    assert said in r.content.decode()
    assert not PrometheusSource.objects.exists()


def _mw(start: str, end: str, note: str = "") -> dict[str, str]:
    return {"mw-starts_at": start, "mw-ends_at": end, "mw-note": note}


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_a_maintenance_window_is_added_shown_and_deleted(contract_a, analyst_a, client_as, lang):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    r = _post(client, f"/contracts/{contract_a.pk}/maintenance/",
              _mw("2026-11-10T02:00:30", "2026-11-10T04:00", "firmware"), lang)  # fmt: skip
    assert r.status_code == 302, r.content.decode()[:800]
    row = MaintenanceWindow.objects.get(contract=contract_a)
    assert timezone.localtime(row.starts_at).second == 30 and row.note == "firmware"
    page = client.get(f"/contracts/{contract_a.pk}/").content.decode()
    assert 'class="maintenance-window"' in page and "firmware" in page
    delete = f"/contracts/{contract_a.pk}/maintenance/{row.pk}/delete/"
    assert delete in page
    assert client.post(delete).status_code == 302
    assert not MaintenanceWindow.objects.exists()
    assert client.post(delete).status_code == 404  # gone: not a 500


@pytest.mark.parametrize(("lang", "start", "end", "said"), [
    ("en", "2026-11-10T04:00", "2026-11-10T02:00", "must end after it starts"),
    ("zh-hans", "2026-11-10T04:00", "2026-11-10T04:00", "结束时间"),
    ("en", "2026-10-30T02:00", "2026-10-30T04:00", "inside the term (2026-11-01 00:00"),
    ("zh-hans", "2027-10-31T22:00", "2027-11-01T02:00", "合同期内"),
    ("en", "not a time", "2026-11-10T04:00", "Enter a valid date/time"),
    ("zh-hans", "", "", "该字段是必填项"),
])  # fmt: skip
def test_bad_maintenance_windows_are_refused_in_the_readers_language(  # type: ignore[no-untyped-def]
    contract_a, analyst_a, client_as, lang, start, end, said
):
    r = _post(client_as(analyst_a), f"/contracts/{contract_a.pk}/maintenance/", _mw(start, end),
              lang)  # fmt: skip
    assert r.status_code == 400
    assert said in r.content.decode()
    assert not MaintenanceWindow.objects.exists()


def test_the_api_refuses_a_window_outside_the_term_with_400(contract_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    r = api_as(analyst_a).post(f"/api/v1/contracts/{contract_a.pk}/maintenance/",
                               {"starts_at": "2028-01-01T00:00:00+08:00",
                                "ends_at": "2028-01-01T02:00:00+08:00"}, format="json")  # fmt: skip
    assert r.status_code == 400 and "term" in str(r.json())


def test_other_teams_and_viewers_cannot_use_the_forms(contract_a, analyst_b, viewer_a, client_as):  # type: ignore[no-untyped-def]
    for user, codes in ((analyst_b, {404}), (viewer_a, {403, 404})):
        client = client_as(user)
        assert (
            client.post(f"/contracts/{contract_a.pk}/prometheus/", GOOD_PROM).status_code in codes
        )
        r = client.post(f"/contracts/{contract_a.pk}/maintenance/",
                        _mw("2026-11-10T02:00", "2026-11-10T04:00"))  # fmt: skip
        assert r.status_code in codes
    assert not PrometheusSource.objects.exists() and not MaintenanceWindow.objects.exists()


def test_datetime_boxes_keep_seconds_so_an_unchanged_form_changes_nothing(contract_a):  # type: ignore[no-untyped-def]
    started = datetime(2026, 11, 3, 2, 15, 30, tzinfo=UTC)
    incident = incident_create(contract=contract_a, data={
        "started_at": started, "ended_at": started + timedelta(seconds=4501),
        "opened_at": started + timedelta(seconds=7), "vendor_ticket": "INC-7"})  # fmt: skip
    form = IncidentForm(instance=incident)
    html = str(form["started_at"])
    assert 'step="1"' in html and 'value="2026-11-03T10:15:30"' in html  # Shanghai time
    submitted = {name: form[name].value() for name in form.fields}
    submitted = {k: ("" if v is None else v) for k, v in submitted.items()}
    for name in ("started_at", "ended_at", "opened_at", "responded_at", "repaired_at"):
        value = form[name].value()
        submitted[name] = "" if value is None else form.fields[name].widget.format_value(value)
    again = IncidentForm(submitted, instance=Incident.objects.get(pk=incident.pk))
    assert again.is_valid(), again.errors
    assert not again.has_changed(), again.changed_data
    assert again.cleaned_data["ended_at"] == incident.ended_at
    mw = MaintenanceWindowForm()
    assert 'step="1"' in str(mw["starts_at"])


def test_the_page_reads_stored_results_with_a_fixed_number_of_queries(  # type: ignore[no-untyped-def]
    evaluated,
    contract_a,
    analyst_a,
    client_as,
    django_assert_num_queries,
    django_assert_max_num_queries,
):
    client = client_as(analyst_a)
    url = f"/contracts/{contract_a.pk}/"
    client.get(url)  # fills the kept page
    for i in range(6):  # more rows never mean more queries
        incident_create(
            contract=contract_a,
            data={
                "started_at": datetime(2026, 11, 5 + i, tzinfo=UTC),
                "ended_at": datetime(2026, 11, 5 + i, 1, tzinfo=UTC),
                "vendor_ticket": f"T-{i}",
            },
        )
    # session, user, membership, the page's state; then, the state being new, the page's own 6
    # reads, the incidents re-read for their table's new key, what the evaluation saw against
    # what there is now (one query: "evaluate again") and the state read again
    with django_assert_max_num_queries(13):
        page = client.get(url).content.decode()
    assert "T-5" in page  # the new rows are a new key: shown at once, nothing invalidated
    with django_assert_num_queries(4) as kept:  # session, user, membership, the page's state
        assert "T-5" in client.get(url).content.decode()
    assert not any(
        "deliveryevaluation" in q["sql"] and '"report"' in q["sql"] for q in kept.captured_queries
    )  # a kept page never reads the report


def test_a_contract_from_a_quote_starts_from_the_vendors_structured_schedule(  # type: ignore[no-untyped-def]
    analyst_a, quote_a, client_as
):
    SlaTerms.objects.create(vendor=quote_a.vendor, credits="按月返还服务费", schedule=SCHEDULE)
    client = client_as(analyst_a)
    r = client.post(f"/contracts/from-quote/{quote_a.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 302
    contract = quote_a.contracts.get()
    assert contract.schedule["bandwidth"]["threshold_fraction"] == 0.8
    assert contract.schedule["cap_pct"] == 30.0
    form_page = client.get(r["Location"]).content.decode()
    assert "vendor&#x27;s SLA compensation schedule" in form_page or "SLA compensation" in form_page


def test_without_a_vendor_schedule_the_contract_starts_without_one(team_a, analyst_a, vendor_a):  # type: ignore[no-untyped-def]
    c = contract_create(team=team_a, user=analyst_a, vendor=vendor_a,
                        data=contract_data(schedule={}))  # fmt: skip
    assert c.schedule == {}


def _terms_card(page: str) -> str:
    return page.split('id="terms"', 1)[1].split('id="delivery"', 1)[0]


def test_a_renamed_quote_rfq_or_vendor_shows_on_the_terms_card_at_once(  # type: ignore[no-untyped-def]
    team_a, analyst_a, quote_a, client_as
):
    from contracts.services import contract_create_from_award

    from .test_contract_services import _award

    award = _award(team_a, analyst_a, quote_a, state="approved", evidence={})
    contract = contract_create_from_award(team=team_a, user=analyst_a, award=award)
    client = client_as(analyst_a)
    url = f"/contracts/{contract.pk}/"
    card = _terms_card(client.get(url).content.decode())  # fills the kept card
    assert ">8×H800 RoCE</a>" in card and ">64×H800</a>" in card
    stamp = type(contract).objects.get(pk=contract.pk).updated_at
    type(quote_a).objects.filter(pk=quote_a.pk).update(label="Rack B offer")
    type(award.rfq).objects.filter(pk=award.rfq_id).update(title="Rack B tender")
    vendors = type(quote_a.vendor).objects
    vendors.filter(pk=quote_a.vendor_id).update(name_zh="机柜B公司", name_en="Rack B Co")
    assert type(contract).objects.get(pk=contract.pk).updated_at == stamp  # contract untouched
    card = _terms_card(client.get(url).content.decode())
    assert ">Rack B offer</a>" in card and ">Rack B tender</a>" in card and "Rack B Co" in card
    assert "8×H800 RoCE" not in card and "64×H800" not in card


def test_the_claim_pack_list_follows_its_jobs(evaluated, contract_a, analyst_a, client_as):  # type: ignore[no-untyped-def]
    from contracts.models import ClaimPack
    from core.models import JobStatus

    client = client_as(analyst_a)
    url = f"/contracts/{contract_a.pk}/"

    def packs() -> list[str]:
        page = client.get(url).content.decode()
        return re.findall(r'<p class="claim-pack">(.*?)</p>', page)

    assert packs() == []
    pack = ClaimPack.objects.create(contract=contract_a, evaluation=evaluated, language="en")
    shown = packs()
    assert len(shown) == 1 and f"#{pack.pk}" in shown[0] and "PDF" not in shown[0]
    pack.job_mark(status=JobStatus.RUNNING)
    assert "PDF" not in packs()[0] and packs()[0] != shown[0]
    pack.job_mark(status=JobStatus.FAILED, error="the PDF writer stopped")
    assert "the PDF writer stopped" in packs()[0]
    ClaimPack.objects.filter(pk=pack.pk).update(status=JobStatus.PENDING, heartbeat_at=None)
    assert "stopped" not in packs()[0]  # sent back to the queue: shown again as waiting
