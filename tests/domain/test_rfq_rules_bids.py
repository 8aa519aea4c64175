"""Bids against an RFQ's requirements (domain/rfq_rules.py): gaps, mandatory ones, standing,
and the refusal of an award to a blocked bidder."""

from decimal import Decimal

from domain.messages import Message
from domain.rfq_rules import (
    KNOCKED_OUT,
    RANK_LAST,
    RANKED_LAST,
    Requirements,
    award_refusal,
    bid_standing,
    knocked_out_reason,
    override_approval_refusal,
    requirement_problems,
)

REQ = Requirements(gpu_models=("H800-SXM",), nodes=8, min_internode_gbps=1600, fabric="rdma",
                   min_availability=Decimal("0.99"), term_months=12, min_trial_days=7,
                   mandatory=frozenset({"bandwidth"}))  # fmt: skip
BID = {"gpu": "H800-SXM", "nodes": 8, "nic_gbps": 400, "nics_per_node": 1, "fabric": "ib",
       "availability": "0.995", "term_months": 12, "trial_days": 7}  # fmt: skip


def test_a_bid_short_of_a_mandatory_bandwidth_is_knocked_out_with_both_languages():
    standing = bid_standing(REQ, BID)
    assert standing.status == KNOCKED_OUT and not standing.ranked
    reason = knocked_out_reason(standing)
    assert "400 Gbit/s per server quoted, 1,600 required." in reason.en
    assert "每台服务器报价 400 Gbit/s，要求 1,600 Gbit/s。" in reason.zh


def test_the_rfq_may_rank_a_failing_bid_last_instead():
    standing = bid_standing(Requirements(**{**REQ.__dict__, "nonconforming": RANK_LAST}), BID)
    assert standing.status == RANKED_LAST and standing.ranked


def test_gaps_in_requirements_that_are_not_mandatory_are_listed_but_conform():
    standing = bid_standing(REQ, BID | {"nics_per_node": 4, "term_months": 24, "trial_days": 3})
    assert standing.status == "conforming"
    assert [g.key for g in standing.gaps] == ["term", "trial"]
    assert not any(g.mandatory for g in standing.gaps)


def test_garbage_terms_are_gaps_not_crashes():
    standing = bid_standing(REQ, {"nodes": "many", "nic_gbps": None, "availability": "NaN"})
    assert {g.key for g in standing.gaps} >= {"gpu", "nodes", "bandwidth", "availability"}


def test_unknown_mandatory_keys_and_modes_are_refused():
    codes = [m.code for m in requirement_problems(["bandwidth", "colour"], "maybe")]
    assert codes == ["rfq.mandatory_unknown", "rfq.nonconforming_unknown"]
    assert requirement_problems(["gpu", "term"], "rank_last") == []


def test_an_award_refusal_counts_the_policys_findings_and_says_the_way_out():
    excluded = Message("risk_excluded", "Not eligible: long finding text.", "不合格：……")
    refusal = award_refusal([knocked_out_reason(bid_standing(REQ, BID)), excluded, excluded])
    assert "1,600 required" in refusal.en and "2 finding(s)" in refusal.en
    assert "long finding text" not in refusal.en and "second team admin" in refusal.en
    assert "另一位团队管理员" in refusal.zh


def test_only_a_second_admin_who_confirms_approves_an_override():
    def refusal(**over):  # type: ignore[no-untyped-def]
        args = {"proposer_id": 1, "approver_id": 2, "approver_is_admin": True, "confirmed": True}
        return override_approval_refusal(**(args | over))

    assert refusal() is None
    assert refusal(approver_id=1).code == "award.override_second_admin"
    assert refusal(approver_is_admin=False).code == "award.override_second_admin"
    assert refusal(confirmed=False).code == "award.override_unconfirmed"


def test_enough_ports_but_a_shared_rack_uplink_is_short_of_the_bandwidth_between_racks():
    # 8 × 400G ports per server, but 4 servers share a 3,200 Gbit/s rack uplink and the RFQ's 8
    # servers span two racks: 800 Gbit/s per server between racks (as the ranking counts it)
    bid = BID | {"nics_per_node": 8, "rack_uplink_gbps": 3200, "servers_per_rack": 4}
    standing = bid_standing(REQ, bid)
    assert standing.status == KNOCKED_OUT
    reason = knocked_out_reason(standing)
    assert "800 Gbit/s per server between racks, 1,600 required." in reason.en
    assert "跨柜每台 800 Gbit/s，要求 1,600 Gbit/s。" in reason.zh
    # the same bid with all 8 servers in one rack, or an uplink that carries every port, conforms
    assert bid_standing(REQ, bid | {"servers_per_rack": 8}).status != KNOCKED_OUT
    assert bid_standing(REQ, bid | {"rack_uplink_gbps": 12800}).status != KNOCKED_OUT
    assert bid_standing(REQ, BID | {"nics_per_node": 8}).status != KNOCKED_OUT  # no rack stated
