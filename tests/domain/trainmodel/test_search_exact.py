"""The layout search's branch and bound never changes its answer: over many offers (dense and
MoE presets, FP8, adapters, given degrees, every network kind, measured tables, awkward server
counts) it picks the same layout with the same score as trying every candidate would, ties
going to the first enumerated, and it says nothing fits exactly when nothing does."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from domain.trainmodel import search as s
from domain.trainmodel.api import _global_batch_sequences, _profile
from domain.trainmodel.failures import goodput
from domain.trainmodel.gpus import gpu_spec
from domain.trainmodel.inputs import Cluster
from domain.trainmodel.links import links_for
from domain.trainmodel.presets import presets
from domain.trainmodel.steptime import step_time

GPUS = ("H100-SXM", "H800-SXM", "A100-SXM4-80GB", "A100-SXM4-40GB", "H20", "L40S", "RTX4090")
NETWORKS = (("tcp", 10, 1), ("tcp", 25, 2), ("roce", 100, 4), ("roce", 200, 8), ("ib", 400, 8))


def _everything(model, cluster, links, req, seqs, goodput_of):  # type: ignore[no-untyped-def]
    """Every candidate of the search's own enumeration, no bound: the best (score, order)."""
    best = None
    smallest = None
    order = 0
    for tp, cp, pp, dp in s._splits(model, cluster, req, seqs):
        sp = req.sequence_parallel if req.sequence_parallel is not None else tp > 1
        for ep in s._eps(model, req, tp * cp * dp):
            for b in s._microbatches(req, seqs, dp):
                m = -(-seqs // (dp * b))
                for v in s._interleaves(model, req, pp, m):
                    base = s.Layout(
                        tp, pp, dp, cp, ep, 0, b, req.recompute or "none", v, sp,
                        req.flash_attention,
                    )  # fmt: skip
                    fits, need, _nothing = s._fitting(model, req, base, m, cluster.gpu.memory_gb)
                    if need is not None and (smallest is None or need[0] < smallest[0]):
                        smallest = need
                    for layout, _mem in fits:
                        order += 1
                        step = step_time(
                            model, cluster, links, layout, seqs, req.grad_reduce_bytes,
                            req.dp_overlap, req.zero3_gathers_per_layer,
                        )  # fmt: skip
                        score = s._score(step, layout, goodput_of)
                        if best is None or score < best[0]:
                            best = (score, layout)
    return best, smallest


def _offers(seed: int, count: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    keys = [k for k in presets() if k != "lora-llama3-8b-1node"] + ["lora-llama3-8b-1node"]
    for i in range(count):
        preset = presets()[keys[i % len(keys)]]
        model, req = preset.model, preset.parallel
        gpu = gpu_spec(rng.choice(GPUS))
        fabric, nic, nics = rng.choice(NETWORKS)
        gpn = rng.choice((8, 8, 8, 4))
        nodes = rng.choice((1, 2, 3, 5, 7, 8, 12, 16, 17, 24, 31, 64))
        table = ()
        if rng.random() < 0.2:  # a measured busbw table, not monotone on purpose
            table = ((1e6, nic * 0.3), (3.2e7, nic * 0.7), (1e8, nic * 0.62), (1e9, nic * 0.66))
        cluster = Cluster(
            gpu=gpu, gpus=nodes * gpn, gpus_per_node=gpn, nic_gbps=float(nic),
            nics_per_node=nics, fabric=fabric, busbw_table=table,
        )  # fmt: skip
        roll = rng.random()
        if roll < 0.15:
            req = dataclasses.replace(req, microbatch=rng.choice((1, 2, 3)))
        elif roll < 0.25:
            req = dataclasses.replace(req, recompute=rng.choice(("none", "selective", "full")))
        elif roll < 0.32:
            req = dataclasses.replace(req, zero_stage=rng.choice((0, 1, 2, 3)))
        elif roll < 0.38:
            req = dataclasses.replace(req, tp=rng.choice((1, 2, 4, 8)))
        elif roll < 0.42:
            req = dataclasses.replace(req, dp_overlap=False)
        elif roll < 0.48:
            req = dataclasses.replace(req, interleave=rng.choice((2, 3)))
        elif roll < 0.52:
            req = dataclasses.replace(req, pp=rng.choice((2, 4)), interleave=rng.choice((1, 2)))
        yield model, cluster, req


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_bounded_search_finds_what_trying_everything_finds(seed: int) -> None:
    checked = 0
    for model, cluster, req in _offers(seed, 50):
        if req.tp and (cluster.gpus_per_node % req.tp or model.heads % req.tp):
            continue
        seqs = _global_batch_sequences(model, req)
        links = links_for(cluster)

        def goodput_of(gpus: int, model=model, cluster=cluster) -> float:  # type: ignore[no-untyped-def]
            return goodput(_profile(model, cluster, None, gpus), gpus).goodput

        s._SEEDS.clear()  # no seed from an earlier offer: the bound alone
        for seeded in (False, True):
            found = s.search(model, cluster, links, req, seqs, goodput_of)
            best, smallest = _everything(model, cluster, links, req, seqs, goodput_of)
            label = f"{cluster.gpu.key} x{cluster.gpus} {cluster.fabric} {req} seeded={seeded}"
            if best is None:
                assert found.best is None, label
                assert found.smallest_need_gb == (smallest[0] if smallest else None), label
                continue
            assert found.best is not None, label
            assert found.best.score == best[0], label
            assert found.best.layout == best[1], label
            assert math.isfinite(found.best.score)
            # and with a seed from another size of the same hardware
            other = dataclasses.replace(cluster, gpus=cluster.gpus + cluster.gpus_per_node)
            s.search(model, other, links_for(other), req, seqs, goodput_of)
        checked += 1
    assert checked >= 35  # the offers above are real searches, most of them fitting


def test_the_bound_prunes() -> None:
    """The point of the bound: far fewer step times than candidates."""
    p = presets()["llama3-70b"]
    cluster = Cluster(
        gpu=gpu_spec("H800-SXM"), gpus=17 * 8, gpus_per_node=8, nic_gbps=25.0, nics_per_node=2,
        fabric="roce",
    )  # fmt: skip
    seqs = _global_batch_sequences(p.model, p.parallel)
    s._SEEDS.clear()
    found = s.search(p.model, cluster, links_for(cluster), p.parallel, seqs)
    card = cluster.gpu.memory_gb
    candidates = 0
    for tp, cp, pp, dp in s._splits(p.model, cluster, p.parallel, seqs):
        for b in s._microbatches(p.parallel, seqs, dp):
            m = -(-seqs // (dp * b))
            for v in s._interleaves(p.model, p.parallel, pp, m):
                base = s.Layout(tp, pp, dp, cp, 1, 0, b, "none", v, tp > 1, True)
                candidates += len(s._fitting(p.model, p.parallel, base, m, card)[0])
    assert found.best is not None
    assert found.evaluated * 4 < candidates, (found.evaluated, candidates)


def test_a_given_pipeline_on_one_server_keeps_the_tensor_degrees_that_fit_beside_it() -> None:
    """pp = 4 given on 8 GPUs: tp 8 and 4 do not fit beside it and are skipped, not an error
    that made the whole case 'not evaluable'."""
    p = presets()["llama3-8b"]
    req = dataclasses.replace(p.parallel, pp=4)
    cluster = Cluster(
        gpu=gpu_spec("H100-SXM"), gpus=8, gpus_per_node=8, nic_gbps=400.0, nics_per_node=8,
        fabric="ib",
    )  # fmt: skip
    seqs = _global_batch_sequences(p.model, req)
    found = s.search(p.model, cluster, links_for(cluster), req, seqs)
    assert found.best is not None
    layout = found.best.layout
    assert layout.pp == 4 and layout.tp * layout.pp * layout.dp <= 8


def test_the_ranking_grid_of_the_invariants_matches_trying_everything(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The offers of test_ranking_invariants (a GPT-shape 13B with FSDP as well as Llama 3
    70B, measured links, one more server) through the ranking, each search checked against
    trying every candidate."""
    from dataclasses import replace as with_

    import domain.trainmodel.api as api
    from tests.domain.trainmodel import test_ranking_invariants as grid

    checked: list[str] = []
    real = s.search

    def checked_search(model, cluster, links, req, seqs, goodput_of=None):  # type: ignore[no-untyped-def]
        found = real(model, cluster, links, req, seqs, goodput_of)
        best, _smallest = _everything(model, cluster, links, req, seqs, goodput_of)
        assert (found.best is None) == (best is None)
        if best is not None:
            assert found.best.score == best[0], (cluster, req, found.best.layout, best[1])
        checked.append(cluster.gpu.key)
        return found

    monkeypatch.setattr(api, "search", checked_search)
    api._estimate.cache_clear()
    for key in grid.WORKLOADS:
        for offer in grid.OFFERS[::4]:
            for variant in (offer, with_(offer, nodes=offer.nodes + 1),
                            with_(offer, measured_gbps=50.0, measured_kind="link")):  # fmt: skip
                grid._cost(key, variant)
    api._estimate.cache_clear()
    assert len(checked) >= 40
