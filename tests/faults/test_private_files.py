"""Uploaded and generated files are never served without a permission check.

Every URL whose view sends a file is discovered from the URL configuration (its view's source
returns a file response); each must have a case below, so a new download URL cannot slip in
untested. For each: the owning team gets the file (the URL really serves it), another team's
analyst and an anonymous visitor never see its bytes, and MEDIA_URL serves nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from core.models import JobStatus
from quotes.testing import make_workload

pytestmark = pytest.mark.django_db

SECRET = b"SECRET-OF-TEAM-B 7f3c"
FILE_MARKERS = ("FileResponse", "file_response", "as_attachment")


def _download_urls() -> Iterator[str]:
    """Names of URL patterns whose view returns a file."""

    def walk(resolver: URLResolver, namespace: str) -> Iterator[str]:
        for p in resolver.url_patterns:
            if isinstance(p, URLResolver):
                ns = f"{namespace}:{p.namespace}".strip(":") if p.namespace else namespace
                yield from walk(p, ns)
            elif isinstance(p, URLPattern) and p.name:
                view = getattr(p.callback, "view_class", None) or getattr(p.callback, "cls", None)
                try:
                    source = inspect.getsource(view or p.callback)
                except (OSError, TypeError):
                    continue
                if any(marker in source for marker in FILE_MARKERS):
                    yield f"{namespace}:{p.name}".strip(":")

    yield from walk(get_resolver(), "")


# ---------------------------------------------------------------------------------------------
# One case per download URL: build team B's file, return the URL that serves it.


def _benchmark_log(team, user) -> str:  # type: ignore[no-untyped-def]
    from benchmarks.models import BenchmarkLog, TestRun
    from vendors.models import Vendor

    vendor = Vendor.objects.create(team=team, name_zh="乙方厂商")
    run = TestRun.objects.create(team=team, created_by=user, vendor=vendor, name="B run")
    log = BenchmarkLog(
        team=team, test_run=run, original_name="b.json", size_bytes=len(SECRET),
        sha256="b" * 64, uploaded_by=user, uploaded_at=timezone.now(),
    )  # fmt: skip
    log.file.save("b.json", ContentFile(SECRET), save=True)
    return reverse("benchmarks:download", args=[log.pk])


def _vendor_evidence(team, user) -> str:  # type: ignore[no-untyped-def]
    from vendors.models import DataCentre, NetworkProfile, Vendor

    vendor = Vendor.objects.create(team=team, name_zh="乙方厂商")
    dc = DataCentre.objects.create(vendor=vendor, name="DC-B", province="GD")
    net = NetworkProfile.objects.create(data_centre=dc, fabric="roce")
    net.evidence.save("evidence.pdf", ContentFile(SECRET), save=True)
    return reverse("vendors:evidence", args=[vendor.pk, "network", net.pk])


def _report(team, user, kind: str = "pdf"):  # type: ignore[no-untyped-def]
    from rankings.models import RankingRun
    from reports.models import Report
    from reports.services import run_stamp

    run = RankingRun.objects.create(
        team=team, created_by=user, workload=make_workload(team), status=JobStatus.DONE,
        finished_at=timezone.now(),
    )  # fmt: skip
    # the file of the run's current results in the client's language: served at once
    report = Report.objects.create(
        team=team, run=run, kind=kind, language=settings.LANGUAGE_CODE, status=JobStatus.DONE,
        sha256="c" * 64, size_bytes=len(SECRET), created_by=user, stamp=run_stamp(run),
    )  # fmt: skip
    report.file.save(f"r.{kind}", ContentFile(SECRET), save=True)
    return report


def _report_download(team, user) -> str:  # type: ignore[no-untyped-def]
    return reverse("reports:download", args=[_report(team, user).pk])


def _run_report(kind: str) -> Callable[..., str]:
    def build(team, user) -> str:  # type: ignore[no-untyped-def]
        return reverse(f"ranking-report-{kind}", args=[_report(team, user, kind).run_id])

    return build


def _page_report(team, user) -> str:  # type: ignore[no-untyped-def]
    report = _report(team, user, "xlsx")
    return reverse("reports:ranking-file", args=[report.run_id, "xlsx"])


def _claim_pack(team, user) -> str:  # type: ignore[no-untyped-def]
    from contracts.models import ClaimPack, DeliveryEvaluation
    from contracts.services import contract_create_from_quote
    from quotes.testing import make_quote, make_vendor

    quote = make_quote(team, user, make_vendor(team, "乙方厂商"))
    contract = contract_create_from_quote(team=team, user=user, quote=quote,
                                          overrides={"committed_gbps": 10.0})  # fmt: skip
    evaluation = DeliveryEvaluation.objects.create(
        contract=contract, status=JobStatus.DONE, computed_at=timezone.now()
    )
    pack = ClaimPack.objects.create(contract=contract, evaluation=evaluation,
                                    status=JobStatus.DONE)  # fmt: skip
    pack.pdf.save("claim.pdf", ContentFile(SECRET), save=True)
    return reverse("contracts:claim-file", args=[contract.pk, pack.pk, "pdf"])


CASES: dict[str, Callable[..., str]] = {
    "contracts:claim-file": _claim_pack,
    "reports:ranking-file": _page_report,
    "benchmarks:download": _benchmark_log,
    "vendors:evidence": _vendor_evidence,
    "reports:download": _report_download,
    "ranking-report-pdf": _run_report("pdf"),
    "ranking-report-xlsx": _run_report("xlsx"),
    "ranking-report-csv": _run_report("csv"),
}


def _body(response: Any) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return bytes(response.content)


def test_every_download_url_has_a_permission_case():
    found = set(_download_urls())
    assert found, "no download URL found: the discovery is broken"
    missing = found - set(CASES)
    assert not missing, f"download URLs without a permission test case: {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(set(_download_urls())))
def test_a_file_is_served_to_its_team_only(name, team_b, analyst_b, analyst_a):
    url = CASES[name](team_b, analyst_b)

    owner = Client()
    owner.force_login(analyst_b)
    response = owner.get(url)
    assert response.status_code == 200 and _body(response) == SECRET, "the case serves nothing"

    intruder = Client()
    intruder.force_login(analyst_a)  # another team's analyst
    response = intruder.get(url)
    assert response.status_code in (403, 404), response.status_code
    assert SECRET not in _body(response)

    anonymous = Client().get(url)
    assert anonymous.status_code in (302, 401, 403, 404), anonymous.status_code
    assert SECRET not in _body(anonymous)


def test_the_media_url_serves_no_uploaded_file(team_b, analyst_b):
    _benchmark_log(team_b, analyst_b)
    from benchmarks.models import BenchmarkLog

    log = BenchmarkLog.objects.get(team=team_b)
    owner = Client()
    owner.force_login(analyst_b)
    for client in (Client(), owner):
        response = client.get(settings.MEDIA_URL + log.file.name)
        assert response.status_code == 404
        assert SECRET not in _body(response)
