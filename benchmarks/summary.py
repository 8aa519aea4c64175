"""The page summary of a parsed log: what the run and log pages show, without the intervals.

A day-long ``iperf3 -P 8`` log stores 86,400 intervals for the total and each stream: tens of
megabytes of JSON that the pages read whole (about 1.3 s) to draw a 2,000-point chart and a
200-row table. The summary, stored beside the result (``BenchmarkLog.summary``), keeps every
figure except the per-interval arrays, plus:

- ``chart_series``: the total and each stream already cut to ``MAX_POINTS_PER_SERIES`` points
  by ``figures.downsample_minmax`` (each bucket's lowest and highest interval), with their times;
- ``direction_p5``: each direction's P5 for the per-direction table;
- ``table_streams``: which stream series the interval table shows as columns (their index in
  the stored ``series``), so the log page can read one page of intervals from the database.

Logs parsed before the summary existed have none; ``page_data`` builds it from the result then.
"""

from __future__ import annotations

import math
from typing import Any

from . import evidence
from .figures import MAX_POINTS_PER_SERIES, _times, downsample_minmax

ARRAYS = ("interval_gbps", "interval_sent_gbps", "series", "interval_start_s", "interval_end_s")
MAX_STREAM_COLUMNS = 16  # more streams than this: the interval table shows the totals only


def _plain(values: Any, digits: int) -> list[float | None]:
    """JSON-ready floats (NaN -> None), rounded to keep the stored summary small."""
    return [None if math.isnan(v) else float(f"{v:.{digits}g}") for v in values.tolist()]


def _line(label: str | None, x: list[float], y: list[Any]) -> dict[str, Any]:
    dx, dy = downsample_minmax(x, y, MAX_POINTS_PER_SERIES)
    return {"label": label, "count": len(y), "x": _plain(dx, 9), "y": _plain(dy, 6)}


def chart_series(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each stream (label) and the total (label None), downsampled, for the throughput chart."""
    lines = []
    for series in result.get("series") or []:
        gbps = series.get("gbps") or []
        if gbps:
            lines.append(_line(str(series.get("label", "")), _times(result, len(gbps)), gbps))
    gbps = result.get("interval_gbps") or []
    if gbps:
        lines.append(_line(None, _times(result, len(gbps)), gbps))
    return lines


def table_streams(result: dict[str, Any]) -> list[list[Any]]:
    """[index, label] of the stream series shown as interval-table columns (2 to 16 of them,
    each as long as the total series), else none."""
    count = len(result.get("interval_gbps") or [])
    found = [
        [index, str(series.get("label", ""))]
        for index, series in enumerate(result.get("series") or [])
        if len(series.get("gbps") or []) == count
    ]
    return found if 2 <= len(found) <= MAX_STREAM_COLUMNS else []


def page_summary(result: dict[str, Any] | None) -> dict[str, Any] | None:
    if result is None:
        return None
    summary = {key: value for key, value in result.items() if key not in ARRAYS}
    summary["intervals"] = len(result.get("interval_gbps") or [])
    summary["chart_series"] = chart_series(result)
    summary["direction_p5"] = evidence.direction_p5(result)
    summary["table_streams"] = table_streams(result)
    return summary
