"""Rank offers by cost per effective training hour (docs/MODEL.md, "Cost per ETH").

Cost per effective training hour (ETH) = the offer's hourly bill ÷ the effective training hours
it delivers per wall hour, one ETH being an hour of the reference H100 at mfu 0.45
(trainmodel.api.REFERENCE_*). The bill comes from bill.py (money first); the rate from the
training-time model's layout search (memory, tensor / pipeline / data parallelism, links,
failures and goodput), fed the job as it is (`Workload`: the model's own ModelSpec and
ParallelRequest) and each offer's hardware mapped once onto a `Cluster` (`cluster_of`).
Eligibility, premiums and ties are decided on these results by the decision. Offers on which no
layout fits, or which the model refuses, become problems with its bilingual reason.

Speed: identical hardware shapes (GPU, servers, NICs, fabric, evidence, storage, repair) are
estimated once per call, and `estimate` itself is memoised across calls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain.evidence.linkrates import port_achievable_gbps
from domain.messages import Message
from domain.ranking.bill import BilledOffer, bill
from domain.ranking.checks import check_job
from domain.ranking.inputs import BASE_SCENARIO, Offer, Scenario, Workload
from domain.ranking.network import credited_port_gbps
from domain.ranking.results import OfferProblem, OfferResult, RankingOutcome
from domain.trainmodel.api import Estimate, NoFit, estimate
from domain.trainmodel.errors import TrainModelError
from domain.trainmodel.failures import (
    CHECKPOINT_BYTES_PER_PARAM,
    DEFAULT_RESTART_S,
    DEFAULT_STORAGE_GBYTE_S_PER_NODE,
    LLAMA3_INTERRUPTIONS_PER_GPU_HOUR,
)
from domain.trainmodel.gpus import GpuSpec
from domain.trainmodel.inputs import Cluster, Failures, ModelSpec

# The SLA's time to repair or replace a failed server when the quote does not say (assumption:
# the common "4-hour replacement" clause); paid at every interruption unless a spare is kept.
DEFAULT_REPAIR_HOURS = 4.0
DETAIL_VERSION = 1
# The training model refuses NICs above 10,000 Gbit/s as absurd; the ranking accepts a vendor's
# claim and the risk policy judges it (claim_implausible), so the ranking clamps the claim to the
# model's range instead of dropping the offer before the policy can explain it.
NIC_CAP_GBPS = 10_000.0


def rank(
    workload: Workload,
    offers: Sequence[Offer],
    gpus: Mapping[str, GpuSpec],
    *,
    fx_to_cny: Mapping[str, float] | None = None,
    scenario: Scenario = BASE_SCENARIO,
) -> RankingOutcome:
    """Rank offers by cost per ETH; an impossible offer becomes a problem, the rest are ranked.

    `gpus` is the GPU table (the training model's rows, the admin's values). Raises
    ModelInputError only when the workload or the what-if is impossible."""
    check_job(workload, scenario)
    if scenario.dp_overlap is not None:
        parallel = replace(workload.parallel, dp_overlap=scenario.dp_overlap)
        workload = replace(workload, parallel=parallel)
    bills = bill(workload, offers, gpus, fx_to_cny=fx_to_cny, scenario=scenario)
    judge = _Judge(workload, scenario, dict(gpus))
    problems = list(bills.problems)
    rows: list[tuple[float, bool, str, dict[str, Any]]] = []
    parts: dict[int, tuple[Estimate, Parts]] = {}
    for billed in bills.offers:
        offer = billed.offer
        verdict = judge(offer)
        if isinstance(verdict, tuple):
            problems.append(OfferProblem(offer.id, verdict))
            continue
        low_est: Estimate | tuple[Message, ...] = verdict
        if offer.measured_gbps is not None and offer.measured_p50_gbps is not None:
            low_est = judge(replace(offer, measured_gbps=offer.measured_p50_gbps))
        fields = _result_fields(billed, verdict, low_est, workload, scenario, parts)
        rows.append(
            (fields["cost_per_eth"], billed.bandwidth_basis != "measured", offer.id, fields)
        )
    # At one cost per ETH, admitted evidence ranks before a claim (a clean test at what its
    # port carries costs exactly its claimed twin's), then the id.
    rows.sort(key=lambda row: row[:3])
    ranked = tuple(OfferResult(rank=i, **row[3]) for i, row in enumerate(rows, start=1))
    return RankingOutcome(ranked, tuple(problems))


def _result_fields(
    billed: BilledOffer,
    est: Estimate,
    low_est: Estimate | tuple[Message, ...],
    workload: Workload,
    sc: Scenario,
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
        **_figures(billed.hourly_cost, offer, est, low_est, workload, sc, memo),
    }


class _Judge:
    """v2's estimate per offer, memoised on the hardware shape."""

    def __init__(self, workload: Workload, scenario: Scenario, specs: dict[str, GpuSpec]) -> None:
        self.workload = workload
        self.scenario = scenario
        self.specs = specs
        self.seen: dict[tuple[object, ...], Estimate | tuple[Message, ...]] = {}

    def __call__(self, offer: Offer) -> Estimate | tuple[Message, ...]:
        nodes = self.workload.nodes or offer.nodes
        key = (
            offer.gpu, offer.gpus_per_node, nodes, offer.nic_gbps, offer.nics_per_node,
            offer.fabric, offer.measured_gbps, offer.measured_kind, offer.storage_gbyte_s,
            offer.repair_hours, offer.spare_nodes, offer.rail_optimised, offer.servers_per_rack,
            offer.delivered_ratio,
        )  # fmt: skip
        found = self.seen.get(key)
        if found is None:
            found = self.seen[key] = self._estimate(offer, nodes)
        return found

    def _estimate(self, offer: Offer, nodes: int) -> Estimate | tuple[Message, ...]:
        sc, model, parallel = self.scenario, self.workload.model, self.workload.parallel
        try:
            cluster = cluster_of(offer, nodes, self.specs)
            gpu = cluster.gpu
            if sc.mfu_scale != 1.0:
                gpu = replace(gpu, efficiency=min(1.0, gpu.efficiency * sc.mfu_scale))
            busbw, link = cluster.measured_busbw_gbps, cluster.measured_link_gbps
            cluster = replace(
                cluster,
                gpu=gpu,
                nic_gbps=min(NIC_CAP_GBPS, cluster.nic_gbps * sc.bandwidth_scale),
                measured_busbw_gbps=None if busbw is None else busbw * sc.bandwidth_scale,
                measured_link_gbps=(
                    None if link is None else min(NIC_CAP_GBPS, link * sc.bandwidth_scale)
                ),
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
        return self.workload.train_tokens


def cluster_of(offer: Offer, nodes: int, specs: Mapping[str, GpuSpec]) -> Cluster:
    """The offer's hardware as the training model's `Cluster`: the one mapping of an offer.

    The network is the credited link capacity per port (`network.credited_port_gbps`, the
    figure the ranking shows): a claim at what the port can carry (data rate after line
    encoding, less headers) times the vendor's track record when it delivered less than it
    signed; a `link` figure (the NIC capacity link tests showed, capped at that same rate) goes
    in as the model's measured link and pays the fabric's collective efficiency exactly as the
    claim does; a `collective` figure (nccl-tests busbw, per server) is shared by the server's
    GPUs as it is, capped at what the ports can carry."""
    spec = specs.get(offer.gpu)
    if spec is None:
        raise TrainModelError(
            (
                Message(
                    "unknown_gpu",
                    f"The GPU {offer.gpu!r} is not in the GPU table.",
                    f"GPU 表中没有 {offer.gpu!r}。",
                ),
            )
        )
    ratio = offer.delivered_ratio
    share = 1.0 if ratio is None else min(1.0, max(0.0, ratio))
    per_port = credited_port_gbps(
        offer.fabric, offer.nic_gbps, offer.measured_gbps or None, offer.nics_per_node, share
    )
    nic, busbw, link = per_port, None, None
    if offer.measured_gbps:
        nic = port_achievable_gbps(offer.fabric, offer.nic_gbps) or offer.nic_gbps
        if offer.measured_kind == "collective":
            busbw = per_port * offer.nics_per_node / offer.gpus_per_node
        else:
            link = per_port
    return Cluster(
        gpu=spec,
        gpus=nodes * offer.gpus_per_node,
        gpus_per_node=offer.gpus_per_node,
        nic_gbps=nic,
        nics_per_node=offer.nics_per_node,
        fabric=offer.fabric,
        measured_busbw_gbps=busbw,
        measured_link_gbps=link,
        rail_optimised=offer.rail_optimised,
        servers_per_rack=offer.servers_per_rack,
    )


def _does_not_fit(reason: Message) -> Message:
    return Message(
        "workload_does_not_fit",
        f"The workload cannot run on this offer, whatever the parallel layout: {reason.en}",
        f"无论采用何种并行切分，该工作负载都无法在此报价上运行：{reason.zh}",
    )


def _failures(offer: Offer, model: ModelSpec, nodes: int, sc: Scenario) -> Failures:
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
    offer: Offer,
    est: Estimate,
    low_est: Estimate | tuple[Message, ...],
    workload: Workload,
    sc: Scenario,
    memo: dict[int, tuple[Estimate, Parts]] | None = None,
) -> dict[str, Any]:
    """The result's figures from the bill and the estimate, and its breakdown."""
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
        "model_detail": detail(est, offer, workload, sc, wall, job_cost, interruptions, memo),
    }


def detail(
    est: Estimate,
    offer: Offer,
    workload: Workload,
    sc: Scenario,
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
    if workload.assumed_architecture:
        assumed.append("architecture")
    rate = LLAMA3_INTERRUPTIONS_PER_GPU_HOUR / sc.mtbf_scale
    failures = _failures(offer, workload.model, nodes, sc)
    idle_nodes = max(0, nodes - math.ceil(est.gpus_used / offer.gpus_per_node))
    layout, memory, step_split = _estimate_parts(est, memo)
    return {
        "version": DETAIL_VERSION,
        "architecture": workload.source or "given",
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
