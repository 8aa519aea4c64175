"""Demo sourcing event: one published, sealed RFQ answered by two demo suppliers.

The supplier logins supplier1/supplier1 and supplier2/supplier2 are only created when DEBUG is on.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from quotes.models import GpuModel, WorkloadProfile
from vendors.models import Vendor

from .choices import MailStatus
from .models import Invitation, SupplierAccount
from .services import answer_submit, answer_upload_evidence, rfq_create, rfq_publish, token_digest
from .testing import IPERF_PAIRS, answer_terms, demo_log


def _supplier(vendor, username: str) -> SupplierAccount:  # type: ignore[no-untyped-def]
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.set_password(username)
    user.email = f"{username}@example.com"
    user.save()
    account, _ = SupplierAccount.objects.update_or_create(user=user, defaults={"vendor": vendor})
    return account


def load(*, team, user) -> None:  # type: ignore[no-untyped-def]
    vendors = list(Vendor.objects.filter(team=team).order_by("pk")[:2])
    workload = WorkloadProfile.objects.for_team(team).order_by("pk").first()
    if len(vendors) < 2 or workload is None or not settings.DEBUG:
        return
    gpu = GpuModel.objects.filter(key="A100-SXM4-80GB").first()
    rfq = rfq_create(team=team, user=user, data={
        "title": "64×A100 · 7B 预训练 / 7B pretraining", "workload": workload, "nodes": 8,
        "min_internode_gbps": 25, "fabric": "", "term_months": 12,
        "deadline": timezone.now() + timedelta(days=2), "sealed": True, "kit_pairs": 3,
        "required_evidence": ["iperf3", "ib_write_bw"], "notes": "预算上限 / budget ceiling",
        "gpu_models": [gpu] if gpu else [],
    })  # fmt: skip
    rfq_publish(rfq=rfq, user=user)
    now = timezone.now()
    for index, vendor in enumerate(vendors, start=1):
        account = _supplier(vendor, f"supplier{index}")
        # The demo's suppliers have accepted, so their invitation e-mail went out.
        Invitation.objects.create(
            rfq=rfq, vendor=vendor, email=account.user.email, created_by=user,
            token_sha256=token_digest(f"demo-{rfq.pk}-{index}"), accepted_at=now,
            accepted_by=account.user, mail_status=MailStatus.SENT, mailed_at=now, mail_attempts=1,
        )  # fmt: skip
        price = "40000" if index == 1 else "38500"
        answer = answer_submit(rfq=rfq, account=account, terms=answer_terms(
            price_per_node_month=price, nic_gbps=25 if index == 1 else 100,
            fabric="tcp" if index == 1 else "roce"))  # fmt: skip
        if index == 1:  # salted copies: the benchmarks demo already holds these exact files
            for name in IPERF_PAIRS:
                answer_upload_evidence(answer=answer, account=account,
                                       upload=demo_log(name, b"\n\n"))  # fmt: skip
    print(
        "DEMO MODE: supplier logins supplier1/supplier1 and supplier2/supplier2 "  # noqa: T201
        f"(RFQ #{rfq.pk}, deadline {timezone.localtime(rfq.deadline):%Y-%m-%d %H:%M})"
    )
