"""The public entry point: `estimate(model, cluster, parallel, failures, train_tokens)`."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from domain.messages import Message
from domain.trainmodel.calibration import register_cache
from domain.trainmodel.errors import problem
from domain.trainmodel.failures import Goodput, default_failures, goodput
from domain.trainmodel.inputs import (
    Cluster,
    Failures,
    Layout,
    ModelSpec,
    ParallelRequest,
    check_cluster,
    check_failures,
    check_model,
)
from domain.trainmodel.links import links_for
from domain.trainmodel.memory import MemoryUse
from domain.trainmodel.search import check_given, search
from domain.trainmodel.steptime import StepTime

REFERENCE_PEAK_FLOPS = 989e12  # H100 SXM dense BF16 (COST-MODEL.md's reference GPU)
REFERENCE_MFU = 0.45  # COST-MODEL.md's default mfu of the reference GPU


@dataclass(frozen=True, slots=True)
class Estimate:
    """The best layout on the offer and what it gives. Times in seconds unless named."""

    layout: Layout
    gpus_used: int
    step: StepTime
    memory: MemoryUse
    card_memory_gb: float
    tokens_per_s: float
    mfu: float
    hfu: float
    layouts_evaluated: int
    bandwidth_basis: str
    goodput: Goodput
    failures_given: bool
    eth_per_hour: float
    train_hours: float | None  # effective (failure-free) training hours for train_tokens
    wall_hours: float | None  # job wall time including checkpoints, failures and restarts
    expected_interruptions: float | None


@dataclass(frozen=True, slots=True)
class NoFit:
    """No layout fits in the card's memory (or none exists): the reason, bilingual."""

    reason: Message
    needed_gb: float | None
    card_memory_gb: float
    layouts_evaluated: int


def _global_batch_sequences(model: ModelSpec, req: ParallelRequest) -> int:
    seqs = req.global_batch_tokens / model.seq_len
    if not 1 <= seqs <= 1e9 or not math.isfinite(seqs):
        raise problem(
            "global_batch_range",
            f"global_batch_tokens ({req.global_batch_tokens:g}) must hold at least one sequence of "
            f"{model.seq_len} tokens.",
            f"global_batch_tokens（{req.global_batch_tokens:g}）至少要容纳一条长度为 "
            f"{model.seq_len} 的序列。",
        )
    return max(1, round(seqs))


def estimate(
    model: ModelSpec,
    cluster: Cluster,
    parallel: ParallelRequest,
    failures: Failures | None = None,
    train_tokens: float | None = None,
) -> Estimate | NoFit:
    """Fastest fitting layout of `model` on `cluster`, or NoFit with the reason.

    Raises TrainModelError (bilingual messages) on bad input. Results are memoised: a ranking
    holds many offers of the same hardware shape, and every input is a frozen dataclass."""
    return _estimate(model, cluster, parallel, failures, train_tokens)


@lru_cache(maxsize=4096)
def _estimate(
    model: ModelSpec,
    cluster: Cluster,
    parallel: ParallelRequest,
    failures: Failures | None,
    train_tokens: float | None,
) -> Estimate | NoFit:
    check_model(model)
    check_cluster(cluster)
    check_given(model, cluster, parallel)
    if failures is not None:
        check_failures(failures)
    if train_tokens is not None and not 0 < train_tokens < 1e18:
        raise problem(
            "train_tokens_range",
            f"train_tokens must be a positive number of tokens below 1e18 (got {train_tokens:g}).",
            f"train_tokens 必须是小于 1e18 的正数（当前为 {train_tokens:g}）。",
        )
    seqs = _global_batch_sequences(model, parallel)
    links = links_for(cluster)
    goodputs: dict[int, float] = {}

    def goodput_of(gpus: int) -> float:
        found = goodputs.get(gpus)
        if found is None:
            found = goodputs[gpus] = _goodput_value(
                model.params, failures, cluster.gpus, cluster.gpus_per_node, gpus
            )
        return found

    found = search(model, cluster, links, parallel, seqs, goodput_of)
    card = cluster.gpu.memory_gb
    if found.best is None:
        return _no_fit(found.smallest_need_gb, card, found.evaluated, model, cluster, seqs)
    best = found.best
    layout = best.layout
    used = layout.tp * layout.pp * layout.dp * layout.cp
    peak = cluster.gpu.bf16_tflops * 1e12
    step = best.step
    profile = _profile(model, cluster, failures, used)
    good = goodput(profile, used)
    achieved = step.model_flops_per_step / step.step_s
    train_hours = wall_hours = interruptions = None
    if train_tokens:
        tokens_per_s = _step_tokens(step, layout, model) / step.step_s
        train_hours = train_tokens / tokens_per_s / 3600.0
        wall_hours = train_hours / good.goodput if good.goodput > 0 else math.inf
        interruptions = wall_hours * used * profile.interruptions_per_gpu_hour
    return Estimate(
        layout=layout,
        gpus_used=used,
        step=step,
        memory=best.memory,
        card_memory_gb=card,
        tokens_per_s=_step_tokens(step, layout, model) / step.step_s,
        mfu=achieved / (used * peak),
        hfu=step.hardware_flops_per_step / step.step_s / (used * peak),
        layouts_evaluated=found.evaluated,
        bandwidth_basis=links.basis,
        goodput=good,
        failures_given=failures is not None,
        eth_per_hour=achieved * good.goodput / (REFERENCE_PEAK_FLOPS * REFERENCE_MFU),
        train_hours=train_hours,
        wall_hours=wall_hours,
        expected_interruptions=interruptions,
    )


@lru_cache(maxsize=65536)
def _goodput_value(
    params: float, failures: Failures | None, gpus: int, gpus_per_node: int, used: int
) -> float:
    """The goodput of a job on `used` of an offer's `gpus` (the rest hot spares): the same for
    every offer with these figures, whatever its network, so kept across estimates."""
    nodes = max(1, math.ceil(used / gpus_per_node))
    profile = _spared(failures or default_failures(params, nodes), gpus // gpus_per_node - nodes)
    return goodput(profile, used).goodput


def _spared(profile: Failures, idle_nodes: int) -> Failures:
    if idle_nodes > 0:
        return replace(profile, spare_nodes=profile.spare_nodes + idle_nodes)
    return profile


def _profile(model: ModelSpec, cluster: Cluster, failures: Failures | None, used: int) -> Failures:
    """The failure profile of a job on `used` GPUs. Servers the layout leaves idle are billed
    (the offer is rented whole) and serve as hot spares: a failed server is swapped for one of
    them instead of waiting for the repair."""
    nodes = max(1, math.ceil(used / cluster.gpus_per_node))
    profile = failures or default_failures(model.params, nodes)
    return _spared(profile, cluster.gpus // cluster.gpus_per_node - nodes)


def _step_tokens(step: StepTime, layout: Layout, model: ModelSpec) -> float:
    return step.microbatches * layout.dp * layout.microbatch * model.seq_len


def _no_fit(
    need: float | None, card: float, evaluated: int, model: ModelSpec, cluster: Cluster, seqs: int
) -> NoFit:
    if need is None:
        reason = Message(
            "no_layout",
            f"No parallel layout of {model.layers} layers and {model.heads} heads splits "
            f"{cluster.gpus} GPUs with a global batch of {seqs} sequences.",
            f"没有任何并行布局能把 {model.layers} 层、{model.heads} 个注意力头的模型切分到 "
            f"{cluster.gpus} 块 GPU 上（全局批量 {seqs} 条序列）。",
        )
    else:
        shown = f"{need:.0f}" if round(need) != round(card) else f"{need:.1f}"
        reason = Message(
            "does_not_fit",
            f"Does not fit: the smallest layout needs {shown} GB per GPU, the "
            f"{cluster.gpu.key} has {card:.0f} GB.",
            f"显存不足：最省显存的布局每卡需要 {shown} GB，{cluster.gpu.key} 只有 {card:.0f} GB。",
        )
    return NoFit(reason, need, card, evaluated)


register_cache(_estimate.cache_clear)
