"""The run page computes its figures and sensitivity once per finished run and language."""

from __future__ import annotations

import pytest
from django.urls import reverse

import rankings.views
from core.models import JobStatus
from rankings.models import RankingRun

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_run(team_a, analyst_a):  # type: ignore[no-untyped-def]
    import quotes.demo
    import rankings.demo
    import vendors.demo

    for module in (vendors.demo, quotes.demo, rankings.demo):
        module.load(team=team_a, user=analyst_a)
    run = RankingRun.objects.get(team=team_a)
    assert run.status == JobStatus.DONE and run.results.exists()
    return run


def test_the_second_view_reuses_the_figures_and_a_rerun_recomputes(
    finished_run, analyst_a, client_as, monkeypatch
):
    calls: list[int] = []
    real = rankings.views.sensitivity_rows

    def counting(snapshot):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(snapshot)

    monkeypatch.setattr(rankings.views, "sensitivity_rows", counting)
    client = client_as(analyst_a)
    url = reverse("rankings:detail", args=[finished_run.pk])
    first = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    second = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert len(calls) == 1
    assert "plotly-graph-div" in first and second.count("plotly-graph-div") == first.count(
        "plotly-graph-div"
    )
    # another language gets its own labels
    client.cookies.load({"django_language": "zh-hans"})
    client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert len(calls) == 2
    # a finished run computed again (new finished_at) is not served stale figures
    from django.utils import timezone

    RankingRun.objects.filter(pk=finished_run.pk).update(finished_at=timezone.now())
    client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert len(calls) == 3
