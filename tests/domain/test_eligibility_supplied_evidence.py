"""domain.eligibility: under "supplied evidence counts as a claim" a measured figure resting only
on supplied logs carries the unverified-bandwidth risk, at the policy's severity."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain import eligibility as el

CLAIM = replace(el.DEFAULT_POLICY, supplied_evidence_is_claim=True)


def _codes(policy: el.RiskPolicy, trust: str | None, measured: bool = True) -> list[str]:
    risks = el.offer_risks(
        (), nic_gbps=400, nominal_gbps=3200, bandwidth_measured=measured, nodes_used=16,
        policy=policy, evidence_trust=trust, measured_gbps=3155.2,
    )  # fmt: skip
    return [r.code for r in risks]


@pytest.mark.parametrize(
    ("policy", "trust", "expected"),
    [
        (CLAIM, "supplied", ["bandwidth_supplied_only"]),
        (CLAIM, "kit_verified", []),
        (CLAIM, "witnessed", []),
        (el.DEFAULT_POLICY, "supplied", []),
    ],
)
def test_supplied_evidence_is_a_claim_only_under_the_policy(policy, trust, expected) -> None:  # type: ignore[no-untyped-def]
    assert _codes(policy, trust) == expected


def test_a_nominal_figure_is_unverified_whatever_the_policy() -> None:
    assert _codes(CLAIM, None, measured=False) == ["bandwidth_unverified"]
    assert _codes(el.DEFAULT_POLICY, None, measured=False) == ["bandwidth_unverified"]


def test_the_risk_takes_the_policys_severity_and_says_so_in_both_languages() -> None:
    policy = replace(CLAIM, unverified_bandwidth="critical")
    (risk,) = el.offer_risks(
        (), nic_gbps=400, nominal_gbps=3200, bandwidth_measured=True, nodes_used=16,
        policy=policy, evidence_trust="supplied", measured_gbps=3155.2,
    )  # fmt: skip
    assert risk.severity == "critical"
    assert "3,155 Gbit/s" in risk.message.en and "供应商" in risk.message.zh
    assert not el.assess((risk,), policy).eligible


def test_the_flag_survives_the_policys_dict_form() -> None:
    assert el.policy_from_dict(el.policy_to_dict(CLAIM)).supplied_evidence_is_claim is True
    # only a real boolean switches it on (a stored "yes" is not a decision)
    assert not el.policy_from_dict({"supplied_evidence_is_claim": "yes"}).supplied_evidence_is_claim
    assert el.policy_from_dict(None).supplied_evidence_is_claim is False
