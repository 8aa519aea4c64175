"""Layout search (docs/MODEL.md §Layout search): tp inside a server dividing the heads, pp
dividing the layers, dp the rest, then microbatch, interleave, recomputation and ZeRO stage.
Values the workload fixes are used as given. Pruning: a (tp, pp) whose lightest configuration
(ZeRO-3, full recomputation, microbatch 1) does not fit is skipped; for each remaining candidate
only the lowest ZeRO stage that fits per recomputation level gets a step-time evaluation (a higher
stage or more recomputation never makes the same layout faster)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from domain.messages import Message
from domain.trainmodel.arch import pipeline_splits, uneven_pipeline_splits
from domain.trainmodel.errors import TrainModelError, problem
from domain.trainmodel.inputs import Cluster, Layout, ModelSpec, ParallelRequest
from domain.trainmodel.links import Links
from domain.trainmodel.memory import MemoryUse, memory_use
from domain.trainmodel.moe import check_expressible, expert_degrees
from domain.trainmodel.precision import check_precision
from domain.trainmodel.steptime import StepTime, lower_bound_s, step_time

MICROBATCHES = (1, 2, 4, 8)
GoodputOf = Callable[[int], float]  # GPUs a layout uses -> the goodput of the job on them
INTERLEAVES = (1, 2, 3, 4, 6, 8)
RECOMPUTE_ORDER = ("none", "selective", "full")


@dataclass(frozen=True, slots=True)
class Candidate:
    layout: Layout
    step: StepTime
    memory: MemoryUse
    # What the search minimises: wall seconds per useful sequence, the step time over the
    # sequences it processes (layouts with other dp round the batch otherwise and may leave
    # GPUs idle, so step times alone do not compare) over the goodput of the GPUs it uses
    # (more GPUs fail more often).
    score: float


def _score(step: StepTime, layout: Layout, goodput_of: GoodputOf | None) -> float:
    per_sequence = step.step_s / _sequences(layout, step.microbatches)
    if goodput_of is None:
        return per_sequence
    good = goodput_of(layout.tp * layout.pp * layout.dp * layout.cp)
    return per_sequence / good if good > 0 else math.inf


def _sequences(layout: Layout, microbatches: int) -> int:
    return microbatches * layout.dp * layout.microbatch


@dataclass(frozen=True, slots=True)
class SearchResult:
    best: Candidate | None
    evaluated: int
    smallest_need_gb: float | None
    smallest_layout: Layout | None
    pruned: int = 0


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _bad(code: str, en: str, zh: str) -> TrainModelError:
    return problem(code, en, zh)


def check_given(model: ModelSpec, cluster: Cluster, req: ParallelRequest) -> None:
    """Refuse impossible layouts the workload gives."""
    check_request(model, req)
    check_precision(model, cluster.gpu)
    check_expressible(model)
    fixed = (req.tp or 1) * (req.pp or 1) * (req.cp or 1) * (req.dp or 1)
    if fixed > cluster.gpus:
        raise _bad(
            "layout_too_large",
            f"The layout needs {fixed} GPUs (tp x pp x cp x dp) but the offer has {cluster.gpus}.",
            f"该并行布局需要 {fixed} 块 GPU（tp×pp×cp×dp），但报价只有 {cluster.gpus} 块。",
        )


def check_request(model: ModelSpec, req: ParallelRequest) -> None:
    """Refuse a parallel request no offer can run (it does not split the model); the offer's
    size is check_given's part."""
    errors: list[Message] = []
    for name in ("tp", "pp", "dp", "cp", "ep", "microbatch", "interleave"):
        value = getattr(req, name)
        if value is not None and not 1 <= value <= 1_000_000:
            errors.append(
                Message(
                    f"parallel_{name}_range",
                    f"parallel.{name} must be a positive whole number (got {value}).",
                    f"parallel.{name} 必须为正整数（当前为 {value}）。",
                )
            )
    if errors:
        raise TrainModelError(errors)
    if req.tp and model.heads % req.tp:
        raise _bad(
            "tp_heads",
            f"Tensor parallel {req.tp} does not divide the {model.heads} attention heads.",
            f"张量并行度 {req.tp} 不能整除注意力头数 {model.heads}。",
        )
    layers_split = (req.pp or 1) * (req.interleave or 1)
    if req.pp and not uneven_pipeline_splits(model.layers, layers_split):
        raise _bad(
            "pp_layers",
            f"Pipeline parallel {req.pp} x interleave {req.interleave or 1} cannot split the "
            f"{model.layers} layers: neither evenly nor with full middle stages and shorter "
            "first and last stages.",
            f"流水线并行度 {req.pp} × 交错数 {req.interleave or 1} 无法切分 {model.layers} 层："
            "既不能均分，也不能让中间各级满载、首尾两级较短。",
        )
    if req.zero_stage is not None and req.zero_stage not in (0, 1, 2, 3):
        raise _bad(
            "zero_stage",
            f"zero_stage must be 0, 1, 2 or 3 (got {req.zero_stage}).",
            f"zero_stage 必须是 0、1、2 或 3（当前为 {req.zero_stage}）。",
        )
    if req.recompute is not None and req.recompute not in RECOMPUTE_ORDER:
        raise _bad(
            "recompute",
            f"recompute must be none, selective or full (got {req.recompute!r}).",
            f"recompute 必须是 none、selective 或 full（当前为 {req.recompute!r}）。",
        )
    if (req.ep or 1) > 1 and model.moe is None:
        raise _bad(
            "ep_without_moe",
            "Expert parallel needs a MoE model (model.moe with experts).",
            "专家并行需要 MoE 模型（model.moe 中给出专家数）。",
        )
    if model.moe is not None and req.ep and model.moe.experts % req.ep:
        raise _bad(
            "ep_experts",
            f"Expert parallel {req.ep} does not divide the {model.moe.experts} experts.",
            f"专家并行度 {req.ep} 不能整除专家数 {model.moe.experts}。",
        )
    if req.cp and model.seq_len % req.cp:
        raise _bad(
            "cp_seq_len",
            f"Context parallel {req.cp} does not divide the sequence length {model.seq_len}.",
            f"上下文并行度 {req.cp} 不能整除序列长度 {model.seq_len}。",
        )
    folded = (req.tp or 1) * (req.cp or 1) * (req.dp or 1)
    if req.dp and req.tp and req.ep and folded % req.ep:
        raise _bad(
            "ep_dp",
            f"Expert parallel {req.ep} must divide tp x cp x dp = {folded} (the GPUs of a "
            "pipeline stage, re-folded for the expert layers).",
            f"专家并行度 {req.ep} 必须整除 tp×cp×dp = {folded}（同一流水线级的 GPU，"
            "专家层按此重新划分）。",
        )


def _splits(
    model: ModelSpec, cluster: Cluster, req: ParallelRequest, seqs: int
) -> Iterator[tuple[int, int, int, int]]:
    """(tp, cp, pp, dp) candidates; dp <= GPUs // (tp * cp * pp) (idle GPUs allowed). The
    splits on every server come first, those keeping a spare server after them: the best of
    the first prunes most of the second."""
    spares: list[tuple[int, int, int, int]] = []
    for tp, cp, pp in _degrees(model, cluster, req):
        used = tp * cp * pp
        if req.dp:
            if used * req.dp <= cluster.gpus:
                yield tp, cp, pp, req.dp
            continue
        spare = (cluster.gpus - cluster.gpus_per_node) // used
        most, *rest = _data_parallel_degrees(cluster.gpus // used, spare)
        yield tp, cp, pp, most
        spares.extend((tp, cp, pp, dp) for dp in rest)
    yield from spares


def _degrees(
    model: ModelSpec, cluster: Cluster, req: ParallelRequest
) -> Iterator[tuple[int, int, int]]:
    gpn = min(cluster.gpus_per_node, cluster.gpus)
    tps = [req.tp] if req.tp else [t for t in _divisors(gpn)[::-1] if model.heads % t == 0]
    cps = [req.cp] if req.cp else [1]
    for tp in tps:
        for cp in cps:
            pps = [req.pp] if req.pp else _pipeline_degrees(model.layers, tp * cp, cluster.gpus)
            for pp in pps:
                yield tp, cp, pp


@lru_cache(maxsize=65536)
def _data_parallel_degrees(most: int, spare: int) -> tuple[int, ...]:
    """Data-parallel degrees tried for one (tp, cp, pp): the largest that fits on the GPUs
    (those left over stay idle: an awkward server count is not forced into a worse split), and
    the largest that leaves one server idle as a hot spare (no wait for the vendor's repair
    after a failure, which can be worth more than the server's throughput). The global batch
    is rounded up to whole microbatches per replica; the search scores seconds per sequence,
    so the rounding is not counted as a gain."""
    if most < 1:
        return ()
    return (most, spare) if 1 <= spare < most else (most,)


def search(
    model: ModelSpec,
    cluster: Cluster,
    links: Links,
    req: ParallelRequest,
    global_batch_sequences: int,
    goodput_of: GoodputOf | None = None,
) -> SearchResult:
    best: Candidate | None = None
    evaluated = pruned = 0
    smallest: tuple[float, Layout] | None = None
    card = cluster.gpu.memory_gb
    sub_shape = (model, req, cluster.gpu, cluster.gpus_per_node, links, global_batch_sequences)
    # An upper bound on the best step time: the best layout of the same hardware at another node
    # count, re-scaled to this one, if it is one of this search's own candidates (so the bound is
    # met by a candidate and pruning with it can never discard the layout the full search picks).
    ceiling = _seed_step_s(
        model, cluster, links, req, global_batch_sequences, sub_shape, goodput_of
    )
    bounds = _Bounds(model, cluster, links)
    for tp, cp, pp, dp in _splits(model, cluster, req, global_batch_sequences):
        sp = req.sequence_parallel if req.sequence_parallel is not None else tp > 1
        for ep in _eps(model, req, tp * cp * dp):
            for b in _microbatches(req, global_batch_sequences, dp):
                m = -(-global_batch_sequences // (dp * b))  # batch rounded up to whole microbatches
                nothing_fits = False
                good = goodput_of(tp * pp * dp * cp) if goodput_of is not None else 1.0
                per = m * dp * b * good if good > 0 else 0.0  # a zero goodput: no bound
                rc0 = req.recompute or "none"
                for v in _interleaves(model, req, pp, m):
                    degrees = (tp, pp, cp, ep, b, rc0, sp, req.flash_attention)
                    bound = bounds.of(degrees, v, m) / per if per else 0.0
                    if _hopeless(bound, best, ceiling):
                        pruned += 1  # even its cheapest recomputation computes too long
                        continue
                    base = Layout(tp, pp, dp, cp, ep, 0, b, rc0, v, sp, req.flash_attention)
                    found = _fitting(model, req, base, m, card)
                    if found[2] and v == 1:
                        nothing_fits = True  # more interleave or a bigger microbatch: more memory
                        break
                    for layout, mem in found[0]:
                        # Branch and bound: compute, in-layer traffic and bubble already too slow.
                        bound = bounds(layout, m) / per if per else 0.0
                        if _hopeless(bound, best, ceiling):
                            pruned += 1
                            continue
                        step = step_time(
                            model,
                            cluster,
                            links,
                            layout,
                            global_batch_sequences,
                            req.grad_reduce_bytes,
                            req.dp_overlap,
                            req.zero3_gathers_per_layer,
                        )
                        evaluated += 1
                        candidate = Candidate(layout, step, mem, _score(step, layout, goodput_of))
                        if best is None or candidate.score < best.score:
                            best = candidate
                    need = found[1]
                    if need is not None and (smallest is None or need[0] < smallest[0]):
                        smallest = need
                if nothing_fits:
                    need = found[1]
                    if need is not None and (smallest is None or need[0] < smallest[0]):
                        smallest = need
                    break
    if best is not None:
        _SEEDS[sub_shape] = best.layout
    if smallest is None:
        return SearchResult(best, evaluated, None, None, pruned)
    return SearchResult(best, evaluated, smallest[0], smallest[1], pruned)


_PER_MB: dict[tuple[object, ...], dict[tuple[object, ...], float]] = {}


class _Bounds:
    """steptime.lower_bound_s with its per-microbatch time kept per layout degrees for one
    search (hashing the model, GPU and links on every call cost more than the bound itself)."""

    def __init__(self, model: ModelSpec, cluster: Cluster, links: Links) -> None:
        self.args = (model, cluster, links)
        # shared by the searches of every offer with this model, GPU and network
        shape = (model, cluster.gpu, links)
        if shape not in _PER_MB and len(_PER_MB) > _SEEDS_MAX:
            _PER_MB.clear()
        self.per_mb = _PER_MB.setdefault(shape, {})

    def __call__(self, layout: Layout, microbatches: int) -> float:
        key = (
            layout.tp, layout.pp, layout.cp, layout.ep, layout.microbatch, layout.recompute,
            layout.sequence_parallel, layout.flash_attention,
        )  # fmt: skip
        return self.of(key, layout.interleave, microbatches)

    def of(self, key: tuple[Any, ...], interleave: int, microbatches: int) -> float:
        """The bound from the degrees (tp, pp, cp, ep, microbatch, recompute, sp, flash)."""
        pp = key[1]
        bubble = (pp - 1) / interleave if pp > 1 else 0.0
        per = self.per_mb.get(key)
        if per is None:
            tp, _pp, cp, ep, b, rc, sp, flash = key
            layout = Layout(tp, pp, 1, cp, ep, 0, b, rc, interleave, sp, flash)
            per = self.per_mb[key] = lower_bound_s(*self.args, layout, 1) / (1 + bubble)
        return (microbatches + bubble) * per


def _microbatches(req: ParallelRequest, seqs: int, dp: int) -> list[int]:
    """Microbatch sizes tried: the given one, else those no larger than a replica's share of
    the batch (a bigger one only pads the batch)."""
    if req.microbatch:
        return [req.microbatch]
    share = -(-seqs // dp)
    return [b for b in MICROBATCHES if b == 1 or b <= share]


def _hopeless(bound: float, best: Candidate | None, ceiling: float | None) -> bool:
    """A candidate whose lower bound (seconds per sequence) reaches the best so far cannot win
    (ties keep the earlier one), nor one whose bound exceeds the seed's (a candidate at least
    that fast exists; equality is kept, so the earliest of equal layouts still wins)."""
    if best is not None and bound >= best.score:
        return True
    return ceiling is not None and bound > ceiling


# Best layout per hardware sub-shape (model, request, GPU, GPUs per server, links, batch) from
# an earlier search: offers that differ only in their node count seed each other's bound.
_SEEDS: dict[tuple[object, ...], Layout] = {}
_SEEDS_MAX = 4096


def _seed_step_s(
    model: ModelSpec,
    cluster: Cluster,
    links: Links,
    req: ParallelRequest,
    seqs: int,
    sub_shape: tuple[object, ...],
    goodput_of: GoodputOf | None = None,
) -> float | None:
    """The step time of the sub-shape's earlier best layout at this node count, when that
    layout is one of this search's candidates (same enumeration rules), else None."""
    seed = _SEEDS.get(sub_shape)
    if seed is None:
        if len(_SEEDS) > _SEEDS_MAX:
            _SEEDS.clear()
        return None
    tp, cp, pp = seed.tp, seed.cp, seed.pp
    gpn = min(cluster.gpus_per_node, cluster.gpus)
    used = tp * cp * pp
    if req.tp is None and (gpn % tp or model.heads % tp):
        return None
    if req.cp is None and cp != 1:
        return None
    if req.pp is None and pp not in _pipeline_degrees(model.layers, tp * cp, cluster.gpus):
        return None
    if req.dp:
        dp = req.dp
        if used * dp > cluster.gpus:
            return None
    elif cluster.gpus < used:
        return None
    else:
        dp = cluster.gpus // used  # the first degree the search tries
    if seed.ep not in _eps(model, req, tp * cp * dp):
        return None
    if seed.microbatch not in _microbatches(req, seqs, dp):
        return None
    m = -(-seqs // (dp * seed.microbatch))
    if seed.interleave not in _interleaves(model, req, pp, m):
        return None
    sp = req.sequence_parallel if req.sequence_parallel is not None else tp > 1
    base = Layout(
        tp, pp, dp, cp, seed.ep, 0, seed.microbatch, req.recompute or "none", seed.interleave,
        sp, req.flash_attention,
    )  # fmt: skip
    fits = _fitting(model, req, base, m, cluster.gpu.memory_gb)[0]
    if not fits:
        return None
    layout = next((lay for lay, _mem in fits if lay.recompute == seed.recompute), fits[0][0])
    step = step_time(
        model, cluster, links, layout, seqs, req.grad_reduce_bytes, req.dp_overlap,
        req.zero3_gathers_per_layer,
    )  # fmt: skip
    return _score(step, layout, goodput_of)


def _eps(model: ModelSpec, req: ParallelRequest, folded: int) -> list[int]:
    return expert_degrees(model, req.ep, folded)  # experts fold over tp x cp x dp (moe.py)


@lru_cache(maxsize=4096)
def _pipeline_degrees(layers: int, tpcp: int, gpus: int) -> list[int]:
    return [p for p in range(1, layers + 1) if pipeline_splits(layers, p) and tpcp * p <= gpus]


def _interleaves(model: ModelSpec, req: ParallelRequest, pp: int, m: int) -> list[int]:
    if req.interleave:
        return [req.interleave]
    if pp == 1:
        return [1]
    return _interleave_degrees(model.layers, pp, m % pp == 0)


@lru_cache(maxsize=4096)
def _interleave_degrees(layers: int, pp: int, even: bool) -> list[int]:
    return [v for v in INTERLEAVES if pipeline_splits(layers, pp * v) and (v == 1 or even)]


def _runnable_stages(pp: int) -> tuple[int, ...]:
    """ZeRO stages a searched layout may use: a layout the model picks must be one Megatron-LM
    or DeepSpeed runs. DeepSpeed refuses ZeRO-2 and ZeRO-3 with its pipeline engine, and
    Megatron-LM's distributed optimizer (the one it pairs with pipelines) is ZeRO-1. A stage
    the workload gives is used as given (Llama 3's own stack ran FSDP with pipelines)."""
    return (1, 2, 3) if pp == 1 else (1,)


@lru_cache(maxsize=65536)  # memory does not depend on the network: offers share the answer
def _fitting(
    model: ModelSpec, req: ParallelRequest, base: Layout, m: int, card_gb: float
) -> tuple[list[tuple[Layout, MemoryUse]], tuple[float, Layout] | None, bool]:
    """Per recomputation level the lowest ZeRO stage that fits; the smallest need seen; and
    whether nothing at all fits (the lightest setting: most recomputation, highest stage)."""
    recomputes = [req.recompute] if req.recompute else list(RECOMPUTE_ORDER)
    stages = [0] if base.dp == 1 else list(_runnable_stages(base.pp))
    if req.zero_stage is not None:
        stages = [req.zero_stage]

    def variant(rc: str, z: int) -> Layout:
        return Layout(
            base.tp, base.pp, base.dp, base.cp, base.ep, z, base.microbatch, rc,
            base.interleave, base.sequence_parallel, base.flash_attention,
        )  # fmt: skip

    lightest = variant(recomputes[-1], stages[-1])
    rb = req.grad_reduce_bytes
    mem = memory_use(model, lightest, m, rb)
    if mem.total_gb > card_gb:
        return [], (mem.total_gb, lightest), True
    fits: list[tuple[Layout, MemoryUse]] = []
    for rc in recomputes:
        heaviest_fails = (
            len(stages) > 1
            and rc != lightest.recompute
            and memory_use(model, variant(rc, stages[-1]), m, rb).total_gb > card_gb
        )
        if heaviest_fails:
            continue  # not even at the highest ZeRO stage
        for z in stages:
            layout = variant(rc, z)
            mem = memory_use(model, layout, m, rb)
            if mem.total_gb <= card_gb:
                fits.append((layout, mem))
                break
        if fits and fits[-1][0].zero_stage == stages[0] and fits[-1][0].recompute == rc:
            break  # more recomputation at the same stage is only slower
    return fits, None, False
