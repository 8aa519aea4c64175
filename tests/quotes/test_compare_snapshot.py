"""The compare page's costs are a ranking run's (rankings.services.snapshot_build, one source of
the numbers: preset architecture and SLA repair time included) and its queries do not grow with
the number of offers or vendors compared."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.urls import reverse

from quotes.models import Quote
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.selectors import ranking_quotes
from rankings.services import rank_snapshot, snapshot_build
from vendors.models import SlaTerms

pytestmark = pytest.mark.django_db
URL = reverse("quotes:compare")


def _table(html: str) -> str:
    return html.split('<table class="compare">')[1].split("</table>")[0]


def _row(html: str, key: str) -> str:
    return html.split(f'data-row="{key}"')[1].split("</tr>")[0]


def _offers(team, user, n: int, *, sla: bool = True) -> list[Quote]:  # type: ignore[no-untyped-def]
    quotes = []
    for i in range(n):
        vendor = make_vendor(team, f"V{i}")
        if sla:
            SlaTerms.objects.create(vendor=vendor, hw_replacement_hours=Decimal(4 + i))
        quotes.append(
            make_quote(
                team,
                user,
                vendor,
                label=f"offer {i}",
                price_per_node_month=Decimal(40000 + 1000 * i),
            )  # fmt: skip
        )
    return quotes


def test_the_compare_costs_are_those_of_a_ranking_run_of_the_same_offers(
    team_a, analyst_a, client_as
):  # type: ignore[no-untyped-def]
    quotes = _offers(team_a, analyst_a, 3)
    workload = make_workload(team_a, preset="llama3-8b", params_b=8.0)
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    html = client.get(URL, {"q": [q.pk for q in quotes], "workload": workload.pk}).content
    cells = re.findall(r"<td[^>]*>(.*?)</td>", _row(html.decode(), "cost_per_eth"), re.S)
    run_quotes = list(ranking_quotes(team=team_a, quote_ids=[q.pk for q in quotes]))
    snapshot = snapshot_build(workload=workload, quotes=run_quotes, fx={})
    assert snapshot["workload_preset"] == "llama3-8b"
    outcome = rank_snapshot(snapshot)
    by_label = {o["id"]: o["label"] for o in snapshot["offers"]}
    expected = {by_label[r.offer_id]: f"{r.cost_per_eth:,.2f}" for r in outcome.results}
    assert len(expected) == 3 and len(cells) == 3
    # columns in the page's order (vendor name): V0, V1, V2
    for i, cell in enumerate(cells):
        assert expected[f"offer {i}"] in cell, (cell, expected)


def test_the_compare_page_queries_do_not_grow_with_offers_or_vendors(
    team_a, analyst_a, client_as, django_assert_max_num_queries
):  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    make_workload(team_a)
    client = client_as(analyst_a)
    two = _offers(team_a, analyst_a, 2)
    client.get(URL, {"q": [q.pk for q in two]})
    cache.clear()  # the table written afresh: its costs, terms and red flags
    with CaptureQueriesContext(connection) as few:
        assert client.get(URL, {"q": [q.pk for q in two]}).status_code == 200
    more = two + _offers(team_a, analyst_a, 5) + _offers(team_a, analyst_a, 1, sla=False)
    with django_assert_max_num_queries(len(few.captured_queries)):
        html = client.get(URL, {"q": [q.pk for q in more]}).content.decode()
    assert html.count('<th scope="col"') == 8
    # session, user, membership, quotes, workloads, risk policy, GPU table
    assert len(few.captured_queries) <= 7
    # the same offers again: the table is the cache's (no risk policy, no GPU table)
    with django_assert_max_num_queries(5):
        again = client.get(URL, {"q": [q.pk for q in more]}).content.decode()
    assert _table(again) == _table(html)


def test_a_second_view_of_the_same_offers_runs_no_model_and_follows_every_input(
    team_a, analyst_a, client_as, monkeypatch
):  # type: ignore[no-untyped-def]
    """The compare table is kept in the cache under every value it is written from: a second
    view builds no snapshot (so runs no model); a change of the workload, the SLA's repair
    time or the vendor's findings, by a bulk update that never calls save(), is a new table."""
    from quotes.models import WorkloadProfile
    from rankings import compare, views
    from vendors.models import Vendor

    quotes = _offers(team_a, analyst_a, 3)
    workload = make_workload(team_a, preset="llama3-8b", params_b=8.0)
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    params = {"q": [q.pk for q in quotes], "workload": workload.pk}
    cache.clear()
    first = client.get(URL, params).content.decode()

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the table was written again")

    monkeypatch.setattr(views, "cost_rows", refuse)  # where the page looks them up
    monkeypatch.setattr(compare, "snapshot_build", refuse)
    assert _table(client.get(URL, params).content.decode()) == _table(first)
    monkeypatch.undo()

    def eth(html: str) -> list[str]:
        return re.findall(r"<td[^>]*>(.*?)</td>", _row(html, "cost_per_eth"), re.S)

    # a longer repair time (the SLA, another table) lowers every offer's goodput
    SlaTerms.objects.filter(vendor=quotes[0].vendor).update(hw_replacement_hours=Decimal(240))
    repaired = client.get(URL, params).content.decode()
    assert eth(repaired)[0] != eth(first)[0] and eth(repaired)[1:] == eth(first)[1:]

    # the workload: twice the tokens to train, so each whole job takes longer
    def job(html: str) -> list[str]:
        return re.findall(r"<td[^>]*>(.*?)</td>", _row(html, "job_cost"), re.S)

    WorkloadProfile.objects.filter(pk=workload.pk).update(train_tokens=workload.train_tokens * 2)
    bigger = client.get(URL, params).content.decode()
    assert all(a != b for a, b in zip(job(bigger), job(repaired), strict=True))
    assert eth(bigger) == eth(repaired)
    # the vendor's stored findings: the red-flag row
    assert "no findings" in _row(bigger, "flags")
    Vendor.objects.filter(pk=quotes[1].vendor_id).update(findings_critical=1, findings_total=2)
    flagged = _row(client.get(URL, params).content.decode(), "flags")
    assert "1 critical of 2 findings" in flagged
    # the other language is its own table, vendors named in it as the quote list names them
    Vendor.objects.filter(pk=quotes[2].vendor_id).update(
        name_zh="示例比较云", name_en="Compare Cloud"
    )
    english = _table(client.get(URL, params).content.decode())
    assert "Compare Cloud" in english and "示例比较云" not in english
    client.cookies["django_language"] = "zh-hans"
    chinese = _table(client.get(URL, params).content.decode())
    assert "Cost per effective training hour" not in chinese
    assert "示例比较云" in chinese and "Compare Cloud" not in chinese
