"""The demo loaders give a newcomer a finished ranking with the seed's lesson."""

import pytest

from core.models import JobStatus
from rankings.models import RankingRun

pytestmark = pytest.mark.django_db


def test_the_demo_ranking_is_finished_and_the_100g_roce_beats_the_10g(team_a, analyst_a):
    import quotes.demo
    import rankings.demo
    import vendors.demo

    vendors.demo.load(team=team_a, user=analyst_a)
    quotes.demo.load(team=team_a, user=analyst_a)
    rankings.demo.load(team=team_a, user=analyst_a)
    run = RankingRun.objects.get(team=team_a)
    assert run.status == JobStatus.DONE
    by_label = {r.label: r for r in run.results.all()}
    tcp, roce = by_label["8×8 A100 · 10G TCP"], by_label["8×8 A100 · 100G RoCE"]
    assert roce.monthly_rent - tcp.monthly_rent == pytest.approx(5000)
    assert roce.cost_per_eth < 0.5 * tcp.cost_per_eth
    assert len(by_label) == 4
