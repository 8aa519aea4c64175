"""The PDF of an unchanged report is built once: the same HTML gives the same bytes."""

from __future__ import annotations

import pytest
import weasyprint
from django.utils import translation

from reports import pdf as report_pdf
from reports.selectors import report_data

pytestmark = pytest.mark.django_db


def test_the_same_report_is_built_once_and_another_language_is_built_anew(
    demo_run, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PORTAL_REPORT_CHARTS", "off")
    report_pdf.clear_pdf_cache()
    builds: list[int] = []
    real_html = weasyprint.HTML

    def counting_html(*args, **kwargs):  # type: ignore[no-untyped-def]
        builds.append(1)
        return real_html(*args, **kwargs)

    monkeypatch.setattr(weasyprint, "HTML", counting_html)

    def build(lang: str) -> bytes:
        with translation.override(lang):
            return report_pdf.build_pdf(report_data(run=demo_run))

    first = build("en")
    assert first.startswith(b"%PDF") and len(builds) == 1
    assert build("en") == first and len(builds) == 1  # answered from the cache
    chinese = build("zh-hans")
    assert chinese != first and len(builds) == 2

    monkeypatch.setattr(report_pdf, "CACHED_PDFS", 1)  # the cache keeps a bounded number
    report_pdf.clear_pdf_cache()
    build("en")
    build("zh-hans")
    assert len(report_pdf._pdf_cache) == 1 and len(builds) == 4
    assert build("en") == first and len(builds) == 5  # evicted, so built again
    report_pdf.clear_pdf_cache()
