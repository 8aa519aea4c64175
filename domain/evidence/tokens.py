"""Challenge tokens: a log produced for a sourcing event carries a token the buyer issued.

The RFQ's benchmark kit gives each invited supplier one token per test, printed into the log
(iperf3 ``--title`` / ``--extra-data``; for perftest and nccl-tests an echoed line with ``date``
lines before and after the run). The token is an HMAC of (RFQ, invitation, test) under the
portal's secret, so it cannot be made up or moved to another supplier, RFQ or test; the log's own
start time must fall after the RFQ was published and before its deadline, and its hosts among
those the bid names (when it names any).

A token alone could be typed on top of any log. So the token also *shapes* the test: the kit's
parameters are derived from it (``expected_parameters``): perftest's message size ``-s`` and
iteration count ``-n``, iperf3's block size ``-l``, seconds ``-t`` and server ports ``-p``,
nccl-tests' ``-b`` / ``-e`` / ``-n``; and the log's own printed parameters must be those
(``parameter_problem``). A public log with a typed token and date lines ran with its own sizes
and counts, so it does not match its challenge.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import dataclass

from domain.evidence.hosts import BidHost
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
    bid_hosts: tuple[BidHost, ...] = ()
    # The RFQ kit's seconds per test and pairs (iperf3's -t and its ports); None: not checked.
    kit_duration_s: int | None = None
    kit_pairs: int | None = None


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


def log_host_names(facts: RawFacts) -> tuple[str, ...]:
    """The hosts a log says it ran on: the kit script's ``GPK-HOST`` lines and nccl-tests' rank
    lines (addresses are not host names and are not compared)."""
    names = [name for name, _ids in facts.host_facts]
    names += [r.split()[2] for r in facts.ranks if len(r.split()) >= 4]
    return tuple(dict.fromkeys(names))


def _host_problem(facts: RawFacts, want: Challenge) -> Outcome | None:
    if not want.bid_hosts:
        return None
    names = log_host_names(facts)
    if not names:
        return _refuse(
            "no_hosts",
            "The log records no host (the kit's script prints a GPK-HOST line), so it cannot be "
            "matched to the bid's host list.",
            "日志没有记录主机信息（测试包脚本会打印 GPK-HOST 行），无法与报价的主机清单核对。",
        )
    listed = {h.name: h for h in want.bid_hosts}
    outside = [h for h in names if h not in listed]
    if outside:
        shown = ", ".join(outside[:5])
        return _refuse(
            "other_hosts",
            f"The log ran on hosts the bid does not name: {shown}.",
            f"日志运行在报价未列出的主机上：{shown}。",
        )
    # The hardware the bid lists for a host must be the hardware the log's host reports (a
    # host also reports interfaces the bid need not list: bridges, management ports).
    for name, ids in facts.host_facts:
        missing = [i for i in listed[name].ids if i not in set(ids)]
        if missing:
            shown = ", ".join(missing[:3])
            return _refuse(
                "other_hardware",
                f"The host {name} does not report the NICs or GPUs the bid lists for it: {shown}.",
                f"主机 {name} 未报告报价为其列出的网卡或 GPU：{shown}。",
            )
    return None


@dataclass(frozen=True)
class KitParameters:
    """What a kit test runs with, derived from its token (``expected_parameters``)."""

    test: str
    message_bytes: int  # perftest -s; nccl-tests -b (minBytes)
    iterations: int  # perftest -n; nccl-tests -n
    port: int  # the first pair's port; pair i uses port + i
    blksize: int = 0  # iperf3 -l
    seconds: int = 0  # iperf3 -t
    max_bytes: int = 0  # nccl-tests -e

    def flags(self) -> str:
        """The derived parameters as the tool's own flags (the same in both languages)."""
        if self.test == "iperf3":
            return f"-l {self.blksize} -t {self.seconds} -p {self.port}…"
        if self.test == "nccl":
            return f"-b {self.message_bytes} -e {self.max_bytes} -n {self.iterations}"
        return f"-s {self.message_bytes} -n {self.iterations}"


def _draws(token: str) -> list[int]:
    digest = hashlib.sha256(b"gpk-kit-parameters:" + token.encode()).digest()
    return [int.from_bytes(digest[i : i + 2], "big") for i in range(0, 16, 2)]


def expected_parameters(token: str, *, duration_s: int = 60) -> KitParameters:
    """The parameters the kit runs a test with, derived from its token alone (and the RFQ's
    seconds per test for iperf3): anyone holding the token gets the same ones, and a log run
    without the kit's commands practically never shows them. Ports stay below the ephemeral
    range (iperf3 10000–19255, ib_write_bw 20000–24255, ib_write_lat 25000–29255 with 256
    pairs), so the servers of one host never collide."""
    match = TOKEN_RE.fullmatch(token.strip())
    test = match[3] if match else ""
    d = _draws(token.strip())
    if test == "iperf3":
        return KitParameters(
            test, 0, 0, port=10000 + d[2] % 9000, blksize=131072 + 4096 * (d[3] % 32),
            seconds=duration_s + d[4] % 10 if duration_s else 0,
        )  # fmt: skip
    if test == "nccl":
        return KitParameters(
            test, message_bytes=2 ** (10 + d[0] % 8), iterations=20 + d[1] % 31, port=0,
            max_bytes=2 ** (30 + d[5] % 3),
        )  # fmt: skip
    if test.endswith("_lat"):
        return KitParameters(
            test, message_bytes=2 ** (1 + d[0] % 6), iterations=50000 + d[1] % 50000,
            port=25000 + d[2] % 4000,
        )  # fmt: skip
    return KitParameters(
        test, message_bytes=2 ** (16 + d[0] % 5), iterations=20000 + d[1] % 30000,
        port=20000 + d[2] % 4000,
    )  # fmt: skip


def _printed(facts: RawFacts, test: str) -> str:
    """The parameters the log itself printed, as the tool's flags."""
    v = facts.printed_values
    if test == "iperf3":
        parts = [f"-l {b}" for b in v("iperf3_blksize")] + [f"-t {t}" for t in v("iperf3_duration")]
        parts += [f"-p {p}" for p in v("iperf3_port")[:3]]
    elif test == "nccl":
        parts = [f"-b {b}" for b in v("nccl_min_bytes")] + [f"-e {e}" for e in v("nccl_max_bytes")]
        parts += [f"-n {n}" for n in v("nccl_iters")]
    else:
        sizes = v("perftest_bytes")
        parts = [f"-s {s}" for s in sizes[:3]] + (["…"] if len(sizes) > 3 else [])
        parts += [f"-n {n}" for n in v("perftest_iters")[:3]]
    return " ".join(parts)


def _matches(want: KitParameters, facts: RawFacts, pairs: int | None) -> bool:
    v = facts.printed_values
    if want.test == "iperf3":
        ports = v("iperf3_port")
        top = want.port + (pairs or 256)
        return (
            v("iperf3_blksize") == (want.blksize,)
            and (not want.seconds or v("iperf3_duration") == (want.seconds,))
            and bool(ports)
            and all(want.port <= p < top for p in ports)
        )
    if want.test == "nccl":
        return (
            v("nccl_min_bytes") == (want.message_bytes,)
            and v("nccl_max_bytes") == (want.max_bytes,)
            and v("nccl_iters") == (want.iterations,)
        )
    # perftest prints the iterations of one queue pair or of all of them (-q), by version.
    counts = {want.iterations} | {want.iterations * q for q in v("perftest_qps")}
    iters = v("perftest_iters")
    return v("perftest_bytes") == (want.message_bytes,) and bool(iters) and set(iters) <= counts


def parameter_problem(
    token: str, facts: RawFacts, *, duration_s: int | None, pairs: int | None
) -> Outcome | None:
    """None when the log printed the parameters its token derives; else why not."""
    want = expected_parameters(token, duration_s=duration_s or 0)
    if want.test not in ("iperf3", "nccl") and not want.test.startswith("ib_"):
        return None
    if _matches(want, facts, pairs):
        return None
    got = _printed(facts, want.test) or "—"
    return _refuse(
        "parameters",
        f"The log ran with {got}; this token's kit runs {want.flags()}: the log was not "
        "produced by the kit's commands (a token typed on top of another log).",
        f"日志的运行参数为 {got}；该令牌对应的测试包参数为 {want.flags()}：此日志并非按测试包"
        "命令运行得到（像是在别的日志上加了令牌）。",
    )


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
    token = tokens[0].strip()
    problem = _token_problem(secret, token, want, test)
    problem = problem or parameter_problem(
        token, facts, duration_s=want.kit_duration_s, pairs=want.kit_pairs
    )
    problem = problem or _time_problem(_window(facts, start_s, duration_s), want)
    problem = problem or _host_problem(facts, want)
    return problem or Outcome(VERIFIED)
