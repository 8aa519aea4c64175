"""UDP: the interval series is what the receiver got, not what the client sent.

A UDP client's per-interval rows are its *sending* rate; only the receiver sees loss. The
figures that count are the receiver's, so for a client log sending forward:

- with the server's own report embedded (``--get-server-output``), its intervals are taken;
- otherwise each sent interval is scaled by the share of the data that arrived (received bytes
  over sent bytes, else 1 − loss), an estimate, said by a warning.

The client's sending series is kept as ``interval_sent_gbps``. A server log, or a client under
``-R`` (it receives), already holds the receiver's intervals and is left as it is.
"""

from __future__ import annotations

from dataclasses import replace

from domain.benchlogs import fidelity
from domain.benchlogs.result import FORWARD, UDP, BenchResult


def receiver_series(result: BenchResult) -> BenchResult:
    if (
        result.test != UDP
        or result.role == "server"
        or result.direction != FORWARD
        or not result.interval_gbps
        or result.error is not None
    ):
        return result
    server = result.server
    if server is not None and server.interval_gbps:
        return replace(
            result,
            interval_sent_gbps=result.interval_gbps,
            interval_gbps=server.interval_gbps,
            warnings=(*result.warnings, fidelity.udp_receiver_series(result.lost_percent)),
        )
    share = _delivered_share(result)
    if share is None:
        return result
    return replace(
        result,
        interval_sent_gbps=result.interval_gbps,
        interval_gbps=tuple(value * share for value in result.interval_gbps),
        warnings=(*result.warnings, fidelity.udp_series_scaled(result.lost_percent)),
    )


def _delivered_share(result: BenchResult) -> float | None:
    sent, received = result.bytes_sent, result.bytes_received
    if sent and received is not None and sent > 0 and 0 <= received <= sent:
        return received / sent
    if result.lost_percent is not None and 0 <= result.lost_percent <= 100:
        return 1 - result.lost_percent / 100
    return None
