"""The model's fitted constants in one place, and a way to swap them (docs/MODEL.md §17).

Hardware facts (peak FLOP/s, HBM, NVLink, NIC speeds, fused-attention throughput measured by
the FlashAttention authors) come from data sheets and microbenchmarks and are never fitted.
What was chosen with the published runs in view is listed here: the share of peak a large
dense GEMM reaches (`efficiency_scale` multiplies every card's `efficiency` of the GPU table),
the GEMM saturation width of the generations (`shard_half_width_scale`), the element-wise HBM
bytes, the share of overlap that really hides communication and the FP8 GEMM ratio.

`validation.leave_one_source_out` re-fits these on all published sources but one and predicts
the one left out; `calibrated()` runs the model under another set of values. Every cached
function of the model registers its cache here, because a cached answer depends on the values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields

_CLEARERS: list[Callable[[], None]] = []


@dataclass(frozen=True, slots=True)
class Calibration:
    efficiency_scale: float = 1.0  # x the GPU table's large-GEMM efficiency
    shard_half_width_scale: float = 1.0  # x each generation's GEMM saturation width
    elementwise_bytes: float = 24.0  # HBM bytes per token, hidden unit, layer and pass
    overlap_efficiency: float = 0.6  # share of the shorter of (compute, traffic) hidden
    fp8_gemm_ratio: float = 0.74  # achieved FP8 share of peak relative to the BF16 one

    def as_dict(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}


FITTED = Calibration()
_current: list[Calibration] = [FITTED]


def cal() -> Calibration:
    """The values the model runs with now (FITTED unless inside `calibrated`)."""
    return _current[-1]


def register_cache(clear: Callable[[], None]) -> None:
    _CLEARERS.append(clear)


def clear_caches() -> None:
    for clear in _CLEARERS:
        clear()


@contextmanager
def calibrated(values: Calibration) -> Iterator[Calibration]:
    """Run the model with `values` (caches are emptied on entry and on exit)."""
    _current.append(values)
    clear_caches()
    try:
        yield values
    finally:
        _current.pop()
        clear_caches()
