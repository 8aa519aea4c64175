"""Inputs of the training-time model: the model architecture, the cluster offer, the parallel
request (partial: missing values are searched), the failure profile, and a concrete layout."""

from __future__ import annotations

from dataclasses import dataclass

from domain.messages import Message
from domain.trainmodel.errors import TrainModelError
from domain.trainmodel.gpus import GpuSpec

FABRICS = ("ib", "roce", "tcp")
RECOMPUTE = ("none", "selective", "full")
PRECISIONS = ("bf16", "fp8")  # the linear layers' compute type (domain/trainmodel/precision.py)
# The fused attention kernel of the training stack (attention.py): FlashAttention-2 (PyTorch's
# scaled_dot_product_attention flash backend, the default) or a Hopper-native one
# (FlashAttention-3, cuDNN fused attention in Transformer Engine / Megatron-Core).
ATTENTION_KERNELS = (
    "fa2",
    "fa3",
)  # the linear layers' compute type (domain/trainmodel/precision.py)


@dataclass(frozen=True, slots=True)
class MoeSpec:
    """Routed experts per MoE layer, chosen per token (top_k); `shared_experts` see every token;
    the first `dense_layers` layers are dense; `expert_ffn` is one expert's FFN width (None: the
    routed-expert parameters are inferred from params_b and active_params_b); `a2a_overlap`: the
    framework hides the dispatch/combine all-to-all under another microbatch's compute
    (DeepSeek-V3 DualPipe, Megatron-Core's MoE a2a overlap); `node_limit`: node-limited
    routing (DeepSeek-V3: 4 servers per token, its router's topk_group). See moe.py."""

    experts: int
    top_k: int
    active_params_b: float
    shared_experts: int = 0
    dense_layers: int = 0
    expert_ffn: int | None = None
    a2a_overlap: bool = False
    node_limit: int | None = None  # a token's experts lie on at most this many servers


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A decoder-only transformer; `trainable_params_b` (LoRA, adapters) freezes the rest."""

    params_b: float
    layers: int
    hidden: int
    heads: int
    seq_len: int
    vocab: int = 0
    ffn: int | None = None
    kv_heads: int | None = None
    moe: MoeSpec | None = None
    trainable_params_b: float | None = None
    precision: str = "bf16"  # "bf16" | "fp8" (precision.py: what runs in FP8, what stays BF16)
    attention_kernel: str = "fa2"  # ATTENTION_KERNELS
    # Context-parallel exchange of the stack (context.py): "ring" (Megatron-Core / Transformer
    # Engine p2p, the default) or "all_gather" (Llama 3 §3.3.2: K and V all-gathered per layer).
    cp_comm: str = "ring"
    # Parameter-efficient fine-tuning (peft.py): "lora" trains rank-`lora_rank` adapters on
    # `lora_targets` ("qkv", "proj", "mlp"; None: all) and freezes the rest.
    peft: str | None = None
    lora_rank: int | None = None
    lora_targets: tuple[str, ...] | None = None
    # Bytes read from storage per sample (sequence): images, video, audio, packed text.
    # None: negligible (a text LLM's token ids); the step is then never bound by loading.
    bytes_per_sample: float | None = None
    # Width of one attention head when the model states it and heads x head_dim is not the
    # hidden size (Qwen3-30B-A3B: 32 x 128 = 4096 on hidden 2048; gpt-oss-120b: 64 x 64 = 4096
    # on hidden 2880). None: hidden / heads.
    head_dim: int | None = None

    @property
    def head_width(self) -> float:
        """One attention head's width: head_dim, else hidden / heads."""
        return float(self.head_dim) if self.head_dim else self.hidden / self.heads

    @property
    def attention_width(self) -> float:
        """Width of Q and of the attention output (the input of the output projection):
        heads x head_dim, the hidden size unless head_dim says otherwise."""
        return float(self.heads * self.head_dim) if self.head_dim else float(self.hidden)

    @property
    def kv_width(self) -> float:
        """Width of K and of V each: kv_heads x head_dim (grouped-query attention)."""
        kv = self.kv_heads or self.heads
        return float(kv * self.head_dim) if self.head_dim else self.hidden * kv / self.heads

    @property
    def params(self) -> float:
        return self.params_b * 1e9

    @property
    def active_params(self) -> float:
        return (self.moe.active_params_b if self.moe else self.params_b) * 1e9


@dataclass(frozen=True, slots=True)
class Cluster:
    """The offer's hardware. `measured_busbw_gbps` is nccl-tests busbw per rank (Gbit/s);
    `busbw_table` maps message bytes to busbw Gbit/s and wins at the workload's message size."""

    gpu: GpuSpec
    gpus: int
    gpus_per_node: int
    nic_gbps: float
    nics_per_node: int
    fabric: str
    measured_busbw_gbps: float | None = None
    busbw_table: tuple[tuple[float, float], ...] = ()
    measured_link_gbps: float | None = None  # iperf3 / perftest: one NIC, one direction
    link_bidirectional: bool = False  # the link figure adds both directions: halve it
    # Rail-optimised servers (NIC i of every server on leaf i); None: not said, taken as rails.
    # Without rails the NICs of a server share its rack's switch (servers_per_rack servers).
    rail_optimised: bool | None = None
    servers_per_rack: int | None = None
    # Read bandwidth from the offer's storage into each server, GB/s (None: not stated, the
    # step is not bounded by loading).
    storage_ingress_gbyte_s: float | None = None


@dataclass(frozen=True, slots=True)
class ParallelRequest:
    """What the workload fixes; None means "search it"."""

    global_batch_tokens: float
    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    cp: int | None = None
    ep: int | None = None
    zero_stage: int | None = None
    sequence_parallel: bool | None = None
    interleave: int | None = None
    microbatch: int | None = None
    recompute: str | None = None
    grad_reduce_bytes: float | None = None
    dp_overlap: bool = True
    flash_attention: bool = True
    # ZeRO-3 parameter all-gathers per layer: 1 for a flattened FSDP unit (PyTorch FSDP, current
    # DeepSpeed); DeepSpeed's ZeRO-3 of 2021 gathered every parameter tensor on its own.
    zero3_gathers_per_layer: int = 1
    # How ZeRO-1/2 gradients reach the rank that owns them (steptime.ZERO_REDUCES):
    # "reduce_scatter" (Megatron-Core, FSDP) or "per_rank" (DeepSpeed: one Reduce per owner).
    zero_reduce: str = "reduce_scatter"
    # ZeRO-1/2 optimizer sharded over groups of this many data-parallel ranks and replicated
    # across the groups (Megatron-Core --num-distributed-optimizer-instances, DeepSpeed MiCS,
    # FSDP hybrid sharding); None: over all of them.
    zero_shard_ranks: int | None = None


@dataclass(frozen=True, slots=True)
class Failures:
    """Interruptions per GPU-hour; checkpoint write and restart (detect + reschedule + reload).

    `repair_s`: the vendor's repair or replacement time, paid on top of the restart when the offer
    keeps no spare server; `availability`: the vendor's SLA or measured availability (0-1), time
    the whole cluster is down for reasons other than the job's own interruptions."""

    interruptions_per_gpu_hour: float
    checkpoint_write_s: float
    restart_s: float
    checkpoint_interval_s: float | None = None
    repair_s: float = 0.0
    spare_nodes: int = 0
    availability: float = 1.0


@dataclass(frozen=True, slots=True)
class Layout:
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    zero_stage: int
    microbatch: int
    recompute: str
    interleave: int
    sequence_parallel: bool
    flash_attention: bool = True

    def as_dict(self) -> dict[str, object]:
        return {
            "tp": self.tp,
            "pp": self.pp,
            "dp": self.dp,
            "cp": self.cp,
            "ep": self.ep,
            "zero_stage": self.zero_stage,
            "microbatch": self.microbatch,
            "recompute": self.recompute,
            "interleave": self.interleave,
            "sequence_parallel": self.sequence_parallel,
        }


def _msg(code: str, en: str, zh: str) -> Message:
    return Message(code, en, zh)


def check_model(model: ModelSpec) -> None:
    """Refuse zero, negative or absurd architectures with one message per problem."""
    bad: list[Message] = []
    ints = {
        "layers": (model.layers, 1, 10_000),
        "hidden": (model.hidden, 64, 1_000_000),
        "heads": (model.heads, 1, 100_000),
        "seq_len": (model.seq_len, 1, 100_000_000),
    }
    for name, (value, low, high) in ints.items():
        if not low <= value <= high:
            bad.append(
                _msg(
                    f"model_{name}_range",
                    f"model.{name} must be between {low} and {high} (got {value}).",
                    f"model.{name} 必须在 {low} 到 {high} 之间（当前为 {value}）。",
                )
            )
    if not 1e-4 <= model.params_b <= 100_000:
        bad.append(
            _msg(
                "model_params_range",
                f"model.params_b must be between 0.0001 and 100000 billion (got {model.params_b}).",
                f"model.params_b 必须在 0.0001 到 100000（十亿）之间（当前为 {model.params_b}）。",
            )
        )
    if model.head_dim is not None and not 1 <= model.head_dim <= 16_384:
        bad.append(
            _msg(
                "model_head_dim_range",
                f"model.head_dim must be between 1 and 16384 (got {model.head_dim}).",
                f"model.head_dim 必须在 1 到 16384 之间（当前为 {model.head_dim}）。",
            )
        )
    # a stated head_dim sets the attention width itself: hidden need not split into the heads
    if model.head_dim is None and model.heads >= 1 and model.hidden % model.heads:
        bad.append(
            _msg(
                "model_heads_hidden",
                f"hidden size {model.hidden} is not divisible by {model.heads} heads.",
                f"隐藏维度 {model.hidden} 不能被注意力头数 {model.heads} 整除。",
            )
        )
    if model.kv_heads is not None and (model.kv_heads < 1 or model.heads % model.kv_heads):
        bad.append(
            _msg(
                "model_kv_heads",
                f"kv_heads {model.kv_heads} must be at least 1 and divide heads {model.heads}.",
                f"kv_heads {model.kv_heads} 必须至少为 1 且能整除注意力头数 {model.heads}。",
            )
        )
    bad.extend(_moe_problems(model))
    if model.precision not in PRECISIONS:
        bad.append(
            _msg(
                "model_precision",
                f"precision must be bf16 or fp8 (got {model.precision!r}).",
                f"precision（计算精度）必须是 bf16 或 fp8（当前为 {model.precision!r}）。",
            )
        )
    if model.attention_kernel not in ATTENTION_KERNELS:
        bad.append(
            _msg(
                "model_attention_kernel",
                f"attention_kernel must be fa2 or fa3 (got {model.attention_kernel!r}).",
                f"attention_kernel（注意力内核）必须是 fa2 或 fa3"
                f"（当前为 {model.attention_kernel!r}）。",
            )
        )
    bad.extend(_peft_problems(model))
    if model.cp_comm not in ("ring", "all_gather"):
        bad.append(
            _msg(
                "model_cp_comm",
                f"cp_comm must be ring or all_gather (got {model.cp_comm!r}).",
                f"cp_comm（上下文并行通信方式）必须是 ring 或 all_gather"
                f"（当前为 {model.cp_comm!r}）。",
            )
        )
    if model.bytes_per_sample is not None and not 0 <= model.bytes_per_sample <= 1e12:
        bad.append(
            _msg(
                "model_bytes_per_sample",
                f"bytes_per_sample must be between 0 and 1e12 (got {model.bytes_per_sample:g}).",
                f"bytes_per_sample（每个样本读取的字节数）必须在 0 到 1e12 之间"
                f"（当前为 {model.bytes_per_sample:g}）。",
            )
        )
    if model.trainable_params_b is not None and not 0 < model.trainable_params_b <= model.params_b:
        bad.append(
            _msg(
                "model_trainable_range",
                "model.trainable_params_b must be above 0 and at most params_b.",
                "model.trainable_params_b 必须大于 0 且不超过 params_b。",
            )
        )
    if bad:
        raise TrainModelError(bad)


def _peft_problems(model: ModelSpec) -> list[Message]:
    bad: list[Message] = []
    if model.peft not in (None, "lora"):
        bad.append(
            _msg(
                "model_peft",
                f"peft must be lora or absent (full training) (got {model.peft!r}).",
                f"peft（参数高效微调方式）必须是 lora 或不填（全量训练）"
                f"（当前为 {model.peft!r}）。",
            )
        )
    if model.peft == "lora" and not (
        model.lora_rank is not None and 1 <= model.lora_rank <= min(model.hidden, 65536)
    ):
        bad.append(
            _msg(
                "model_lora_rank",
                f"LoRA needs lora_rank between 1 and the hidden size (got {model.lora_rank}).",
                f"LoRA 需要 lora_rank 在 1 与隐藏维度之间（当前为 {model.lora_rank}）。",
            )
        )
    targets = model.lora_targets
    if targets is not None and (
        not targets or any(t not in ("qkv", "proj", "mlp") for t in targets)
    ):
        bad.append(
            _msg(
                "model_lora_targets",
                f"lora_targets must name some of qkv, proj, mlp (got {list(targets)}).",
                f"lora_targets 必须取自 qkv、proj、mlp（当前为 {list(targets)}）。",
            )
        )
    return bad


def _moe_problems(model: ModelSpec) -> list[Message]:
    moe = model.moe
    if moe is None:
        return []
    bad: list[Message] = []
    if moe.experts < 2:
        bad.append(
            _msg(
                "moe_no_experts",
                f"A MoE model needs at least 2 experts (got {moe.experts}).",
                f"MoE 模型至少需要 2 个专家（当前为 {moe.experts}）。",
            )
        )
    if not 1 <= moe.top_k <= max(moe.experts, 1):
        bad.append(
            _msg(
                "moe_top_k",
                f"MoE top_k must be between 1 and the number of experts (got {moe.top_k}).",
                f"MoE 的 top_k 必须在 1 与专家数之间（当前为 {moe.top_k}）。",
            )
        )
    if not 0 < moe.active_params_b <= model.params_b:
        bad.append(
            _msg(
                "moe_active_params",
                "MoE active_params_b must be above 0 and at most params_b.",
                "MoE 的 active_params_b 必须大于 0 且不超过 params_b。",
            )
        )
    if not 0 <= moe.shared_experts <= 64:
        bad.append(
            _msg(
                "moe_shared_experts",
                f"MoE shared_experts must be between 0 and 64 (got {moe.shared_experts}).",
                f"MoE 的 shared_experts（共享专家数）必须在 0 到 64 之间"
                f"（当前为 {moe.shared_experts}）。",
            )
        )
    if not 0 <= moe.dense_layers < model.layers:
        bad.append(
            _msg(
                "moe_dense_layers",
                f"MoE dense_layers must be at least 0 and fewer than the {model.layers} layers "
                f"(got {moe.dense_layers}).",
                f"MoE 的 dense_layers（稠密层数）必须不小于 0 且少于总层数 {model.layers}"
                f"（当前为 {moe.dense_layers}）。",
            )
        )
    if moe.node_limit is not None and not 1 <= moe.node_limit <= 1024:
        bad.append(
            _msg(
                "moe_node_limit",
                f"MoE node_limit must be between 1 and 1024 servers (got {moe.node_limit}).",
                f"MoE 的 node_limit（每个 token 最多路由到的服务器数）必须在 1 到 1024 之间"
                f"（当前为 {moe.node_limit}）。",
            )
        )
    if moe.expert_ffn is not None and not 1 <= moe.expert_ffn <= 10_000_000:
        bad.append(
            _msg(
                "moe_expert_ffn",
                f"MoE expert_ffn must be between 1 and 10,000,000 (got {moe.expert_ffn}).",
                f"MoE 的 expert_ffn（单个专家的 FFN 宽度）必须在 1 到 10,000,000 之间"
                f"（当前为 {moe.expert_ffn}）。",
            )
        )
    return bad


def check_cluster(cluster: Cluster) -> None:
    bad: list[Message] = []
    if not 1 <= cluster.gpus_per_node <= 64:
        bad.append(
            _msg(
                "cluster_gpus_per_node",
                f"gpus_per_node must be between 1 and 64 (got {cluster.gpus_per_node}).",
                f"每节点 GPU 数必须在 1 到 64 之间（当前为 {cluster.gpus_per_node}）。",
            )
        )
    elif (
        not 1 <= cluster.gpus <= 1_000_000
        or cluster.gpus % cluster.gpus_per_node
        and (cluster.gpus > cluster.gpus_per_node)
    ):
        bad.append(
            _msg(
                "cluster_gpus",
                f"gpus ({cluster.gpus}) must be 1 to 1,000,000 and whole nodes of "
                f"{cluster.gpus_per_node}.",
                f"GPU 总数（{cluster.gpus}）必须在 1 到 1,000,000 之间，且为每节点 "
                f"{cluster.gpus_per_node} 卡的整数倍。",
            )
        )
    if cluster.fabric not in FABRICS:
        bad.append(
            _msg(
                "cluster_fabric",
                f"fabric must be one of ib, roce, tcp (got {cluster.fabric!r}).",
                f"网络类型必须是 ib、roce 或 tcp 之一（当前为 {cluster.fabric!r}）。",
            )
        )
    nodes = max(1, cluster.gpus // max(cluster.gpus_per_node, 1))
    if nodes > 1 and (not 0 < cluster.nic_gbps <= 10_000 or not 1 <= cluster.nics_per_node <= 64):
        bad.append(
            _msg(
                "cluster_nic",
                "A multi-node offer needs nic_gbps in (0, 10000] and 1 to 64 NICs per node.",
                "多节点报价需要网卡速率在 (0, 10000] Gbit/s 之间，且每节点 1 到 64 块网卡。",
            )
        )
    link = cluster.measured_link_gbps
    if link is not None and not 0 < link <= 10_000:
        bad.append(
            _msg(
                "cluster_link",
                "measured_link_gbps must be a positive Gbit/s figure per NIC (at most 10000).",
                "measured_link_gbps 必须是每块网卡的正 Gbit/s 数值（不超过 10000）。",
            )
        )
    ingress = cluster.storage_ingress_gbyte_s
    if ingress is not None and not 0 < ingress <= 100_000:
        bad.append(
            _msg(
                "cluster_storage_ingress",
                "storage_ingress_gbyte_s must be a positive GB/s figure per server.",
                "storage_ingress_gbyte_s 必须是每台服务器的正 GB/s 数值。",
            )
        )
    if cluster.measured_busbw_gbps is not None and not 0 < cluster.measured_busbw_gbps <= 100_000:
        bad.append(
            _msg(
                "cluster_busbw",
                "measured_busbw_gbps must be a positive Gbit/s figure.",
                "measured_busbw_gbps 必须是正的 Gbit/s 数值。",
            )
        )
    if bad:
        raise TrainModelError(bad)


def check_failures(failures: Failures) -> None:
    rate_ok = 0 <= failures.interruptions_per_gpu_hour < 1 and 0 < failures.availability <= 1
    times_ok = 0 <= failures.checkpoint_write_s < 1e6 and 0 <= failures.restart_s < 1e7
    times_ok = times_ok and 0 <= failures.repair_s < 1e7 and failures.spare_nodes >= 0
    interval = failures.checkpoint_interval_s
    if rate_ok and times_ok and (interval is None or interval > 0):
        return
    raise TrainModelError(
        [
            _msg(
                "failures_range",
                "failures: interruptions_per_gpu_hour must be in [0, 1), availability in (0, 1], "
                "checkpoint_write_s, restart_s and repair_s non-negative seconds, spare_nodes "
                "non-negative, checkpoint_interval_s positive when given.",
                "故障参数：interruptions_per_gpu_hour 必须在 [0, 1) 之间，availability 在 (0, 1] "
                "之间，checkpoint_write_s、restart_s 与 repair_s 为非负秒数，spare_nodes 不能为负，"
                "给出的 checkpoint_interval_s 必须为正。",
            )
        ]
    )
