"""The PDF report and the workbook print the quote's evidence sentence where they show measured
bandwidth, in the report's language, and the workbook's Evidence sheet says each log's trust
level, integrity, re-use and admission (issue 35).

Real logs (tests/domain/data/corpus): a ConnectX-7 NDR ib_send_bw session between two hosts
(admitted) and a superbench ib_write_bw of one HCA talking to itself (set aside: loopback), both
in one test run of a 400G IB quote; the NDR log uploaded again for another run of the vendor is
a copy the team already holds (re-used).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation
from openpyxl import load_workbook

from benchmarks.models import BenchmarkLog
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as run_create
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.services import ranking_start
from reports.selectors import report_data

pytestmark = pytest.mark.django_db
CORPUS = Path(__file__).resolve().parents[1] / "domain" / "data" / "corpus"
NDR_CX7 = CORPUS / "ib_send_bw" / "cx7_ndr_session_send_bw_lat_read_write.txt"
LOOPBACK = CORPUS / "ib_write_bw" / "superbench_ib_loopback_8M_size.log"
COPY = "cx7_ndr_copy.txt"


def _upload(team, user, run, path: Path, capture, *, name: str = "", tail: bytes = b"") -> None:  # type: ignore[no-untyped-def]
    with capture(execute=True):
        benchmark_ingest(
            team=team, user=user, test_run=run,
            upload=SimpleUploadedFile(name or path.name, path.read_bytes() + tail),
        )  # fmt: skip


@pytest.fixture
def evidence_run(team_a, analyst_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    capture = django_capture_on_commit_callbacks
    vendor = make_vendor(team_a, "Evidence Cloud", fabric="ib", gbps=400)
    quotes = [
        make_quote(
            team_a, analyst_a, vendor, label=label, gpu=GpuModel.objects.get(key="H800-SXM"),
            nodes=16, gpus_per_node=8, nic_gbps=400.0, nics_per_node=8, fabric="ib",
            price_per_node_month=Decimal("82000"), monthly_fees=Decimal("0"),
        )
        for label in ("claim only", "with evidence")
    ]  # fmt: skip
    run = run_create(team=team_a, user=analyst_a, vendor=vendor, quote=quotes[1], name="NDR")
    _upload(team_a, analyst_a, run, NDR_CX7, capture)
    _upload(team_a, analyst_a, run, LOOPBACK, capture)
    again = run_create(team=team_a, user=analyst_a, vendor=vendor, quote=None, name="copy")
    # A copy of the held log with one newline added: another file, the same body.
    _upload(team_a, analyst_a, again, NDR_CX7, capture, name=COPY, tail=b"\n")
    evidenced = Quote.objects.get(pk=quotes[1].pk)
    sentence = evidenced.measured_derivation["sentence"]
    with capture(execute=True):
        ranking = ranking_start(
            team=team_a, user=analyst_a, workload=make_workload(team_a, nodes=16), quotes=quotes
        )
    ranking.refresh_from_db()
    return ranking, sentence


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_pdf_prints_the_evidence_sentence_in_the_reports_language(evidence_run, monkeypatch):  # type: ignore[no-untyped-def]
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) is not installed")
    from reports.pdf import build_pdf

    run, sentence = evidence_run
    assert "Set aside" in sentence["en"] and "loopback or one host" in sentence["en"]
    monkeypatch.setenv("PORTAL_REPORT_CHARTS", "off")
    for lang, key, other in (("en", "en", "zh"), ("zh-hans", "zh", "en")):
        with translation.override(lang):
            pdf = build_pdf(report_data(run=run))
        text = subprocess.run(
            ["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True
        ).stdout.decode()
        # Read as one line (the table cell wraps it); Chinese wraps without spaces.
        flat = _flat(text) if key == "en" else "".join(text.split())
        wanted = _flat(sentence[key]) if key == "en" else "".join(sentence[key].split())
        assert wanted in flat, (lang, sentence[key])
        unwanted = _flat(sentence[other]) if other == "en" else "".join(sentence[other].split())
        assert unwanted not in flat


def test_the_workbook_prints_the_sentence_and_each_logs_checks(evidence_run):  # type: ignore[no-untyped-def]
    from reports.xlsx import build_xlsx

    run, sentence = evidence_run
    for lang, key in (("en", "en"), ("zh-hans", "zh")):
        with translation.override(lang):
            wb = load_workbook(io.BytesIO(build_xlsx(report_data(run=run))))
        ranking = wb.worksheets[0]
        header = [c.value for c in ranking[1]]
        column = header.index("Bandwidth evidence" if key == "en" else "带宽证据")
        cells = {row[2].value: row[column].value for row in ranking.iter_rows(min_row=2)}
        assert cells["with evidence"] == sentence[key]
        assert not cells["claim only"]
        inputs = [c.value for row in wb["Inputs" if key == "en" else "输入"].iter_rows()
                  for c in row if isinstance(c.value, str)]  # fmt: skip
        assert any(sentence[key] in v for v in inputs)
        sheet = wb["Evidence" if key == "en" else "证据"]
        header = [c.value for c in sheet[1]]
        names = (
            ("Trust level", "Integrity", "Re-use", "Admission") if key == "en"
            else ("可信级别", "完整性", "重复使用", "采用判定")
        )  # fmt: skip
        at = [header.index(n) for n in names]
        logs = [
            [row[2].value, row[1].value, *(row[i].value for i in at)]
            for row in sheet.iter_rows(min_row=2)
            if row[2].value in (NDR_CX7.name, LOOPBACK.name, COPY)
        ]
        assert len(logs) == 3, logs
        by_run = {(name, run_name): rest for name, run_name, *rest in logs}
        admitted = by_run[(NDR_CX7.name, "NDR")]
        aside = by_run[(LOOPBACK.name, "NDR")]
        copy = by_run[(COPY, "copy")]
        if key == "en":
            assert admitted[0] == "Supplied by the vendor"
            assert admitted[1] == "consistent: the tool's own arithmetic holds"
            assert admitted[2] == "no" and admitted[3] == "Counts towards the figure"
            assert aside[3] == (
                "Set aside: Local and remote ends have the same LID 0xd06: one HCA talking to "
                "itself."
            )
            assert copy[2].startswith("already held: the same body as log #")
        else:
            assert admitted[1] == "一致：工具自身的算术成立"
            assert admitted[2] == "否" and admitted[3] == "计入数值"
            assert aside[3] == "未采用：本端与远端的 LID 0xd06 相同：同一块网卡自己和自己通信。"
            assert copy[2].startswith("已被使用过")
    loopback = BenchmarkLog.objects.get(original_name=LOOPBACK.name)
    assert loopback.admission and not loopback.admission["admitted"]
