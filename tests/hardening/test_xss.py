"""Script in every free-text field shown on a page, in a chart, or in an export, never runs.

Rows are written through the ORM (as an import, the admin or a careless migration could), so
form validation does not hide a missing escape. Every page that shows them is fetched and must
not contain a payload unescaped; Plotly figures embed their JSON with `<` escaped; `javascript:`
never becomes a link; CSV/XLSX cells that a spreadsheet would run as a formula are neutralised.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from benchmarks.models import BenchmarkLog
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as make_test_run
from quotes.models import QuoteVersion
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.services import ranking_start
from tests.reports.downloads import download
from vendors.models import Certification, DataCentre, IcpFiling, Licence, SlaTerms, Vendor

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
JS_URL = "javascript:alert(1)"
FORMULA = '=HYPERLINK("http://evil","x")'
CORPUS = Path(__file__).resolve().parent.parent / "domain" / "data" / "corpus"

RAW = ("<script>alert(1)", "<img src=x onerror", "onerror=alert(1)>")


def _hostile(tag: str) -> str:
    return f"{tag} {SCRIPT} {IMG}"


def assert_escaped(body: str, where: str) -> None:
    for raw in RAW:
        assert raw not in body, f"{where}: unescaped {raw!r}"
    links = re.findall(r"""(?:href|src|action|formaction)\s*=\s*["']?\s*javascript:""", body, re.I)
    assert not links, f"{where}: a javascript: URL became a link"


@pytest.fixture
def hostile(team_a, analyst_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """One of everything, each text field carrying the payloads."""
    v1 = make_vendor(team_a, "v1", fabric="tcp", gbps=10, pfc=None, ecn=None)
    v2 = make_vendor(team_a, "v2")
    for v in (v1, v2):
        Vendor.objects.filter(pk=v.pk).update(
            name_zh=_hostile("厂商"), name_en=_hostile(f"Vendor {v.pk}"), short_name=SCRIPT,
            notes=_hostile("notes"), website=JS_URL,
        )  # fmt: skip
        DataCentre.objects.filter(vendor=v).update(
            name=_hostile("DC"), city=IMG, verification_note=_hostile("dc note")
        )
    Licence.objects.create(
        vendor=v1, number=SCRIPT, issuing_authority=IMG, verification_note=_hostile("evidence")
    )
    IcpFiling.objects.create(vendor=v1, number=IMG, website=JS_URL)
    Certification.objects.create(vendor=v1, kind="iso27001", name=SCRIPT, issuer=IMG, number=IMG)
    SlaTerms.objects.create(vendor=v1, credits=_hostile("credits"))
    q1 = make_quote(team_a, analyst_a, v1, label=_hostile("quote one"))
    q2 = make_quote(team_a, analyst_a, v2, label=FORMULA)
    QuoteVersion.objects.filter(quote__in=[q1, q2]).update(notes=_hostile("quote notes"))
    workload = make_workload(team_a, name=_hostile("workload"), notes=_hostile("wl notes"))
    run = make_test_run(
        team=team_a, user=analyst_a, vendor=v1, data_centre=v1.data_centres.first(),
        name=_hostile("run"),
    )  # fmt: skip
    type(run).objects.filter(pk=run.pk).update(notes=_hostile("run notes"))
    log_path = CORPUS / "iperf3-json" / "local_3.12_tcp_P4.json"
    with django_capture_on_commit_callbacks(execute=True):
        benchmark_ingest(
            team=team_a, user=analyst_a, test_run=run,
            upload=SimpleUploadedFile(IMG + ".json", log_path.read_bytes()),
        )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        ranking = ranking_start(
            team=team_a, user=analyst_a, workload=workload, label=_hostile("ranking")
        )
    ranking.refresh_from_db()
    assert ranking.results.exists(), ranking.problems
    return {
        "vendor": v1, "quotes": [q1, q2], "workload": workload, "run": run, "ranking": ranking,
        "log": BenchmarkLog.objects.get(test_run=run),
    }  # fmt: skip


def _pages(h) -> list[str]:  # type: ignore[no-untyped-def]
    v, (q1, q2) = h["vendor"], h["quotes"]
    return [
        reverse("dashboard"),
        reverse("vendors:list"),
        reverse("vendors:detail", args=[v.pk]),
        reverse("vendors:edit", args=[v.pk]),
        reverse("quotes:list"),
        reverse("quotes:detail", args=[q1.pk]),
        reverse("quotes:edit", args=[q1.pk]),
        reverse("quotes:compare") + f"?q={q1.pk}&q={q2.pk}",
        reverse("quotes:workloads"),
        reverse("benchmarks:list"),
        reverse("benchmarks:upload"),
        reverse("benchmarks:run", args=[h["run"].pk]),
        reverse("benchmarks:log", args=[h["log"].pk]),
        reverse("rankings:list"),
        reverse("rankings:start"),
        reverse("rankings:detail", args=[h["ranking"].pk]),
        reverse("rankings:status", args=[h["ranking"].pk]),
    ]


def test_no_page_of_the_portal_shows_a_payload_unescaped(hostile, client_as, analyst_a):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    for url in _pages(hostile):
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        assert_escaped(body, url)
    detail = client.get(reverse("vendors:detail", args=[hostile["vendor"].pk])).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in detail  # shown, as text


def test_the_ranking_charts_embed_their_json_escaped(hostile, client_as, analyst_a):  # type: ignore[no-untyped-def]
    body = (
        client_as(analyst_a)
        .get(reverse("rankings:detail", args=[hostile["ranking"].pk]))
        .content.decode()
    )
    # the figures are JSON data blocks drawn by ranking.js, never inline script
    blocks = re.findall(r'<script id="figure-[^"]*" type="application/json">(.*?)</script>', body,
                        re.S)  # fmt: skip
    assert blocks, "the ranking page has no chart"
    assert "Plotly.newPlot" not in body
    for block in blocks:
        assert "<" not in block, "a chart's JSON holds a raw '<'"
    assert any("\\u003Cscript\\u003E" in b or "\\u003Cimg" in b for b in blocks)


def test_the_benchmark_charts_embed_their_json_escaped(hostile, client_as, analyst_a):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    for url in (
        reverse("benchmarks:run", args=[hostile["run"].pk]),
        reverse("benchmarks:log", args=[hostile["log"].pk]),
    ):
        body = client.get(url).content.decode()
        assert "Plotly.newPlot" not in body, url  # figures are data blocks (core/figures.py)
        blocks = re.findall(r'<script id="figure-[^"]*" type="application/json">(.*?)</script>',
                            body, re.S)  # fmt: skip
        for block in blocks:
            assert "<" not in block, url


def test_the_api_returns_the_text_as_data_not_markup(hostile, api_as, analyst_a):  # type: ignore[no-untyped-def]
    response = api_as(analyst_a).get(f"/api/v1/vendors/{hostile['vendor'].pk}/")
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["notes"] == _hostile("notes")


# ------------------------------------------------------------------------ exports (reports app)


def _neutral(cell: str) -> bool:
    return not cell or cell[0] not in "=+-@\t\r" or cell.lstrip("-").replace(".", "").isdigit()


def test_the_ranking_csv_neutralises_formula_cells(hostile, api_as, analyst_a):  # type: ignore[no-untyped-def]
    import csv

    response = download(api_as(analyst_a), f"/api/v1/rankings/{hostile['ranking'].pk}/report.csv")
    assert response.status_code == 200
    text = b"".join(response.streaming_content if response.streaming else [response.content])
    rows = list(csv.reader(io.StringIO(text.decode("utf-8-sig"))))
    cells = [c for row in rows for c in row]
    assert any("HYPERLINK" in c for c in cells), "the quote label is not in the export"
    bad = [c for c in cells if not _neutral(c)]
    assert not bad, f"CSV cells a spreadsheet would run as formulas: {bad[:3]}"


def test_the_ranking_xlsx_holds_text_not_formulas(hostile, api_as, analyst_a):  # type: ignore[no-untyped-def]
    from openpyxl import load_workbook

    response = download(api_as(analyst_a), f"/api/v1/rankings/{hostile['ranking'].pk}/report.xlsx")
    assert response.status_code == 200
    raw = b"".join(response.streaming_content if response.streaming else [response.content])
    wb = load_workbook(io.BytesIO(raw))
    formulas = [
        c.value
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if c.data_type == "f" and "HYPERLINK" in str(c.value)
    ]
    assert not formulas, f"a quote label became a live formula: {formulas[:1]}"


# ------------------------------------------------------------------------ sourcing and serving


def test_rfq_and_serving_pages_escape_their_free_text(hostile, team_a, analyst_a, client_as):  # type: ignore[no-untyped-def]
    from datetime import timedelta

    from django.utils import timezone

    from serving.models import ServingWorkload
    from sourcing.models import Rfq

    rfq = Rfq.objects.create(
        team=team_a, title=_hostile("rfq"), workload=hostile["workload"], nodes=8,
        min_internode_gbps=100,
        deadline=timezone.now() + timedelta(days=7), notes=_hostile("rfq notes"),
        created_by=analyst_a,
    )  # fmt: skip
    sw = ServingWorkload.objects.create(
        team=team_a, name=_hostile("serving"), params_b=7, mean_rps=1, peak_rps=2, tokens_in=100,
        tokens_out=100, response_kb=1, notes=_hostile("sw notes"),
    )  # fmt: skip
    client = client_as(analyst_a)
    for url in (
        reverse("sourcing:list"),
        reverse("sourcing:detail", args=[rfq.pk]),
        reverse("serving:home"),
        reverse("serving:workload", args=[sw.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert_escaped(response.content.decode(), url)
