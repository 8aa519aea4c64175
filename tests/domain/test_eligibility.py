"""The team risk policy applied to an offer's findings: each action, premiums, unverified claims."""

from dataclasses import replace

import pytest

from domain.eligibility import (
    DEFAULT_POLICY,
    MAX_NIC_PORT_GBPS,
    RiskItem,
    RiskPolicy,
    SeverityRule,
    assess,
    finding_item,
    offer_risks,
    policy_from_dict,
    policy_problems,
    policy_to_dict,
    risk_adjusted,
)
from domain.messages import Message

NO_LICENCE = finding_item(
    {"code": "licence_missing", "severity": "critical", "subject": "vendor",
     "en": "No telecom licence.", "zh": "没有电信业务经营许可证。"}
)  # fmt: skip
SLA_SLOW = finding_item(
    {"code": "sla_response_slow", "severity": "warning", "en": "Slow.", "zh": "慢。"}
)
YOUNG = finding_item({"code": "company_young", "severity": "info", "en": "Young.", "zh": "年轻。"})


def _policy(critical="exclude", warning="premium", info="mark", **kw):  # type: ignore[no-untyped-def]
    return RiskPolicy(
        critical=SeverityRule(critical, kw.get("pct", 0.0), kw.get("money", 0.0)),
        warning=SeverityRule(warning, kw.get("pct", 0.0), kw.get("money", 0.0)),
        info=SeverityRule(info, kw.get("pct", 0.0), kw.get("money", 0.0)),
        premium_cap_pct=kw.get("cap", 100.0),
    )


def test_the_default_policy_excludes_an_offer_with_a_critical_finding_and_says_why():
    a = assess([NO_LICENCE, YOUNG])
    assert not a.eligible and a.action == "exclude"
    assert a.reasons[0].code == "risk_excluded"
    assert "No telecom licence." in a.reasons[0].en and "没有电信业务经营许可证" in a.reasons[0].zh
    assert [m.code for m in a.marks] == ["licence_missing", "company_young"]  # most severe first


def test_the_default_policy_ranks_a_warning_with_a_mark_and_a_2_percent_premium():
    a = assess([SLA_SLOW])
    assert a.eligible and a.action == "premium" and a.premium_pct == 2.0
    assert [r.code for r in a.reasons] == ["risk_premium"]
    assert "2%" in a.reasons[0].en and "2%" in a.reasons[0].zh


def test_the_default_policy_only_marks_an_info_finding():
    a = assess([YOUNG])
    assert a.eligible and a.action == "mark" and a.premium_pct == 0.0
    assert [m.code for m in a.marks] == ["company_young"]
    assert a.reasons[0].code == "risk_marked"


def test_an_ignored_severity_leaves_no_mark_and_no_reason():
    a = assess([YOUNG], _policy(info="ignore"))
    assert a.eligible and a.action == "none" and a.marks == () and a.reasons == ()


def test_a_policy_may_turn_a_critical_finding_into_a_premium_instead_of_an_exclusion():
    a = assess([NO_LICENCE], _policy(critical="premium", pct=15.0))
    assert a.eligible and a.action == "premium" and a.premium_pct == 15.0


def test_premiums_add_per_finding_up_to_the_cap_and_money_adds_without_cap():
    other = RiskItem("sla_no_compensation", "warning", Message("x", "x", "x"))
    a = assess([SLA_SLOW, other], _policy(pct=12.0, money=1000.0, cap=20.0))
    assert a.premium_pct == 20.0 and a.premium_cny_month == 2000.0


def test_a_finding_listed_twice_counts_once():
    assert assess([SLA_SLOW, SLA_SLOW]).premium_pct == 2.0


def test_the_risk_adjusted_cost_is_the_cost_times_the_premium_plus_the_money_per_eth():
    # 100/ETH, 10 ETH/hour, 5% and 7,300 CNY/month = 10 CNY/hour = 1 CNY/ETH
    assert risk_adjusted(100.0, 10.0, 5.0, 7300.0) == pytest.approx(106.0)
    assert risk_adjusted(100.0, 10.0, 0.0, 0.0) == 100.0


def test_unverified_bandwidth_is_a_risk_at_the_severity_the_policy_gives_it():
    risks = offer_risks([], nic_gbps=100, nominal_gbps=100, bandwidth_measured=False, nodes_used=8,
                        policy=DEFAULT_POLICY)  # fmt: skip
    assert [(r.code, r.severity) for r in risks] == [("bandwidth_unverified", "warning")]
    assert assess(risks).premium_pct == 2.0
    strict = replace(DEFAULT_POLICY, unverified_bandwidth="critical")
    risks = offer_risks([], nic_gbps=100, nominal_gbps=100, bandwidth_measured=False, nodes_used=8,
                        policy=strict)  # fmt: skip
    assert not assess(risks, strict).eligible


def test_measured_or_single_node_bandwidth_is_no_risk():
    for measured, nodes in ((True, 8), (False, 1)):
        risks = offer_risks([], nic_gbps=100, nominal_gbps=100, bandwidth_measured=measured,
                            nodes_used=nodes, policy=DEFAULT_POLICY)  # fmt: skip
        assert risks == ()


def test_a_nic_faster_than_any_port_is_an_implausible_claim_and_excluded_by_default():
    risks = offer_risks([], nic_gbps=99_999, nominal_gbps=99_999, bandwidth_measured=False,
                        nodes_used=8, policy=DEFAULT_POLICY)  # fmt: skip
    assert "claim_implausible" in [r.code for r in risks]
    a = assess(risks)
    assert not a.eligible and "99,999" in a.reasons[0].en
    ok = offer_risks([], nic_gbps=MAX_NIC_PORT_GBPS, nominal_gbps=800, bandwidth_measured=True,
                     nodes_used=8, policy=DEFAULT_POLICY)  # fmt: skip
    assert ok == ()


def test_a_policy_round_trips_through_its_dict_and_missing_parts_take_the_default():
    p = _policy(warning="mark", pct=3.0)
    assert policy_from_dict(policy_to_dict(p)) == p
    assert policy_from_dict({}) == DEFAULT_POLICY
    assert policy_from_dict({"info": {"action": "ignore"}}).info == SeverityRule("ignore")
    assert policy_from_dict({"info": {"action": "ignore"}}).critical == DEFAULT_POLICY.critical


def test_an_impossible_policy_is_explained_in_both_languages():
    assert policy_problems(DEFAULT_POLICY) == []
    bad = _policy(critical="shrug", pct=150.0)
    codes = [m.code for m in policy_problems(bad)]
    assert "policy_action" in codes and "policy_premium" in codes
    assert all(m.zh and m.en for m in policy_problems(bad))
