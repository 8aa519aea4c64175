"""Column-wise evaluation: COST-MODEL.md steps 1-8 for every valid offer at once."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from domain import money
from domain.costmodel.columns import _Array, _Table
from domain.costmodel.inputs import (
    FABRIC_EFFICIENCY,
    STRATEGY_FACTOR,
    GpuSpec,
    Scenario,
    Workload,
)
from domain.costmodel.network_warnings import _warnings_column


def _evaluate(
    w: Workload,
    t: _Table,
    gpus: Mapping[str, GpuSpec],
    ref: GpuSpec,
    sc: Scenario,
    rates: _Array,
    currencies: list[str],
) -> tuple[list[Any], _Array]:
    """COST-MODEL.md steps 1-8 for valid offers: OfferResult columns without the rank, and costs."""
    raw, num, size = t.raw, t.num, len(rates)
    n = num["nodes"] if w.nodes is None else np.full(size, float(w.nodes))
    peak, mfu, capacity = _capacity(w, t, gpus, ref, sc, n)
    params = w.params_b * 1e9
    t_c = _compute_time(w, t, n, peak, mfu)
    volume = STRATEGY_FACTOR[w.strategy] * 2.0 * (n - 1) / n * params * w.grad_bytes
    b, measured, oversub = _bandwidth(t, n)
    b *= sc.bandwidth_scale
    hidden = w.overlap * t_c
    t_x = 8.0 * volume / (b * 1e9)
    t_e = np.maximum(0.0, t_x - hidden)
    t_s = t_c + t_e
    eth = capacity * t_c / t_s
    billed = np.where(np.array(raw["whole_offer_only"], dtype=bool), num["nodes"], n)
    # The one money rule (domain/money.py); prices arrive on the team's tax basis.
    monthly = money.monthly_total(billed, num["price_per_node_month"], num["monthly_fees"], rates)
    hourly = money.hourly(monthly)
    cost = hourly / eth
    # B is proportional to the measured figure, so at P50 the comm time shrinks by P5/P50.
    spread = measured & ~t.none["measured_p50_gbps"] & (volume > 0)
    p5, p50 = _capped(t, "measured_gbps"), _capped(t, "measured_p50_gbps")
    t_x50 = np.where(spread, t_x * p5 / p50, t_x)
    low = np.where(spread, hourly / (capacity * t_c / (t_c + np.maximum(0, t_x50 - hidden))), cost)
    # The same figures computed by another route can differ in the last bit (P50 == P5).
    low = np.minimum(low, cost)
    job_h, job_c = _job_figures(w, t, t_s, hourly, size)
    tau = _tokens_to_hide(w, t_x, peak * mfu, volume)
    basis = ["measured" if m else "nominal" for m in measured.tolist()]
    warns = _warnings_column(raw, n, peak, measured, oversub)
    cols: list[Any] = [raw["id"], cost, low, cost, currencies, t_s, t_c, t_x, t_e, t_c / t_s]
    cols += [eth, hourly, job_h, job_c, b, basis, n.astype(int), oversub, volume, tau, warns]
    return cols, cost


def _compute_time(w: Workload, t: _Table, n: _Array, peak: _Array, mfu: _Array) -> _Array:
    """Compute seconds per step t_c: the step's FLOPs over n nodes' GPUs at peak * mfu each."""
    return (
        w.flops_per_token_factor
        * (w.params_b * 1e9)
        * w.tokens_per_step
        / (n * t.num["gpus_per_node"] * peak * mfu)
    )


def _job_figures(w: Workload, t: _Table, t_s: _Array, hourly: _Array, size: int) -> tuple[Any, Any]:
    """Hours and cost of the whole training job; None for every offer without `train_tokens`."""
    job_h: Any = [None] * size
    job_c: Any = job_h
    if w.train_tokens is not None:
        job_h = w.train_tokens * t_s / w.tokens_per_step / t.num["availability"] / 3600
        job_c = hourly * job_h
    return job_h, job_c


def _capacity(
    w: Workload, t: _Table, gpus: Mapping[str, GpuSpec], ref: GpuSpec, sc: Scenario, n: _Array
) -> tuple[_Array, _Array, _Array]:
    """Peak FLOP/s and mfu per GPU, and ETH per hour with no communication stall (U = 1)."""
    size = len(n)
    peak = np.array([gpus[k].tflops_bf16 for k in t.raw["gpu"]], dtype=float).reshape(size) * 1e12
    mfu_base = np.array([gpus[k].default_mfu for k in t.raw["gpu"]], dtype=float).reshape(size)
    mfu = np.minimum(1.0, (mfu_base if w.mfu is None else np.full(size, w.mfu)) * sc.mfu_scale)
    mfu_ref = min(1.0, (ref.default_mfu if w.mfu is None else w.mfu) * sc.mfu_scale)
    per_gpu = peak * mfu / (ref.tflops_bf16 * 1e12 * mfu_ref)
    return peak, mfu, n * t.num["gpus_per_node"] * per_gpu * t.num["availability"]


def _tokens_to_hide(w: Workload, t_x: _Array, achieved: _Array, volume: _Array) -> _Array:
    """Tokens per GPU per step at which the gradient traffic just hides under the compute.

    Per GPU and step t_c = k*P*tau/(F*m) grows with tau tokens while t_x does not depend on tau,
    so t_x = overlap*t_c exactly at tau = t_x*F*m/(overlap*k*P): roughly achieved FLOP/s over the
    node bandwidth, as COST-MODEL.md puts it. One node needs 0; with overlap 0 nothing hides (inf).
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tau = t_x * achieved / (w.overlap * w.flops_per_token_factor * w.params_b * 1e9)
    return np.where(volume == 0, 0.0, np.where(w.overlap == 0, math.inf, tau))


def _bandwidth(t: _Table, n: _Array) -> tuple[_Array, _Array, _Array]:
    """Effective per-node Gbit/s B, where it is measured, and the racks' oversubscription factor."""
    num = t.num
    nominal = num["nic_gbps"] * num["nics_per_node"]
    spr, uplink = num["servers_per_rack"], num["rack_uplink_gbps"]
    with np.errstate(invalid="ignore"):
        factor = np.minimum(1.0, uplink / (spr * nominal))
    factor = np.where((n > spr) & ~t.none["rack_uplink_gbps"], factor, 1.0)
    eff = np.array([FABRIC_EFFICIENCY[f] for f in t.raw["fabric"]], dtype=float).reshape(len(n))
    p5 = _capped(t, "measured_gbps")
    measured = ~t.none["measured_gbps"]
    collective = np.array([k == "collective" for k in t.raw["measured_kind"]], dtype=bool)
    # Accepted evidence already shows what the links reach, so the nominal rack maths stays out.
    # A "link" figure is per-server NIC capacity (domain/evidence/offer.py) and pays the fabric
    # efficiency exactly as the nominal NICs x rate does; a "collective" figure already is busbw.
    b = np.where(measured, np.where(collective, p5, p5 * eff), nominal * eff * factor)
    return b, measured, factor


def _capped(t: _Table, column: str) -> _Array:
    """A measured per-server figure, capped at the quoted NICs x rate: evidence cannot show more
    than the offer quotes (a one-port test at 394 Gbit/s on a 200G quote is the quote's 200)."""
    nominal = t.num["nic_gbps"] * t.num["nics_per_node"]
    values = t.num[column]
    with np.errstate(invalid="ignore"):
        return np.where(nominal > 0, np.minimum(values, nominal), values)
