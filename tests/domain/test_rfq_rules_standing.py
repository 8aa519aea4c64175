"""The team's minimum delivery standing for invitations (domain.rfq_rules.invitation_standing)."""

from __future__ import annotations

from domain.rfq_rules import StandingBasis, invitation_standing


def test_no_rule_no_record_or_at_the_minimum_says_nothing() -> None:
    assert invitation_standing(vendor="V", delivered_ratio=0.5, minimum=None, mode="block") is None
    assert invitation_standing(vendor="V", delivered_ratio=None, minimum=0.8, mode="block") is None
    assert invitation_standing(vendor="V", delivered_ratio=0.8, minimum=0.8, mode="block") is None


def test_below_warns_or_blocks_in_both_languages_naming_the_contracts() -> None:
    basis = [StandingBasis(title=f"C{i}", ratio=0.5) for i in range(7)]
    warn = invitation_standing(vendor="V", delivered_ratio=0.6, minimum=0.8, mode="warn",
                               basis=basis)  # fmt: skip
    assert warn is not None and not warn.blocked
    assert (
        "60 %" in warn.message.en and "80 %" in warn.message.en and "C0 (50 %)" in warn.message.en
    )
    assert "and 2 more" in warn.message.en and "等另 2 份" in warn.message.zh
    block = invitation_standing(vendor="V", delivered_ratio=0.6, minimum=0.8, mode="block")
    assert block is not None and block.blocked and "不能邀请" in block.message.zh
    assert block.message.code != warn.message.code
