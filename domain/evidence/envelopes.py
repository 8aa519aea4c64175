"""Acceptance envelopes per card: published per-SKU thresholds a log is graded against, beside
the line-rate verdict.

Sources (each envelope names its own):

- Microsoft Azure HPC/AI node health checks (Azure/azurehpc-health-checks, the "AzureHPC Node
  Health Checks" configuration files per VM size, and the ND H100 v5 / ND H200 v5 documentation):
  ND H100 v5 (8 × H100 SXM, 8 × 400G NDR): ``ib_write_bw`` with GPUDirect at least 380 Gbit/s per
  HCA, single-node NCCL all_reduce bus bandwidth at least 460 GB/s; ND H200 v5 (8 × H200, 8 ×
  400G NDR): 360 Gbit/s per HCA and 431 GB/s.

An envelope is a floor published by an operator for healthy nodes of that size: a log below it
is graded "below envelope", which an RFQ's acceptance criteria can name. It does not replace the
line-rate verdict (which says how much of the port a test used).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from domain.benchlogs.result import COLLECTIVE, RDMA_BW, BenchResult
from domain.messages import Message

# nccl-tests prints GB/s; the parsers give Gbit/s (× 8).
_GBYTE = 8.0


@dataclass(frozen=True)
class Envelope:
    key: str
    gpu_family: str  # the model word of the GPU table's key (H100, H200)
    nic_gbps: float
    rdma_write_gbps_per_hca: float
    allreduce_busbw_gbyte_s: float  # single node, 8 GPUs
    source: str
    name_en: str = ""
    name_zh: str = ""


ENVELOPES = (
    Envelope(
        key="azure-nd-h100-v5",
        gpu_family="H100",
        nic_gbps=400.0,
        rdma_write_gbps_per_hca=380.0,
        allreduce_busbw_gbyte_s=460.0,
        source="Azure/azurehpc-health-checks, ND H100 v5 (Standard_ND96isr_H100_v5) thresholds",
        name_en="Azure ND H100 v5 health check",
        name_zh="Azure ND H100 v5 健康检查",
    ),
    Envelope(
        key="azure-nd-h200-v5",
        gpu_family="H200",
        nic_gbps=400.0,
        rdma_write_gbps_per_hca=360.0,
        allreduce_busbw_gbyte_s=431.0,
        source="Azure/azurehpc-health-checks, ND H200 v5 (Standard_ND96isr_H200_v5) thresholds",
        name_en="Azure ND H200 v5 health check",
        name_zh="Azure ND H200 v5 健康检查",
    ),
)

WITHIN = "within"
BELOW = "below"
NOT_COVERED = "not_covered"


@dataclass(frozen=True)
class Grade:
    status: str  # within, below or not_covered
    envelope: Envelope | None
    message: Message | None = None


def envelope_for(gpu: str, nic_gbps: float) -> Envelope | None:
    """The published envelope of the offer's card and NIC speed, if one exists."""
    family = gpu.strip().upper().split("-")[0]
    for env in ENVELOPES:
        if env.gpu_family == family and abs(env.nic_gbps - nic_gbps) < 1e-6:
            return env
    return None


def by_key(key: str | None) -> Envelope | None:
    """The envelope an RFQ's acceptance criteria name (its key), if published."""
    return next((env for env in ENVELOPES if env.key == key), None) if key else None


def choices() -> list[tuple[str, str]]:
    """(key, English name) of every published envelope, for a choice field."""
    return [(env.key, env.name_en) for env in ENVELOPES]


def grade(result: BenchResult, gpu: str, nic_gbps: float, *, named: str | None = None) -> Grade:
    """Grade one log against the card's envelope (or the envelope ``named`` by the RFQ's
    acceptance criteria, whatever the card): an ``ib_write_bw`` per HCA, or a single-node
    all_reduce's bus bandwidth. Other logs, or cards without a published envelope: not covered."""
    env = by_key(named) or envelope_for(gpu, nic_gbps)
    figure = result.throughput_gbps
    if env is None or figure is None:
        return Grade(NOT_COVERED, env)
    # The floor is set on ib_write_bw; perftest's other bandwidth tests measure the same
    # per-HCA figure and are graded against it.
    if result.test == RDMA_BW:
        floor, shown, unit = env.rdma_write_gbps_per_hca, figure, "Gbit/s"
    elif (
        result.measured_kind == COLLECTIVE
        and (result.collective or "") == "all_reduce"
        and result.hosts == 1
    ):
        floor, shown, unit = env.allreduce_busbw_gbyte_s, figure / _GBYTE, "GB/s"
    else:
        return Grade(NOT_COVERED, env)
    ok = shown >= floor
    word_en = "within" if ok else "below"
    word_zh = "达到" if ok else "低于"
    return Grade(
        WITHIN if ok else BELOW,
        env,
        Message(
            f"envelope.{WITHIN if ok else BELOW}",
            f"{shown:,.1f} {unit}: {word_en} the published envelope of the "
            f"{env.name_en or env.key} (at least {floor:,.0f} {unit}; {env.source}).",
            f"{shown:,.1f} {unit}：{word_zh}{env.name_zh or env.key}公布的验收下限"
            f"（至少 {floor:,.0f} {unit}；{env.source}）。",
        ),
    )


# Logs set aside for these reasons are not graded: a forged, re-used, loopback or mismatched log
# says nothing of the card (kinds that never count as capacity, as a one-server all_reduce, are
# exactly what an envelope grades).
NOT_GRADED = frozenset(
    {"inconsistent", "reused", "loopback", "other_gpu", "other_port", "above_line_rate",
     "outside_window"}
)  # fmt: skip


@dataclass(frozen=True)
class LogGrade:
    log_id: int
    name: str
    grade: Grade

    def as_dict(self) -> dict[str, Any]:
        return {
            "log": self.log_id,
            "name": self.name,
            "status": self.grade.status,
            "envelope": self.grade.envelope.key if self.grade.envelope else None,
            "message": self.grade.message.as_dict() if self.grade.message else None,
        }


def summary(grades: Iterable[LogGrade], envelope: Envelope | None) -> dict[str, Any] | None:
    """The offer's grade: below when any graded log is below, within when every graded log is
    within, None when no log was graded; with one sentence in both languages."""
    covered = [g for g in grades if g.grade.status != NOT_COVERED]
    if envelope is None or not covered:
        return None
    below = [g for g in covered if g.grade.status == BELOW]
    status = BELOW if below else WITHIN
    name_en, name_zh = envelope.name_en or envelope.key, envelope.name_zh or envelope.key
    if below:
        names = ", ".join(g.name for g in below[:3])
        message = Message(
            "envelope.offer_below",
            f"Below the {name_en} envelope: {names} ({len(below)} of {len(covered)} graded logs).",
            f"低于{name_zh}的验收下限：{names}"
            f"（{len(covered)} 个已评级日志中的 {len(below)} 个）。",
        )
    else:
        message = Message(
            "envelope.offer_within",
            f"Within the {name_en} envelope: {len(covered)} graded log(s).",
            f"达到{name_zh}的验收下限：{len(covered)} 个已评级日志。",
        )
    return {
        "status": status,
        "envelope": envelope.key,
        "source": envelope.source,
        **message.as_dict(),
        "logs": [g.as_dict() for g in covered],
    }


def grade_logs(
    logs: Iterable[tuple[int, str, BenchResult, Iterable[str]]],
    gpu: str,
    nic_gbps: float,
    *,
    named: str | None = None,
) -> tuple[list[LogGrade], Envelope | None]:
    """Grade each log (id, name, result, its admission's reason codes) against the envelope of
    the card or the one ``named``; logs set aside as forged, re-used, loopback or mismatched are
    left ungraded."""
    env = by_key(named) or envelope_for(gpu, nic_gbps)
    found: list[LogGrade] = []
    for log_id, name, result, codes in logs:
        if env is None or NOT_GRADED & set(codes):
            found.append(LogGrade(log_id, name, Grade(NOT_COVERED, env)))
        else:
            found.append(LogGrade(log_id, name, grade(result, gpu, nic_gbps, named=env.key)))
    return found, env
