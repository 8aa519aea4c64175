"""Map a COST-MODEL.md style input (domain.costmodel Workload + Offer) onto v2's inputs.

COST-MODEL.md's workload has no architecture, so a dense GPT-shaped model of the same size is
assumed: width h = (N * 128 / 12)^(1/3) rounded to a multiple of 1,024 (so the heads of 128, h/128
of them, split evenly over 1, 2, 4 or 8 tensor-parallel GPUs, as real models' head counts do),
depth L = N / (12 h^2) rounded to a multiple of 8 (so 1, 2, 4 or 8 pipeline stages divide it),
4,096-token sequences and a 32K vocabulary (MODEL.md §13). Unrounded shapes (33 heads and 33
layers for 7B) left tensor and pipeline parallelism no divisor at all, so the memory search
could only try one GPU per replica. Its `mfu` is not used: v2 computes
the efficiency. Strategy ddp/zero1/zero2/fsdp/zero3 maps to ZeRO stage 0/1/2/3/3, a flops factor
of 8 to full recomputation, `overlap > 0` to bucketed overlap, `grad_bytes` to the reduce dtype.
Offer bandwidth evidence is per server, capped at the quoted NICs x rate: a `collective` figure
(nccl-tests busbw per rank x GPUs per server) is shared by the server's GPUs; a `link` figure
(the NIC capacity link tests demonstrated) pays the fabric efficiency exactly as nominal does.
"""

from __future__ import annotations

from domain.costmodel.inputs import Offer, Workload
from domain.trainmodel.gpus import GpuSpec, gpu_spec
from domain.trainmodel.inputs import Cluster, ModelSpec, ParallelRequest
from domain.trainmodel.links import FABRIC_EFFICIENCY

STAGES = {"ddp": 0, "zero1": 1, "zero2": 2, "fsdp": 3, "zero3": 3}
ASSUMED_SEQ_LEN = 4096
ASSUMED_VOCAB = 32000
HEAD_DIM = 128


def gpt_shape(params_b: float) -> ModelSpec:
    """A dense GPT-like model of `params_b` billion parameters (12 L h^2 per the layers)."""
    n = params_b * 1e9
    width_step = HEAD_DIM * 8
    hidden = max(width_step, round((n * HEAD_DIM / 12) ** (1 / 3) / width_step) * width_step)
    layers = max(8, round(n / (12 * hidden * hidden) / 8) * 8)
    return ModelSpec(
        params_b=params_b,
        layers=layers,
        hidden=hidden,
        heads=hidden // HEAD_DIM,
        seq_len=ASSUMED_SEQ_LEN,
        vocab=ASSUMED_VOCAB,
    )


def from_costmodel(
    workload: Workload,
    offer: Offer,
    table: dict[str, GpuSpec] | None = None,
    model: ModelSpec | None = None,
) -> tuple[ModelSpec, Cluster, ParallelRequest]:
    """(model, cluster, parallel) for `estimate`; pass `model` when the architecture is known."""
    spec = model or gpt_shape(workload.params_b)
    nodes = workload.nodes or offer.nodes
    busbw = None
    if offer.measured_gbps:
        # A per-server figure (domain/evidence/offer.py), never above the quoted NICs x rate.
        nominal = offer.nic_gbps * offer.nics_per_node
        per_server = min(offer.measured_gbps, nominal) if nominal > 0 else offer.measured_gbps
        per_rank = per_server / offer.gpus_per_node
        if offer.measured_kind == "link":
            per_rank *= FABRIC_EFFICIENCY.get(offer.fabric, 0.35)
        busbw = per_rank
    cluster = Cluster(
        gpu=gpu_spec(offer.gpu, table),
        gpus=nodes * offer.gpus_per_node,
        gpus_per_node=offer.gpus_per_node,
        nic_gbps=offer.nic_gbps,
        nics_per_node=offer.nics_per_node,
        fabric=offer.fabric,
        measured_busbw_gbps=busbw,
        rail_optimised=offer.rail_optimised,
        servers_per_rack=offer.servers_per_rack,
    )
    parallel = ParallelRequest(
        global_batch_tokens=workload.tokens_per_step,
        zero_stage=STAGES.get(workload.strategy),
        recompute="full" if workload.flops_per_token_factor >= 8 else None,
        grad_reduce_bytes=workload.grad_bytes,
        dp_overlap=workload.overlap > 0,
    )
    return spec, cluster, parallel
