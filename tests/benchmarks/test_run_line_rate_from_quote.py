"""A run attached to a quote with a known NIC speed and no line rate of its own reads the
quote's port speed (the one admission judges its logs against), not "unknown"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from benchmarks import selectors
from tests.benchmarks.test_admission_pages import _upload
from tests.benchmarks.test_same_test_copies import REAL, _quote

pytestmark = pytest.mark.django_db


def test_the_verdict_reads_the_quote_port_speed(  # type: ignore[no-untyped-def]
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    quote = _quote(team_a, analyst_a, "10G")
    run = _upload(
        team_a, analyst_a, quote, [("real.json", REAL.read_bytes())],
        django_capture_on_commit_callbacks,
    )  # fmt: skip
    assert run.line_rate_gbps is None and run.data_centre_id is None
    assert selectors.run_line_rate_gbps(run) == 10.0
    assert selectors.run_fabric(run) == "tcp"
    assert run.effective_line_rate_gbps == 10.0
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("benchmarks:run", args=[run.pk])).content.decode()
    line = page[page.index("Line rate per port") :][:200]
    assert "10.0 Gbit/s" in line and "unknown" not in line
