"""A real Celery task travels through Redis to a real worker process and changes the database."""

import pytest

from portal.celery import app
from vendors.models import DataCentre, NetworkProfile, Vendor


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_refreshes_vendor_findings_through_redis(celery_worker_process, team_a):
    vendor = Vendor.objects.create(team=team_a, name_zh="转租机房测试厂商")
    dc = DataCentre.objects.create(vendor=vendor, name="DC", province="GD", ownership="re_leased")
    NetworkProfile.objects.create(data_centre=dc, fabric="roce", pfc=False, ecn=False)
    assert vendor.findings_critical == 0  # nothing computed yet: only the worker will do it

    result = app.send_task(
        "vendors.tasks.refresh_all_findings", queue=celery_worker_process["queue"]
    )
    assert result.get(timeout=60) >= 1

    vendor.refresh_from_db()
    assert vendor.findings_critical >= 2
    assert {"data_centre_re_leased", "roce_without_pfc", "roce_without_ecn"} <= set(
        vendor.finding_codes
    )
