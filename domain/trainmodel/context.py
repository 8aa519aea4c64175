"""Context parallelism as a ring (docs/MODEL.md §17.3).

Ring attention as Megatron-Core / Transformer Engine run it (`cp_comm_type` p2p; Liu et al.,
"Ring Attention", arXiv:2310.01889): each of the cp ranks holds s/cp tokens; per layer and
microbatch the ranks pass their K and V chunks round the ring in cp − 1 steps, so every rank
receives (cp − 1)/cp of the sequence's K and V in the forward pass, and K, V and their gradients
dK, dV in the backward pass. A step's transfer runs beside the attention of the chunk already
received, so only what exceeds one chunk's attention is exposed:

    exposed = (cp − 1) · max(0, t_send(chunk) − t_attention(chunk))   per layer and pass

with chunk = b · (s/cp) · 2 · h_kv/tp · 2 bytes (K and V in bf16, the kv heads split by tp) and
twice that backward. After each step the partial outputs are merged through their log-sum-exp,
a memory-bound pass reading and writing the output: MERGE_BYTES per element of b·(s/cp)·h_a/tp
over HBM (h_a = heads × head_dim, h_kv = kv_heads × head_dim). The causal mask leaves the ranks
evenly loaded because the sequence is split in 2·cp chunks
and rank i holds chunks i and 2·cp − 1 − i (Megatron-Core's load balancing); the chunk times are
the rank's average. The ring's edges run on NVLink while tp·cp fits in a server, else the send
crosses the NICs at one GPU's share (every rank sends at once).
"""

from __future__ import annotations

from domain.trainmodel.arch import stage_imbalance
from domain.trainmodel.attention import attention_times
from domain.trainmodel.gpus import GpuSpec
from domain.trainmodel.inputs import ModelSpec
from domain.trainmodel.links import Links, p2p_s, placement

ACT_BYTES = 2.0
MERGE_BYTES = 10.0  # read the bf16 partial and the fp32 running output, write the fp32 output


def ring_exposed_s(
    model: ModelSpec, gpu: GpuSpec, links: Links, tp: int, pp: int, cp: int, microbatch: int,
    recompute: str,
) -> float:  # fmt: skip
    """Exposed ring time of one microbatch on one GPU (its stage's layers)."""
    if cp <= 1:
        return 0.0
    layers = model.layers / pp * stage_imbalance(model.layers, pp)
    kv_dim = model.kv_width
    local = microbatch * model.seq_len / cp
    chunk = local * 2.0 * kv_dim / tp * ACT_BYTES
    _local, servers = placement(cp, tp, links.gpus_per_node)
    crosses = servers > 1
    fwd_s, bwd_s = attention_times(model, gpu, tp, pp, cp, microbatch)
    fwd_chunk = fwd_s / (model.layers / pp) / cp
    bwd_chunk = bwd_s / (model.layers / pp) / cp
    steps = cp - 1
    fwd = steps * max(0.0, p2p_s(chunk, crosses, links) - fwd_chunk)
    bwd = steps * max(0.0, p2p_s(2.0 * chunk, crosses, links) - bwd_chunk)
    merge = steps * local * model.attention_width / tp * MERGE_BYTES / (gpu.hbm_tbps * 1e12)
    forwards = 2.0 if recompute in ("full", "selective") else 1.0
    return layers * (forwards * (fwd + merge) + bwd)
