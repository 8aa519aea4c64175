"""Rank offers by the training-time model v2 (docs/MODEL.md §15).

Cost per effective training hour (ETH) keeps its definition: the offer's hourly bill divided by
the effective training hours it delivers per wall hour, one ETH being an hour of the reference
H100 at mfu 0.45 (api.REFERENCE_*). What changes is where the training rate comes from: v2's
layout search (memory, tensor / pipeline / data parallelism, links, failures and goodput) instead
of COST-MODEL.md's first-order formula.

One cost path: `rank` bills every offer (domain.costmodel.billing.bill: input checks, currency
conversion, whole-offer billing through domain/money.py, the network figure and warnings), gets
each billed offer's training rate from the layout search (the step split, the job's wall time and
cost, a JSON breakdown in `OfferResult.model_detail`), divides the bill by it (cost per ETH) and
sorts. Eligibility and ties are decided on these results by rankings/decision.py. Offers on which
no layout fits, or which the model refuses, become problems with its bilingual reason.
COST-MODEL.md's first-order rate is not computed on this path.

Speed: identical hardware shapes (GPU, servers, NICs, fabric, evidence, storage, repair) are
estimated once per call, and `estimate` itself is memoised across calls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from domain import costmodel as cm
from domain.costmodel.billing import BilledOffer, bill
from domain.messages import Message
from domain.trainmodel.api import Estimate, NoFit, estimate
from domain.trainmodel.costmodel_adapter import from_costmodel, gpt_shape
from domain.trainmodel.errors import TrainModelError
from domain.trainmodel.failures import (
    CHECKPOINT_BYTES_PER_PARAM,
    DEFAULT_RESTART_S,
    DEFAULT_STORAGE_GBYTE_S_PER_NODE,
    LLAMA3_INTERRUPTIONS_PER_GPU_HOUR,
)
from domain.trainmodel.fit import _does_not_fit
from domain.trainmodel.gpus import GpuSpec
from domain.trainmodel.inputs import Failures, ModelSpec, ParallelRequest

# The SLA's time to repair or replace a failed server when the quote does not say (assumption:
# the common "4-hour replacement" clause); paid at every interruption unless a spare is kept.
DEFAULT_REPAIR_HOURS = 4.0
DETAIL_VERSION = 1
# v2 refuses NICs above 10,000 Gbit/s as absurd; the first-order ranking accepts a vendor's claim
# and the risk policy judges it (claim_implausible), so the ranking clamps the claim to v2's
# range instead of dropping the offer before the policy can explain it.
NIC_CAP_GBPS = 10_000.0


@dataclass(frozen=True, slots=True)
class Architecture:
    """What the workload knows beyond COST-MODEL.md's inputs: a preset's architecture and
    parallel request. None fields: a GPT shape of the workload's size (costmodel_adapter)."""

    model: ModelSpec | None = None
    parallel: ParallelRequest | None = None
    train_tokens: float | None = None
    source: str = ""
    precision: str | None = None  # the workload's compute precision (None: the model's own)


GENERIC = Architecture()


def _scenario_problems(sc: cm.Scenario) -> list[Message]:
    bad: list[Message] = []
    if not (math.isfinite(sc.mtbf_scale) and 0.01 <= sc.mtbf_scale <= 100):
        bad.append(
            Message(
                "scenario_mtbf_scale",
                f"The failure-rate scale must be between 0.01 and 100 (got {sc.mtbf_scale:g}).",
                f"故障间隔倍数必须在 0.01 到 100 之间（当前为 {sc.mtbf_scale:g}）。",
            )
        )
    if not (math.isfinite(sc.storage_scale) and 0.01 <= sc.storage_scale <= 100):
        bad.append(
            Message(
                "scenario_storage_scale",
                "The checkpoint storage speed scale must be between 0.01 and 100 "
                f"(got {sc.storage_scale:g}).",
                f"检查点存储写入速度倍数必须在 0.01 到 100 之间（当前为 {sc.storage_scale:g}）。",
            )
        )
    write = sc.checkpoint_write_s
    if write is not None and not (math.isfinite(write) and 0 <= write <= 86_400):
        bad.append(
            Message(
                "scenario_checkpoint_write_s",
                f"The checkpoint write time must be 0 to 86,400 seconds (got {write:g}).",
                f"检查点写入时间必须在 0 到 86,400 秒之间（当前为 {write:g}）。",
            )
        )
    return bad


def rank(
    workload: cm.Workload,
    offers: Sequence[cm.Offer],
    gpus: Mapping[str, cm.GpuSpec],
    *,
    fx_to_cny: Mapping[str, float] | None = None,
    scenario: cm.Scenario = cm.BASE_SCENARIO,
    arch: Architecture = GENERIC,
    specs: Mapping[str, GpuSpec] | None = None,
) -> cm.RankingOutcome:
    """Rank by cost per ETH with v2's training rate; raises ModelInputError like cm.rank."""
    bad = _scenario_problems(scenario)
    if bad:
        raise cm.ModelInputError(bad)
    bills = bill(workload, offers, gpus, fx_to_cny=fx_to_cny, scenario=scenario)
    judge = _Judge(workload, scenario, arch, dict(specs) if specs is not None else None)
    problems = list(bills.problems)
    rows: list[tuple[float, str, dict[str, Any]]] = []
    parts: dict[int, tuple[Estimate, Parts]] = {}
    for billed in bills.offers:
        offer = billed.offer
        verdict = judge(offer)
        if isinstance(verdict, tuple):
            problems.append(cm.OfferProblem(offer.id, verdict))
            continue
        low_est: Estimate | tuple[Message, ...] = verdict
        if offer.measured_gbps is not None and offer.measured_p50_gbps is not None:
            low_est = judge(replace(offer, measured_gbps=offer.measured_p50_gbps))
        fields = _result_fields(billed, verdict, low_est, workload, scenario, arch, parts)
        rows.append((fields["cost_per_eth"], offer.id, fields))
    rows.sort(key=lambda row: (row[0], row[1]))
    ranked = tuple(
        cm.OfferResult(rank=i, **fields) for i, (_cost, _id, fields) in enumerate(rows, start=1)
    )
    return cm.RankingOutcome(ranked, tuple(problems))


def _result_fields(
    billed: BilledOffer,
    est: Estimate,
    low_est: Estimate | tuple[Message, ...],
    workload: cm.Workload,
    sc: cm.Scenario,
    arch: Architecture,
    memo: dict[int, tuple[Estimate, Parts]] | None = None,
) -> dict[str, Any]:
    """Every OfferResult field but the rank: the bill's, the training rate's, the cost's."""
    offer = billed.offer
    return {
        "offer_id": offer.id,
        "currency": billed.currency,
        "hourly_cost": billed.hourly_cost,
        "bandwidth_gbps": billed.bandwidth_gbps,
        "bandwidth_basis": billed.bandwidth_basis,
        "oversubscription": billed.oversubscription,
        "warnings": billed.warnings,
        # COST-MODEL.md's first-order traffic figures are retired: the step split below
        # (model_detail) says where the time goes
        "volume_bytes": 0.0,
        "tokens_per_gpu_to_hide_comm": math.nan,
        **_figures(billed.hourly_cost, offer, est, low_est, workload, sc, arch, memo),
    }


class _Judge:
    """v2's estimate per offer, memoised on the hardware shape."""

    def __init__(
        self,
        workload: cm.Workload,
        scenario: cm.Scenario,
        arch: Architecture,
        specs: dict[str, GpuSpec] | None,
    ) -> None:
        self.workload = workload
        self.scenario = scenario
        self.arch = arch
        self.specs = specs
        self.seen: dict[tuple[object, ...], Estimate | tuple[Message, ...]] = {}

    def __call__(self, offer: cm.Offer) -> Estimate | tuple[Message, ...]:
        nodes = self.workload.nodes or offer.nodes
        key = (
            offer.gpu, offer.gpus_per_node, nodes, offer.nic_gbps, offer.nics_per_node,
            offer.fabric, offer.measured_gbps, offer.measured_kind, offer.storage_gbyte_s,
            offer.repair_hours, offer.spare_nodes, offer.rail_optimised, offer.servers_per_rack,
        )  # fmt: skip
        found = self.seen.get(key)
        if found is None:
            found = self.seen[key] = self._estimate(offer, nodes)
        return found

    def _estimate(self, offer: cm.Offer, nodes: int) -> Estimate | tuple[Message, ...]:
        sc, arch = self.scenario, self.arch
        try:
            model, cluster, parallel = from_costmodel(self.workload, offer, self.specs, arch.model)
            if arch.precision is not None:
                model = replace(model, precision=arch.precision)
            if arch.parallel is not None:
                parallel = replace(
                    arch.parallel, dp_overlap=arch.parallel.dp_overlap and parallel.dp_overlap
                )
            gpu = cluster.gpu
            if sc.mfu_scale != 1.0:
                gpu = replace(gpu, efficiency=min(1.0, gpu.efficiency * sc.mfu_scale))
            busbw = cluster.measured_busbw_gbps
            cluster = replace(
                cluster,
                gpu=gpu,
                nic_gbps=min(NIC_CAP_GBPS, cluster.nic_gbps * sc.bandwidth_scale),
                measured_busbw_gbps=None if busbw is None else busbw * sc.bandwidth_scale,
            )
            result = estimate(
                model, cluster, parallel, _failures(offer, model, nodes, sc), self._tokens()
            )
        except TrainModelError as exc:
            return exc.messages
        except (ValueError, TypeError, ZeroDivisionError, OverflowError) as exc:
            return (
                Message(
                    "trainmodel_failed",
                    f"The training-time model could not evaluate this offer: {exc}",
                    f"训练时间模型无法评估此报价：{exc}",
                ),
            )
        if isinstance(result, NoFit):
            return (_does_not_fit(result.reason),)
        return result

    def _tokens(self) -> float | None:
        return self.workload.train_tokens or self.arch.train_tokens


def _failures(offer: cm.Offer, model: ModelSpec, nodes: int, sc: cm.Scenario) -> Failures:
    """The offer's failure profile; the SLA availability is applied by the caller (so offers
    differing only in availability share one estimate)."""
    if sc.checkpoint_write_s is not None:
        write = sc.checkpoint_write_s
    else:
        storage = (offer.storage_gbyte_s or DEFAULT_STORAGE_GBYTE_S_PER_NODE) * sc.storage_scale
        write = CHECKPOINT_BYTES_PER_PARAM * model.params / (storage * 1e9 * max(nodes, 1))
    repair = DEFAULT_REPAIR_HOURS if offer.repair_hours is None else offer.repair_hours
    return Failures(
        interruptions_per_gpu_hour=LLAMA3_INTERRUPTIONS_PER_GPU_HOUR / sc.mtbf_scale,
        checkpoint_write_s=write,
        restart_s=DEFAULT_RESTART_S,
        repair_s=repair * 3600.0,
        spare_nodes=offer.spare_nodes or 0,
        availability=1.0,
    )


def _num(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _figures(
    hourly_cost: float,
    offer: cm.Offer,
    est: Estimate,
    low_est: Estimate | tuple[Message, ...],
    workload: cm.Workload,
    sc: cm.Scenario,
    arch: Architecture,
    memo: dict[int, tuple[Estimate, Parts]] | None = None,
) -> dict[str, Any]:
    """The OfferResult fields v2 replaces, and its breakdown."""
    avail = offer.availability
    eth = est.eth_per_hour * avail / sc.mfu_scale
    cost = hourly_cost / eth if eth > 0 else math.inf
    low = cost
    if isinstance(low_est, Estimate) and low_est.eth_per_hour > 0:
        low = min(cost, hourly_cost / (low_est.eth_per_hour * avail / sc.mfu_scale))
    step = est.step
    comm = step.tp_comm_s + step.pp_comm_s + step.dp_exposed_s + step.ep_comm_s
    wall = None if est.train_hours is None else est.train_hours / (est.goodput.ettr * avail)
    job_cost = None if wall is None else hourly_cost * wall
    interruptions = est.expected_interruptions
    if interruptions is not None and est.wall_hours:
        interruptions = interruptions * (wall or 0.0) / est.wall_hours
    return {
        "cost_per_eth": cost,
        "cost_per_eth_low": low,
        "cost_per_eth_high": cost,
        "step_time_s": step.step_s,
        "compute_time_s": step.compute_s,
        "comm_time_s": comm,
        # everything but compute (exposed comm, pipeline bubble, optimizer): compute + exposed
        # = step, as the charts' split of the cost per ETH reads it
        "exposed_comm_s": step.step_s - step.compute_s,
        "utilisation": step.compute_s / step.step_s,
        "eth_per_hour": eth,
        "job_hours": wall,
        "job_cost": job_cost,
        "nodes_used": math.ceil(est.gpus_used / offer.gpus_per_node),
        "model_detail": detail(est, offer, workload, sc, arch, wall, job_cost, interruptions, memo),
    }


def detail(
    est: Estimate,
    offer: cm.Offer,
    workload: cm.Workload,
    sc: cm.Scenario,
    arch: Architecture,
    wall: float | None,
    job_cost: float | None,
    interruptions: float | None,
    memo: dict[int, tuple[Estimate, Parts]] | None = None,
) -> dict[str, Any]:
    """v2's breakdown of one offer, JSON-ready (seconds, GB, hours; None = not applicable);
    `memo` shares the parts that depend on the estimate alone between the offers of a ranking."""
    good = est.goodput
    nodes = workload.nodes or offer.nodes
    assumed = [
        name
        for name, value in (
            ("storage_gbyte_s", offer.storage_gbyte_s if sc.checkpoint_write_s is None else 0),
            ("repair_hours", offer.repair_hours),
            ("spare_nodes", offer.spare_nodes),
            ("rail_optimised", offer.rail_optimised),
        )
        if value is None
    ]
    if arch.model is None:
        assumed.append("architecture")
    rate = LLAMA3_INTERRUPTIONS_PER_GPU_HOUR / sc.mtbf_scale
    failures = _failures(offer, arch.model or gpt_shape(workload.params_b), nodes, sc)
    idle_nodes = max(0, nodes - math.ceil(est.gpus_used / offer.gpus_per_node))
    layout, memory, step_split = _estimate_parts(est, memo)
    return {
        "version": DETAIL_VERSION,
        "architecture": arch.source or "gpt_shape",
        "layout": layout,
        "gpus_used": est.gpus_used,
        "gpus_offered": nodes * offer.gpus_per_node,
        "memory": memory,
        "step": step_split,
        "mfu": est.mfu,
        "tokens_per_s": est.tokens_per_s,
        "failures": {
            "interruptions_per_gpu_hour": rate,
            "mtbf_h": _num(good.mtbf_s / 3600.0),
            "checkpoint_write_s": failures.checkpoint_write_s,
            "checkpoint_interval_s": _num(good.checkpoint_interval_s),
            "restart_s": failures.restart_s,
            "repair_h": failures.repair_s / 3600.0,
            # servers the layout leaves idle serve as hot spares (api.estimate)
            "spare_nodes": failures.spare_nodes + idle_nodes,
            "idle_nodes": idle_nodes,
            "ettr": good.ettr,
            "availability": offer.availability,
            "goodput": good.ettr * offer.availability,
            "expected_interruptions": _num(interruptions),
        },
        "job": {
            "train_hours": _num(est.train_hours),
            "wall_hours": _num(wall),
            "cost": _num(job_cost),
        },  # fmt: skip
        "layouts_evaluated": est.layouts_evaluated,
        "bandwidth_basis": est.bandwidth_basis,
        "rail_optimised": offer.rail_optimised,
        "assumed": assumed,
    }


# The parts of a breakdown that depend on the estimate alone, made once per estimate of a ranking
# (offers of one hardware shape share it and them: read only), keyed by the estimate's id.
Parts = tuple[dict[str, Any], dict[str, Any], dict[str, Any]]


def _estimate_parts(est: Estimate, memo: dict[int, tuple[Estimate, Parts]] | None) -> Parts:
    """The layout, memory and step split of a breakdown."""
    found = memo.get(id(est)) if memo is not None else None
    if found is not None and found[0] is est:  # the estimate is kept: its id is not reused
        return found[1]
    mem, step = est.memory, est.step
    parts = (
        est.layout.as_dict(),
        {
            "states_gb": mem.states_gb,
            "activations_gb": mem.activations_gb,
            "other_gb": mem.other_gb,
            "total_gb": mem.total_gb,
            "card_gb": est.card_memory_gb,
        },
        {
            "step_s": step.step_s,
            "compute_s": step.compute_s,
            "tp_s": step.tp_comm_s,
            "pp_transfer_s": step.pp_comm_s,
            "bubble_s": step.bubble_s,
            "dp_s": step.dp_exposed_s,
            "ep_s": step.ep_comm_s,
            "optimizer_s": step.optimizer_s,
            "exposed_comm_s": step.tp_comm_s + step.pp_comm_s + step.dp_exposed_s + step.ep_comm_s,
            "microbatches": step.microbatches,
        },
    )
    if memo is not None:
        memo[id(est)] = (est, parts)
    return parts
