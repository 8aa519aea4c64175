"""One decision for an RFQ: the run its close starts, its evaluation, the ranking page and the
dashboard all recommend the same conforming bid; a knocked-out bid has no rank, no score and is
never the recommendation, however cheap it is."""

from __future__ import annotations

import pytest
from django.urls import reverse

from rankings.selectors import recommended_result
from sourcing.selectors import rfq_evaluation

from .test_team_rules import FULL, NEED_1600, SHORT, _event, _row

pytestmark = pytest.mark.django_db


@pytest.fixture
def knocked_out_rfq(make_rfq, vendors_a, invite, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    rfq, answers = _event(make_rfq, vendors_a, invite, django_capture_on_commit_callbacks,
                          rfq_over=NEED_1600, terms=[SHORT, FULL])  # fmt: skip
    for answer in answers:
        answer.refresh_from_db()  # the close made each answer's quote
    return rfq, answers


def test_the_rfqs_own_ranking_never_recommends_the_bid_it_knocked_out(knocked_out_rfq):
    rfq, (short, full) = knocked_out_rfq
    run = rfq.ranking_run
    results = {r.quote_version.quote_id: r for r in run.results.select_related("quote_version")}
    knocked, kept = results[short.quote.pk], results[full.quote.pk]
    assert knocked.rank == 1  # the cheapest per ETH before the RFQ's rule
    assert not knocked.eligible and knocked.decision_rank is None and not knocked.recommended
    assert knocked.risk_action == "knocked_out"
    assert any(r["code"] == "rfq.knocked_out" for r in knocked.eligibility_reasons)
    assert recommended_result(run) == kept and kept.decision_rank == 1
    assert run.decision["recommended"] == kept.offer_id
    assert run.decision["savings"] == [] or all(
        s["offer_id"] != knocked.offer_id for s in run.decision["savings"]
    )


def test_a_knocked_out_bid_has_no_score_and_the_cost_score_stays_within_0_and_1(knocked_out_rfq):
    rfq, (short, full) = knocked_out_rfq
    evaluation = rfq_evaluation(rfq)
    knocked, kept = _row(evaluation, short), _row(evaluation, full)
    assert knocked["scores"] is None and knocked["total"] is None
    assert kept["scores"]["cost"] == pytest.approx(1.0)
    assert all(0.0 <= v <= 1.0 for v in kept["scores"].values())


def test_every_page_names_the_conforming_bid_as_the_recommendation(
    knocked_out_rfq, client_as, analyst_a
):  # type: ignore[no-untyped-def]
    rfq, (short, full) = knocked_out_rfq
    client_a = client_as(analyst_a)
    run = rfq.ranking_run
    kept = recommended_result(run)
    page = client_a.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    knocked_row = page.split(f'data-offer="{run.results.get(recommended=False).offer_id}"')[1]
    knocked_row = knocked_row.split("</tr>")[0]
    assert "recommended-badge" not in knocked_row and "excluded" in knocked_row
    # the knocked-out bid is cheaper per ETH: no "cheapest rent is not the cheapest" lesson
    assert "Cheapest rent is not the cheapest way to train." not in page
    board = client_a.get(reverse("dashboard")).content.decode()
    leader = board.split('id="leaders"')[1].split("</section>")[0]
    assert kept.label in leader and str(short.vendor) not in leader
