"""What a ranking takes: the job (the training model's own types), the offers and the what-if.

A `Workload` is the job as the training-time model sees it: a `ModelSpec` (the architecture) and a
`ParallelRequest` (the global batch and any layout the team fixes), the tokens of the whole job and
the servers it uses. No shape is guessed here: whoever builds a workload gives the architecture
(a preset, the analyst's form, a predict_runs case); `adapters.workload_of` is the one place
that maps the older size-only input (COST-MODEL.md's names) onto it, and it says so
(`assumed_architecture`).

An `Offer` is one rental offer: its hardware (what the model's `Cluster` is built from, once, in
`rank.cluster_of`), its bill (what `bill.py` prices through domain/money.py) and what the evidence
showed about its network (domain/evidence/offer.py derives the figure).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain import money
from domain.messages import Message
from domain.trainmodel.inputs import ModelSpec, ParallelRequest

HOURS_PER_MONTH = float(money.HOURS_PER_MONTH)
FABRICS = ("tcp", "roce", "ib")
# "link": a per-server NIC capacity shown by iperf3 / perftest; "collective": nccl-tests busbw.
MEASURED_KINDS = ("link", "collective")


@dataclass(frozen=True, slots=True)
class Workload:
    """The job to train: architecture, batch and layout in the training model's own types."""

    model: ModelSpec
    parallel: ParallelRequest
    train_tokens: float | None = None
    nodes: int | None = None  # servers the job uses; None: all of each offer's
    source: str = ""  # a preset key, "given" (the analyst's architecture) or "gpt_shape"
    # True when the architecture was assumed from a parameter count (older size-only inputs)
    assumed_architecture: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Offer:
    """One rental offer: hardware, bill and the network figure its evidence supports."""

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
    # per-server figure from admitted evidence: the tail (worst) and the typical (median) value
    measured_gbps: float | None = None
    measured_kind: str = "link"
    availability: float = 0.99
    measured_p50_gbps: float | None = None
    whole_offer_only: bool = False
    pfc: bool | None = None
    ecn: bool | None = None
    vendor_flags: tuple[Message, ...] = ()
    label: str = ""
    storage_gbyte_s: float | None = None  # checkpoint write bandwidth per server, GB/s
    repair_hours: float | None = None  # the SLA's repair or replacement time of a failed server
    spare_nodes: int | None = None  # spare servers kept ready (no wait for the repair)
    rail_optimised: bool | None = None
    # The vendor's delivered ÷ committed bandwidth on the team's past contracts (None: no
    # record): a claim (no admitted evidence) counts at that share when it is below 1.
    delivered_ratio: float | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    """What-if adjustments applied to every offer alike.

    `mfu_scale` scales every card's compute efficiency (the reference's too, so an ETH stays an
    hour of the reference at the same efficiency), `bandwidth_scale` every network figure,
    `mtbf_scale` divides the interruption rate (2 = failures half as often), `checkpoint_write_s`
    replaces every offer's checkpoint write time, `storage_scale` multiplies each offer's
    checkpoint storage bandwidth, and `dp_overlap` (None: the workload's) turns the overlap of
    data-parallel traffic with the backward pass on or off."""

    mfu_scale: float = 1.0
    bandwidth_scale: float = 1.0
    mtbf_scale: float = 1.0
    checkpoint_write_s: float | None = None
    storage_scale: float = 1.0
    dp_overlap: bool | None = None


BASE_SCENARIO = Scenario()
