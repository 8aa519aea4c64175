"""Rules of a sourcing event that need no database: which changes a published RFQ accepts, and
text that may go into a one-line field or a mail header.

Once an RFQ is published, suppliers rely on its sealing and its deadline: sealing can only be
switched on, and the deadline moves only through a deadline extension that another team member
approves (and that the suppliers are told about). An earlier deadline would open sealed prices
early, so it is refused like unsealing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

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


# Bounds of what an RFQ may ask for. Inter-node bandwidth per server: today's fastest nodes carry
# 8 x 800 Gbit/s = 6,400 Gbit/s (eight ConnectX-8 / 800G ports); 100,000 Gbit/s leaves room for
# years of growth and refuses only typing accidents (1e308). Deadline: a sourcing event runs for
# weeks; one year ahead is the most a supplier can be asked to hold an offer open for.
MAX_INTERNODE_GBPS = 100_000.0
MAX_DEADLINE_AHEAD = timedelta(days=365)

BANDWIDTH_TOO_HIGH = Message(
    code="rfq.bandwidth_too_high",
    en=f"At most {MAX_INTERNODE_GBPS:,.0f} Gbit/s per server.",
    zh=f"每台服务器最多 {MAX_INTERNODE_GBPS:,.0f} Gbit/s。",
)
DEADLINE_TOO_FAR = Message(
    code="rfq.deadline_too_far",
    en="The deadline must be within one year from now.",
    zh="截止时间必须在自现在起一年以内。",
)


def bandwidth_refusal(gbps: float | None) -> Message | None:
    """Why a minimum inter-node bandwidth is refused for being too high (None: it is not)."""
    if gbps is not None and not gbps <= MAX_INTERNODE_GBPS:  # inf and NaN too
        return BANDWIDTH_TOO_HIGH
    return None


def deadline_refusal(deadline: datetime, now: datetime) -> Message | None:
    """Why a deadline is refused for being too far ahead (None: it is not)."""
    if deadline > now + MAX_DEADLINE_AHEAD:
        return DEADLINE_TOO_FAR
    return None


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
    return deadline_refusal(new_deadline, now)


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


# ---------------------------------------------------------------------------------------------
# Bids against the RFQ's requirements: gaps, mandatory requirements, knock-out

REQUIREMENT_KEYS = ("gpu", "nodes", "bandwidth", "fabric", "availability", "term", "trial")
KNOCK_OUT = "knock_out"  # a bid failing a mandatory requirement is not ranked (default)
RANK_LAST = "rank_last"  # ... or is ranked after every conforming bid
NONCONFORMING_MODES = (KNOCK_OUT, RANK_LAST)

CONFORMING = "conforming"
KNOCKED_OUT = "knocked_out"
RANKED_LAST = "ranked_last"

# The fabric an RFQ asks for -> the bid fabrics that meet it, and its name in both languages.
FABRIC_WANTED: dict[str, tuple[frozenset[str], str, str]] = {
    "ib": (frozenset({"ib"}), "InfiniBand", "InfiniBand"),
    "roce": (frozenset({"roce"}), "RoCE", "RoCE"),
    "rdma": (
        frozenset({"ib", "roce"}),
        "any RDMA (InfiniBand or RoCE)",
        "任一 RDMA（InfiniBand 或 RoCE）",
    ),
    "tcp": (frozenset({"tcp"}), "TCP / Ethernet", "TCP / 以太网"),
}
FABRIC_NAMES = {"ib": "InfiniBand", "roce": "RoCE", "tcp": "TCP"}


@dataclass(frozen=True)
class Requirements:
    """What an RFQ asks of every bid; ``mandatory`` holds the keys a bid must meet."""

    gpu_models: tuple[str, ...] = ()
    nodes: int = 1
    min_internode_gbps: float = 0.0
    fabric: str = ""
    min_availability: Decimal = Decimal(0)
    term_months: int = 12
    min_trial_days: int = 0
    mandatory: frozenset[str] = frozenset()
    nonconforming: str = KNOCK_OUT


@dataclass(frozen=True)
class Gap:
    """One requirement a bid does not meet; ``mandatory`` when the RFQ says it must."""

    key: str
    message: Message
    mandatory: bool


@dataclass(frozen=True)
class Standing:
    """Where a bid stands against the requirements: conforming, knocked out or ranked last."""

    status: str
    gaps: tuple[Gap, ...]

    @property
    def mandatory_gaps(self) -> tuple[Gap, ...]:
        return tuple(g for g in self.gaps if g.mandatory)

    @property
    def ranked(self) -> bool:
        return self.status != KNOCKED_OUT


def requirement_problems(mandatory: Sequence[str], nonconforming: str) -> list[Message]:
    """What is wrong with the mandatory set and the mode of an RFQ (empty when fine)."""
    out: list[Message] = []
    unknown = sorted(set(mandatory) - set(REQUIREMENT_KEYS))
    if unknown:
        out.append(
            Message(
                "rfq.mandatory_unknown",
                f"Unknown requirement(s) {', '.join(unknown)}: choose among "
                f"{', '.join(REQUIREMENT_KEYS)}.",
                f"无法识别的要求 {'、'.join(unknown)}：请从 {'、'.join(REQUIREMENT_KEYS)} 中选择。",
            )
        )
    if nonconforming not in NONCONFORMING_MODES:
        out.append(
            Message(
                "rfq.nonconforming_unknown",
                "Say what happens to a bid that fails a mandatory requirement: knocked out or "
                "ranked after every conforming bid.",
                "请选择未满足必备要求的报价如何处理：淘汰，或排在所有合规报价之后。",
            )
        )
    return out


def _num(value: Any) -> Decimal:
    try:
        number = Decimal(str(value if value not in (None, "") else 0))
    except ArithmeticError:
        return Decimal(0)
    return number if number.is_finite() else Decimal(0)


def _g(value: Any) -> str:
    """A number the way people write it: 1,600 / 0.995 / 400 (no trailing zeros)."""
    number = _num(value)
    if number == number.to_integral_value():
        return f"{int(number):,}"
    return f"{number.normalize():f}"


def _gap(req: Requirements, key: str, en: str, zh: str) -> Gap:
    return Gap(key, Message(f"rfq.gap_{key}", en, zh), key in req.mandatory)


def _gpu_gap(req: Requirements, terms: Mapping[str, Any]) -> Gap | None:
    gpu = str(terms.get("gpu") or "")
    if not req.gpu_models or gpu in req.gpu_models:
        return None
    keys = ", ".join(req.gpu_models)
    return _gap(req, "gpu", f"GPU {gpu or '—'} quoted, one of {keys} required.",
                f"报价 GPU 为 {gpu or '—'}，要求为 {keys} 之一。")  # fmt: skip


def _size_gaps(req: Requirements, terms: Mapping[str, Any]) -> list[Gap]:
    out = []
    nodes = int(_num(terms.get("nodes")))
    if nodes < req.nodes:
        out.append(_gap(req, "nodes", f"{nodes:,} servers quoted, {req.nodes:,} required.",
                        f"报价 {nodes:,} 台服务器，要求 {req.nodes:,} 台。"))  # fmt: skip
    per_node = _num(terms.get("nic_gbps")) * _num(terms.get("nics_per_node"))
    need = _num(req.min_internode_gbps)
    across = _across_racks(req, terms)
    if across is not None and across < per_node and across < need:
        # the RFQ's servers span racks: between racks a server gets its share of the uplink
        uplink, spr = _g(terms.get("rack_uplink_gbps")), _g(terms.get("servers_per_rack"))
        out.append(_gap(
            req, "bandwidth",
            f"{_g(per_node)} Gbit/s per server quoted, but the {_g(req.nodes)} servers span "
            f"racks and each rack's {uplink} Gbit/s uplink is shared by {spr} servers: "
            f"{_g(across)} Gbit/s per server between racks, {_g(need)} required.",
            f"每台服务器报价 {_g(per_node)} Gbit/s，但 {_g(req.nodes)} 台服务器跨机柜，每柜 "
            f"{uplink} Gbit/s 上行由 {spr} 台服务器分享：跨柜每台 {_g(across)} Gbit/s，"
            f"要求 {_g(need)} Gbit/s。",
        ))  # fmt: skip
    elif per_node < need:
        out.append(_gap(
            req, "bandwidth",
            f"{_g(per_node)} Gbit/s per server quoted, {_g(need)} required.",
            f"每台服务器报价 {_g(per_node)} Gbit/s，要求 {_g(need)} Gbit/s。",
        ))  # fmt: skip
    wanted = FABRIC_WANTED.get(req.fabric)
    fabric = str(terms.get("fabric") or "")
    if wanted and fabric not in wanted[0]:
        name = FABRIC_NAMES.get(fabric, fabric or "—")
        out.append(_gap(req, "fabric", f"Fabric {name} quoted, {wanted[1]} required.",
                        f"报价网络为 {name}，要求 {wanted[2]}。"))  # fmt: skip
    return out


def _across_racks(req: Requirements, terms: Mapping[str, Any]) -> Decimal | None:
    """Gbit/s per server between racks when the RFQ's servers do not fit in one rack of the
    bid (its rack uplink shared by the rack's servers), as the ranking counts it
    (domain/ranking/network.bandwidth); None when the bid states no rack or one rack holds them."""
    uplink, per_rack = terms.get("rack_uplink_gbps"), terms.get("servers_per_rack")
    if uplink in (None, "") or per_rack in (None, ""):
        return None
    spr = _num(per_rack)
    if spr <= 0 or req.nodes <= spr:
        return None
    return _num(uplink) / spr


def _contract_gaps(req: Requirements, terms: Mapping[str, Any]) -> list[Gap]:
    out = []
    availability = _num(terms.get("availability"))
    if availability < req.min_availability:
        a, m = _g(availability * 100), _g(Decimal(req.min_availability) * 100)
        out.append(_gap(req, "availability", f"SLA availability {a} % quoted, {m} % required.",
                        f"报价 SLA 可用性 {a}%，要求至少 {m}%。"))  # fmt: skip
    term = int(_num(terms.get("term_months")))
    if term != req.term_months:
        out.append(_gap(req, "term", f"Term of {term} months quoted, {req.term_months} asked.",
                        f"报价合同期 {term} 个月，要求 {req.term_months} 个月。"))  # fmt: skip
    trial = int(_num(terms.get("trial_days")))
    if trial < req.min_trial_days:
        need = req.min_trial_days
        out.append(_gap(req, "trial", f"Trial of {trial} days quoted, {need} required.",
                        f"报价试用期 {trial} 天，要求至少 {need} 天。"))  # fmt: skip
    return out


def bid_gaps(req: Requirements, terms: Mapping[str, Any]) -> tuple[Gap, ...]:
    """Every requirement the bid ``terms`` (the answer's stored JSON) fall short of, in the
    order of the RFQ form."""
    gpu = _gpu_gap(req, terms)
    return (
        tuple([gpu] if gpu else [])
        + tuple(_size_gaps(req, terms))
        + tuple(_contract_gaps(req, terms))
    )


def bid_standing(req: Requirements, terms: Mapping[str, Any]) -> Standing:
    """Conforming when no mandatory requirement is missed; otherwise knocked out, or ranked
    after every conforming bid when the RFQ says so (``req.nonconforming``)."""
    gaps = bid_gaps(req, terms)
    if not any(g.mandatory for g in gaps):
        return Standing(CONFORMING, gaps)
    return Standing(RANKED_LAST if req.nonconforming == RANK_LAST else KNOCKED_OUT, gaps)


def knocked_out_reason(standing: Standing) -> Message:
    """Why a bid is knocked out or ranked last: its mandatory gaps, in both languages."""
    gaps = standing.mandatory_gaps
    en = " ".join(g.message.en for g in gaps)
    zh = "".join(g.message.zh for g in gaps)
    if standing.status == RANKED_LAST:
        return Message(
            "rfq.ranked_last",
            f"Ranked after every conforming bid: fails a mandatory requirement. {en}",
            f"排在所有合规报价之后：未满足必备要求。{zh}",
        )
    return Message("rfq.knocked_out", f"Knocked out: fails a mandatory requirement. {en}",
                   f"已淘汰：未满足必备要求。{zh}")  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Awards to a bidder the rules block: refused, or overridden by a second admin with a reason

OVERRIDE_REASON_MISSING = Message(
    "award.override_reason",
    "Write why this bidder should be awarded anyway; the reason is audited and printed on the "
    "award.",
    "请写明为何仍授予该投标人；该理由将记入审计记录并显示在授标上。",
)
OVERRIDE_NEEDS_SECOND_ADMIN = Message(
    "award.override_second_admin",
    "This award overrides the rules: only a team admin other than the proposer can approve it.",
    "此授标越过了规则：只有提议人以外的团队管理员可以批准。",
)
OVERRIDE_NOT_CONFIRMED = Message(
    "award.override_unconfirmed",
    "This award overrides the rules: tick “I approve the override” to approve it.",
    "此授标越过了规则：请勾选“我批准越权授标”后再批准。",
)


def award_refusal(blockers: Sequence[Message]) -> Message:
    """The refusal of an award to a blocked bidder: why in one line each (the policy's findings
    are counted, not repeated: the evaluation lists them), and the way out."""
    excluded = sum(1 for m in blockers if m.code == "risk_excluded")
    others = [m for m in blockers if m.code != "risk_excluded"]
    en = [m.en for m in others]
    zh = [m.zh for m in others]
    if excluded:
        en.append(
            f"Excluded by the team's risk policy: {excluded} finding(s), listed in the evaluation."
        )
        zh.append(f"被团队风险策略排除：{excluded} 项问题，详见评估表。")
    return Message(
        "award.blocked",
        "An award to this bidder is refused. " + " ".join(en)
        + " To award it anyway, give a written override reason; a second team admin must "
        "approve the override.",
        "不能授标给该投标人。" + "".join(zh)
        + "如仍要授标，请填写越权理由，并由另一位团队管理员批准。",
    )  # fmt: skip


def override_approval_refusal(
    *, proposer_id: int | None, approver_id: int, approver_is_admin: bool, confirmed: bool
) -> Message | None:
    """Why an overriding award cannot be approved by this person (None: it can)."""
    if not approver_is_admin or approver_id == proposer_id:
        return OVERRIDE_NEEDS_SECOND_ADMIN
    if not confirmed:
        return OVERRIDE_NOT_CONFIRMED
    return None


# --- A team's minimum delivery standing for invitations ---

STANDING_WARN = "warn"
STANDING_BLOCK = "block"


@dataclass(frozen=True)
class StandingBasis:
    """One evaluated contract behind a vendor's delivered ÷ committed figure."""

    title: str
    ratio: float | None


@dataclass(frozen=True)
class StandingVerdict:
    """What the team's rule says about inviting a vendor: ``blocked`` refuses the invitation,
    otherwise ``message`` is a warning shown with it."""

    blocked: bool
    message: Message


def _pct(value: float) -> str:
    return f"{value * 100:.0f} %"


def invitation_standing(
    *,
    vendor: str,
    delivered_ratio: float | None,
    minimum: float | None,
    mode: str,
    basis: Sequence[StandingBasis] = (),
) -> StandingVerdict | None:
    """The team's rule "warn or block inviting a vendor that delivered less than ``minimum`` of
    the bandwidth it signed for" applied to one vendor (None: nothing to say). A vendor without
    an evaluated contract has no standing: it is never held back by this rule. At exactly the
    minimum the vendor meets it."""
    if minimum is None or delivered_ratio is None or delivered_ratio >= minimum:
        return None
    shown = [b for b in basis if b.title][:5]
    en_list = "; ".join(f"{b.title} ({_pct(b.ratio)})" if b.ratio is not None else b.title
                        for b in shown)  # fmt: skip
    zh_list = "；".join(f"{b.title}（{_pct(b.ratio)}）" if b.ratio is not None else b.title
                        for b in shown)  # fmt: skip
    more = len([b for b in basis if b.title]) - len(shown)
    en_from = f" From: {en_list}{f' and {more} more' if more > 0 else ''}." if shown else ""
    zh_from = f"依据：{zh_list}{f' 等另 {more} 份' if more > 0 else ''}。" if shown else ""
    ratio, floor = _pct(delivered_ratio), _pct(minimum)
    blocked = mode == STANDING_BLOCK
    if blocked:
        en = (f"{vendor} delivered {ratio} of the bandwidth it committed to in your contracts, "
              f"below your team's minimum of {floor}: your team's rule refuses to invite it."
              f"{en_from}")  # fmt: skip
        zh = (f"{vendor} 在贵团队合同中实际交付的带宽仅为承诺的 {ratio}，低于团队设定的最低标准 "
              f"{floor}：按团队规则不能邀请该供应商。{zh_from}")  # fmt: skip
        code = "rfq.invite_below_standing_blocked"
    else:
        en = (f"{vendor} delivered {ratio} of the bandwidth it committed to in your contracts, "
              f"below your team's minimum of {floor}: invited, but weigh its claims with care."
              f"{en_from}")  # fmt: skip
        zh = (f"{vendor} 在贵团队合同中实际交付的带宽仅为承诺的 {ratio}，低于团队设定的最低标准 "
              f"{floor}：已邀请，请审慎看待其承诺。{zh_from}")  # fmt: skip
        code = "rfq.invite_below_standing_warning"
    return StandingVerdict(blocked=blocked, message=Message(code=code, en=en, zh=zh))
