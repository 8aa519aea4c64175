"""Model v4: the attention core at its own efficiency, context parallelism as a ring."""

from __future__ import annotations

from domain.trainmodel.attention import attention_efficiency, causal_fraction
from domain.trainmodel.cases import cluster_from, model_from, run_case
from domain.trainmodel.gpus import gpu_spec
from domain.trainmodel.links import links_for
from domain.trainmodel.steptime import _cp_s

SHAPES = {
    "7B": {"params_b": 6.74, "layers": 32, "hidden": 4096, "heads": 32, "vocab": 32000,
           "ffn": 11008},
    "13B": {"params_b": 13.0, "layers": 40, "hidden": 5120, "heads": 40, "vocab": 32000,
            "ffn": 13824},
}  # fmt: skip
H100_8 = {"gpu": "H100-SXM", "gpus": 8, "gpus_per_node": 8, "nic_gbps": 400, "nics_per_node": 8,
          "fabric": "ib"}  # fmt: skip


def _mfu(shape: dict[str, float], seq: int, parallel: dict[str, object]) -> float:
    result = run_case(H100_8 | {"model": shape | {"seq_len": seq}, "parallel": parallel})
    assert hasattr(result, "mfu"), result
    return float(result.mfu)


def test_predicted_mfu_falls_with_sequence_length_on_8_h100():
    for shape in SHAPES.values():
        seqs = (2048, 4096, 8192, 16384, 32768, 65536)
        mfus = [_mfu(shape, s, {"global_batch_tokens": 8 * 65536}) for s in seqs]
        assert all(a > b for a, b in zip(mfus, mfus[1:], strict=False)), mfus


def test_attention_runs_slower_than_the_dense_gemms_on_hopper_with_flash_attention_2():
    h100 = gpu_spec("H100-SXM")
    fwd, bwd = attention_efficiency(h100, 128, 16384)
    assert bwd < fwd < h100.efficiency
    fa3_fwd, fa3_bwd = attention_efficiency(h100, 128, 16384, "fa3")
    assert fa3_fwd > fwd and fa3_bwd > bwd
    # smaller heads and short sequences fill the GPU worse
    assert attention_efficiency(h100, 64, 16384)[0] < fwd
    assert attention_efficiency(h100, 128, 1024)[0] < fwd
    assert causal_fraction(2048) > causal_fraction(65536) > 0.5


def test_exposed_ring_time_grows_with_cp_and_sequence():
    case = H100_8 | {"gpus": 64}
    cluster = cluster_from(case)
    links = links_for(cluster)
    gpu = cluster.gpu

    def ring(seq: int, cp: int) -> float:
        model = model_from(SHAPES["7B"] | {"seq_len": seq, "kv_heads": 8})
        return _cp_s(model, gpu, links, 8, 1, cp, 1, "none", True)

    assert ring(131072, 1) == 0.0
    by_cp = [ring(262144, cp) for cp in (2, 4, 8)]  # 8 crosses servers at tp 8
    assert 0 < by_cp[0] < by_cp[1] < by_cp[2], by_cp
    by_seq = [ring(s, 8) for s in (65536, 131072, 262144)]
    assert 0 < by_seq[0] < by_seq[1] < by_seq[2], by_seq


def test_all_gather_context_parallel_is_not_hidden_like_the_ring():
    cluster = cluster_from(H100_8)
    links = links_for(cluster)
    shape = SHAPES["7B"] | {"seq_len": 131072, "kv_heads": 8}
    ring = _cp_s(model_from(shape), cluster.gpu, links, 1, 1, 8, 1, "none", True)
    gather = _cp_s(
        model_from(shape | {"cp_comm": "all_gather"}), cluster.gpu, links, 1, 1, 8, 1, "none", True
    )
    # on NVLink each ring step hides behind a chunk's attention; the all-gather is exposed
    assert gather > ring >= 0
