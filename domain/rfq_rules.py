"""Rules of a sourcing event that need no database: which changes a published RFQ accepts, and
text that may go into a one-line field or a mail header.

Once an RFQ is published, suppliers rely on its sealing and its deadline: sealing can only be
switched on, and the deadline moves only through a deadline extension that another team member
approves (and that the suppliers are told about). An earlier deadline would open sealed prices
early, so it is refused like unsealing.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime

from .messages import Message

UNSEAL_REFUSED = Message(
    code="rfq.unseal_published",
    en="Bids of a published RFQ stay sealed: sealing cannot be switched off after publication.",
    zh="已发布的询价单的报价保持密封：发布后不能取消密封。",
)
DEADLINE_LOCKED = Message(
    code="rfq.deadline_published",
    en=(
        "The deadline of a published RFQ cannot be edited. To give suppliers more time, propose a "
        "deadline extension with a reason; another team admin must approve it."
    ),
    zh="已发布询价单的截止时间不能直接修改。如需给供应商更多时间，请提交附带理由的延期申请，并由团队中另一位管理员批准。",
)
DEADLINE_NOT_LATER = Message(
    code="rfq.extension_not_later",
    en="An extension must move the deadline later than the current one.",
    zh="延期后的截止时间必须晚于当前截止时间。",
)
DEADLINE_PASSED = Message(
    code="rfq.deadline_passed",
    en="The deadline has passed: it can no longer be extended.",
    zh="截止时间已过，不能再延期。",
)
NOT_PUBLISHED = Message(
    code="rfq.extension_not_published",
    en="Only a published RFQ's deadline can be extended (edit a draft's deadline directly).",
    zh="只有已发布的询价单可以延期（草稿的截止时间可直接修改）。",
)
REASON_MISSING = Message(
    code="rfq.extension_reason",
    en="Give the reason for the extension; the suppliers receive it by e-mail.",
    zh="请填写延期理由；供应商将通过邮件收到该理由。",
)
CONTROL_CHARACTERS = Message(
    code="text.control_characters",
    en="Use a single line without control characters (no line breaks or tabs).",
    zh="请使用单行文字，不要包含控制字符（如换行符或制表符）。",
)
SAME_PERSON = Message(
    code="rfq.extension_same_person",
    en="You proposed this extension: another team admin must approve or reject it.",
    zh="此延期申请由您提出，须由团队中另一位管理员批准或驳回。",
)
ADMIN_ONLY = Message(
    code="rfq.extension_admin_only",
    en="Only a team admin can approve or reject a deadline extension.",
    zh="只有团队管理员可以批准或驳回延期申请。",
)


# C0/C1 controls (CR, LF, tab, NUL, ...) and the Unicode line and paragraph separators.
_CONTROL = ("Cc", "Zl", "Zp")


@dataclass(frozen=True)
class RfqTiming:
    """What the rules look at: the state, the sealing and the deadline of an RFQ."""

    state: str
    sealed: bool
    deadline: datetime


def published_change_refusals(before: RfqTiming, after: RfqTiming) -> dict[str, Message]:
    """Field -> why the change from ``before`` to ``after`` is refused; empty when allowed.

    A draft may change freely (its deadline must still be in the future, checked elsewhere).
    Published (and later) RFQs: sealing may be switched on, never off; the deadline stays as
    it is (extensions go through `extension_refusal`).
    """
    if before.state == "draft":
        return {}
    refusals: dict[str, Message] = {}
    if before.sealed and not after.sealed:
        refusals["sealed"] = UNSEAL_REFUSED
    if after.deadline != before.deadline:
        refusals["deadline"] = DEADLINE_LOCKED
    return refusals


def extension_refusal(current: RfqTiming, new_deadline: datetime, now: datetime) -> Message | None:
    """Why ``new_deadline`` cannot replace the current deadline by an extension (None: it can)."""
    if current.state != "published":
        return NOT_PUBLISHED
    if now >= current.deadline:
        return DEADLINE_PASSED
    if new_deadline <= current.deadline:
        return DEADLINE_NOT_LATER
    return None


def has_control_characters(text: str) -> bool:
    """Line breaks, tabs and any other control or separator-of-lines character."""
    return any(unicodedata.category(ch) in _CONTROL for ch in text)


def single_line(text: str, limit: int = 200) -> str:
    """``text`` made safe for one line (a mail subject): every control character and line or
    paragraph separator becomes a space, runs of spaces shrink to one, at most ``limit``
    characters."""
    cleaned = "".join(" " if unicodedata.category(ch) in _CONTROL else ch for ch in text)
    collapsed = " ".join(cleaned.split())
    return collapsed[:limit]
