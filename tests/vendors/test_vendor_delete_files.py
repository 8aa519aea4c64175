"""Deleting a vendor removes the files its rows held (evidence, raw logs) after the commit only."""

from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.db import transaction

import benchmarks.demo
import quotes.demo
import vendors.demo
from benchmarks.models import BenchmarkLog
from vendors.models import DataCentre, Licence, Vendor
from vendors.services import vendor_delete

pytestmark = pytest.mark.django_db(transaction=True)  # real commits: on_commit runs for real


@pytest.fixture
def evidence(settings, tmp_path, team_a, analyst_a):  # type: ignore[no-untyped-def]
    """The demo vendors with quotes, test runs on those quotes and their raw logs, and an
    evidence file on one vendor's licence and data centre."""
    settings.MEDIA_ROOT = str(tmp_path)
    settings.CELERY_TASK_ALWAYS_EAGER = True
    for module in (vendors.demo, quotes.demo, benchmarks.demo):
        module.load(team=team_a, user=analyst_a)
    logs = BenchmarkLog.objects.exclude(file="").select_related("test_run__vendor")
    vendor = logs.first().test_run.vendor
    assert vendor.quotes.exists() and vendor.test_runs.filter(quote__isnull=False).exists()
    licence = Licence.objects.create(
        vendor=vendor, number="粤B1-20990001", business_codes=["B11"], issuer_province="GD"
    )
    licence.evidence.save("licence.pdf", ContentFile(b"%PDF-1.4 licence"))
    dc = DataCentre.objects.filter(vendor=vendor).first()
    dc.evidence.save("dc.pdf", ContentFile(b"%PDF-1.4 dc"))
    own = [Path(log.file.path) for log in logs if log.test_run.vendor_id == vendor.pk]
    own += [Path(licence.evidence.path), Path(dc.evidence.path)]
    others = [Path(log.file.path) for log in logs if log.test_run.vendor_id != vendor.pk]
    assert own and others and all(p.is_file() for p in own + others)
    return vendor, own, others


def test_deleting_a_vendor_removes_its_files_after_the_commit(api_as, analyst_a, evidence):  # type: ignore[no-untyped-def]
    vendor, own, others = evidence
    response = api_as(analyst_a).delete(f"/api/v1/vendors/{vendor.pk}/")
    assert response.status_code == 204
    assert not Vendor.objects.filter(pk=vendor.pk).exists()
    assert [p for p in own if p.exists()] == []
    assert all(p.is_file() for p in others)  # other vendors' logs stay


def test_a_rolled_back_vendor_delete_keeps_rows_and_files(evidence):  # type: ignore[no-untyped-def]
    vendor, own, _others = evidence
    pk, logs_before = vendor.pk, BenchmarkLog.objects.count()

    class Abort(Exception):
        pass

    with pytest.raises(Abort), transaction.atomic():
        vendor_delete(vendor=vendor)
        assert not Vendor.objects.filter(pk=pk).exists()
        raise Abort
    assert Vendor.objects.filter(pk=pk).exists()
    assert BenchmarkLog.objects.count() == logs_before
    assert all(p.is_file() for p in own)


def test_deleting_a_credential_removes_its_evidence_file(client_as, analyst_a, evidence):  # type: ignore[no-untyped-def]
    from vendors.services import vendor_child_delete

    vendor, own, _others = evidence
    licence = Licence.objects.filter(vendor=vendor).exclude(evidence="").get()
    path = Path(licence.evidence.path)
    vendor_child_delete(instance=licence, vendor=vendor)
    assert not path.exists()
