"""Logs without a clock are unplaced unless the run is declared simultaneous (issue 35 item 2):
real ConnectX-3 QDR perftest logs uploaded through the upload page into a new run for a quote,
then the run declared simultaneous over the API."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from benchmarks.models import TestRun
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor

pytestmark = pytest.mark.django_db
CORPUS = Path(__file__).resolve().parents[1] / "domain" / "data" / "corpus"
PERFTEST = [
    CORPUS / "ib_write_bw/cx3_ib_a_MBsec.txt",
    CORPUS / "ib_send_bw/cx3_ib_a_MBsec.txt",
    CORPUS / "ib_read_bw/cx3_ib_a_cpufreq_warning.txt",
]
UNPLACED = {
    "en": "3 log(s) carry no clock (perftest/nccl-tests/iperf3 text): unplaced — counted link by "
    "link, not as a simultaneous test; declare the run simultaneous or upload logs with "
    "timestamps to show the fabric under full load.",
    "zh-hans": "3 份日志没有时钟（perftest/nccl-tests/iperf3 文本）：无法确定时间——逐条链路计算，"
    "不视为同时测试；请声明本次测试同时开始，或上传带时间戳的日志，以展示满载下的网络。",
}
DECLARED = {
    "en": "3 links tested together (as the uploader declared",
    "zh-hans": "3 条链路同时测试（依据上传者声明本次测试同时开始",
}


@pytest.fixture
def quote(team_a, analyst_a) -> Quote:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "QDR vendor", fabric="ib", gbps=40)
    return make_quote(
        team_a, analyst_a, vendor, gpu=GpuModel.objects.get(key="H100-SXM"), nodes=4,
        nic_gbps=40.0, nics_per_node=3, fabric="ib", price_per_node_month=Decimal("9000"),
    )  # fmt: skip


def _pages(client, run: TestRun, quote: Quote, lang: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    client.cookies["django_language"] = lang
    run_page = client.get(reverse("benchmarks:run", args=[run.pk])).content.decode()
    quote_page = client.get(reverse("quotes:detail", args=[quote.pk])).content.decode()
    return run_page, quote_page


def test_untimed_logs_are_unplaced_until_the_run_is_declared_simultaneous(  # type: ignore[no-untyped-def]
    team_a, analyst_a, client_as, api_as, quote, django_capture_on_commit_callbacks
):
    client = client_as(analyst_a)
    files = [SimpleUploadedFile(p.name, p.read_bytes()) for p in PERFTEST]
    with django_capture_on_commit_callbacks(execute=True):
        resp = client.post(
            reverse("benchmarks:upload"),
            {"files": files, "vendor": quote.vendor_id, "name": "QDR pairs", "quote": quote.pk},
        )
    assert resp.status_code == 302, resp.content.decode()[:2000]
    run = TestRun.objects.get(name="QDR pairs")
    assert run.started_together == ""
    quote.refresh_from_db()
    derivation = quote.measured_derivation
    assert derivation["unplaced"] == 3 and derivation["tested_together"] is False
    assert run.pairs == 3 and run.aggregate_gbps is None and run.jain_index is None
    assert "evidence.unplaced" in [n["code"] for n in run.run_notes]
    for lang, text in UNPLACED.items():
        run_page, quote_page = _pages(client, run, quote, lang)
        assert text in quote_page and run_page.count(text) == 2  # run notes and the sentence
        assert DECLARED[lang] not in run_page + quote_page

    api = api_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        patched = api.patch(
            f"/api/v1/test-runs/{run.pk}/", {"started_together": "yes"}, format="json"
        )
    assert patched.status_code == 200 and patched.json()["started_together"] == "yes"
    run.refresh_from_db()
    quote.refresh_from_db()
    assert run.pairs == 3 and run.aggregate_gbps == pytest.approx(92.2, abs=0.1)
    derivation = quote.measured_derivation
    assert derivation["tested_together"] and derivation["together_declared"]
    assert derivation["unplaced"] == 0
    for lang, text in DECLARED.items():
        run_page, quote_page = _pages(client, run, quote, lang)
        assert text in run_page and text in quote_page
        assert UNPLACED[lang] not in run_page + quote_page
        assert 'data-together="yes"' in run_page

    # The run page's own form takes the declaration back.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("benchmarks:run_together", args=[run.pk]), {"started_together": "no"})
    quote.refresh_from_db()
    assert quote.measured_derivation["unplaced"] == 3


def test_a_declaration_outside_the_three_choices_is_refused(api_as, analyst_a, quote):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    resp = api.post(
        "/api/v1/test-runs/",
        {"name": "x", "vendor": quote.vendor_id, "started_together": "maybe"},
        format="json",
    )
    assert resp.status_code == 400 and "started_together" in resp.json()
