"""The one admission rule: which logs may speak for an offer's bandwidth (DOMAIN.md §9).

Every log of an offer is admitted, or set aside with its reasons. A set-aside log is evidence of
something, but not of this offer's bandwidth: it is shown with the reason and never feeds a
figure, a tail (P5) or a range. Reasons, each checked on the evidence record
(``domain.evidence.record``):

- ``inconsistent``: the tool's own arithmetic does not add up (``integrity.py``);
- ``reused``: the same test (fingerprint: iperf3 cookie, perftest QPN/PSN, nccl-tests pids and
  row times) is held as another offer's evidence, or the same body is already held by the team
  (a copy with white space or a pasted token added);
- ``loopback``: both ends are one: the same address, a loopback address (127.0.0.0/8, ::1), the
  same LID or GID; ``one_host``: a collective inside one host (NVLink/PCIe, not the network);
- ``other_gpu``: nccl-tests' rank lines name a GPU model other than the offer's;
- ``other_port``: ``ibstatus`` / ``ibv_devinfo`` / ``ethtool`` output in the log states a port
  rate other than the offer's;
- ``above_line_rate``: a one-port test shows more than the port's data rate after line encoding
  (``linkrates.py``), beyond the tools' measurement error (``LINE_RATE_ERROR``);
- ``outside_window``: the test ran outside the window it claims (its own clock against the date
  lines around it, or the RFQ window its token answers);
- ``udp_at_rate``: UDP at a rate set with ``-b`` measures loss and jitter, not capacity;
- ``latency``: a latency test says nothing of bandwidth;
- ``no_figure``: the log gave no figure (an error, a failed test).

The offer's figure is then derived once, from the admitted logs only (``offer_evidence``), with
one sentence in both languages saying which logs gave it and why the others were set aside.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass

from domain.evidence import texts
from domain.evidence.linkrates import data_rate_gbps
from domain.evidence.offer import OfferFigure, OfferPorts, derive
from domain.evidence.record import EvidenceRecord
from domain.evidence.reuse import identities
from domain.evidence.scope import (
    COLLECTIVE_BUSBW,
    ONE_HOST,
    ONE_PORT,
    RDMA_BANDWIDTH,
    RDMA_LATENCY,
    TCP_THROUGHPUT,
    UDP_AT_RATE,
    Evidence,
    describe,
)
from domain.evidence.sets import link_of, overlapping_clusters, shared_link
from domain.messages import Message

# The tools' own figures are exact to well under 1 % (iperf3 counts bytes over its own timer,
# perftest cycles over the CPU clock); 2 % leaves room for both ends' clocks and rounding.
LINE_RATE_ERROR = 0.02
# A port rate printed by ibstatus / ethtool matches the offer's within rounding (56 vs 56.25).
_PORT_MATCH = 0.01
# Date lines are whole seconds; the tool's clock may lag them by a second.
_WINDOW_SLACK_S = 2.0
_NO_LID = {"0", "0000", "0x0", "0x0000", "0x00"}

INCONSISTENT = "inconsistent"
REUSED = "reused"
LOOPBACK = "loopback"
ONE_HOST_COLLECTIVE = "one_host"
OTHER_GPU = "other_gpu"
OTHER_PORT = "other_port"
ABOVE_LINE_RATE = "above_line_rate"
OUTSIDE_WINDOW = "outside_window"
UDP = "udp_at_rate"
LATENCY = "latency"
NO_FIGURE = "no_figure"

# Short names of the reasons, for the one sentence every surface prints.
SHORT = {
    INCONSISTENT: ("arithmetic does not add up", "数据自相矛盾"),
    REUSED: ("already held", "已被使用过"),
    LOOPBACK: ("loopback or one host", "回环或单机"),
    ONE_HOST_COLLECTIVE: ("inside one server", "单台服务器内部"),
    OTHER_GPU: ("other GPU model", "GPU 型号不符"),
    OTHER_PORT: ("other port rate", "端口速率不符"),
    ABOVE_LINE_RATE: ("above line rate", "超出线路速率"),
    OUTSIDE_WINDOW: ("outside its window", "不在声明的时间窗内"),
    UDP: ("UDP at a set rate", "限速 UDP"),
    LATENCY: ("latency test", "延迟测试"),
    NO_FIGURE: ("no figure", "无数值"),
}


@dataclass(frozen=True)
class Admission:
    """One log's admission for one offer: ``reasons`` is empty when it is admitted."""

    log_id: int
    name: str
    reasons: tuple[Message, ...] = ()

    @property
    def admitted(self) -> bool:
        return not self.reasons

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(r.code.removeprefix("admission.") for r in self.reasons)

    def as_dict(self) -> dict[str, object]:
        return {
            "log": self.log_id,
            "name": self.name,
            "admitted": self.admitted,
            "reasons": [r.as_dict() for r in self.reasons],
        }


def _reason(code: str, en: str, zh: str) -> Message:
    return Message(f"admission.{code}", en, zh)


def admit(record: EvidenceRecord, offer: OfferPorts | None = None) -> Admission:
    """Admit one log for ``offer`` (None: the checks that need no offer only)."""
    reasons: list[Message] = []
    result, checks = record.result, record.checks
    evidence = describe(
        result, str(record.log_id), record.batch, declared_together=record.declared_together
    )
    if evidence is None:
        reasons.append(_reason(NO_FIGURE, "The log gave no figure.", "该日志没有给出数值。"))
    if checks.integrity == "inconsistent":
        first = checks.findings[0] if checks.findings else None
        reasons.append(
            _reason(
                INCONSISTENT,
                "The tool's own figures contradict each other"
                + (f": {first.en}" if first else "."),
                "工具自身的数值互相矛盾" + (f"：{first.zh}" if first else "。"),
            )
        )
    reasons += _reused(record)
    reasons += _loopback(record, evidence)
    if offer is not None:
        reasons += _hardware(record, evidence, offer)
    reasons += _window(record)
    if evidence is not None and evidence.kind == UDP_AT_RATE:
        reasons.append(
            _reason(
                UDP,
                "UDP at a rate set with -b measures loss and jitter, not capacity.",
                "用 -b 限速的 UDP 测的是丢包和抖动，不是容量。",
            )
        )
    if evidence is not None and evidence.kind == RDMA_LATENCY:
        reasons.append(
            _reason(LATENCY, "A latency test says nothing of bandwidth.", "延迟测试不说明带宽。")
        )
    return Admission(record.log_id, record.name, tuple(reasons))


def admit_all(records: Sequence[EvidenceRecord], offer: OfferPorts | None) -> list[Admission]:
    """Every log of an offer; of two logs of one test only the first (lowest id) may count.

    One test is one body (white space and kit lines left out), one fingerprint (a re-indented
    or minified copy keeps its cookie) or one iperf3 clock and interval series (a copy with only
    its cookie changed): the later copies are set aside as duplicates, never summed as tests
    run together. Then tests run together on one link that add up to more than the port
    carries are set aside as a set (``_over_line_rate``)."""
    found: list[Admission] = []
    seen: dict[str, EvidenceRecord] = {}
    for record in sorted(records, key=lambda r: r.log_id):
        admission = admit(record, offer)
        body = record.checks.body
        marks = _identities(record)
        first = seen.get(body) if body else None
        same_test = next((seen[m] for m in sorted(marks) if m in seen), None)
        if REUSED not in admission.codes and (first is not None or same_test is not None):
            reason = _same_body(first.name) if first else _same_test(same_test.name)  # type: ignore[union-attr]
            admission = Admission(admission.log_id, admission.name, (*admission.reasons, reason))
        else:
            for key in ({body} if body else set()) | marks:
                seen.setdefault(key, record)
        found.append(admission)
    if offer is not None:
        found = _over_line_rate(records, found, offer)
    return found


def _identities(record: EvidenceRecord) -> set[str]:
    return identities(
        record.result,
        record.checks.fingerprint,
        record.checks.site.start_epoch_s or record.result.start_time_s,
    )


def _same_body(name: str) -> Message:
    return _reason(
        REUSED,
        f"The same log is already held (“{name}”): one test counts once.",
        f"同一日志已经提交过（“{name}”）：一次测试只计一次。",
    )


def _same_test(name: str) -> Message:
    return _reason(
        REUSED,
        f"The same test as “{name}” (the same iperf3 cookie, or the same start time and the same "
        "bytes in every interval): a copy counts once, never as a test run beside it.",
        f"与“{name}”是同一次测试（iperf3 cookie 相同，或开始时间与每个区间的字节数都相同）："
        "副本只计一次，不能当作同时运行的另一次测试。",
    )


def _over_line_rate(
    records: Sequence[EvidenceRecord], admissions: list[Admission], offer: OfferPorts
) -> list[Admission]:
    """Tests that ran at the same time on one link (overlapping windows on the tools' clocks)
    share it: their sum is what the link carried. A sum above the port's data rate (after line
    encoding, + ``LINE_RATE_ERROR``) cannot have been carried: the set does not add up, and
    every log of it is set aside, rather than its sum capped at the line rate and credited."""
    ok = {a.log_id for a in admissions if a.admitted}
    described = [
        (r, describe(r.result, str(r.log_id), r.batch, declared_together=r.declared_together))
        for r in records
        if r.log_id in ok
    ]
    timed = [
        (r, e)
        for r, e in described
        if e is not None
        and e.scope == ONE_PORT
        and e.kind in (TCP_THROUGHPUT, RDMA_BANDWIDTH)
        and e.window is not None
        and e.gbps
    ]
    if offer.port_gbps <= 0 or len(timed) < 2:
        return admissions
    by_evidence = {id(e): r for r, e in timed}
    aside: dict[int, Message] = {}
    for kind in (TCP_THROUGHPUT, RDMA_BANDWIDTH):
        logs = [e for _r, e in timed if e.kind == kind]
        for cluster in overlapping_clusters(logs):
            links: dict[str, list[Evidence]] = {}
            for e in cluster:
                links.setdefault(link_of(e), []).append(e)
            for items in links.values():
                if len(items) < 2:
                    continue
                first = by_evidence[id(items[0])]
                fabric = offer.fabric or (first.result.fabric or "")
                ceiling = data_rate_gbps(fabric, offer.port_gbps)
                carried = _busiest(shared_link(items))
                if carried <= ceiling * (1 + LINE_RATE_ERROR):
                    continue
                reason = _set_above_line_rate(len(items), carried, offer.port_gbps, ceiling)
                for e in items:
                    aside[by_evidence[id(e)].log_id] = reason
    if not aside:
        return admissions
    return [
        Admission(a.log_id, a.name, (*a.reasons, aside[a.log_id])) if a.log_id in aside else a
        for a in admissions
    ]


def _busiest(shared: Evidence) -> float:
    """What tests sharing one link carried together at their busiest: the second-highest of
    their per-second sums (one second alone may be two tests' intervals a fraction of a second
    apart on the tools' clocks), or their summed averages when the logs have no interval times."""
    seconds = sorted(shared.intervals, reverse=True)
    if len(seconds) >= 2:
        return max(seconds[1], shared.mean_gbps or 0.0)
    return shared.mean_gbps or 0.0


def _set_above_line_rate(tests: int, carried: float, port: float, ceiling: float) -> Message:
    return _reason(
        ABOVE_LINE_RATE,
        f"{tests} tests that ran at the same time on one link add up to {texts.g(carried)} "
        f"Gbit/s for two seconds or more, more than a {texts.g(port)} Gbit/s port carries "
        f"({texts.g(ceiling)} Gbit/s of data after line encoding): the set does not add up "
        "and none of its logs counts.",
        f"同一链路上同时运行的 {tests} 个测试至少两秒合计 {texts.g(carried)} Gbit/s，超过了 "
        f"{texts.g(port)} Gbit/s 端口的承载能力（线路编码后数据速率 {texts.g(ceiling)} Gbit/s）："
        "这组测试数据自相矛盾，其中的日志均不采用。",
    )


def _reused(record: EvidenceRecord) -> list[Message]:
    checks = record.checks
    if checks.reused_by:
        return [
            _reason(
                REUSED,
                "The same test is already held as another offer's evidence: one run cannot "
                "prove two offers.",
                "同一次测试已作为另一报价的证据：一次测试不能证明两个报价。",
            )
        ]
    if checks.body_held_by:
        return [
            _reason(
                REUSED,
                "The team already holds this log (the same lines, re-typed or with a token added).",
                "本团队已持有该日志（内容相同，仅重新排版或加了令牌）。",
            )
        ]
    return []


def is_loopback(address: str) -> bool:
    """127.0.0.0/8, ::1 (and ::ffff:127.x) or the name localhost."""
    text = address.strip("[]").split("%")[0]
    if text.lower() in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def _loopback(record: EvidenceRecord, evidence: Evidence | None) -> list[Message]:
    site = record.checks.site
    for local, remote in site.ends:
        if local == remote or is_loopback(local) or is_loopback(remote):
            return [
                _reason(
                    LOOPBACK,
                    f"Both ends are one host ({local} → {remote}): a loopback test never "
                    "touches the network.",
                    f"两端是同一台主机（{local} → {remote}）：回环测试不经过网络。",
                )
            ]
    # One identity at every end printed: a log holding both the server's and the client's output
    # names two (each side's local is the other's remote); a loopback names one.
    sides = {side for side, _lid, _gid in site.rdma_ends}
    lids = {lid for _s, lid, _g in site.rdma_ends if lid.lower() not in _NO_LID}
    gids = {gid for _s, _l, gid in site.rdma_ends if gid}
    one_lid = len(lids) == 1 and all(lid.lower() not in _NO_LID for _s, lid, _g in site.rdma_ends)
    if sides == {"local", "remote"} and (one_lid or len(gids) == 1):
        what = f"LID {next(iter(lids))}" if one_lid else f"GID {next(iter(gids))}"
        return [
            _reason(
                LOOPBACK,
                f"Local and remote ends have the same {what}: one HCA talking to itself.",
                f"本端与远端的 {what} 相同：同一块网卡自己和自己通信。",
            )
        ]
    if evidence is not None and evidence.scope == ONE_HOST:
        return [
            _reason(
                ONE_HOST_COLLECTIVE,
                "A collective inside one host measures NVLink/PCIe, not the network.",
                "单台主机内的集合通信测的是 NVLink/PCIe，不是网络。",
            )
        ]
    return []


def gpu_family(text: str) -> str:
    """The model word of a GPU key or name: "H100-SXM" → "H100", "RTX4090" → "RTX4090"."""
    return re.split(r"[-\s_]+", text.strip().upper())[0]


def _names_gpu(name: str, family: str) -> bool:
    words = [w for w in re.split(r"[-\s_/()]+", name.upper()) if w]
    joined = {a + b for a, b in zip(words, words[1:], strict=False)}
    return family in set(words) | joined


def _hardware(
    record: EvidenceRecord, evidence: Evidence | None, offer: OfferPorts
) -> list[Message]:
    found: list[Message] = []
    site = record.checks.site
    family = gpu_family(offer.gpu) if offer.gpu else ""
    models = sorted({name for _bus, name in site.gpus if name})
    if family and models and not any(_names_gpu(m, family) for m in models):
        found.append(
            _reason(
                OTHER_GPU,
                f"The log's ranks ran on {', '.join(models[:3])}, not the offer's {offer.gpu}.",
                f"日志中的进程运行在 {', '.join(models[:3])} 上，而非报价的 {offer.gpu}。",
            )
        )
    rates = site.port_rates_gbps
    if rates and offer.port_gbps > 0:
        near = [r for r in rates if abs(r - offer.port_gbps) <= _PORT_MATCH * offer.port_gbps]
        if not near:
            shown = ", ".join(texts.g(r) for r in rates[:3])
            found.append(
                _reason(
                    OTHER_PORT,
                    f"The log's own port status says {shown} Gbit/s; the offer quotes "
                    f"{texts.g(offer.port_gbps)} Gbit/s per port.",
                    f"日志自带的端口状态为 {shown} Gbit/s；报价为每端口 "
                    f"{texts.g(offer.port_gbps)} Gbit/s。",
                )
            )
    found += _above_line_rate(record, evidence, offer)
    return found


def _above_line_rate(
    record: EvidenceRecord, evidence: Evidence | None, offer: OfferPorts
) -> list[Message]:
    if evidence is None or evidence.scope != ONE_PORT or evidence.kind == RDMA_LATENCY:
        return []
    measured = evidence.mean_gbps
    stated = record.checks.site.port_rates_gbps
    port = max(stated) if stated else offer.port_gbps
    fabric = offer.fabric or (record.result.fabric or "")
    if not measured or port <= 0:
        return []
    ceiling = data_rate_gbps(fabric, port)
    if measured <= ceiling * (1 + LINE_RATE_ERROR):
        return []
    return [
        _reason(
            ABOVE_LINE_RATE,
            f"{texts.g(measured)} Gbit/s on one port is more than a {texts.g(port)} Gbit/s port "
            f"carries ({texts.g(ceiling)} Gbit/s of data after line encoding).",
            f"单端口 {texts.g(measured)} Gbit/s 超过了 {texts.g(port)} Gbit/s 端口的承载能力"
            f"（线路编码后数据速率 {texts.g(ceiling)} Gbit/s）。",
        )
    ]


def _window(record: EvidenceRecord) -> list[Message]:
    codes = set(record.checks.challenge_codes)
    if codes & {"challenge.before_publication", "challenge.after_deadline"}:
        return [
            _reason(
                OUTSIDE_WINDOW,
                "The test ran outside the RFQ's window its token answers.",
                "该测试不在其令牌所对应询价的时间窗内运行。",
            )
        ]
    site = record.checks.site
    start = record.result.start_time_s or site.start_epoch_s
    if len(site.dates) < 2 or start is None or start < 1e9:
        return []
    end = start + (record.result.duration_s or 0.0)
    first, last = min(site.dates), max(site.dates)
    if start < first - _WINDOW_SLACK_S or end > last + _WINDOW_SLACK_S:
        return [
            _reason(
                OUTSIDE_WINDOW,
                "The tool's own clock puts the test outside the date lines printed around it.",
                "工具自身的时钟显示测试不在其前后打印的日期行之间。",
            )
        ]
    return []


@dataclass(frozen=True)
class OfferEvidence:
    """The offer's figure from its admitted logs, every log's admission, and the sentence."""

    figure: OfferFigure | None
    admissions: tuple[Admission, ...]
    sentence: Message

    @property
    def admitted(self) -> tuple[Admission, ...]:
        return tuple(a for a in self.admissions if a.admitted)

    @property
    def set_aside(self) -> tuple[Admission, ...]:
        return tuple(a for a in self.admissions if not a.admitted)


def admitted_records(
    records: Sequence[EvidenceRecord], admissions: Sequence[Admission]
) -> list[EvidenceRecord]:
    ok = {a.log_id for a in admissions if a.admitted}
    return [r for r in records if r.log_id in ok]


def offer_evidence(records: Sequence[EvidenceRecord], offer: OfferPorts) -> OfferEvidence:
    """Admit every log for ``offer``, derive the figure from the admitted ones, say how."""
    admissions = admit_all(records, offer)
    admitted = admitted_records(records, admissions)
    evidence = [
        e
        for e in (
            describe(r.result, str(r.log_id), r.batch, declared_together=r.declared_together)
            for r in admitted
        )
        if e is not None
    ]
    figure = derive(evidence, offer)
    return OfferEvidence(figure, tuple(admissions), sentence(figure, admissions))


def sentence(figure: OfferFigure | None, admissions: Sequence[Admission]) -> Message:
    """Which logs gave the figure and why the others were set aside, in both languages."""
    aside = [a for a in admissions if not a.admitted]
    total = len(admissions)
    if figure is None:
        en = f"No admitted log of {total} measured capacity."
        zh = f"{total} 个日志中没有可采用的容量测量。"
    else:
        kind_en, kind_zh = texts.KIND_NAMES.get(figure.evidence_kind, (figure.evidence_kind,) * 2)
        used = total - len(aside)
        en = (
            f"Figure from {used} of {total} logs ({kind_en}): {figure.explanation.en}; "
            f"{texts.g(figure.gbps)} Gbit/s per server."
        )
        zh = (
            f"数值来自 {total} 个日志中的 {used} 个（{kind_zh}）：{figure.explanation.zh}；"
            f"每台服务器 {texts.g(figure.gbps)} Gbit/s。"
        )
        if figure.unplaced:
            note = texts.unplaced(figure.unplaced)
            en, zh = f"{en} {note.en}", f"{zh}{note.zh}"
    if aside:
        parts_en = [f"{a.name} ({', '.join(SHORT[c][0] for c in a.codes)})" for a in aside[:8]]
        parts_zh = [f"{a.name}（{'、'.join(SHORT[c][1] for c in a.codes)}）" for a in aside[:8]]
        more = len(aside) - len(parts_en)
        tail_en = f" and {more} more" if more > 0 else ""
        tail_zh = f" 等另外 {more} 个" if more > 0 else ""
        en += f" Set aside: {'; '.join(parts_en)}{tail_en}."
        zh += f" 未采用：{'；'.join(parts_zh)}{tail_zh}。"
    return Message("evidence.figure_sentence", en, zh)


__all__ = [
    "COLLECTIVE_BUSBW",
    "Admission",
    "OfferEvidence",
    "admit",
    "admit_all",
    "offer_evidence",
    "sentence",
]
