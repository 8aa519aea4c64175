"""Acceptance envelopes per card beside the line-rate verdict: a real NDR log on an H100 offer is
within Azure's ND H100 v5 floor (380 Gbit/s per HCA), a real RoCE log (111.7 Gbit/s) below it;
both grades are shown on the run page (per log and for the run) and on the quote page, in both
languages, and an A100 offer (no published envelope) shows none. The ranking row's evidence line
and the workbook's bandwidth evidence carry the grade beside the figure."""

from __future__ import annotations

import io
import re
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation
from openpyxl import load_workbook

from benchmarks.models import BenchmarkLog, TestRun
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as run_create
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.models import RankingRun
from rankings.services import ranking_start
from reports.selectors import report_data
from reports.xlsx import build_xlsx

from .conftest import corpus

pytestmark = pytest.mark.django_db
NDR = "ib_send_bw/cx7_ndr_session_send_bw_lat_read_write.txt"
ROCE = "ib_write_bw/dgx_spark_roce_q4_gbits.txt"


def _quote(team, user, gpu: str) -> Quote:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team, f"NDR vendor {gpu}", fabric="ib", gbps=400)
    return make_quote(
        team, user, vendor, gpu=GpuModel.objects.get(key=gpu), nodes=4, label=f"{gpu} offer",
        nic_gbps=400.0, nics_per_node=8, fabric="ib", price_per_node_month=Decimal("90000"),
    )  # fmt: skip


def _run(team, user, quote, rels, capture) -> TestRun:  # type: ignore[no-untyped-def]
    run = run_create(team=team, user=user, vendor=quote.vendor, quote=quote, name="NDR evidence")
    for rel in rels:
        with capture(execute=True):
            raw = corpus(rel).read_bytes()
            benchmark_ingest(
                team=team, user=user, test_run=run, upload=SimpleUploadedFile(corpus(rel).name, raw)
            )
    return TestRun.objects.get(pk=run.pk)


def _cell(page: str, log: BenchmarkLog) -> str:
    found = re.search(rf'<td class="envelope-cell" data-log="{log.pk}">(.*?)</td>', page, re.S)
    assert found, f"no envelope cell for {log.original_name}"
    return found.group(1)


def test_the_grade_is_shown_beside_the_verdict_on_the_run_and_quote_pages(  # type: ignore[no-untyped-def]
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    quote = _quote(team_a, analyst_a, "H100-SXM")
    run = _run(team_a, analyst_a, quote, [NDR, ROCE], django_capture_on_commit_callbacks)
    ndr = BenchmarkLog.objects.get(test_run=run, original_name__startswith="cx7")
    roce = BenchmarkLog.objects.get(test_run=run, original_name__startswith="dgx")
    client = client_as(analyst_a)
    with django_assert_max_num_queries(40):
        page = client.get(f"/benchmarks/runs/{run.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-envelope="within"' in _cell(page, ndr)
    assert 'data-envelope="below"' in _cell(page, roce)
    run_card = re.search(r'<div class="card" id="run-envelope">(.*?)</div>', page, re.S)
    assert run_card and 'data-envelope="below"' in run_card.group(1)
    assert "Below the Azure ND H100 v5 health check envelope: dgx_spark_roce_q4_gbits.txt" in (
        run_card.group(1)
    )
    zh = client.get(f"/benchmarks/runs/{run.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "低于Azure ND H100 v5 健康检查的验收下限" in zh
    quote.refresh_from_db()
    stored = quote.measured_derivation["envelope"]
    assert stored["status"] == "below" and stored["envelope"] == "azure-nd-h100-v5"
    assert {g["name"]: g["status"] for g in stored["logs"]} == {
        ndr.original_name: "within",
        roce.original_name: "below",
    }
    qpage = client.get(f"/quotes/{quote.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    card = re.search(r'<span id="quote-envelope">(.*?)</span>\s*</span>', qpage, re.S)
    assert card and 'data-envelope="below"' in card.group(1)
    assert "at least 380" not in card.group(1)  # the offer's sentence, not one log's
    assert "Below the Azure ND H100 v5 health check envelope" in card.group(1)


def _ranked_beside_the_bandwidth(team, user, client, quote, capture) -> None:  # type: ignore[no-untyped-def]
    """The ranking row's evidence line and the workbook's bandwidth evidence carry the grade."""
    with capture(execute=True):
        run = ranking_start(
            team=team, user=user, workload=make_workload(team, nodes=4), quotes=[quote]
        )
    run = RankingRun.objects.get(pk=run.pk)
    assert run.status == "done", run.status
    row = run.results.get(quote_version__quote=quote)
    assert row.model_detail["evidence"]["envelope"]["status"] == "within"
    for lang, words in (
        ("en", "Within the Azure ND H100 v5 health check envelope: 1 graded log(s)."),
        ("zh-hans", "达到Azure ND H100 v5 健康检查的验收下限：1 个已评级日志。"),
    ):
        page = client.get(f"/rankings/{run.pk}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
        line = re.search(r'<tr class="evidence-row"[^>]*>(.*?)</tr>', page, re.S)
        assert line, lang
        graded = re.search(r'<span class="evidence-envelope">(.*)</span>', line.group(1), re.S)
        assert graded and 'data-envelope="within"' in graded.group(1), lang
        assert words in graded.group(1), lang
        with translation.override(lang):
            wb = load_workbook(io.BytesIO(build_xlsx(report_data(run=run))))
        sheet = wb.worksheets[0]
        header = [c.value for c in sheet[1]]
        column = header.index("Bandwidth evidence" if lang == "en" else "带宽证据")
        cells = [r[column].value for r in sheet.iter_rows(min_row=2)]
        assert len(cells) == 1 and cells[0].endswith(words), (lang, cells)


def test_the_ndr_log_alone_is_within_and_an_a100_offer_shows_no_envelope(  # type: ignore[no-untyped-def]
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    h100 = _quote(team_a, analyst_a, "H100-SXM")
    run = _run(team_a, analyst_a, h100, [NDR], capture)
    client = client_as(analyst_a)
    page = client.get(f"/benchmarks/runs/{run.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="run-envelope"' in page and "Within the Azure ND H100 v5 health check" in page
    h100.refresh_from_db()
    assert h100.measured_derivation["envelope"]["status"] == "within"
    _ranked_beside_the_bandwidth(team_a, analyst_a, client, h100, capture)
    a100 = _quote(team_a, analyst_a, "A100-SXM4-80GB")
    other = _run(team_a, analyst_a, a100, [ROCE], capture)
    page = client.get(f"/benchmarks/runs/{other.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="run-envelope"' not in page and "data-envelope=" not in page
    a100.refresh_from_db()
    assert "envelope" not in (a100.measured_derivation or {})
