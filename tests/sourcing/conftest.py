"""Fixtures of a sourcing event: a published RFQ, two invited suppliers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.choices import Role
from quotes.models import GpuModel
from quotes.testing import make_vendor, make_workload
from sourcing.models import Rfq
from sourcing.services import invitation_accept, invitation_create, rfq_create, rfq_publish
from vendors.models import Vendor


@pytest.fixture
def approver_a(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("amy", team_a, Role.ADMIN)


@pytest.fixture
def workload_a(team_a):  # type: ignore[no-untyped-def]
    return make_workload(team_a)


@pytest.fixture
def vendors_a(team_a):  # type: ignore[no-untyped-def]
    return (
        make_vendor(team_a, "Supplier One", fabric="roce", gbps=100),
        make_vendor(team_a, "Supplier Two", fabric="roce", gbps=100),
    )


@pytest.fixture
def vendor_b(team_b):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_b, name_en="Secret vendor of B")


@pytest.fixture
def make_rfq(team_a, analyst_a, workload_a):  # type: ignore[no-untyped-def]
    def make(*, sealed: bool = True, publish: bool = True, **over) -> Rfq:  # type: ignore[no-untyped-def]
        data = {
            "title": "64×A100 for 7B pretraining", "workload": workload_a, "nodes": 8,
            "min_internode_gbps": 100, "fabric": "rdma", "require_pfc": True,
            "term_months": 12, "deadline": timezone.now() + timedelta(days=3), "sealed": sealed,
            "kit_pairs": 3, "notes": "PRIVATE: budget ceiling 400k",
            "gpu_models": [GpuModel.objects.get(key="A100-SXM4-80GB")],
        }  # fmt: skip
        data.update(over)
        rfq = rfq_create(team=team_a, user=analyst_a, data=data)
        if publish:
            rfq_publish(rfq=rfq, user=analyst_a)
        return rfq

    return make


@pytest.fixture
def rfq(make_rfq):  # type: ignore[no-untyped-def]
    return make_rfq()


@pytest.fixture
def invite(analyst_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    def do(rfq, vendor, username: str, email: str | None = None):  # type: ignore[no-untyped-def]
        with django_capture_on_commit_callbacks(execute=True):
            _inv, token = invitation_create(
                rfq=rfq, user=analyst_a, vendor=vendor, email=email or f"{username}@example.com"
            )
        return invitation_accept(token=token, username=username, password="Sup-pass-12345!")

    return do


@pytest.fixture
def suppliers(rfq, vendors_a, invite):  # type: ignore[no-untyped-def]
    """Two accounts (SupplierAccount) of two vendors, both invited to `rfq`."""
    return invite(rfq, vendors_a[0], "sup1"), invite(rfq, vendors_a[1], "sup2")
