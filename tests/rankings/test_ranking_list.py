"""The rankings list: offers and leader of each run, newest first, in constant queries."""

import re

import pytest
from django.urls import reverse

from quotes.testing import make_workload, seed_quotes
from rankings.models import RankingRun
from rankings.services import ranking_start

URL = reverse("rankings:list")
pytestmark = pytest.mark.django_db


def _runs(team, user, n, capture):  # type: ignore[no-untyped-def]
    workload = make_workload(team)
    for _ in range(n):
        with capture(execute=True):
            ranking_start(team=team, user=user, workload=workload)


def test_each_run_shows_its_offers_and_its_leader(
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    seed_quotes(team_a, analyst_a)
    _runs(team_a, analyst_a, 1, django_capture_on_commit_callbacks)
    run = RankingRun.objects.get(team=team_a)
    leader = run.results.get(rank=1)
    assert leader.label == "100G RoCE"  # the seed example: the dearer RoCE offer wins
    html = client_as(analyst_a).get(URL).content.decode()
    row = re.search(rf'<tr>\s*<td><a href="/rankings/{run.pk}/">.*?</tr>', html, re.S).group(0)
    assert "100G RoCE" in row and f"{leader.deciding_cost_per_eth:.2f} CNY" in row  # deciding
    assert re.search(r'<td class="num">2</td>', row)  # two offers ranked


def test_newest_first_paged_and_constant_queries(
    team_a,
    analyst_a,
    analyst_b,
    team_b,
    client_as,
    django_capture_on_commit_callbacks,
    django_assert_max_num_queries,
):  # type: ignore[no-untyped-def]
    seed_quotes(team_a, analyst_a)
    _runs(team_a, analyst_a, 2, django_capture_on_commit_callbacks)
    client = client_as(analyst_a)
    with django_assert_max_num_queries(12) as few:
        client.get(URL)
    _runs(team_a, analyst_a, 28, django_capture_on_commit_callbacks)
    with django_assert_max_num_queries(len(few.captured_queries)):
        html = client.get(URL).content.decode()
    ids = [int(x) for x in re.findall(r'<tr>\s*<td><a href="/rankings/(\d+)/">', html)]
    assert len(ids) == 25 and ids == sorted(ids, reverse=True) and "1 / 2" in html
    seed_quotes(team_b, analyst_b)
    _runs(team_b, analyst_b, 1, django_capture_on_commit_callbacks)
    other = RankingRun.objects.get(team=team_b).pk
    for page in ("1", "2"):
        assert f'href="/rankings/{other}/"' not in client.get(URL, {"page": page}).content.decode()
