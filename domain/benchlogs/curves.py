"""Figures read off a size table: bus bandwidth at any message size, latency per size.

The training model asks "what bus bandwidth does a gradient bucket of N bytes get?"; nccl-tests
measured a curve at doubling sizes, so the answer is interpolated on that curve, linearly in
log2(size) (the sizes double, so that is linear between neighbouring points). Outside the
measured range the nearest end is used: below it the smallest measured size (a bucket that small
is latency-bound anyway), above it the largest (the curve is flat at the bandwidth-bound end).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence

from domain.benchlogs.result import BenchResult, SizeRow


def _curve(sizes: Sequence[SizeRow]) -> list[tuple[float, float]]:
    """(log2 size, busbw) points, one per positive size, in size order."""
    points: dict[int, float] = {}
    for row in sizes:
        if row.bytes > 0 and row.bw_avg_gbps is not None and math.isfinite(row.bw_avg_gbps):
            points[row.bytes] = row.bw_avg_gbps
    return [(math.log2(size), gbps) for size, gbps in sorted(points.items())]


def busbw_at(source: BenchResult | Sequence[SizeRow], size_bytes: float) -> float | None:
    """Bus bandwidth (Gbit/s) at ``size_bytes``, interpolated on the measured curve.

    ``source`` is an nccl-tests result or its ``sizes``; each size's value is the mean of the
    out-of-place and in-place busbw. None when the table has no positive size or the size asked
    for is not a positive number.
    """
    sizes = source.sizes if isinstance(source, BenchResult) else source
    points = _curve(sizes)
    if not points or not size_bytes > 0 or not math.isfinite(size_bytes):
        return None
    where = math.log2(size_bytes)
    keys = [x for x, _ in points]
    index = bisect_left(keys, where)
    if index == 0:
        return points[0][1]
    if index == len(points):
        return points[-1][1]
    (x0, y0), (x1, y1) = points[index - 1], points[index]
    return y0 + (y1 - y0) * (where - x0) / (x1 - x0)
