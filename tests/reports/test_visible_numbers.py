"""No raw number reaches a reader: the demo's pages, PDF and workbook in both languages print
no float with more than four decimals and no ungrouped integer of five or more digits.

Visible text only: tags, attributes (ids in URLs), scripts and styles are left out.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from django.utils import translation
from openpyxl import load_workbook

from reports.selectors import report_data

pytestmark = pytest.mark.django_db

LONG_FLOAT = re.compile(r"\d\.\d{5,}")
# Five or more digits in a row that are a number on their own: not part of a code such as a
# credit code, a licence number "B1-20201234", an ICP filing "京ICP备2021012345号", a file name.
RAW_INT = re.compile(r"(?<![A-Za-z0-9_.,\-/#备])\d{5,}(?![A-Za-z0-9_\-号])")
# Names of standards are not amounts: "ISO/IEC 27001", "GB/T 22239", "GB 32100".
STANDARD = re.compile(r"\b(?:ISO(?:/IEC)?|GB(?:/T)?|TIA)[ -]\d+")
LANGUAGES = ("en", "zh-hans")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def visible(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.parts)


def offenders(text: str) -> list[str]:
    found = []
    text = STANDARD.sub("", text)
    for pattern in (LONG_FLOAT, RAW_INT):
        for m in pattern.finditer(text):
            found.append(text[max(0, m.start() - 30) : m.end() + 20].replace("\n", " "))
    return found


def test_the_scanner_catches_the_known_offenders() -> None:
    bad = "91.07100000000001 · 194.096467542016 · 2131036 CNY · 47000 · 57024 M · 租金52000元"
    assert len(offenders(bad)) == 6
    good = (
        "ISO/IEC 27001 · GB/T 22239 · 52,000.00 CNY · 91.07 · 99.9% · 570.24亿 · B1-20201234"
        " · 京ICP备2021012345号 · 2026-12-03"
    )
    assert offenders(good) == []


@pytest.fixture
def pages(demo_run, analyst_a, client_as):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    urls = ["/", "/rankings/", f"/rankings/{demo_run.pk}/", "/quotes/compare/"]
    out = {}
    for lang in LANGUAGES:
        for url in urls:
            response = client.get(url, HTTP_ACCEPT_LANGUAGE=lang)
            assert response.status_code == 200, url
            out[f"{lang} {url}"] = visible(response.content.decode())
    return out


def test_pages_print_formatted_numbers(pages, demo_run) -> None:  # type: ignore[no-untyped-def]
    bad = {name: offenders(text) for name, text in pages.items() if offenders(text)}
    assert bad == {}
    page = f"/rankings/{demo_run.pk}/"
    assert re.search(r"\d{1,3}(,\d{3})+\.\d{2} CNY", pages["en " + page]), "grouped money"
    assert re.search(r"\d{1,3}(,\d{3})+\.\d{2} 元", pages["zh-hans " + page])


def test_pdf_text_prints_formatted_numbers(demo_run, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) is not installed")
    from reports.pdf import build_pdf

    monkeypatch.setenv("PORTAL_REPORT_CHARTS", "off")  # the figures are checked on the page
    for lang in LANGUAGES:
        with translation.override(lang):
            pdf = build_pdf(report_data(run=demo_run))
        text = subprocess.run(
            ["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True
        ).stdout.decode()
        assert len(text) > 500, lang
        assert offenders(text) == [], lang


def test_workbook_numbers_are_numbers_with_formats(demo_run) -> None:  # type: ignore[no-untyped-def]
    from reports.xlsx import build_xlsx

    for lang in LANGUAGES:
        with translation.override(lang):
            wb = load_workbook(io.BytesIO(build_xlsx(report_data(run=demo_run))))
        unformatted, texts = [], []
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    if isinstance(cell.value, float) and cell.number_format == "General":
                        unformatted.append(f"{ws.title}!{cell.coordinate}={cell.value}")
                    elif isinstance(cell.value, str):
                        texts.append(cell.value)
        assert unformatted == [], lang
        assert offenders(" · ".join(texts)) == [], lang
        ranking = wb.worksheets[0]
        assert isinstance(ranking["E2"].value, int | float)  # rent per month stays a number
