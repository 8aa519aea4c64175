"""Fixtures of the reports tests: the demo team's finished ranking."""

import pytest

from core.models import JobStatus
from rankings.models import RankingRun


@pytest.fixture
def demo_run(team_a, analyst_a):  # type: ignore[no-untyped-def]
    import benchmarks.demo
    import quotes.demo
    import rankings.demo
    import vendors.demo

    for module in (vendors.demo, quotes.demo, benchmarks.demo, rankings.demo):
        module.load(team=team_a, user=analyst_a)
    run = RankingRun.objects.get(team=team_a)
    assert run.status == JobStatus.DONE
    return run
