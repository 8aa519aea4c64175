"""Small builders for tests and the demo loader (not used by the portal's pages)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from smtplib import SMTPServerDisconnected
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.mail.backends.base import BaseEmailBackend
from django.utils import timezone

from .models import Rfq

DEMO_LOGS = Path(__file__).resolve().parent.parent / "benchmarks" / "demo_data"
# Three iperf3 tests one after another on one pair (127.0.0.1): 13.3 / 16.4 / 14.4 Gbit/s.
IPERF_PAIRS = ("pair1_P4.json", "pair2_single.json", "pair3_reverse.json")
# Three iperf3 tests one after another on one pair of network namespaces over a 2 Gbit/s shaped
# veth (copies of tests/domain/data/recorded/sequential_pair0_run*.json): 1.89 / 1.81 / 1.88.
# The logs above ran over 127.0.0.1: evidence of nothing about a network (set aside as loopback).
NAMESPACE_REPEATS = tuple(f"ns_pair0_run{k}.json" for k in (1, 2, 3))
# Three distinct pairs whose windows overlap (10 G TCP demo run): 9.45 / 9.39 / 9.22 Gbit/s.
CONCURRENT_PAIRS = tuple(f"dg10g_pair{k}_iperf3_P2.json" for k in (1, 2, 3))


def answer_terms(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "gpu": "A100-SXM4-80GB", "gpus_per_node": 8, "nodes": 8, "price_per_node_month": "40000",
        "currency": "CNY", "monthly_fees": "3000", "nic_gbps": 100, "nics_per_node": 1,
        "fabric": "roce", "availability": "0.995", "term_months": 12, "trial_days": 7,
    }  # fmt: skip
    data.update(over)
    return data


def demo_log(name: str, salt: bytes = b"") -> SimpleUploadedFile:
    """A demo iperf3 log; ``salt`` changes its SHA-256 so a team can hold it twice."""
    return SimpleUploadedFile(name, (DEMO_LOGS / name).read_bytes() + salt)


def pass_deadline(rfq: Rfq) -> None:
    Rfq.objects.filter(pk=rfq.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    rfq.refresh_from_db()


class FailingEmailBackend(BaseEmailBackend):
    """A mail server that drops every connection (settings.EMAIL_BACKEND in tests)."""

    def send_messages(self, email_messages):  # type: ignore[no-untyped-def]
        raise SMTPServerDisconnected("Connection unexpectedly closed")
