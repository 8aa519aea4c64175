"""The contract page and list kept rendered under the values they show (contracts.views):
a kept page runs one query of its own and is the same page as one rendered afresh, in both
languages; every change a page shows (through the services, or by the jobs' bulk updates that
leave no change stamp) shows at once; the forms of a kept page carry the reader's own CSRF token.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from contracts import views
from contracts.evaluation import evaluation_compute
from contracts.figures import MAX_CHART_POINTS
from contracts.models import Contract, DeliveryEvaluation, DeliveryUpload, PrometheusSource
from contracts.services import (
    contract_create,
    contract_kit_token_renew,
    contract_servers_set,
    contract_update,
    delivery_evaluate_start,
    delivery_upload_create,
    incident_create,
    incident_update,
    maintenance_window_create,
    maintenance_window_delete,
    prometheus_source_set,
)
from core.models import JobStatus

from .conftest import T0, contract_data, kit_windows

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def _page(client, url: str, lang: str = "en") -> str:  # type: ignore[no-untyped-def]
    client.cookies["django_language"] = lang
    answer = client.get(url)
    assert answer.status_code == 200
    return str(answer.content.decode())


def _same(page: str) -> str:
    """The page without what differs between two requests by design: the CSRF token (masked
    anew for each request) and the chart's element id (drawn once per stored report)."""
    return re.sub(r"figure-[0-9a-f]{32}", "FIG", TOKEN.sub("CSRF", page))


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_a_kept_page_is_the_page_rendered_afresh_in_both_languages(  # type: ignore[no-untyped-def]
    evaluated, contract_a, analyst_a, viewer_a, client_as, lang
):
    for user in (analyst_a, viewer_a):
        client = client_as(user)
        for url in (f"/contracts/{contract_a.pk}/", "/contracts/"):
            cache.clear()
            fresh = _page(client, url, lang)
            kept = _page(client, url, lang)
            assert _same(kept) == _same(fresh)
            assert contract_a.title in kept
    analyst_page = _page(client_as(analyst_a), f"/contracts/{contract_a.pk}/", lang)
    viewer_page = _page(client_as(viewer_a), f"/contracts/{contract_a.pk}/", lang)
    assert "upload-form" in analyst_page and "upload-form" not in viewer_page  # role is keyed
    other = "zh-hans" if lang == "en" else "en"
    assert _same(_page(client_as(analyst_a), "/contracts/", other)) != _same(
        _page(client_as(analyst_a), "/contracts/", lang)
    )  # language is keyed


def test_kept_pages_run_one_query_of_their_own(  # type: ignore[no-untyped-def]
    evaluated, contract_a, analyst_a, client_as, django_assert_num_queries
):
    client = client_as(analyst_a)
    for url in (f"/contracts/{contract_a.pk}/", "/contracts/", "/ping/page/"):
        _page(client, url)  # fills the kept page
    with django_assert_num_queries(3):  # session, user, membership: what every page reads
        _page(client, "/ping/page/")
    for url in (f"/contracts/{contract_a.pk}/", "/contracts/"):
        with django_assert_num_queries(4) as done:  # and the page's state
            _page(client, url)
        own = done.captured_queries[-1]["sql"]
        assert own.startswith("SELECT") and '"report"' not in own  # the report is never read


def test_every_change_the_page_shows_shows_at_once(  # type: ignore[no-untyped-def]
    evaluated, contract_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    client = client_as(analyst_a)
    url = f"/contracts/{contract_a.pk}/"

    def page() -> str:
        return _page(client, url)

    assert "Rack A 8×H800" in page()
    contract_update(contract=contract_a, data={"title": "Rack A, renamed"})
    assert "Rack A, renamed" in page()
    Contract.objects.filter(pk=contract_a.pk).update(committed_gbps=77.0)  # no change stamp
    assert "77" in page().split('id="terms"', 1)[1].split('id="delivery"', 1)[0]
    contract_kit_token_renew(contract=contract_a, days=3)  # a bulk update too
    expires = (datetime.now(UTC) + timedelta(days=3)).astimezone().date()
    assert any(f"{expires + timedelta(days=d):%Y-%m-%d}" in page() for d in (-1, 0, 1))
    contract_servers_set(contract=contract_a, servers=[{"hostname": "gpu-99"}])
    shown = page()
    assert "/kit/gpu-99.sh" in shown and "/kit/gpu-01.sh" not in shown

    upload = delivery_upload_create(
        contract=contract_a,
        user=analyst_a,
        kind="csv",
        upload=SimpleUploadedFile("rack-a-week-2.csv", b"time,host,gbps\n"),
    )  # fmt: skip  (the reader job is not run: the upload stays pending)
    assert "rack-a-week-2.csv" in page()
    DeliveryUpload.objects.filter(pk=upload.pk).update(status=JobStatus.RUNNING, progress=37)
    assert "(37 %)" in page()  # the reader's progress, written by a bulk update

    incident = incident_create(contract=contract_a, data={
        "started_at": datetime(2026, 11, 9, tzinfo=UTC),
        "ended_at": datetime(2026, 11, 9, 2, tzinfo=UTC), "vendor_ticket": "INC-NEW"})  # fmt: skip
    assert "INC-NEW" in page()
    incident_update(incident=incident, data={"vendor_ticket": "INC-EDITED"})
    shown = page()
    assert "INC-EDITED" in shown and "INC-NEW" not in shown

    window = maintenance_window_create(contract=contract_a, data={
        "starts_at": datetime(2026, 11, 20, 1, tzinfo=UTC),
        "ends_at": datetime(2026, 11, 20, 3, tzinfo=UTC), "note": "switch firmware"})  # fmt: skip
    assert "switch firmware" in page()
    maintenance_window_delete(contract=contract_a, pk=window.pk)
    assert "switch firmware" not in page()

    source = prometheus_source_set(
        contract=contract_a, url="http://127.0.0.1:9090",
        queries={"bytes_tx": "node_network_transmit_bytes_total"},
    )  # fmt: skip
    assert "http://127.0.0.1:9090" in page()
    PrometheusSource.objects.filter(pk=source.pk).update(error="connection refused")
    assert "connection refused" in page()

    before = page()
    assert "evaluation-pending" not in before
    running = delivery_evaluate_start(contract=contract_a, user=analyst_a)  # job not run yet
    assert "evaluation-pending" in page() and "(0 %)" in page()
    DeliveryEvaluation.objects.filter(pk=running.pk).update(status=JobStatus.RUNNING, progress=30)
    assert "(30 %)" in page()
    DeliveryEvaluation.objects.filter(pk=running.pk).delete()
    with django_capture_on_commit_callbacks(execute=True):  # a new evaluation, run to the end
        fresh = delivery_evaluate_start(contract=contract_a, user=analyst_a)
    fresh.refresh_from_db()
    assert fresh.status == JobStatus.DONE, fresh.error
    after = page()
    assert "evaluation-pending" not in after
    stamp = f"{fresh.computed_at.astimezone(evaluated.computed_at.tzinfo):%Y-%m-%d}"
    assert stamp in after and _same(after) != _same(before)


def test_the_list_shows_a_new_contract_evaluation_or_name_at_once(  # type: ignore[no-untyped-def]
    evaluated, team_a, contract_a, analyst_a, vendor_a, client_as
):
    client = client_as(analyst_a)

    def rows() -> str:
        return _page(client, "/contracts/").split('id="contract-list"', 1)[1]

    assert "Rack A 8×H800" in rows() and "Second rack" not in rows()
    second = contract_data(title="Second rack", starts_on=date(2026, 12, 1))
    contract_create(team=team_a, user=analyst_a, vendor=vendor_a, data=second)
    assert "Second rack" in rows()
    # the list names the vendor in the reader's language (English here)
    type(vendor_a).objects.filter(pk=vendor_a.pk).update(name_zh="更名机柜公司",
                                                         name_en="Renamed Rack Co")  # fmt: skip
    assert "Renamed Rack Co" in rows()
    ratio = rows().split("Rack A 8×H800", 1)[1]
    DeliveryEvaluation.objects.filter(pk=evaluated.pk).update(breach_count=42)  # a bulk update
    assert "<td>42</td>" in rows().split("Rack A 8×H800", 1)[1] and "<td>42</td>" not in ratio


def test_a_kept_pages_forms_carry_the_readers_own_token(  # type: ignore[no-untyped-def]
    contract_a, analyst_a, make_user, team_a
):
    other = make_user("alice-2", team_a)
    url = f"/contracts/{contract_a.pk}/"
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    first.force_login(analyst_a)
    second.force_login(other)
    first.get(url)  # keeps the page
    page = second.get(url).content.decode()
    tokens = set(TOKEN.findall(page))
    assert len(tokens) == 1 and not any(t.startswith("csrf-") for t in tokens)
    r = second.post(f"/contracts/{contract_a.pk}/maintenance/", {
        "csrfmiddlewaretoken": tokens.pop(), "mw-starts_at": "2026-11-10T02:00:00",
        "mw-ends_at": "2026-11-10T04:00:00", "mw-note": "with the kept page's token"})  # fmt: skip
    assert r.status_code == 302, r.content[:400]
    assert "with the kept page&#x27;s token" in second.get(url).content.decode()


def test_a_change_while_the_page_renders_is_not_kept_under_the_older_state(  # type: ignore[no-untyped-def]
    contract_a, analyst_a, client_as, monkeypatch
):
    """The state is read first, the page after it: a change in between is on the page but not
    in its key, so that page is not kept (it would be shown again, wrongly, once the state is
    back to what it was)."""
    client = client_as(analyst_a)
    url = f"/contracts/{contract_a.pk}/"
    render = views.page_body
    added: list[int] = []

    def change_then_render(*args, **kwargs):  # type: ignore[no-untyped-def]
        if not added:  # someone records an incident just after the state was read
            added.append(incident_create(contract=contract_a, data={
                "started_at": datetime(2026, 11, 12, tzinfo=UTC), "vendor_ticket": "LATE-1",
            }).pk)  # fmt: skip
        return render(*args, **kwargs)

    monkeypatch.setattr(views, "page_body", change_then_render)
    assert "LATE-1" in _page(client, url)
    contract_a.incidents.filter(pk=added[0]).delete()  # the state is the first one again
    assert "LATE-1" not in _page(client, url)


def test_the_evaluation_keeps_the_report_as_the_page_shows_it(contract_a, analyst_a, client_as):  # type: ignore[no-untyped-def]
    """The evaluate job writes ``page_report`` beside the report: the same report with its
    timeline already downsampled to the chart's points. The page drawn from it is the page
    drawn from the whole report (as for an evaluation stored before the column)."""
    kit_windows(contract_a, hours=1100, low={"gpu-02": (10, 3, 50.0)})  # 46 days, hourly
    row = DeliveryEvaluation.objects.create(contract=contract_a, requested_by=analyst_a)
    evaluation_compute(evaluation_id=row.pk, progress=lambda _p: None,
                       now=T0 + timedelta(days=60))  # fmt: skip
    row.refresh_from_db()
    full, shown = row.report, row.page_report
    assert len(full["timeline"]) > MAX_CHART_POINTS >= len(shown["timeline"]) > 0
    assert {k: v for k, v in full.items() if k != "timeline"} == {
        k: v for k, v in shown.items() if k != "timeline"
    }
    client = client_as(analyst_a)
    url = f"/contracts/{contract_a.pk}/"
    for lang in ("en", "zh-hans"):
        cache.clear()
        with CaptureQueriesContext(connection) as fresh:
            page = _same(_page(client, url, lang))
        read = " ".join(q["sql"] for q in fresh.captured_queries)
        assert '"page_report"' in read and '"contracts_deliveryevaluation"."report"' not in read
        assert 'id="summary"' in page and "chart-figure" in page and 'id="breaches"' in page
        DeliveryEvaluation.objects.filter(pk=row.pk).update(page_report={})
        cache.clear()
        assert _same(_page(client, url, lang)) == page
        DeliveryEvaluation.objects.filter(pk=row.pk).update(page_report=shown)
