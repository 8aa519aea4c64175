"""The memory gate alone: offers on which the workload cannot run, with v2's reason.

The ranking itself now goes through `domain.trainmodel.ranking.rank` (MODEL.md §15), which
applies the same gate while it estimates every offer; `screen` stays for callers that want
only the verdict, and its message (`_does_not_fit`) is the one the ranking uses.

The first-order cost model (domain.costmodel, COST-MODEL.md) has no memory check, so a 7B job
under plain data parallelism ranked on 24 GB cards although it needs ~112 GB per GPU. Before the
ranking, every offer goes through v2's layout search (`estimate`, MODEL.md): when no layout of
tensor / pipeline / data parallelism fits the card's memory, the offer becomes a problem with
v2's bilingual reason ("needs N GB per GPU, the card has M GB") instead of a result.

Offers v2 cannot judge (a GPU missing from its table, inputs it refuses) pass through
unchanged: the cost model then applies its own checks. Identical hardware shapes are searched
once per call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.costmodel.inputs import Offer, Workload
from domain.costmodel.results import OfferProblem
from domain.messages import Message
from domain.trainmodel.api import NoFit, estimate
from domain.trainmodel.costmodel_adapter import from_costmodel
from domain.trainmodel.errors import TrainModelError


@dataclass(frozen=True, slots=True)
class FitScreen:
    keep: tuple[int, ...]  # indices of the offers that can run the workload (or unknown)
    problems: tuple[OfferProblem, ...]  # one per offer the workload does not fit


def _shape(offer: Offer) -> tuple[object, ...]:
    return (
        offer.gpu, offer.gpus_per_node, offer.nodes, offer.nic_gbps, offer.nics_per_node,
        offer.fabric, offer.measured_gbps, offer.measured_kind,
    )  # fmt: skip


def _verdict(workload: Workload, offer: Offer) -> Message | None:
    """v2's reason when nothing fits, else None (fits, or v2 cannot judge this offer)."""
    try:
        result = estimate(*from_costmodel(workload, offer))
    except (TrainModelError, ValueError, TypeError, ZeroDivisionError, OverflowError):
        return None
    if isinstance(result, NoFit):
        return result.reason
    return None


def screen(workload: Workload, offers: Sequence[Offer]) -> FitScreen:
    seen: dict[tuple[object, ...], Message | None] = {}
    keep: list[int] = []
    problems: list[OfferProblem] = []
    for index, offer in enumerate(offers):
        try:
            key = _shape(offer)
            hash(key)
        except (AttributeError, TypeError):
            keep.append(index)  # an odd object: the cost model reports it
            continue
        if key not in seen:
            seen[key] = _verdict(workload, offer)
        reason = seen[key]
        if reason is None:
            keep.append(index)
        else:
            problems.append(OfferProblem(str(offer.id), (_does_not_fit(reason),)))
    return FitScreen(tuple(keep), tuple(problems))


def _does_not_fit(reason: Message) -> Message:
    return Message(
        "workload_does_not_fit",
        f"The workload cannot run on this offer, whatever the parallel layout: {reason.en}",
        f"无论采用何种并行切分，该工作负载都无法在此报价上运行：{reason.zh}",
    )
