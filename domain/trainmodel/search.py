"""Layout search (docs/MODEL.md §9): tp inside a server dividing the heads, pp splitting the
layers, dp for each whole number of servers (the rest idle as hot spares), then microbatch,
interleave, recomputation and ZeRO stage. Values the workload fixes are used as given. A best-first
branch and bound (search) visits them in order of lower bounds of their score; for each
candidate only the lowest ZeRO stage that fits per recomputation level gets a step-time
evaluation (a higher stage or more recomputation never makes the same layout faster)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from domain.messages import Message
from domain.trainmodel.arch import pipeline_splits, uneven_pipeline_splits
from domain.trainmodel.calibration import register_cache
from domain.trainmodel.errors import TrainModelError, problem
from domain.trainmodel.inputs import Cluster, Layout, ModelSpec, ParallelRequest
from domain.trainmodel.links import Links
from domain.trainmodel.memory import MemoryUse, memory_use, stage_grad_bytes
from domain.trainmodel.moe import check_expressible, expert_degrees
from domain.trainmodel.precision import check_precision
from domain.trainmodel.steptime import (
    ZERO_REDUCES,
    StepTime,
    dp_exposed_floor_s,
    lower_bound_s,
    microbatch_compute_floor_s,
    microbatch_compute_s,
    pp_comm_s,
    step_time,
)

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
    if req.zero_reduce not in ZERO_REDUCES:
        raise _bad(
            "zero_reduce",
            f"zero_reduce must be reduce_scatter or per_rank (got {req.zero_reduce!r}).",
            f"zero_reduce 必须是 reduce_scatter 或 per_rank（当前为 {req.zero_reduce!r}）。",
        )
    if req.zero_shard_ranks is not None and not 1 <= req.zero_shard_ranks <= 1_000_000:
        raise _bad(
            "zero_shard_ranks",
            "zero_shard_ranks must be a positive whole number (the ranks one copy of the "
            f"optimizer is sharded over; got {req.zero_shard_ranks}).",
            "zero_shard_ranks 必须为正整数（一份优化器状态分片所跨的数据并行进程数；"
            f"当前为 {req.zero_shard_ranks}）。",
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
    """(tp, cp, pp, dp) candidates in the search's order: per (tp, cp, pp) of _degrees, the dp
    of each whole number of servers, largest first (_dp_values). Servers a layout leaves over
    stay idle as hot spares (api._profile): an awkward server count is never forced into a
    worse split, and one more server only adds candidates. The search visits them lazily
    (search, _family); this is the full list."""
    for tp, cp, pp in _degrees(model, cluster, req):
        used = tp * cp * pp
        if req.dp:
            if used * req.dp <= cluster.gpus:
                yield tp, cp, pp, req.dp
            continue
        for dp in _dp_values(used, cluster.gpus_per_node, cluster.gpus):
            yield tp, cp, pp, dp


@lru_cache(maxsize=65536)
def _dp_values(used: int, gpus_per_node: int, gpus: int) -> tuple[int, ...]:
    """Data-parallel degrees of replicas of `used` GPUs, largest first: the most that fit on
    each whole number of servers (1 .. all). A dp between two of these leaves GPUs idle inside
    a server: billed, and no hot spare."""
    servers = max(1, gpus // gpus_per_node)
    found = {min(k * gpus_per_node, gpus) // used for k in range(1, servers + 1)}
    found.add(gpus // used)
    return tuple(sorted((d for d in found if d >= 1), reverse=True))


def _first_at_most(values: tuple[int, ...], most: int) -> int:
    """The index of the first of `values` (descending) that is at most `most`."""
    low, high = 0, len(values)
    while low < high:
        mid = (low + high) // 2
        if values[mid] <= most:
            high = mid
        else:
            low = mid + 1
    return low


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


def search(
    model: ModelSpec,
    cluster: Cluster,
    links: Links,
    req: ParallelRequest,
    global_batch_sequences: int,
    goodput_of: GoodputOf | None = None,
) -> SearchResult:
    """The fastest fitting layout (lowest seconds per useful sequence over goodput); of equal
    scores the one enumerated first.

    Best-first branch and bound over lower bounds of the score, in three levels: each
    (tp, cp, pp) has one dp family per placement regime of its data-parallel ring, bounded
    below every dp of it (_Bounds.family_bound) and opened one dp at a time (_family); each
    (split, ep) gets a bound below every microbatch and interleave of it (_Bounds.group); a
    group is expanded into its (microbatch, interleave) candidates only when it is the most
    promising item left, and each candidate gets its own bound (compute, in-layer traffic,
    bubble and pipeline sends at the cheapest recomputation, plus the least exposed
    data-parallel traffic of any ZeRO stage: steptime.lower_bound_s, pp_comm_s,
    dp_exposed_floor_s). Memory is checked
    and a step time computed only for the candidates reached; the search stops at the first
    item whose bound is above the best score found, since nothing left can beat it."""
    seqs = global_batch_sequences
    card = cluster.gpu.memory_gb
    sub_shape = (model, req, cluster.gpu, cluster.gpus_per_node, links, seqs)
    # An upper bound on the best score: the best layout of the same hardware at another node
    # count, re-scaled to this one, if it is one of this search's own candidates (so the bound is
    # met by a candidate and pruning with it can never discard the layout the full search picks).
    ceiling = _seed_step_s(model, cluster, links, req, seqs, sub_shape, goodput_of)
    rc0 = req.recompute or "none"
    bounds = _Bounds(model, cluster, links, req)
    # Items: (bound, order, payload). `order` is the enumeration position (tp/cp/pp, dp from
    # the largest down, ep, microbatch, interleave): a dp family's with -1 from the ep on, a
    # group's from the microbatch on. Unique, so the payload is never compared.
    heap: list[tuple[Any, ...]] = []
    smallest: tuple[float, Layout] | None = None
    memory = _Memory(model, req, card)
    for di, (tp, cp, pp) in enumerate(_degrees(model, cluster, req)):
        used = tp * cp * pp
        if req.dp:
            values: tuple[int, ...] = (req.dp,) if used * req.dp <= cluster.gpus else ()
        else:
            values = _dp_values(used, cluster.gpus_per_node, cluster.gpus)
        if not values:
            continue  # a given degree times this tp needs more GPUs than the offer has
        # one family per placement regime of the data-parallel ring (its floor grows within
        # one), each bounded below every dp of its range (goodput <= 1)
        for hi, lo in bounds.regimes(tp, cp, values[0], values[-1]):
            at = _first_at_most(values, hi)
            if at >= len(values) or values[at] < lo:
                continue
            bound = bounds.family_bound(req, seqs, tp, pp, cp, values[at], lo)
            heap.append((bound, (di, at, -1, -1, -1), (tp, cp, pp, values, at, lo)))
    heapq.heapify(heap)
    best: Candidate | None = None
    best_at: tuple[tuple[int, ...], int] = ((), 0)
    evaluated = pruned = 0
    while heap:
        bound, order, payload = heap[0]
        if (best is not None and bound > best.score) or (ceiling is not None and bound > ceiling):
            pruned = len(heap)  # the smallest bound left: nothing left can win
            break
        heapq.heappop(heap)
        if order[2] < 0:  # a dp family: its groups at the top dp, the family one dp lower
            need = _family(heap, order, payload, req, seqs, bounds, memory, goodput_of)
            if need is not None and (smallest is None or need[0] < smallest[0]):
                smallest = need
            continue
        if order[3] < 0:  # a group: its candidates that can fit, each with its own bound
            need = _expand(heap, order, payload, req, seqs, bounds, memory)
            if need is not None and (smallest is None or need[0] < smallest[0]):
                smallest = need
            continue
        m, per, fixed = payload[-3:]
        fits, need, _nothing = memory(*payload[:-2])
        if need is not None and (smallest is None or need[0] < smallest[0]):
            smallest = need
        for j, (layout, mem) in enumerate(fits):
            if layout.recompute != rc0:  # more recomputation: its own, higher bound
                bound = (bounds(layout, m) + fixed) / per if per else 0.0
            if _beaten(bound, (order, j), best, best_at, ceiling):
                pruned += 1
                continue
            step = step_time(
                model, cluster, links, layout, seqs, req.grad_reduce_bytes, req.dp_overlap,
                req.zero3_gathers_per_layer, req.zero_shard_ranks, req.zero_reduce,
            )  # fmt: skip
            evaluated += 1
            candidate = Candidate(layout, step, mem, _score(step, layout, goodput_of))
            if best is None or (candidate.score, (order, j)) < (best.score, best_at):
                best, best_at = candidate, (order, j)
    if best is not None:
        _SEEDS[sub_shape] = best.layout
    if smallest is None:
        return SearchResult(best, evaluated, None, None, pruned)
    return SearchResult(best, evaluated, smallest[0], smallest[1], pruned)


def _heavier(req: ParallelRequest, recompute: str) -> tuple[str, ...]:
    """The recomputation levels tried from `recompute` on (more memory saved, more compute)."""
    return _heavier_levels(recompute, req.recompute is not None)


def _heavier_levels(recompute: str, given: bool) -> tuple[str, ...]:
    if given:
        return (recompute,)
    return RECOMPUTE_ORDER[RECOMPUTE_ORDER.index(recompute) :]


def _family(
    heap: list[tuple[Any, ...]],
    order: tuple[int, ...],
    payload: tuple[int, int, int, tuple[int, ...], int, int],
    req: ParallelRequest,
    seqs: int,
    bounds: _Bounds,
    memory: _Memory,
    goodput_of: GoodputOf | None,
) -> tuple[float, Layout] | None:
    """Push the (split, ep) groups of a (tp, cp, pp) at the family's top dp with their bounds,
    and the family from the next dp down, unless no group of a dense model at this dp fits even
    at its lightest (fewer data-parallel ranks shard the weights and states over fewer GPUs: a
    smaller dp needs more memory). Returns the smallest need of the groups that do not fit."""
    tp, cp, pp, values, at, lowest = payload
    dp = values[at]
    groups = bounds.groups((tp, cp, pp, dp), req, seqs, memory)
    good = goodput_of(tp * pp * dp * cp) if goodput_of is not None and groups else 1.0
    smallest: tuple[float, Layout] | None = None
    fitting = not groups  # no candidate at this dp (an interleave given that does not split)
    lightest = bounds.rc0  # the least recomputation any group at this dp fits with
    for ei, ep, sp, need, per_good, floor, rc in groups:
        if need is not None:  # not even the smallest microbatch fits: nor does the group
            if smallest is None or need[0] < smallest[0]:
                smallest = need
            continue
        lightest = rc if not fitting else min(lightest, rc, key=RECOMPUTE_ORDER.index)
        fitting = True
        bound = per_good / good if good > 0 else 0.0  # a zero goodput: no bound
        heapq.heappush(
            heap, (bound, (*order[:2], ei, -1, -1), (tp, pp, dp, cp, ep, sp, good, floor))
        )
    # a MoE's expert degrees change with dp (moe.expert_degrees): its memory is not monotone
    further = at + 1 < len(values) and values[at + 1] >= lowest
    if (fitting or bounds.args[0].moe is not None) and further:
        # a dense model's smaller dp needs more memory: no lighter recomputation fits there
        rc = lightest if fitting and bounds.args[0].moe is None else bounds.rc0
        below = bounds.family_bound(req, seqs, tp, pp, cp, values[at + 1], lowest, rc)
        item = (tp, cp, pp, values, at + 1, lowest)
        heapq.heappush(heap, (below, (order[0], at + 1, -1, -1, -1), item))
    return smallest


def _expand(
    heap: list[tuple[Any, ...]],
    order: tuple[int, ...],
    payload: tuple[Any, ...],
    req: ParallelRequest,
    seqs: int,
    bounds: _Bounds,
    memory: _Memory,
) -> tuple[float, Layout] | None:
    """Push the (microbatch, interleave) candidates of a (split, ep) group with their bounds,
    microbatches in increasing size up to the first whose lightest setting does not fit (a
    bigger microbatch or more interleave only needs more memory); return that one's need."""
    tp, pp, dp, cp, ep, sp, good, floor = payload
    model = bounds.args[0]
    flash = req.flash_attention
    bubble = pp - 1
    for bi, b in enumerate(_microbatches(req, seqs, dp)):
        m = -(-seqs // (dp * b))  # batch rounded up to whole microbatches
        interleaves = _interleaves(model, req, pp, m)
        if not interleaves:
            continue
        fits, need, nothing = memory(tp, pp, dp, cp, ep, b, interleaves[0], sp, m)
        if nothing:
            return need
        per = m * dp * b * good if good > 0 else 0.0  # a zero goodput: no bound
        # the lightest recomputation that fits at the least interleave; more needs more memory
        mb = min(
            bounds.per_microbatch((tp, pp, cp, ep, b, rc, sp, flash))
            for rc in _heavier(req, fits[0][0].recompute)
        )
        sends = m * bounds.sends(tp, pp, dp, cp, b, sp)  # grows with the interleave
        for vi, v in enumerate(interleaves):
            fixed = floor + sends * v  # every ZeRO stage and recomputation pays these
            bound = ((m + bubble / v) * mb + fixed) / per if per else 0.0
            item = (tp, pp, dp, cp, ep, b, v, sp, m, per, fixed)
            heapq.heappush(heap, (bound, (*order[:3], bi, vi), item))
    return None


def _beaten(
    bound: float,
    at: tuple[tuple[int, ...], int],
    best: Candidate | None,
    best_at: tuple[tuple[int, ...], int],
    ceiling: float | None,
) -> bool:
    """A candidate whose lower bound exceeds the best score so far cannot win, nor can one whose
    bound equals it and that comes later in the enumeration (ties keep the earlier); nor one
    whose bound exceeds the seed's score (a candidate at least that fast exists; equality is
    kept, so the earliest of equal layouts still wins)."""
    if best is not None and (bound > best.score or (bound == best.score and at > best_at)):
        return True
    return ceiling is not None and bound > ceiling


_PER_MB: dict[tuple[object, ...], dict[tuple[object, ...], Any]] = {}


class _Bounds:
    """The search's lower bounds kept per layout degrees in a table shared by the searches of
    every offer with this model, request, GPU and network, whatever its node count (hashing
    the model, GPU and links on every call cost more than the bound itself)."""

    def __init__(
        self, model: ModelSpec, cluster: Cluster, links: Links, req: ParallelRequest
    ) -> None:
        self.args = (model, cluster, links)
        self.flash = req.flash_attention
        self.rc0 = req.recompute or "none"
        self.given_rc = req.recompute is not None
        self.sp = req.sequence_parallel
        self.sizes = (req.microbatch,) if req.microbatch else MICROBATCHES
        # tensor-parallel traffic inside one server does not touch the network
        self.intra = (model, cluster, links.intra_only())
        shape = (model, req, cluster.gpu, links)
        if shape not in _PER_MB and len(_PER_MB) > _SEEDS_MAX:
            _PER_MB.clear()
        self.per_mb = _PER_MB.setdefault(shape, {})

    def __call__(self, layout: Layout, microbatches: int) -> float:
        key = (
            layout.tp, layout.pp, layout.cp, layout.ep, layout.microbatch, layout.recompute,
            layout.sequence_parallel, layout.flash_attention,
        )  # fmt: skip
        return self.of(key, layout.interleave, microbatches)

    def groups(
        self, split: tuple[int, int, int, int], req: ParallelRequest, seqs: int, memory: _Memory
    ) -> list[tuple[Any, ...]]:
        """The (split, ep) groups of a split: (ep index, ep, sequence parallel, the need of the
        group's lightest candidate when even that does not fit else None, the group's bound
        times the goodput, the data-parallel floor, the least recomputation that fits)."""
        key = ("groups", split)
        found: list[tuple[Any, ...]] | None = self.per_mb.get(key)
        if found is not None:
            return found
        model = self.args[0]
        tp, cp, pp, dp = split
        sp = req.sequence_parallel if req.sequence_parallel is not None else tp > 1
        sizes = (req.microbatch,) if req.microbatch else MICROBATCHES  # every size tried
        b1 = _microbatches(req, seqs, dp)[0]
        m1 = -(-seqs // (dp * b1))
        v1 = _interleaves(model, req, pp, m1)
        out: list[tuple[Any, ...]] = []
        for ei, ep in enumerate(_eps(model, req, tp * cp * dp) if v1 else ()):
            fits, need, nothing = memory(tp, pp, dp, cp, ep, b1, v1[0], sp, m1)
            if nothing:
                out.append((ei, ep, sp, need, 0.0, 0.0, ""))
                continue
            rcs = _heavier(req, fits[0][0].recompute)  # bigger microbatches need no less
            floor = self.dp_floor(req, seqs, tp, pp, cp, ep, dp)
            # per sequence: no faster than the best microbatch, the floor spread over the most
            # sequences a step of this dp can hold
            least = self.group(tp, pp, cp, ep, dp, sp, sizes, rcs)
            per_good = least / dp + floor / (seqs + dp * max(sizes))
            out.append((ei, ep, sp, None, per_good, floor, rcs[0]))
        self.per_mb[key] = out
        return out

    def regimes(self, tp: int, cp: int, top: int, lowest: int) -> list[tuple[int, int]]:
        key = ("regimes", tp, cp, top, lowest)
        found: list[tuple[int, int]] | None = self.per_mb.get(key)
        if found is None:
            found = self.per_mb[key] = self._regimes(tp, cp, top, lowest)
        return found

    def _regimes(self, tp: int, cp: int, top: int, lowest: int) -> list[tuple[int, int]]:
        """(highest, lowest) dp of each placement regime of a data-parallel ring of stride tp
        within lowest..top, highest first: inside one server, across servers, across the
        spine (links.placement, links.transfer_s)."""
        links = self.args[2]
        gpn = links.gpus_per_node
        local = max(1, gpn // tp) if tp < gpn else 1  # ranks of the ring per server
        edges = [local // cp]  # the most dp inside one server
        if links.spine_after < 1_000_000:
            edges.append(local * links.spine_after // cp)  # the most dp below the spine
        out: list[tuple[int, int]] = []
        hi = top
        for edge in sorted(set(edges), reverse=True):
            if lowest <= edge < hi:
                out.append((hi, edge + 1))
                hi = edge
        out.append((hi, lowest))
        return out

    def family_bound(
        self, req: ParallelRequest, seqs: int, tp: int, pp: int, cp: int, top: int, lowest: int,
        recompute: str | None = None,
    ) -> float:  # fmt: skip
        """A bound below the score of every candidate of these degrees with dp in
        lowest..top (one placement regime, _Bounds.regimes): goodput <= 1, each replica no
        faster than family_floor, plus from dp 2 on the data-parallel floor of the lowest dp
        of the regime. Within a regime a ring's traffic only grows with its size, and a larger
        dp tries no bigger microbatch (which would hide more), so steptime.dp_exposed_floor_s
        only grows with dp there."""
        least = self.family_floor(tp, pp, cp, top, recompute or self.rc0)
        if self.args[0].moe is not None:  # a MoE's floor depends on its ep
            return least / top
        start = max(2, lowest)
        if start > top:  # dp 1 alone: no data-parallel traffic
            return least / top
        # per-microbatch traffic counted once: a step of any dp has at least one microbatch
        floor = self.dp_floor(req, seqs, tp, pp, cp, 1, start, 1)
        bound = least / top + floor / (seqs + top * max(self.sizes))
        return min(least, bound) if lowest <= 1 else bound

    def family_floor(self, tp: int, pp: int, cp: int, top: int, recompute: str) -> float:
        """The least time per sequence of one data-parallel replica of these degrees, at any
        dp up to `top`: compute alone for a MoE (its expert degrees change with dp), else
        _Bounds.group's compute, tensor-parallel time and pipeline sends at every
        recomputation level, inside one server or across servers."""
        crosses = tp * cp * top * pp > self.args[2].gpus_per_node
        key = ("family", tp, pp, cp, crosses, recompute)
        least: float | None = self.per_mb.get(key)
        if least is None:
            if self.args[0].moe is not None:
                least = self.compute_floor(tp, pp, cp)
            else:
                sp = tp > 1 if self.sp is None else self.sp
                rcs = _heavier_levels(recompute, self.given_rc)
                least = min(
                    self.group(tp, pp, cp, 1, 1, sp, self.sizes, rcs),
                    self.group(tp, pp, cp, 1, top, sp, self.sizes, rcs),
                )
            self.per_mb[key] = least
        return least

    def compute_max(self, tp: int, pp: int, cp: int, b: int, ep: int = 1) -> float:
        """One microbatch's compute at these degrees (ep included: a MoE's routing imbalance
        and chunk sort grow with it) with the most recomputation tried."""
        key = ("compute-max", tp, pp, cp, b, ep)
        most: float | None = self.per_mb.get(key)
        if most is None:
            model, cluster, _links = self.args
            rc = self.rc0 if self.given_rc else RECOMPUTE_ORDER[-1]
            heaviest = Layout(tp, pp, 1, cp, ep, 0, b, rc, 1, tp > 1, self.flash)
            most = self.per_mb[key] = microbatch_compute_s(model, cluster.gpu, heaviest)
        return most

    def compute_floor(self, tp: int, pp: int, cp: int) -> float:
        """The least compute time per sequence of one data-parallel replica of these degrees
        over the microbatch sizes tried, at the least recomputation (a step computes every
        microbatch at least): a bound below every dp, ep, interleave and ZeRO stage."""
        key = ("compute", tp, pp, cp)
        least: float | None = self.per_mb.get(key)
        if least is None:
            model, cluster, _links = self.args
            rc, flash = self.rc0, self.flash
            # a MoE microbatch computes no slower at a larger ep when its routing imbalance
            # is left out (steptime._mb_compute_s; the imbalance only adds): one expert per
            # GPU, balanced, bounds every expert-parallel size below
            most_ep = model.moe.experts if model.moe is not None else 1
            least = self.per_mb[key] = min(
                microbatch_compute_floor_s(
                    model, cluster.gpu, Layout(tp, pp, 1, cp, most_ep, 0, b, rc, 1, tp > 1, flash)
                ) / b
                for b in self.sizes
            )  # fmt: skip
        return least

    def dp_floor(
        self, req: ParallelRequest, seqs: int, tp: int, pp: int, cp: int, ep: int, dp: int,
        microbatches: int | None = None,
    ) -> float:  # fmt: skip
        """steptime.dp_exposed_floor_s of these degrees over the ZeRO stages tried, with the
        fewest microbatches a step of this dp has, or `microbatches` (fewer: a floor below a
        larger dp too, whose steps have fewer microbatches)."""
        key = ("dp", tp, pp, cp, ep, dp, microbatches)
        floor: float | None = self.per_mb.get(key)
        if floor is None:
            stages = {z: stage_grad_bytes(z, req.grad_reduce_bytes) for z in _stages(req, dp, pp)}
            model, _cluster, links = self.args
            # the most one microbatch of these degrees computes: the biggest microbatch tried,
            # the most recomputation
            b = max(_microbatches(req, seqs, dp))
            compute = self.compute_max(tp, pp, cp, b, ep)
            layout = Layout(tp, pp, dp, cp, ep, 0, 1, "none", 1, False, True)
            fewest = microbatches or -(-seqs // (dp * b))  # microbatches at the biggest size
            floor = self.per_mb[key] = dp_exposed_floor_s(
                model, layout, links, stages, compute, fewest
            )
        return floor

    def sends(self, tp: int, pp: int, dp: int, cp: int, b: int, sp: bool) -> float:
        """steptime.pp_comm_s of one microbatch at one interleave."""
        links = self.args[2]
        crosses = tp * cp * dp * pp > links.gpus_per_node
        key = ("sends", tp, pp, cp, b, sp, crosses)
        found: float | None = self.per_mb.get(key)
        if found is None:
            layout = Layout(tp, pp, dp, cp, 1, 0, b, "none", 1, sp, True)
            found = self.per_mb[key] = pp_comm_s(self.args[0], layout, 1, links)
        return found

    def per_microbatch(self, key: tuple[Any, ...]) -> float:
        """The bound's time per microbatch of the degrees (tp, pp, cp, ep, microbatch,
        recompute, sp, flash): what every microbatch and each bubble slot costs at least."""
        per: float | None = self.per_mb.get(key)
        if per is None:
            tp, pp, cp, ep, b, rc, sp, flash = key
            layout = Layout(tp, pp, 1, cp, ep, 0, b, rc, 1, sp, flash)
            bubble = pp - 1.0
            inside = cp == 1 and ep == 1 and tp <= self.intra[2].gpus_per_node
            args = self.intra if inside else self.args
            per = self.per_mb[key] = lower_bound_s(*args, layout, 1) / (1 + bubble)
        return per

    def group(
        self, tp: int, pp: int, cp: int, ep: int, dp: int, sp: bool,
        sizes: tuple[int, ...], recomputes: tuple[str, ...],
    ) -> float:  # fmt: skip
        """The least time per sequence of one microbatch's bound and its pipeline sends (at
        one interleave, the fewest), over the microbatch `sizes` and `recomputes`, with these
        other degrees: no candidate of the group computes and sends a sequence faster."""
        links = self.args[2]
        if self.args[0].moe is None:
            # a dense model's microbatch time only grows with recomputation (more compute, of
            # which overlap hides at most OVERLAP_EFFICIENCY; full recomputation adds traffic):
            # the lightest level is the least
            recomputes = recomputes[:1]
        crosses = tp * cp * dp * pp > links.gpus_per_node
        key = ("group", tp, pp, cp, ep, crosses, sp, sizes, recomputes)
        least: float | None = self.per_mb.get(key)
        if least is None:
            flash = self.flash
            least = self.per_mb[key] = min(
                (
                    self.per_microbatch((tp, pp, cp, ep, b, rc, sp, flash))
                    + self.sends(tp, pp, dp, cp, b, sp)
                ) / b
                for b in sizes
                for rc in recomputes
            )  # fmt: skip
        return least

    def of(self, key: tuple[Any, ...], interleave: int, microbatches: int) -> float:
        """The bound from the degrees (tp, pp, cp, ep, microbatch, recompute, sp, flash)."""
        bubble: float = (key[1] - 1) / interleave
        return (microbatches + bubble) * self.per_microbatch(key)


def _microbatches(req: ParallelRequest, seqs: int, dp: int) -> list[int]:
    """Microbatch sizes tried: the given one, else those no larger than a replica's share of
    the batch (a bigger one only pads the batch)."""
    if req.microbatch:
        return [req.microbatch]
    share = -(-seqs // dp)
    return [b for b in MICROBATCHES if b == 1 or b <= share]


# Best layout per hardware sub-shape (model, request, GPU, GPUs per server, links, batch) from
# an earlier search: offers that differ only in their node count seed each other's bound.
_SEEDS: dict[tuple[object, ...], Layout] = {}
_SEEDS_MAX = 4096
register_cache(_SEEDS.clear)
register_cache(_PER_MB.clear)


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
    fits = _Memory(model, req, cluster.gpu.memory_gb)(
        tp, pp, dp, cp, seed.ep, seed.microbatch, seed.interleave, sp, m
    )[0]
    if not fits:
        return None
    layout = next((lay for lay, _mem in fits if lay.recompute == seed.recompute), fits[0][0])
    step = step_time(
        model, cluster, links, layout, seqs, req.grad_reduce_bytes, req.dp_overlap,
        req.zero3_gathers_per_layer, req.zero_shard_ranks, req.zero_reduce,
    )  # fmt: skip
    return _score(step, layout, goodput_of)


def _eps(model: ModelSpec, req: ParallelRequest, folded: int) -> list[int]:
    return expert_degrees(model, req.ep, folded)  # experts fold over tp x cp x dp (moe.py)


@lru_cache(maxsize=4096)
def _pipeline_degrees(layers: int, tpcp: int, gpus: int) -> list[int]:
    """Searched pipeline degrees: even splits and Llama 3's (first and last stage one layer
    short). Megatron's uneven split (61 layers on 16 stages) is run when the workload gives
    that pp (check_request, _interleave_degrees); searching every uneven pp too made the
    search 1.8x slower for no better layout on the published runs."""
    return [p for p in range(1, layers + 1) if pipeline_splits(layers, p) and tpcp * p <= gpus]


def _interleaves(model: ModelSpec, req: ParallelRequest, pp: int, m: int) -> list[int]:
    if req.interleave:
        return [req.interleave]
    if pp == 1:
        return [1]
    return _interleave_degrees(model.layers, pp, m % pp == 0)


@lru_cache(maxsize=4096)
def _interleave_degrees(layers: int, pp: int, even: bool) -> list[int]:
    """Interleave degrees: v = 1 whenever the stages split (unevenly too), v > 1 only when the
    pp·v chunks split evenly or Llama 3 style and the microbatches fill the rounds."""
    return [
        v
        for v in INTERLEAVES
        if (v == 1 and uneven_pipeline_splits(layers, pp))
        or (v > 1 and even and pipeline_splits(layers, pp * v))
    ]


def _runnable_stages(pp: int) -> tuple[int, ...]:
    """ZeRO stages a searched layout may use: a layout the model picks must be one Megatron-LM
    or DeepSpeed runs. DeepSpeed refuses ZeRO-2 and ZeRO-3 with its pipeline engine, and
    Megatron-LM's distributed optimizer (the one it pairs with pipelines) is ZeRO-1. A stage
    the workload gives is used as given (Llama 3's own stack ran FSDP with pipelines)."""
    return (1, 2, 3) if pp == 1 else (1,)


def _stages(req: ParallelRequest, dp: int, pp: int) -> tuple[int, ...]:
    """ZeRO stages tried, lowest first: the given one, none without data parallelism, else
    the runnable ones."""
    if req.zero_stage is not None:
        return (req.zero_stage,)
    return (0,) if dp == 1 else _runnable_stages(pp)


Fitting = tuple[list[tuple[Layout, MemoryUse]], tuple[float, Layout] | None, bool]
_FITS: dict[tuple[object, ...], dict[tuple[Any, ...], Fitting]] = {}


class _Memory:
    """_fitting by layout degrees, kept for the searches of every offer with this model,
    request and card (memory does not depend on the network; hashing the model and request
    on every call cost more than the lookup)."""

    def __init__(self, model: ModelSpec, req: ParallelRequest, card_gb: float) -> None:
        self.args = (model, req, card_gb)
        shape = (model, req, card_gb)
        if shape not in _FITS and len(_FITS) > _SEEDS_MAX:
            _FITS.clear()
        self.table = _FITS.setdefault(shape, {})

    def __call__(
        self, tp: int, pp: int, dp: int, cp: int, ep: int, b: int, v: int, sp: bool, m: int
    ) -> Fitting:
        key = (tp, pp, dp, cp, ep, b, v, sp, m)
        found = self.table.get(key)
        if found is None:
            model, req, card = self.args
            rc0 = req.recompute or "none"
            base = Layout(tp, pp, dp, cp, ep, 0, b, rc0, v, sp, req.flash_attention)
            found = self.table[key] = _fitting(model, req, base, m, card)
        return found


def _fitting(
    model: ModelSpec, req: ParallelRequest, base: Layout, m: int, card_gb: float
) -> Fitting:
    """Per recomputation level the lowest ZeRO stage that fits; the smallest need seen; and
    whether nothing at all fits (the lightest setting: most recomputation, highest stage)."""
    recomputes = [req.recompute] if req.recompute else list(RECOMPUTE_ORDER)
    stages = list(_stages(req, base.dp, base.pp))

    def variant(rc: str, z: int) -> Layout:
        return Layout(
            base.tp, base.pp, base.dp, base.cp, base.ep, z, base.microbatch, rc,
            base.interleave, base.sequence_parallel, base.flash_attention,
        )  # fmt: skip

    lightest = variant(recomputes[-1], stages[-1])
    rb = req.grad_reduce_bytes
    sr = req.zero_shard_ranks
    mem = memory_use(model, lightest, m, rb, sr)
    if mem.total_gb > card_gb:
        return [], (mem.total_gb, lightest), True
    fits: list[tuple[Layout, MemoryUse]] = []
    for rc in recomputes:
        heaviest_fails = (
            len(stages) > 1
            and rc != lightest.recompute
            and memory_use(model, variant(rc, stages[-1]), m, rb, sr).total_gb > card_gb
        )
        if heaviest_fails:
            continue  # not even at the highest ZeRO stage
        for z in stages:
            layout = variant(rc, z)
            mem = memory_use(model, layout, m, rb, sr)
            if mem.total_gb <= card_gb:
                fits.append((layout, mem))
                break
        if fits and fits[-1][0].zero_stage == stages[0] and fits[-1][0].recompute == rc:
            break  # more recomputation at the same stage is only slower
    return fits, None, False
