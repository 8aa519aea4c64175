"""domain/decision.py: the runner-up, savings and contract-term fits every page and export shows."""

from __future__ import annotations

import pytest

from domain import decision as dd


def _offer(oid, rank, *, eligible=True, hourly=100.0, cost=1000.0, hours=10.0, term=12.0):  # type: ignore[no-untyped-def]
    return dd.OfferFacts(oid, f"offer {oid}", eligible, rank if eligible else None, "CNY", hourly,
                         cost, hours, term)  # fmt: skip


def test_savings_compare_with_eligible_offers_only_never_an_excluded_absurd_one():
    offers = [
        _offer("absurd", None, eligible=False, hourly=1.0, cost=2e9, hours=2_300_000.0),
        _offer("best", 1, hourly=120.0, cost=1000.0, hours=10.0),
        _offer("second", 2, hourly=130.0, cost=1300.0, hours=10.0),
        _offer("cheap-rent", 3, hourly=90.0, cost=1500.0, hours=16.0),
    ]
    out = dd.summarise(offers, {})
    assert out["runner_up"] == "second"
    by_kind = {s["kind"]: s for s in out["savings"]}
    assert by_kind["runner_up"]["saving_cny"] == pytest.approx(300.0)
    assert by_kind["cheapest_rent"]["offer_id"] == "cheap-rent"  # the cheapest *eligible* rent
    assert by_kind["cheapest_rent"]["hours_saved"] == pytest.approx(6.0)
    assert all(s["offer_id"] != "absurd" for s in out["savings"])


def test_no_eligible_alternative_means_no_saving_and_no_runner_up():
    out = dd.summarise([_offer("only", 1), _offer("bad", None, eligible=False)], {})
    assert out["runner_up"] is None and out["savings"] == []


def test_a_job_longer_than_the_term_is_flagged_with_the_share_that_fits():
    long_job = _offer("long", 1, hours=36_808.0, term=12.0)  # 4.2 years on a 12-month term
    out = dd.summarise([long_job, _offer("other", 2, hours=100.0)], {})
    term = out["terms"]["long"]
    assert not term["fits"] and out["term_short"] == ["long"]
    assert term["share_in_term"] == pytest.approx(8760 / 36_808)
    assert term["message"]["code"] == "job_longer_than_term"
    assert "12-month" in term["message"]["en"] and "12 个月" in term["message"]["zh"]
    assert out["terms"]["other"]["fits"]


def test_unknown_hours_or_term_give_no_term_fit():
    assert dd.term_fit(None, 12) is None and dd.term_fit(100.0, None) is None
    assert dd.term_fit(float("inf"), 12) is None


def test_savings_in_another_currency_are_converted_to_cny():
    a = dd.OfferFacts("a", "a", True, 1, "USD", 10.0, 100.0, 5.0, 12.0)
    b = dd.OfferFacts("b", "b", True, 2, "CNY", 70.0, 800.0, 5.0, 12.0)
    saving = dd.summarise([a, b], {"USD": 7.0})["savings"][0]
    assert saving["job_cost_cny"] == pytest.approx(700.0) and saving["saving_cny"] == pytest.approx(
        100.0
    )


def test_a_tie_claims_no_savings_against_the_runner_up():
    a, b = _offer("a", 1, hourly=100.0, cost=1000.0), _offer("b", 2, hourly=101.0, cost=1010.0)
    untied = dd.summarise([a, b], {})
    assert untied["runner_up"] == "b" and untied["savings"]
    tied = dd.summarise([a, b], {}, tie=True)
    assert tied["runner_up"] == "b"  # still named: the choice is between the two
    assert tied["savings"] == []
