"""Failures and goodput (docs/MODEL.md §Failures): job MTBF from a per-GPU interruption rate,
the optimal checkpoint interval (Young 1974; Daly 2006) and the expected share of wall time spent
on useful training (Daly's exponential-failure model)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from domain.trainmodel.inputs import Failures

# Llama 3 (arXiv:2407.21783 §3.3.4): 419 unexpected interruptions in 54 days on 16,384 H100s.
LLAMA3_INTERRUPTIONS_PER_GPU_HOUR = 419 / (54 * 24 * 16384)
DEFAULT_RESTART_S = 600.0  # detect, reschedule, reload: assumption (MegaScale: <= 15 min)
DEFAULT_STORAGE_GBYTE_S_PER_NODE = 1.0  # checkpoint write bandwidth when the offer says nothing
CHECKPOINT_BYTES_PER_PARAM = 14.0  # bf16 weights + fp32 master + Adam moments (BLOOM: 14)


@dataclass(frozen=True, slots=True)
class Goodput:
    """`ettr`: useful share of the job's running time; `goodput` also pays the SLA downtime."""

    mtbf_s: float
    checkpoint_interval_s: float
    ettr: float
    goodput: float = 1.0


def young_interval_s(write_s: float, mtbf_s: float) -> float:
    """Young's first-order optimum: sqrt(2 * delta * M)."""
    return math.sqrt(2.0 * write_s * mtbf_s)


def daly_interval_s(write_s: float, mtbf_s: float) -> float:
    """Daly's higher-order optimum (FGCS 22(3), 2006); M itself when delta >= 2M."""
    if write_s <= 0:
        return mtbf_s
    if write_s >= 2.0 * mtbf_s:
        return mtbf_s
    x = write_s / (2.0 * mtbf_s)
    return math.sqrt(2.0 * write_s * mtbf_s) * (1 + math.sqrt(x) / 3 + x / 9) - write_s


def ettr(interval_s: float, write_s: float, restart_s: float, mtbf_s: float) -> float:
    """Useful time / wall time, Daly's expected wall clock for exponential failures:
    T_wall / T_solve = M * exp(R/M) * (exp((tau + delta)/M) - 1) / tau."""
    if math.isinf(mtbf_s):
        return interval_s / (interval_s + write_s) if interval_s > 0 else 1.0
    ratio = mtbf_s * math.exp(restart_s / mtbf_s) * math.expm1((interval_s + write_s) / mtbf_s)
    return interval_s / ratio if ratio > 0 else 0.0


def goodput(failures: Failures, gpus: int) -> Goodput:
    """Job MTBF = 1 / (rate x GPUs); without a spare server every restart also waits for the
    vendor's repair; the SLA availability multiplies the ETTR into the goodput."""
    rate = failures.interruptions_per_gpu_hour * gpus
    mtbf = 3600.0 / rate if rate > 0 else math.inf
    interval = failures.checkpoint_interval_s
    if interval is None:
        interval = daly_interval_s(failures.checkpoint_write_s, mtbf) if rate > 0 else math.inf
    restart = failures.restart_s + (failures.repair_s if failures.spare_nodes == 0 else 0.0)
    if math.isinf(interval):
        return Goodput(mtbf, interval, 1.0, failures.availability)
    share = ettr(interval, failures.checkpoint_write_s, restart, mtbf)
    return Goodput(mtbf, interval, share, share * failures.availability)


def default_failures(params: float, nodes: int) -> Failures:
    """Llama 3's rate, checkpoint written at 1 GB/s per node, 10 minutes to restart."""
    write = CHECKPOINT_BYTES_PER_PARAM * params / (DEFAULT_STORAGE_GBYTE_S_PER_NODE * 1e9 * nodes)
    return Failures(LLAMA3_INTERRUPTIONS_PER_GPU_HOUR, write, DEFAULT_RESTART_S)
