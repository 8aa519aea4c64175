"""What a parsed log says beyond its headline figure, ready for the run and log pages.

Read from a stored result (``parsing.result_json`` or its page summary, see ``summary.py``):

- a bidirectional test: each direction's mean, P5 and line-rate efficiency, the total, and which
  direction is the quote's bandwidth and why (``domain.benchlogs.directions``);
- an ``ib_*_lat -a`` sweep: every message size's latency row;
- the warm-up left out (iperf3 ``-O`` or a visibly ramping first interval);
- UDP: what the client sent against what the receiver got, and the loss;
- nccl-tests: the bus bandwidth size table, the value at the training model's message size and
  the tool's own average, shown only as that.

Everything here is display data; the rules stay in the domain.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from domain.benchlogs.curves import busbw_at
from domain.benchlogs.measures import percentile
from domain.benchlogs.result import SizeRow
from domain.trainmodel.steptime import BUCKET_BYTES

FORWARD, REVERSE = "forward", "reverse"


def size_label(size: int | float | None) -> str:
    """A message size in binary units: 2 -> "2 B", 65536 -> "64 KiB", 2**33 -> "8 GiB"."""
    if size is None:
        return "—"
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            text = f"{value:,.1f}".rstrip("0").rstrip(".")
            return f"{text} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover - the loop always returns


def direction_name(label: str) -> str:
    return {
        FORWARD: _("client → server"),
        REVERSE: _("server → client"),
    }.get(label, label)


def series_name(label: object) -> str:
    """A parser's series label in the reader's language: "forward" / "reverse" (the directions
    of a bidirectional test) and "stream 5"; other labels (socket ids) as they are."""
    text = str(label or "")
    if text in (FORWARD, REVERSE):
        return direction_name(text)
    m = re.fullmatch(r"stream (\d+)", text)
    return _("stream %(n)s") % {"n": m.group(1)} if m else text


def total_name(result: dict[str, Any] | None) -> str:
    """What a log's headline series is: the total of its streams, or (bidirectional test) the
    one direction the quote uses, never called a total beside the two directions' sum."""
    used = used_direction_name(result)
    return _("%(direction)s (used for the quote)") % {"direction": used} if used else _("total")


def used_direction_name(result: dict[str, Any] | None) -> str | None:
    """The direction a bidirectional iperf3 test's headline series is, in the reader's language;
    None for any other log (its headline series is the total of its streams)."""
    result = result or {}
    used = result.get("direction_used")
    if result.get("direction") == "bidir" and used in (FORWARD, REVERSE):
        return direction_name(str(used))
    return None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


@dataclass(frozen=True)
class DirectionRow:
    label: str
    name: str
    mean_gbps: float | None
    p5_gbps: float | None
    efficiency: float | None
    used: bool


@dataclass(frozen=True)
class Directions:
    rows: list[DirectionRow]
    total_gbps: float | None
    used_name: str | None
    reason: str


@dataclass(frozen=True)
class Warmup:
    intervals: int
    seconds: float | None
    text: str


@dataclass(frozen=True)
class Udp:
    sent_gbps: float | None
    received_gbps: float | None
    lost_percent: float | None
    basis: str


@dataclass(frozen=True)
class Nccl:
    rows: list[dict[str, Any]]
    largest_gbps: float | None
    at_bucket_gbps: float | None
    bucket_label: str
    avg_busbw_gbps: float | None


@dataclass(frozen=True)
class LogEvidence:
    log_id: int | None
    name: str
    directions: Directions | None = None
    latency_rows: list[dict[str, Any]] = field(default_factory=list)
    warmup: Warmup | None = None
    udp: Udp | None = None
    nccl: Nccl | None = None

    @property
    def any(self) -> bool:
        return bool(self.directions or self.latency_rows or self.warmup or self.udp or self.nccl)


def direction_p5(result: dict[str, Any]) -> dict[str, float | None]:
    """P5 of each direction's interval series: stored in a page summary, else computed."""
    stored = result.get("direction_p5")
    if isinstance(stored, dict):
        return {str(k): _num(v) for k, v in stored.items()}
    out: dict[str, float | None] = {}
    for series in result.get("series") or ():
        label = series.get("label")
        if label in (FORWARD, REVERSE):
            values = [v for v in series.get("gbps") or () if _num(v) is not None]
            out[label] = percentile(values, 0.05) if values else None
    return out


def _directions(result: dict[str, Any], line_rate: float | None) -> Directions | None:
    if result.get("direction") != "bidir":
        return None
    total = _num(result.get("bidir_total_gbps"))
    used = result.get("direction_used")
    p5 = direction_p5(result)
    rows = []
    for item in result.get("directions") or ():
        label = str(item.get("label") or "")
        if label not in (FORWARD, REVERSE):
            continue
        mean = _num(item.get("receiver_gbps"))
        rows.append(
            DirectionRow(
                label=label,
                name=direction_name(label),
                mean_gbps=mean,
                p5_gbps=p5.get(label),
                efficiency=mean / line_rate if mean is not None and line_rate else None,
                used=label == used,
            )
        )
    if rows:
        reason = _(
            "The quote's bandwidth uses one direction, the lower of the two (%(name)s): a ring "
            "all-reduce sends and receives at once and runs at the pace of the slower way, and "
            "one direction is what compares with one port's line rate."
        ) % {"name": direction_name(str(used or FORWARD))}
        return Directions(rows, total, direction_name(str(used)) if used else None, reason)
    # perftest -b prints only the sum of both directions.
    one = _num(result.get("throughput_gbps"))
    if total is None and one is None:
        return None
    row = DirectionRow(
        label="each",
        name=_("each direction (half of the total)"),
        mean_gbps=one,
        p5_gbps=None,
        efficiency=one / line_rate if one is not None and line_rate else None,
        used=True,
    )
    reason = _(
        "perftest -b prints only the sum of both directions; the quote's bandwidth uses half "
        "of it, one direction, taking both directions to carry the same."
    )
    return Directions([row], total, row.name, reason)


def _latency_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for row in result.get("latency_sizes") or ():
        if not isinstance(row, dict) or not isinstance(row.get("bytes"), int):
            continue
        rows.append({"size": size_label(row["bytes"]), **row})
    return rows


def _warmup(result: dict[str, Any]) -> Warmup | None:
    found = result.get("warmup")
    if not isinstance(found, dict):
        return None
    if found.get("rule") == "omitted":
        count = int(found.get("omitted") or 0)
        text = ngettext(
            "iperf3 marked %(count)s interval as warm-up (-O) and left it out of its own "
            "figures; it is not in the series.",
            "iperf3 marked %(count)s intervals as warm-up (-O) and left them out of its own "
            "figures; they are not in the series.",
            count,
        ) % {"count": count}
        return Warmup(count, None, text)
    if found.get("rule") == "ramp":
        count = int(found.get("dropped") or 0)
        text = _(
            "The first interval was below %(share)s of the median of the others: TCP slow "
            "start still ramping. It is left out of the run's pooled P5 and P50."
        ) % {"share": "80%"}
        return Warmup(count, _num(found.get("seconds")), text)
    return None


def _udp(result: dict[str, Any]) -> Udp | None:
    if result.get("test") != "udp":
        return None
    codes = {w.get("code") for w in result.get("warnings") or () if isinstance(w, dict)}
    if "udp_receiver_series" in codes:
        basis = _("The intervals are the receiver's, from the server's own report.")
    elif "udp_series_scaled" in codes:
        basis = _(
            "The client printed its sending rate; each interval was scaled by the share that "
            "arrived to estimate what the receiver got."
        )
    else:
        basis = _("The intervals are what the receiver got.")
    return Udp(
        sent_gbps=_num(result.get("sender_gbps")),
        received_gbps=_num(result.get("throughput_gbps")),
        lost_percent=_num(result.get("lost_percent")),
        basis=basis,
    )


def _nccl(result: dict[str, Any]) -> Nccl | None:
    if result.get("test") != "nccl":
        return None
    rows = [
        r
        for r in result.get("sizes") or ()
        if isinstance(r, dict) and isinstance(r.get("bytes"), int)
    ]
    table = [SizeRow(bytes=r["bytes"], bw_avg_gbps=_num(r.get("bw_avg_gbps"))) for r in rows]
    return Nccl(
        rows=[{"size": size_label(r["bytes"]), **r} for r in rows],
        largest_gbps=_num(result.get("throughput_gbps")),
        at_bucket_gbps=busbw_at(table, BUCKET_BYTES),
        bucket_label=size_label(BUCKET_BYTES),
        avg_busbw_gbps=_num(result.get("avg_busbw_gbps")),
    )


def log_evidence(
    result: dict[str, Any] | None,
    *,
    name: str,
    line_rate_gbps: float | None,
    log_id: int | None = None,
) -> LogEvidence:
    result = result or {}
    return LogEvidence(
        log_id=log_id,
        name=name,
        directions=_directions(result, line_rate_gbps),
        latency_rows=_latency_rows(result),
        warmup=_warmup(result),
        udp=_udp(result),
        nccl=_nccl(result),
    )


def run_evidence(
    items: list[tuple[int, str, dict[str, Any]]], *, line_rate_gbps: float | None
) -> list[LogEvidence]:
    """The logs of a run that have something beyond the headline, in the page's order."""
    found = [
        log_evidence(result, name=name, line_rate_gbps=line_rate_gbps, log_id=pk)
        for pk, name, result in items
    ]
    return [e for e in found if e.any]
