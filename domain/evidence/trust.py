"""How far a log can be trusted: who ran it, and whether it answers the buyer's challenge.

- ``witnessed``: uploaded by a member of the buying team who marked it as run by the team (the
  buyer's own engineer on the trial machines: the strongest evidence);
- ``kit_verified``: carries the RFQ kit's token for this supplier and test, ran inside the RFQ's
  window and on the hosts the bid names;
- ``supplied``: a vendor's log as it came, which proves no more than the vendor's word.
"""

from __future__ import annotations

from domain.evidence.tokens import VERIFIED
from domain.messages import Message

WITNESSED = "witnessed"
KIT_VERIFIED = "kit_verified"
SUPPLIED = "supplied"
LEVELS = (WITNESSED, KIT_VERIFIED, SUPPLIED)


def trust_level(*, witnessed: bool, challenge_status: str | None) -> str:
    if witnessed:
        return WITNESSED
    if challenge_status == VERIFIED:
        return KIT_VERIFIED
    return SUPPLIED


def counts_as_measured(level: str, *, supplied_counts_as_claim: bool) -> bool:
    """Under the policy "supplied evidence counts as a claim", only checked evidence measures."""
    return not (supplied_counts_as_claim and level == SUPPLIED)


def describe(level: str) -> Message:
    if level == WITNESSED:
        return Message("trust.witnessed", "Witnessed: run by the team", "见证：由本团队运行")
    if level == KIT_VERIFIED:
        return Message(
            "trust.kit_verified",
            "Kit-verified: carries this RFQ's token, ran in its window",
            "测试包已核验：带有本询价的令牌，且在其时间窗内运行",
        )
    return Message(
        "trust.supplied", "Supplied: the vendor's log as it came", "供应商提供：未经核验的日志"
    )


def weakest(levels: list[str]) -> str | None:
    """A figure pooled from several logs is only as trusted as the least trusted of them."""
    known = [level for level in levels if level in LEVELS]
    return max(known, key=LEVELS.index) if known else None
