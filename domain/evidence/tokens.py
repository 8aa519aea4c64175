"""Challenge tokens: a log produced for a sourcing event carries a token the buyer issued.

The RFQ's benchmark kit gives each invited supplier one token per test, printed into the log
(iperf3 ``--title`` / ``--extra-data``; for perftest and nccl-tests an echoed line with ``date``
lines before and after the run). The token is an HMAC of (RFQ, invitation, test) under the
portal's secret, so it cannot be made up or moved to another supplier, RFQ or test; the log's own
start time must fall after the RFQ was published and before its deadline, and its hosts among
those the bid names (when it names any).
"""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import dataclass

from domain.evidence.trust_facts import TOKEN_RE, RawFacts
from domain.messages import Message

VERIFIED = "verified"
ABSENT = "absent"
REFUSED = "refused"


def test_of_tool(tool: str) -> str:
    """The kit's test name for a parsed log's tool (nccl-tests' binaries are one test)."""
    return "nccl" if tool.endswith("_perf") else tool


def _mac(secret: bytes, rfq_id: int, invitation_id: int, test: str) -> str:
    data = f"{rfq_id}:{invitation_id}:{test}".encode()
    return hmac.new(secret, data, hashlib.sha256).hexdigest()[:16]


def issue(secret: bytes, rfq_id: int, invitation_id: int, test: str) -> str:
    return f"GPK-{rfq_id}-{invitation_id}-{test}-{_mac(secret, rfq_id, invitation_id, test)}"


@dataclass(frozen=True)
class Challenge:
    """What a log uploaded for one RFQ answer must show."""

    rfq_id: int
    invitation_id: int
    published_at_s: float | None
    deadline_s: float
    bid_hosts: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Outcome:
    status: str
    findings: tuple[Message, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"status": self.status, "findings": [m.as_dict() for m in self.findings]}


def _refuse(code: str, en: str, zh: str) -> Outcome:
    return Outcome(REFUSED, (Message(f"challenge.{code}", en, zh),))


def _token_problem(secret: bytes, token: str, want: Challenge, test: str) -> Outcome | None:
    match = TOKEN_RE.fullmatch(token)
    if match is None:
        return _refuse("malformed", "The challenge token is malformed.", "挑战令牌格式不正确。")
    rfq, invitation, named, mac = int(match[1]), int(match[2]), match[3], match[4]
    if not hmac.compare_digest(mac, _mac(secret, rfq, invitation, named)):
        return _refuse(
            "forged",
            "The challenge token was not issued by this portal.",
            "该挑战令牌并非本平台签发。",
        )
    if rfq != want.rfq_id:
        return _refuse(
            "other_rfq", "The challenge token belongs to another RFQ.", "该挑战令牌属于另一个询价。"
        )
    if invitation != want.invitation_id:
        return _refuse(
            "other_supplier",
            "The challenge token was issued to another supplier.",
            "该挑战令牌签发给了另一家供应商。",
        )
    if named != test:
        return _refuse(
            "other_test",
            f"The challenge token is for the {named} test, but this log is {test}.",
            f"该挑战令牌用于 {named} 测试，而此日志是 {test}。",
        )
    return None


def _window(
    facts: RawFacts, start_s: float | None, duration_s: float | None
) -> tuple[float, float] | None:
    start = facts.start_epoch_s or (facts.dates[0] if facts.dates else None) or start_s
    if start is None:
        return None
    end = facts.dates[-1] if len(facts.dates) > 1 else start + (duration_s or 0.0)
    return start, max(start, end)


def _time_problem(window: tuple[float, float] | None, want: Challenge) -> Outcome | None:
    if window is None:
        return _refuse(
            "no_time",
            "The log states no start time (the kit's date lines are missing).",
            "日志没有开始时间（缺少测试包要求的 date 行）。",
        )
    start, end = window
    # The tools print whole seconds (iperf3's timesecs, `date`): a test started in the second the
    # RFQ was published is not "before" it.
    if want.published_at_s is not None and start < math.floor(want.published_at_s):
        return _refuse(
            "before_publication",
            "The test ran before the RFQ was published.",
            "该测试在询价发布之前运行。",
        )
    if end > want.deadline_s:
        return _refuse(
            "after_deadline", "The test ran after the RFQ's deadline.", "该测试在询价截止之后运行。"
        )
    return None


def _host_problem(hosts: tuple[str, ...], want: Challenge) -> Outcome | None:
    if not want.bid_hosts:
        return None
    if not hosts:
        return _refuse("no_hosts", "The log names no host.", "日志中没有主机信息。")
    outside = [h for h in hosts if h not in want.bid_hosts]
    if outside:
        names = ", ".join(outside[:5])
        return _refuse(
            "other_hosts",
            f"The log ran on hosts the bid does not name: {names}.",
            f"日志运行在报价未列出的主机上：{names}。",
        )
    return None


def verify(
    secret: bytes,
    want: Challenge,
    facts: RawFacts,
    *,
    tool: str,
    start_s: float | None = None,
    duration_s: float | None = None,
) -> Outcome:
    """Check the log's token, time window and hosts against the RFQ answer it was uploaded to."""
    tokens = [t for t in (*facts.tokens, facts.title or "", facts.extra_data or "") if t]
    if not tokens:
        return Outcome(
            ABSENT,
            (
                Message(
                    "challenge.absent",
                    "The log carries no challenge token from the RFQ's kit.",
                    "日志中没有询价测试包签发的挑战令牌。",
                ),
            ),
        )
    test = test_of_tool(tool)
    problem = _token_problem(secret, tokens[0].strip(), want, test)
    problem = problem or _time_problem(_window(facts, start_s, duration_s), want)
    problem = problem or _host_problem(facts.hosts, want)
    return problem or Outcome(VERIFIED)
