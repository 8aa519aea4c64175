"""Risk in the decision: what a team's policy does with an offer's due-diligence findings.

Every severity of finding (the vendor red flags of ``domain.credentials_rules``: ``critical``,
``warning``, ``info``) gets one action from the team's :class:`RiskPolicy`:

- ``exclude``: the offer is shown, explained, and never recommended;
- ``premium``: the offer is ranked with a risk mark, and its cost carries a risk premium;
- ``mark``: the offer is ranked with a visible risk mark only;
- ``ignore``: the finding does not count in the ranking (it still shows on the vendor page).

Unverified claims count as risk, not as facts: a multi-node offer whose inter-node bandwidth is
nominal (no accepted benchmark evidence) carries the risk ``bandwidth_unverified`` at the severity
the policy gives it (default ``warning``), and a NIC port claimed faster than any shipping port
(:data:`MAX_NIC_PORT_GBPS`) is ``claim_implausible``, critical: such a figure is a typing error or a
made-up quote. Unverified licences, SLAs and networks are already findings
(``licence_unverified``, ``sla_unverified``…).

Risk premium (the expected cost of an SLA breach or a re-procurement), per offer:

    premium_pct   = min(cap_pct, sum of premium_pct of each finding whose action is ``premium``)
    premium_money = sum of premium_cny_month of the same findings (CNY per month)
    risk-adjusted cost per ETH = cost_per_eth * (1 + premium_pct / 100)
                                 + premium_money (in the result currency) / 730 / eth_per_hour

The default (``warning``: 2 % per finding, capped at 20 %) reads as: a warning-level issue has about
a one-in-four chance of forcing an SLA dispute or a re-procurement that costs about one month of a
twelve-month term (8 %), so 2 % of the cost is its expected price. Teams change it in the admin.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from domain import money as money_rule
from domain.messages import Message

HOURS_PER_MONTH = float(money_rule.HOURS_PER_MONTH)  # the money rule's month (domain/money.py)
SEVERITIES = ("critical", "warning", "info")
ACTIONS = ("exclude", "premium", "mark", "ignore")
_ACTION_WEIGHT = {"ignore": 0, "mark": 1, "premium": 2, "exclude": 3}
_SEVERITY_ORDER = {s: i for i, s in enumerate(SEVERITIES)}
SEVERITY_NAMES = {
    "critical": ("critical", "严重"),
    "warning": ("warning", "警告"),
    "info": ("notice", "提示"),
}
# The fastest NIC ports shipping (XDR InfiniBand, 800GbE) run at 800 Gbit/s.
MAX_NIC_PORT_GBPS = 800.0


@dataclass(frozen=True, slots=True)
class SeverityRule:
    """What one severity of finding does; premiums count per finding (see the module doc)."""

    action: str
    premium_pct: float = 0.0
    premium_cny_month: float = 0.0


@dataclass(frozen=True, slots=True)
class RiskPolicy:
    critical: SeverityRule
    warning: SeverityRule
    info: SeverityRule
    unverified_bandwidth: str = "warning"  # severity of a nominal (unbenchmarked) bandwidth
    premium_cap_pct: float = 20.0
    # Logs a vendor supplied as they came (not witnessed by the team, not carrying the RFQ kit's
    # token) prove no more than the vendor's word: the team may count them as a claim.
    supplied_evidence_is_claim: bool = False

    def rule(self, severity: str) -> SeverityRule:
        rule: SeverityRule = getattr(self, severity)
        return rule


DEFAULT_POLICY = RiskPolicy(
    critical=SeverityRule("exclude"),
    warning=SeverityRule("premium", premium_pct=2.0),
    info=SeverityRule("mark"),
)


@dataclass(frozen=True, slots=True)
class RiskItem:
    """One risk of one offer: a vendor finding or an unverified claim."""

    code: str
    severity: str
    message: Message
    subject: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"severity": self.severity, "subject": self.subject, **self.message.as_dict()}


@dataclass(frozen=True, slots=True)
class Assessment:
    """An offer under a policy: eligible or not, its risk marks, reasons and premium."""

    eligible: bool
    action: str  # the heaviest action applied: exclude > premium > mark > none
    marks: tuple[RiskItem, ...]  # every risk the policy does not ignore, most severe first
    reasons: tuple[Message, ...]  # why excluded, what the premium is, what is marked
    premium_pct: float
    premium_cny_month: float


# ---------------------------------------------------------------------------------------------
# Policy problems and dict form (the snapshot and the admin store it as plain values)


def policy_problems(policy: RiskPolicy) -> list[Message]:
    """What is wrong with a policy, in both languages; empty when it can be used."""
    out: list[Message] = []
    for severity in SEVERITIES:
        rule = policy.rule(severity)
        if rule.action not in ACTIONS:
            out.append(
                Message(
                    "policy_action",
                    f"Unknown action {rule.action!r} for {severity}.",
                    f"{severity} 的处理方式 {rule.action!r} 无效。",
                )
            )
        if not 0 <= rule.premium_pct <= 100 or rule.premium_cny_month < 0:
            out.append(
                Message(
                    "policy_premium",
                    f"The {severity} premium must be 0-100 % and a money amount of 0 or more.",
                    f"{severity} 的风险溢价须为 0–100%，金额须不小于 0。",
                )
            )
    if policy.unverified_bandwidth not in (*SEVERITIES, "none"):
        out.append(
            Message(
                "policy_unverified",
                "Unverified bandwidth needs a severity or 'none'.",
                "未验证带宽须指定严重程度或“none”。",
            )
        )
    amounts = [policy.premium_cap_pct]
    for severity in SEVERITIES:
        amounts += [policy.rule(severity).premium_pct, policy.rule(severity).premium_cny_month]
    if any(x != 0 and abs(x) < sys.float_info.min for x in amounts):  # 1e-320: float noise
        out.append(
            Message(
                "policy_subnormal",
                "A premium or cap is too close to 0 to be a real value (e.g. 1e-320): enter 0 "
                "or a usual value.",
                "风险溢价或上限过于接近 0（如 1e-320），不是有效数值：请输入 0 或常见数值。",
            )
        )
    if not 0 <= policy.premium_cap_pct <= 100:
        out.append(
            Message("policy_cap", "The premium cap must be 0-100 %.", "风险溢价上限须为 0–100%。")
        )
    return out


def policy_to_dict(policy: RiskPolicy) -> dict[str, Any]:
    rules = {
        s: {
            "action": r.action,
            "premium_pct": r.premium_pct,
            "premium_cny_month": r.premium_cny_month,
        }
        for s in SEVERITIES
        for r in [policy.rule(s)]
    }
    return {
        **rules,
        "unverified_bandwidth": policy.unverified_bandwidth,
        "premium_cap_pct": policy.premium_cap_pct,
        "supplied_evidence_is_claim": policy.supplied_evidence_is_claim,
    }


def policy_from_dict(data: Mapping[str, Any] | None) -> RiskPolicy:
    """A policy from its dict form; missing parts take the default's values."""
    if not data:
        return DEFAULT_POLICY
    base = policy_to_dict(DEFAULT_POLICY)
    rules = {}
    for s in SEVERITIES:
        r = {**base[s], **(data.get(s) or {})}
        rules[s] = SeverityRule(
            str(r["action"]), float(r["premium_pct"]), float(r["premium_cny_month"])
        )
    return RiskPolicy(
        **rules,
        unverified_bandwidth=str(data.get("unverified_bandwidth", base["unverified_bandwidth"])),
        premium_cap_pct=float(data.get("premium_cap_pct", base["premium_cap_pct"])),
        supplied_evidence_is_claim=data.get("supplied_evidence_is_claim") is True,
    )


# ---------------------------------------------------------------------------------------------
# Risks of one offer


# Findings about the fabric between servers: they judge an offer for multi-node training
# (gradient synchronisation), not for serving, where each replica runs inside its servers and
# traffic leaves through the public uplink. A serving ranking leaves them out; every other
# finding (entity, licence, data centre, SLA) applies to every kind of workload.
TRAINING_ONLY_CODES = frozenset({
    "roce_without_pfc", "roce_pfc_unknown", "roce_without_ecn", "roce_ecn_unknown",
    "roce_without_dcqcn", "roce_dcqcn_unknown", "network_fabric_unknown", "network_tcp_only",
    "network_three_tier", "network_topology_unknown", "network_mgmt_not_separated",
    "network_mgmt_unknown", "network_nic_below_training_floor", "network_nic_below_8gpu",
    "cross_site_links_missing",
})  # fmt: skip
WORKLOAD_KINDS = ("training", "serving")


def applies_to(item: RiskItem, kind: str) -> bool:
    """Whether a finding bears on a workload of this kind ("training" or "serving")."""
    return kind == "training" or item.code not in TRAINING_ONLY_CODES


def finding_item(data: Mapping[str, str]) -> RiskItem:
    """A vendor finding as stored in a snapshot: ``{code, severity, subject, en, zh}``."""
    severity = data.get("severity", "critical")
    return RiskItem(
        code=data["code"],
        severity=severity if severity in SEVERITIES else "critical",
        message=Message(data["code"], data["en"], data["zh"]),
        subject=data.get("subject", ""),
    )


def bandwidth_unverified(nominal_gbps: float) -> RiskItem:
    return RiskItem(
        "bandwidth_unverified",
        "warning",
        Message(
            "bandwidth_unverified",
            f"The {nominal_gbps:g} Gbit/s per server is claimed, not verified by benchmark "
            "evidence: the ranking counts it as a risk, not as a fact.",
            f"每台服务器 {nominal_gbps:g} Gbit/s 仅为声称值，未经测试证据验证：排名将其视为风险，"
            "而非事实。",
        ),
    )


def bandwidth_supplied_only(measured_gbps: float) -> RiskItem:
    return RiskItem(
        "bandwidth_supplied_only",
        "warning",
        Message(
            "bandwidth_supplied_only",
            f"The {measured_gbps:,.0f} Gbit/s per server rests only on logs the vendor supplied "
            "(not run by the team, no RFQ kit token): the team's policy counts supplied evidence "
            "as a claim.",
            f"每台服务器 {measured_gbps:,.0f} Gbit/s 仅依据供应商自行提供的日志（非本团队运行，"
            "也无询价测试包令牌）：团队的风险策略将供应商提供的证据视为声称值。",
        ),
    )


def counts_as_verified(*, measured: bool, trust: str | None, policy: RiskPolicy) -> bool:
    """Whether an offer's bandwidth counts as verified: measured, and under the policy "supplied
    evidence counts as a claim" backed by at least one witnessed or kit-verified log's figure
    (``trust`` is the weakest level of the logs behind the figure)."""
    return measured and not (policy.supplied_evidence_is_claim and trust == "supplied")


def nic_implausible(nic_gbps: float) -> RiskItem:
    return RiskItem(
        "claim_implausible",
        "critical",
        Message(
            "claim_implausible",
            f"A {nic_gbps:,.0f} Gbit/s NIC port does not exist (the fastest ports run at "
            f"{MAX_NIC_PORT_GBPS:g} Gbit/s): the quote is wrong or made up. Correct it from the "
            "vendor's written offer.",
            f"不存在 {nic_gbps:,.0f} Gbit/s 的网卡端口（目前最快为 {MAX_NIC_PORT_GBPS:g} Gbit/s）："
            "报价有误或为虚构，请按供应商书面报价更正。",
        ),
    )


def offer_risks(
    findings: Iterable[RiskItem],
    *,
    nic_gbps: float,
    nominal_gbps: float,
    bandwidth_measured: bool,
    nodes_used: int,
    policy: RiskPolicy,
    evidence_trust: str | None = None,
    measured_gbps: float | None = None,
) -> tuple[RiskItem, ...]:
    """The vendor findings that concern an offer plus the risks of its unverified claims.

    ``evidence_trust`` is the weakest trust level of the logs behind a measured figure
    (domain.evidence.trust): under ``supplied_evidence_is_claim`` a figure resting only on
    supplied logs carries the unverified-bandwidth risk too, under its own name."""
    out = list(findings)
    if nic_gbps > MAX_NIC_PORT_GBPS:
        out.append(nic_implausible(nic_gbps))
    if nodes_used > 1 and policy.unverified_bandwidth in SEVERITIES:
        item = None
        if not bandwidth_measured:
            item = bandwidth_unverified(nominal_gbps)
        elif not counts_as_verified(measured=True, trust=evidence_trust, policy=policy):
            item = bandwidth_supplied_only(measured_gbps or nominal_gbps)
        if item is not None:
            out.append(RiskItem(item.code, policy.unverified_bandwidth, item.message))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The rule


def assess(risks: Sequence[RiskItem], policy: RiskPolicy = DEFAULT_POLICY) -> Assessment:
    """Apply a policy to an offer's risks (cached: offers of one vendor share their risks)."""
    return _assess(tuple(risks), policy)


@lru_cache(maxsize=4096)
def _assess(risks: tuple[RiskItem, ...], policy: RiskPolicy) -> Assessment:
    unique = sorted(dict.fromkeys(risks), key=lambda r: _SEVERITY_ORDER[r.severity])
    by_action: dict[str, list[RiskItem]] = {a: [] for a in ACTIONS}
    for item in unique:
        by_action[policy.rule(item.severity).action].append(item)
    pct = min(
        policy.premium_cap_pct,
        sum(policy.rule(i.severity).premium_pct for i in by_action["premium"]),
    )
    money = sum(policy.rule(i.severity).premium_cny_month for i in by_action["premium"])
    marks = tuple(i for i in unique if policy.rule(i.severity).action != "ignore")
    action = max(
        (policy.rule(i.severity).action for i in marks),
        key=_ACTION_WEIGHT.__getitem__,
        default="none",
    )
    reasons = [_excluded(i) for i in by_action["exclude"]]
    # an excluded offer is not ranked at all: no "ranked with a premium / a mark" line beside
    # its reason (its findings stay listed as its marks)
    if by_action["premium"] and not by_action["exclude"]:
        reasons.append(_premium(len(by_action["premium"]), pct, money))
    if by_action["mark"] and not by_action["exclude"]:
        reasons.append(_marked(by_action["mark"]))
    return Assessment(not by_action["exclude"], action, marks, tuple(reasons), pct, money)


def _excluded(item: RiskItem) -> Message:
    en, zh = SEVERITY_NAMES[item.severity]
    return Message(
        "risk_excluded",
        f"Not eligible: the team's risk policy excludes offers with a {en} finding. "
        + item.message.en,
        f"不合格：团队风险策略排除有{zh}问题的报价。{item.message.zh}",
    )


def _findings(count: int) -> str:
    return f"{count} finding" if count == 1 else f"{count} findings"


def _premium(count: int, pct: float, money: float) -> Message:
    money_en = f" + {money:,.0f} CNY/month" if money else ""
    money_zh = f" + 每月 {money:,.0f} 元" if money else ""
    return Message(
        "risk_premium",
        f"Ranked with a risk premium of {pct:g}% of its cost{money_en} for {_findings(count)}: "
        "the expected cost of an SLA breach or a re-procurement.",
        f"因 {count} 项问题计入风险溢价：成本的 {pct:g}%{money_zh}，即违约或重新采购的预期成本。",
    )


def _marked(items: Sequence[RiskItem]) -> Message:
    # the findings themselves are listed beside this line (the offer's risk marks): their count
    # here, never their internal codes
    return Message(
        "risk_marked",
        f"Ranked with a risk mark for {_findings(len(items))}; no premium.",
        f"因 {len(items)} 项问题标注风险；不计溢价。",
    )


def risk_adjusted(
    cost_per_eth: float, eth_per_hour: float, premium_pct: float, premium_month: float
) -> float:
    """Cost per ETH with the premium (``premium_month`` in the result's currency per month)."""
    extra = premium_month / HOURS_PER_MONTH / eth_per_hour if premium_month else 0.0
    return cost_per_eth * (1.0 + premium_pct / 100.0) + extra
