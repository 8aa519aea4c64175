"""The compare page a buyer expects: one column per offer, cost per ETH and the job's cost on
top (as a ranking computes them), the best of each row marked, red flags and evidence per offer,
vendor links and every term in words."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotes.models import Quote, WorkloadProfile
from quotes.testing import make_quote, make_vendor, make_workload

pytestmark = pytest.mark.django_db
URL = reverse("quotes:compare")


@pytest.fixture
def demo(team_a, analyst_a):  # type: ignore[no-untyped-def]
    import quotes.demo
    import vendors.demo

    vendors.demo.load(team=team_a, user=analyst_a)
    quotes.demo.load(team=team_a, user=analyst_a)
    return list(Quote.objects.for_team(team_a).filter(is_current=True))


def _row(html: str, key: str) -> str:
    return html.split(f'data-row="{key}"')[1].split("</tr>")[0]


def test_one_column_per_offer_costs_on_top_best_marked_and_words_not_names(
    demo, analyst_a, client_as, django_assert_max_num_queries
):
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    with django_assert_max_num_queries(10):
        html = client.get(URL).content.decode()
    assert html.count('<th scope="col"') == len(demo)
    body = html.split("<tbody>")[1]
    assert body.index('data-row="cost_per_eth"') < body.index('data-row="job_cost"')
    assert body.index('data-row="job_cost"') < body.index('data-row="flags"')
    assert body.index('data-row="flags"') < body.index('data-row="price_per_node_month"')
    cost = _row(html, "cost_per_eth")
    assert cost.count('class="best') == 1 and "CNY" in cost
    assert _row(html, "job_cost").count('class="best') == 1
    assert "critical of" in _row(html, "flags") and "workload.nodes" not in html
    assert "claimed only" in _row(html, "evidence") or "measured" in _row(html, "evidence")
    for q in demo:
        assert f'href="{reverse("vendors:detail", args=[q.vendor_id])}"' in html
    assert "? ?" not in html and "price_per_node_month</th>" not in html
    assert "Price per node" in html or "price per node" in html.lower()
    assert "PFC" in _row(html, "lossless") and "?" not in _row(html, "lossless")


def test_an_offer_too_small_for_the_workload_says_so_and_the_rest_are_compared(
    team_a, analyst_a, client_as
):
    vendor = make_vendor(team_a, "V")
    make_quote(team_a, analyst_a, vendor, label="small", nodes=2)
    make_quote(team_a, analyst_a, vendor, label="big", nodes=8)
    workload = make_workload(team_a, nodes=4)
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    html = client.get(URL, {"workload": workload.pk}).content.decode()
    cells = re.findall(r"<td[^>]*>(.*?)</td>", _row(html, "cost_per_eth"), re.S)
    assert len(cells) == 2
    assert sum("cannot run this workload" in c for c in cells) == 1
    assert "the workload needs 4 nodes; this offer has 2" in html
    assert sum("CNY" in c for c in cells) == 1
    assert WorkloadProfile.objects.count() == 1
