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

from dataclasses import dataclass

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


ENVELOPES = (
    Envelope(
        key="azure-nd-h100-v5",
        gpu_family="H100",
        nic_gbps=400.0,
        rdma_write_gbps_per_hca=380.0,
        allreduce_busbw_gbyte_s=460.0,
        source="Azure/azurehpc-health-checks, ND H100 v5 (Standard_ND96isr_H100_v5) thresholds",
    ),
    Envelope(
        key="azure-nd-h200-v5",
        gpu_family="H200",
        nic_gbps=400.0,
        rdma_write_gbps_per_hca=360.0,
        allreduce_busbw_gbyte_s=431.0,
        source="Azure/azurehpc-health-checks, ND H200 v5 (Standard_ND96isr_H200_v5) thresholds",
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


def grade(result: BenchResult, gpu: str, nic_gbps: float) -> Grade:
    """Grade one log against the card's envelope: an ``ib_write_bw`` per HCA, or a single-node
    all_reduce's bus bandwidth. Other logs, or cards without a published envelope: not covered."""
    env = envelope_for(gpu, nic_gbps)
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
            f"{shown:,.1f} {unit}: {word_en} the published envelope of {env.key} "
            f"(at least {floor:,.0f} {unit}; {env.source}).",
            f"{shown:,.1f} {unit}：{word_zh}{env.key} 公布的验收下限（至少 {floor:,.0f} {unit}；"
            f"{env.source}）。",
        ),
    )
