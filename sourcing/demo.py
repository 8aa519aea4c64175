"""Demo sourcing events on fictional demo vendors only.

1. A published, sealed RFQ answered by two demo suppliers (logins supplier1/supplier1 and
   supplier2/supplier2, created only when DEBUG is on).
2. A closed RFQ on the team's rules, ranked: one conforming bid, one knocked out by a mandatory
   requirement (400 Gbit/s per server quoted, 1,600 required) and one from a vendor whose
   "licence" is an ICP filing number, which the team's risk policy excludes. An award to either
   blocked bidder is refused unless a second admin approves a written override: the demo's two
   admins (demo and demo2) can try it.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from domain.seed_vendor_claims import DEMO_ICP_AS_LICENCE
from quotes.models import GpuModel, WorkloadProfile
from rankings.tasks import run_job
from vendors.models import Vendor

from .choices import MailStatus
from .models import Invitation, Rfq, SupplierAccount
from .services import (
    answer_submit,
    answer_upload_evidence,
    rfq_close,
    rfq_create,
    rfq_publish,
    token_digest,
)
from .testing import IPERF_PAIRS, answer_terms, demo_log

# The usual terms of an IDC rental: prices without VAT, 6 %, special VAT invoice (专票).
VAT_EXCL_SPECIAL = {"prices_include_vat": False, "vat_rate": 6, "invoice_type": "special"}


def _supplier(vendor, username: str) -> SupplierAccount:  # type: ignore[no-untyped-def]
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.set_password(username)
    user.email = f"{username}@example.com"
    user.save()
    account, _ = SupplierAccount.objects.update_or_create(user=user, defaults={"vendor": vendor})
    return account


def _invited(rfq: Rfq, vendor, account: SupplierAccount, user, index: int) -> None:  # type: ignore[no-untyped-def]
    """An accepted invitation whose e-mail went out (as after the real flow)."""
    now = timezone.now()
    Invitation.objects.create(
        rfq=rfq, vendor=vendor, email=account.user.email, created_by=user,
        token_sha256=token_digest(f"demo-{rfq.pk}-{index}"), accepted_at=now,
        accepted_by=account.user, mail_status=MailStatus.SENT, mailed_at=now, mail_attempts=1,
    )  # fmt: skip


def _clean_demo_vendors(team) -> list[Vendor]:  # type: ignore[no-untyped-def]
    """The fictional demo vendors without critical findings, oldest first."""
    return list(
        Vendor.objects.filter(team=team, is_demo=True, findings_critical=0).order_by("pk")[:2]
    )


def _open_event(team, user, workload, gpu, vendors) -> Rfq:  # type: ignore[no-untyped-def]
    rfq = rfq_create(team=team, user=user, data={
        "title": "64×A100 · 7B 预训练 / 7B pretraining", "workload": workload, "nodes": 8,
        "min_internode_gbps": 25, "fabric": "", "term_months": 12,
        "deadline": timezone.now() + timedelta(days=2), "sealed": True, "kit_pairs": 3,
        "required_evidence": ["iperf3", "ib_write_bw"], "notes": "预算上限 / budget ceiling",
        "gpu_models": [gpu] if gpu else [], "mandatory": ["gpu", "nodes", "bandwidth"],
    })  # fmt: skip
    rfq_publish(rfq=rfq, user=user)
    for index, vendor in enumerate(vendors, start=1):
        account = _supplier(vendor, f"supplier{index}")
        _invited(rfq, vendor, account, user, index)
        price = "40000" if index == 1 else "38500"
        answer = answer_submit(rfq=rfq, account=account, terms=answer_terms(
            price_per_node_month=price, nic_gbps=25 if index == 1 else 100,
            fabric="tcp" if index == 1 else "roce", **VAT_EXCL_SPECIAL))  # fmt: skip
        if index == 1:  # salted copies: the benchmarks demo already holds these exact files
            for name in IPERF_PAIRS:
                answer_upload_evidence(answer=answer, account=account,
                                       upload=demo_log(name, b"\n\n"))  # fmt: skip
    return rfq


def _closed_event(team, user, workload, gpu, vendors) -> Rfq | None:  # type: ignore[no-untyped-def]
    """A closed, ranked RFQ with a conforming, a knocked-out and an excluded bid."""
    excluded = Vendor.objects.filter(team=team, name_zh=DEMO_ICP_AS_LICENCE.name_zh).first()
    if excluded is None:
        return None
    rfq = rfq_create(team=team, user=user, data={
        "title": "已截止 · 64×A100 · 1.6T 网络 / closed · 1.6 Tbit/s per server",
        "workload": workload, "nodes": 8, "min_internode_gbps": 1600, "fabric": "rdma",
        "term_months": 12, "deadline": timezone.now() + timedelta(hours=1), "sealed": True,
        "kit_pairs": 3, "gpu_models": [gpu] if gpu else [],
        "mandatory": ["gpu", "nodes", "bandwidth", "fabric"],
    })  # fmt: skip
    rfq_publish(rfq=rfq, user=user)
    bids = (  # 4 x 400G (conforming), 1 x 400G (knocked out), 4 x 400G from the excluded vendor
        (vendors[0], {"nic_gbps": 400, "nics_per_node": 4, "price_per_node_month": "52000",
                      "fabric": "ib", **VAT_EXCL_SPECIAL}),
        (vendors[1], {"nic_gbps": 400, "nics_per_node": 1, "price_per_node_month": "41000",
                      "fabric": "roce", **VAT_EXCL_SPECIAL}),
        (excluded, {"nic_gbps": 400, "nics_per_node": 4, "price_per_node_month": "88000",
                    "fabric": "ib", "prices_include_vat": True, "vat_rate": 13,
                    "invoice_type": "ordinary"}),
    )  # fmt: skip
    for index, (vendor, terms) in enumerate(bids, start=1):
        account = _supplier(vendor, f"closed-supplier{index}")
        _invited(rfq, vendor, account, user, index)
        answer_submit(rfq=rfq, account=account, terms=answer_terms(**terms))
    Rfq.objects.filter(pk=rfq.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    rfq_close(rfq_id=rfq.pk)
    rfq.refresh_from_db()
    if rfq.ranking_run_id:
        run_job(rfq.ranking_run_id)  # computed here, so the evaluation shows at once
    return rfq


def load(*, team, user) -> None:  # type: ignore[no-untyped-def]
    vendors = _clean_demo_vendors(team)
    workload = WorkloadProfile.objects.for_team(team).order_by("pk").first()
    if len(vendors) < 2 or workload is None or not settings.DEBUG:
        return
    gpu = GpuModel.objects.filter(key="A100-SXM4-80GB").first()
    rfq = _open_event(team, user, workload, gpu, vendors)
    closed = _closed_event(team, user, workload, gpu, vendors)
    print(
        "DEMO MODE: supplier logins supplier1/supplier1 and supplier2/supplier2 "  # noqa: T201
        f"(RFQ #{rfq.pk}, deadline {timezone.localtime(rfq.deadline):%Y-%m-%d %H:%M})"
        + (f"; closed RFQ #{closed.pk} shows a knocked-out and an excluded bid" if closed else "")
    )
