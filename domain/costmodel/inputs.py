"""Model constants and inputs: the GPU table, workloads, offers and what-if scenarios."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from domain import money
from domain.messages import Message

HOURS_PER_MONTH = float(money.HOURS_PER_MONTH)
REFERENCE_GPU = "H100-SXM"
FABRIC_EFFICIENCY: Mapping[str, float] = {"tcp": 0.55, "roce": 0.90, "ib": 0.95}
STRATEGY_FACTOR: Mapping[str, float] = {
    "ddp": 1.0,
    "zero1": 1.0,
    "zero2": 1.0,
    "fsdp": 1.5,
    "zero3": 1.5,
}
MEASURED_KINDS = ("link", "collective")


@dataclass(frozen=True, slots=True)
class GpuSpec:
    key: str
    tflops_bf16: float
    memory_gb: float
    intra_node_gbyte_s: float
    default_mfu: float


# Seed rows of the admin-editable GPU table; Ascend 910B's figure is FP16 (no BF16 one published).
DEFAULT_GPU_TABLE: tuple[GpuSpec, ...] = (
    GpuSpec("H100-SXM", 989.0, 80.0, 450.0, 0.45),
    GpuSpec("H800-SXM", 989.0, 80.0, 200.0, 0.45),
    GpuSpec("H200-SXM", 989.0, 141.0, 450.0, 0.45),
    GpuSpec("H20", 148.0, 96.0, 450.0, 0.45),
    GpuSpec("H100-PCIe", 756.0, 80.0, 63.0, 0.40),
    GpuSpec("A100-SXM4-80GB", 312.0, 80.0, 300.0, 0.50),
    GpuSpec("A100-SXM4-40GB", 312.0, 40.0, 300.0, 0.50),
    GpuSpec("A800-SXM4-80GB", 312.0, 80.0, 200.0, 0.50),
    GpuSpec("L40S", 362.0, 48.0, 31.0, 0.35),
    GpuSpec("RTX4090", 165.0, 24.0, 31.0, 0.35),
    GpuSpec("Ascend910B", 320.0, 64.0, 56.0, 0.40),
)


def default_gpus() -> dict[str, GpuSpec]:
    """The default GPU table keyed by GPU key, as `evaluate` and `rank` expect it."""
    return {spec.key: spec for spec in DEFAULT_GPU_TABLE}


@dataclass(frozen=True, slots=True)
class Workload:
    params_b: float
    tokens_per_step: float
    flops_per_token_factor: float = 6.0
    grad_bytes: float = 2.0
    strategy: str = "ddp"
    overlap: float = 0.5
    mfu: float | None = None
    nodes: int | None = None
    train_tokens: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Offer:
    id: str
    gpu: str
    gpus_per_node: int
    nodes: int
    price_per_node_month: float
    currency: str = "CNY"
    monthly_fees: float = 0.0
    nic_gbps: float
    nics_per_node: int = 1
    fabric: str
    rack_uplink_gbps: float | None = None
    servers_per_rack: int | None = None
    measured_gbps: float | None = None
    measured_kind: str = "link"
    availability: float = 0.99
    measured_p50_gbps: float | None = None
    whole_offer_only: bool = False
    pfc: bool | None = None
    ecn: bool | None = None
    vendor_flags: tuple[Message, ...] = ()
    label: str = ""
    # Used by the training-time model v2 only (docs/MODEL.md §10, §15); None: assumed default.
    storage_gbyte_s: float | None = None  # checkpoint write bandwidth per server, GB/s
    repair_hours: float | None = None  # the SLA's repair or replacement time of a failed server
    spare_nodes: int | None = None  # spare servers kept ready (no wait for the repair)
    rail_optimised: bool | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    """Uniform what-if adjustments; `mfu_scale` applies to the reference GPU's mfu as well."""

    mfu_scale: float = 1.0
    bandwidth_scale: float = 1.0
    # Training-time model v2 only: interruption rate divided by `mtbf_scale` (2 = failures half
    # as often); `checkpoint_write_s` replaces every offer's checkpoint write time when given,
    # else `storage_scale` multiplies each offer's checkpoint storage write bandwidth.
    mtbf_scale: float = 1.0
    checkpoint_write_s: float | None = None
    storage_scale: float = 1.0


BASE_SCENARIO = Scenario()
