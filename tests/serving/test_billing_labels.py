"""Serving pages name billing models instead of printing their codes."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from serving.models import MixedPlan, ServingWorkload

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(team_a, analyst_a):  # type: ignore[no-untyped-def]
    import quotes.demo
    import serving.demo
    import vendors.demo

    for module in (vendors.demo, quotes.demo, serving.demo):
        module.load(team=team_a, user=analyst_a)
    return ServingWorkload.objects.get(team=team_a), MixedPlan.objects.get(team=team_a)


def test_workload_and_plan_pages_show_billing_model_names(demo, analyst_a, client_as):
    workload, plan = demo
    client = client_as(analyst_a)
    for url in (reverse("serving:workload", args=[workload.pk]),
                reverse("serving:plan", args=[plan.pk])):  # fmt: skip
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        cells = re.findall(r"<td>([^<]*)</td>|<div>([^<:]*):", page)
        shown = {c for pair in cells for c in pair if c}
        assert not shown & {"per_gb", "p95", "fixed"}, shown & {"per_gb", "p95", "fixed"}
    page = client.get(reverse("serving:workload", args=[workload.pk]),
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()  # fmt: skip
    assert "95th percentile of 5-minute samples" in page or "Per GB of traffic" in page
