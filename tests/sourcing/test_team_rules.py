"""Sourcing on the team's rules: mandatory requirements knock a bid out (or rank it last), bids
are compared on the team's tax basis, the risk policy excludes bidders, and an award to a blocked
bidder is refused unless a second admin approves a written override."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from accounts.choices import Role
from quotes.models import GpuModel
from sourcing.choices import AuditVerb, AwardState
from sourcing.evaluation import comparable_month
from sourcing.selectors import rfq_evaluation
from sourcing.services import answer_submit, award_decide, award_propose
from sourcing.tasks import close_due_rfqs
from sourcing.testing import answer_terms, pass_deadline
from vendors.models import Licence
from vendors.services import vendor_refresh_findings

pytestmark = pytest.mark.django_db

NEED_1600 = {"min_internode_gbps": 1600, "mandatory": ["bandwidth"], "fabric": ""}


def _close(rfq, capture):  # type: ignore[no-untyped-def]
    pass_deadline(rfq)
    with capture(execute=True):
        close_due_rfqs()
    rfq.refresh_from_db()
    assert rfq.ranking_run is not None and rfq.ranking_run.status == "done"
    return rfq


def _event(make_rfq, vendors_a, invite, capture, *, rfq_over, terms):  # type: ignore[no-untyped-def]
    """A closed RFQ answered by both vendors with `terms` (one dict per vendor)."""
    rfq = make_rfq(**rfq_over)
    answers = []
    for index, (vendor, over) in enumerate(zip(vendors_a, terms, strict=True)):
        account = invite(rfq, vendor, f"sup{index}")
        answers.append(answer_submit(rfq=rfq, account=account, terms=answer_terms(**over)))
    return _close(rfq, capture), answers


# 400 Gbit/s per server, half the price: cheapest by far, and short of the 1,600 required.
SHORT = {"nic_gbps": 400, "nics_per_node": 1, "price_per_node_month": "20000"}
FULL = {"nic_gbps": 400, "nics_per_node": 4, "price_per_node_month": "40000"}


def _row(evaluation, answer):  # type: ignore[no-untyped-def]
    return next(r for r in evaluation["rows"] if r["answer_id"] == answer.pk)


def test_a_bid_failing_a_mandatory_requirement_is_knocked_out_with_the_reason(
    make_rfq, vendors_a, invite, django_capture_on_commit_callbacks
):
    rfq, (short, full) = _event(make_rfq, vendors_a, invite, django_capture_on_commit_callbacks,
                                rfq_over=NEED_1600, terms=[SHORT, FULL])  # fmt: skip
    evaluation = rfq_evaluation(rfq)
    knocked, kept = _row(evaluation, short), _row(evaluation, full)
    assert knocked["cost_rank"] is None  # the cheapest per ETH, yet knocked out: no rank
    assert knocked["status"] == "knocked_out" and knocked["position"] is None
    assert "400 Gbit/s per server quoted, 1,600 required." in " ".join(knocked["reasons"])
    assert kept["status"] == "conforming" and kept["position"] == 1
    assert [r["answer_id"] for r in evaluation["rows"]] == [full.pk, short.pk]


def test_a_failing_bid_is_ranked_after_every_conforming_one_when_the_rfq_says_so(
    make_rfq, vendors_a, invite, django_capture_on_commit_callbacks
):
    over = NEED_1600 | {"nonconforming": "rank_last"}
    rfq, (short, full) = _event(make_rfq, vendors_a, invite, django_capture_on_commit_callbacks,
                                rfq_over=over, terms=[SHORT, FULL])  # fmt: skip
    evaluation = rfq_evaluation(rfq)
    assert _row(evaluation, full)["position"] == 1
    last = _row(evaluation, short)
    assert last["status"] == "ranked_last" and last["position"] == 2
    assert last["total"] > _row(evaluation, full)["total"]  # would have won on the scores


def test_a_gap_in_a_requirement_that_is_not_mandatory_knocks_nothing_out(
    make_rfq, vendors_a, invite, django_capture_on_commit_callbacks
):
    over = NEED_1600 | {"mandatory": []}
    rfq, (short, _full) = _event(make_rfq, vendors_a, invite, django_capture_on_commit_callbacks,
                                 rfq_over=over, terms=[SHORT, FULL])  # fmt: skip
    row = _row(rfq_evaluation(rfq), short)
    assert row["status"] == "conforming" and row["position"] is not None


def test_an_unknown_mandatory_requirement_is_refused_with_a_message(make_rfq):
    with pytest.raises(ValidationError) as info:
        make_rfq(mandatory=["bandwidth", "colour"])
    assert "colour" in " ".join(info.value.message_dict["mandatory"])


# ¥88,000 including 13 % VAT with a 专票 against ¥82,000 excluding VAT with a 普票.
INCLUSIVE_SPECIAL = {
    "price_per_node_month": "88000", "monthly_fees": "0",
    "prices_include_vat": True, "vat_rate": 13, "invoice_type": "special",
}  # fmt: skip
EXCLUSIVE_ORDINARY = {
    "price_per_node_month": "82000", "monthly_fees": "0",
    "prices_include_vat": False, "vat_rate": 13, "invoice_type": "ordinary",
}  # fmt: skip


def test_bids_are_compared_on_the_teams_tax_basis_not_as_entered(
    make_rfq, vendors_a, invite, django_capture_on_commit_callbacks
):
    rfq, (inclusive, exclusive) = _event(
        make_rfq, vendors_a, invite, django_capture_on_commit_callbacks,
        rfq_over={}, terms=[INCLUSIVE_SPECIAL, EXCLUSIVE_ORDINARY],
    )  # fmt: skip
    assert rfq.team.tax_basis == "excl_vat"
    inclusive.refresh_from_db()
    # excluding VAT: 88,000 / 1.13 = 77,876.11 per node; 82,000 x 1.13 = 92,660 (no deduction)
    assert comparable_month(rfq, inclusive)["amount"] == Decimal("623008.85")
    assert comparable_month(rfq, exclusive)["amount"] == Decimal("741280.00")
    version = inclusive.quote.current_version
    assert (version.prices_include_vat, version.vat_rate, version.invoice_type) == (
        True, 13, "special",
    )  # fmt: skip
    evaluation = rfq_evaluation(rfq)
    assert _row(evaluation, inclusive)["cost_rank"] == 1
    assert _row(evaluation, inclusive)["cost_per_eth"] < _row(evaluation, exclusive)["cost_per_eth"]


def test_the_team_page_shows_each_bids_vat_terms_and_month_on_the_basis(
    make_rfq, vendors_a, invite, django_capture_on_commit_callbacks, client_as, analyst_a
):
    rfq, _answers = _event(
        make_rfq, vendors_a, invite, django_capture_on_commit_callbacks,
        rfq_over={}, terms=[INCLUSIVE_SPECIAL, EXCLUSIVE_ORDINARY],
    )  # fmt: skip
    page = client_as(analyst_a).get(f"/sourcing/{rfq.pk}/").content.decode()
    assert "incl. VAT · 13% · Special VAT invoice (专票)" in page
    assert "623,008.85" in page and "741,280.00" in page
    zh = client_as(analyst_a).get(f"/sourcing/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "含税" in zh.content.decode()


def test_a_supplier_enters_the_vat_terms_on_the_bid_form(rfq, suppliers, client):
    sup1, _ = suppliers
    client.force_login(sup1.user)
    form = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/").content.decode()
    assert 'name="prices_include_vat"' in form and 'name="invoice_type"' in form
    body = answer_terms() | {
        "gpu": GpuModel.objects.get(key="A100-SXM4-80GB").pk, "prices_include_vat": "true",
        "vat_rate": "13", "invoice_type": "special",
    }  # fmt: skip
    response = client.post(f"/sourcing/supplier/rfqs/{rfq.pk}/", body)
    assert response.status_code == 302, response.content.decode()[:2000]
    terms = rfq.answers.get(vendor=sup1.vendor).terms
    assert (terms["prices_include_vat"], terms["vat_rate"], terms["invoice_type"]) == (
        True, 13, "special",
    )  # fmt: skip
    revise = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/").content.decode()
    assert '<option value="true" selected>' in revise  # the stored terms, not "not stated"


# --- the risk policy and awards ------------------------------------------------------------


@pytest.fixture
def icp_vendor(vendors_a):  # type: ignore[no-untyped-def]
    """The first vendor's "licence" is an ICP filing number: a critical finding."""
    vendor = vendors_a[0]
    Licence.objects.create(vendor=vendor, number="粤ICP备12345678号", state="claimed")
    return vendor_refresh_findings(vendor=vendor)


@pytest.fixture
def excluded_event(icp_vendor, make_rfq, vendors_a, invite, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    assert icp_vendor.findings_critical
    return _event(make_rfq, vendors_a, invite, django_capture_on_commit_callbacks,
                  rfq_over={}, terms=[{}, {}])  # fmt: skip


def test_a_bidder_the_risk_policy_excludes_is_shown_excluded(excluded_event):
    rfq, (excluded, clean) = excluded_event
    row = _row(rfq_evaluation(rfq), excluded)
    assert row["status"] == "excluded" and row["position"] is None
    assert "risk_excluded" in row["reason_codes"]
    assert _row(rfq_evaluation(rfq), clean)["position"] == 1


def test_an_award_to_an_excluded_bidder_is_refused_without_an_override(excluded_event, analyst_a):
    rfq, (excluded, _clean) = excluded_event
    with pytest.raises(ValidationError, match="refused") as info:
        award_propose(rfq=rfq, user=analyst_a, answer=excluded)
    assert "Excluded by the team's risk policy" in " ".join(info.value.messages)
    assert not rfq.awards.exists()


def test_an_award_to_a_knocked_out_bidder_is_refused_without_an_override(
    make_rfq, vendors_a, invite, django_capture_on_commit_callbacks, analyst_a
):
    rfq, (short, full) = _event(make_rfq, vendors_a, invite, django_capture_on_commit_callbacks,
                                rfq_over=NEED_1600, terms=[SHORT, FULL])  # fmt: skip
    with pytest.raises(ValidationError, match="1,600 required"):
        award_propose(rfq=rfq, user=analyst_a, answer=short)
    assert award_propose(rfq=rfq, user=analyst_a, answer=full).blockers == []


def test_an_override_needs_a_second_admin_who_confirms_it_and_is_audited_and_shown(
    excluded_event, analyst_a, approver_a, make_user, team_a, client_as
):
    rfq, (excluded, _clean) = excluded_event
    reason = "Only vendor with capacity in Guangzhou this quarter; licence re-checked by legal"
    award = award_propose(rfq=rfq, user=analyst_a, answer=excluded, override_reason=reason)
    assert award.override_reason == reason and award.blockers
    other_analyst = make_user("bob", team_a, Role.ANALYST)
    with pytest.raises(ValidationError, match="team admin other than the proposer"):
        award_decide(award=award, user=other_analyst, approve=True, comment="ok",
                     confirm_override=True)  # fmt: skip
    with pytest.raises(ValidationError, match="I approve the override"):
        award_decide(award=award, user=approver_a, approve=True, comment="ok")
    award.refresh_from_db()
    assert award.state == AwardState.PROPOSED
    award = award_decide(award=award, user=approver_a, approve=True, comment="Accepted risk",
                         confirm_override=True)  # fmt: skip
    assert award.state == AwardState.APPROVED and award.decided_by == approver_a
    proposed = rfq.audit_events.get(verb=AuditVerb.AWARD_OVERRIDE_PROPOSED)
    approved = rfq.audit_events.get(verb=AuditVerb.AWARD_OVERRIDE_APPROVED)
    assert proposed.actor == analyst_a and proposed.detail["override_reason"] == reason
    assert approved.actor == approver_a and approved.detail["override_reason"] == reason
    assert any("risk policy" in text for text in approved.detail["overridden"])
    page = client_as(approver_a).get(f"/sourcing/{rfq.pk}/").content.decode()
    assert "Awarded overriding the rules." in page and reason in page
    assert "Override approved by the second admin amy" in page


def test_a_second_admin_may_reject_an_override_without_confirming(excluded_event, analyst_a,
                                                                  approver_a):  # fmt: skip
    rfq, (excluded, _clean) = excluded_event
    award = award_propose(rfq=rfq, user=analyst_a, answer=excluded, override_reason="cheapest")
    award = award_decide(award=award, user=approver_a, approve=False, comment="No: ICP only")
    assert award.state == AwardState.REJECTED


def test_the_api_refuses_an_award_to_an_excluded_bidder_and_takes_an_override(
    excluded_event, analyst_a, approver_a, api_as
):
    rfq, (excluded, _clean) = excluded_event
    api = api_as(analyst_a)
    refused = api.post(f"/api/v1/rfqs/{rfq.pk}/awards/", {"answer": excluded.pk}, format="json")
    assert refused.status_code == 400 and "refused" in str(refused.json())
    override = {"answer": excluded.pk, "override_reason": "sole source"}
    made = api.post(f"/api/v1/rfqs/{rfq.pk}/awards/", override, format="json")
    assert made.status_code == 201 and made.json()["override_reason"] == "sole source"
    award_id = made.json()["id"]
    approver = api_as(approver_a)
    unconfirmed = approver.post(f"/api/v1/awards/{award_id}/approve/", {"comment": "ok"},
                                format="json")  # fmt: skip
    assert unconfirmed.status_code == 400
    done = approver.post(f"/api/v1/awards/{award_id}/approve/",
                         {"comment": "ok", "confirm_override": True}, format="json")  # fmt: skip
    assert done.status_code == 200 and done.json()["state"] == "approved"
    evaluation = api.get(f"/api/v1/rfqs/{rfq.pk}/evaluation/").json()
    row = next(r for r in evaluation["rows"] if r["answer_id"] == excluded.pk)
    assert row["status"] == "excluded" and row["position"] is None


def test_proposing_the_second_answer_on_the_page_works_and_a_refusal_is_a_message(
    excluded_event, analyst_a, client_as
):
    rfq, (excluded, clean) = excluded_event
    client = client_as(analyst_a)
    form = {"min_line_fraction": "0.9", "min_pairs": "3", "trial_days": "7"}
    refused = client.post(f"/sourcing/{rfq.pk}/propose/", form | {"answer": excluded.pk},
                          follow=True)  # fmt: skip
    assert refused.status_code == 200 and "refused" in refused.content.decode()
    made = client.post(f"/sourcing/{rfq.pk}/propose/", form | {"answer": clean.pk}, follow=True)
    assert made.status_code == 200 and rfq.awards.get().answer == clean
