"""Write the demo benchmark logs (run once; the output is committed next to this script).

The corpus logs were taken on loopback, far above any NIC, so the demo logs keep the corpus
structure (iperf3 3.12 ``-J`` JSON, perftest ``ib_write_bw`` headers) with figures a real port of
the demo vendors could give: ~9.4 Gbit/s on 10G TCP, ~92 Gbit/s on 100G RoCE, ~195 Gbit/s per
200G IB port, several concurrent pairs each, from a fixed seed.

    .venv/bin/python benchmarks/demo_data/make_demo_logs.py
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "tests" / "domain" / "data" / "corpus"
START = 1796220000  # one wall clock for every pair of a run: the pairs ran together
MIB = 1024 * 1024


# ---------------------------------------------------------------- iperf3 -J, 10G TCP


def _iperf3(pair: int, *, streams: int, seconds: int, gbps: float, rng: random.Random) -> str:
    template = json.loads((CORPUS / "iperf3-json" / "local_3.12_tcp_P4.json").read_text())
    start = dict(template["start"])
    client, server = f"10.10.1.{10 + pair}", f"10.10.2.{10 + pair}"
    sockets = [5 + 2 * n for n in range(streams)]
    start["connected"] = [
        {"socket": s, "local_host": client, "local_port": 50400 + s, "remote_host": server,
         "remote_port": 5201}
        for s in sockets
    ]  # fmt: skip
    start["system_info"] = f"Linux gpu-dg-{pair:02d} 5.15.0-105-generic #115-Ubuntu SMP x86_64"
    when = START + pair - 1
    stamp = datetime.fromtimestamp(when, UTC).strftime("%a, %d %b %Y %H:%M:%S GMT")
    start["timestamp"] = {"time": stamp, "timesecs": when}
    start["connecting_to"] = {"host": server, "port": 5201}
    start["cookie"] = f"demo{pair:02d}" + "x" * 30
    start["tcp_mss_default"] = 8948
    start["test_start"] = dict(start["test_start"], num_streams=streams, duration=seconds)

    intervals, totals, retrans = [], [0] * streams, [0] * streams
    for second in range(seconds):
        # Jitter of a busy 10G leaf; pair 3 shares an uplink and dips once.
        dip = 0.9 if pair == 3 and second == 6 else 1.0
        rows = []
        for n, sock in enumerate(sockets):
            rate = gbps / streams * dip * rng.gauss(1.0, 0.015) * 1e9
            sent = int(rate / 8 // 8948 * 8948)
            resent = rng.choice((0, 0, 0, 2, 5, 11))
            totals[n] += sent
            retrans[n] += resent
            rows.append(
                {"socket": sock, "start": second, "end": second + 1.0, "seconds": 1.0,
                 "bytes": sent, "bits_per_second": sent * 8.0, "retransmits": resent,
                 "snd_cwnd": rng.randrange(900_000, 1_600_000), "rtt": rng.randrange(60, 140),
                 "rttvar": rng.randrange(10, 40), "pmtu": 9000, "omitted": False, "sender": True}
            )  # fmt: skip
        moved = sum(r["bytes"] for r in rows)
        intervals.append(
            {"streams": rows,
             "sum": {"start": second, "end": second + 1.0, "seconds": 1.0, "bytes": moved,
                     "bits_per_second": moved * 8.0,
                     "retransmits": sum(r["retransmits"] for r in rows), "omitted": False,
                     "sender": True}}
        )  # fmt: skip

    def side(sock: int, sent: int, *, sender: bool, extra: dict) -> dict:  # type: ignore[type-arg]
        return {"socket": sock, "start": 0, "end": float(seconds), "seconds": float(seconds),
                "bytes": sent, "bits_per_second": sent * 8.0 / seconds, **extra,
                "sender": sender}  # fmt: skip

    # The receiver got everything but the last in-flight bytes.
    got = [int(t * 0.9996) for t in totals]
    end = {
        "streams": [
            {"sender": side(s, totals[n], sender=True, extra={"retransmits": retrans[n]}),
             "receiver": side(s, got[n], sender=True, extra={})}
            for n, s in enumerate(sockets)
        ],
        "sum_sent": side(0, sum(totals), sender=True, extra={"retransmits": sum(retrans)}),
        "sum_received": side(0, sum(got), sender=True, extra={}),
        "cpu_utilization_percent": {"host_total": 41.2, "host_user": 1.9, "host_system": 39.3,
                                    "remote_total": 28.7, "remote_user": 1.1,
                                    "remote_system": 27.6},
        "sender_tcp_congestion": "cubic",
        "receiver_tcp_congestion": "cubic",
    }  # fmt: skip
    for part in ("sum_sent", "sum_received"):
        del end[part]["socket"]
    return json.dumps({"start": start, "intervals": intervals, "end": end}, indent=None) + "\n"


# ---------------------------------------------------------------- perftest ib_write_bw

RULE = "-" * 87


def _perftest(
    *,
    command: str,
    device: str,
    qps: int,
    mtu: int,
    link: str,
    gids: tuple[str, str] | None,
    unit: str,
    rows: list[tuple[int, int, float, float]],
    rng: random.Random,
) -> str:
    """An ib_write_bw client report; ``rows`` are (bytes, iterations, peak, average) in Gbit/s."""
    lines = [
        f"$ {command}", RULE, "                    RDMA_Write BW Test",
        f" Dual-port       : OFF          Device         : {device}",
        f" Number of qps   : {qps}            Transport type : IB",
        " Connection type : RC           Using SRQ      : OFF",
        " PCIe relax order: ON", " ibv_wr* API     : ON", " TX depth        : 128",
        " CQ Moderation   : 1", f" Mtu             : {mtu}[B]", f" Link type       : {link}",
    ]  # fmt: skip
    if gids:
        lines.append(" GID index       : 3")
    lines += [
        " Max inline data : 0[B]",
        " rdma_cm QPs     : OFF",
        " Data ex. method : Ethernet",
        RULE,
    ]
    for side, gid in (("local", gids[0] if gids else None), ("remote", gids[1] if gids else None)):
        for _ in range(qps):
            lid = "0000" if gids else f"0x{rng.randrange(0x10, 0xFF):02x}"
            lines.append(
                f" {side} address: LID {lid} QPN 0x{rng.randrange(0x100, 0xFFF):04x} "
                f"PSN 0x{rng.randrange(0x100000, 0xFFFFFF):06x}"
            )
            if gid:
                lines.append(f" GID: {gid}")
    lines += [
        RULE,
        f" #bytes     #iterations    BW peak[{unit}]    BW average[{unit}]   MsgRate[Mpps]",
    ]
    for size, iters, peak, avg in rows:
        if unit == "MB/sec":  # perftest's MB is 2^20 bytes
            shown_peak, shown_avg = peak * 1e9 / 8 / MIB, avg * 1e9 / 8 / MIB
        else:
            shown_peak, shown_avg = peak, avg
        mpps = avg * 1e9 / 8 / size / 1e6
        lines.append(f" {size:<10} {iters:<16} {shown_peak:<18.2f} {shown_avg:<18.2f} {mpps:.6f}")
    lines.append(RULE)
    return "\n".join(lines) + "\n"


def _gid(host: str) -> str:
    return "00:00:00:00:00:00:00:00:00:00:255:255:" + ":".join(
        f"{int(o):02d}" for o in host.split(".")
    )


def _roce(pair: int, gbps: float, rng: random.Random) -> str:
    client, server = f"10.20.1.{10 + pair}", f"10.20.2.{10 + pair}"
    return _perftest(
        command=f"ib_write_bw {server} -d mlx5_0 -x 3 -q 4 -s 65536 -n 20000 --report_gbits -F",
        device="mlx5_0", qps=4, mtu=4096, link="Ethernet", gids=(_gid(client), _gid(server)),
        unit="Gb/sec", rows=[(65536, 20000, gbps + rng.uniform(0.05, 0.4), gbps)], rng=rng,
    )  # fmt: skip


def _ib(pair: int, gbps: float, rng: random.Random, *, sweep: bool) -> str:
    server = f"10.30.2.{10 + pair}"
    if sweep:  # one pair also swept the message sizes: the curve flattens from ~64 KiB
        sizes = [2**k for k in range(1, 24)]
        rows = []
        for size in sizes:
            # Small messages are bound by the message rate (~6 Mpps), large ones by the port.
            by_rate = size * 8 * 6e6 / 1e9
            avg = 1 / (1 / gbps + 1 / by_rate) * rng.uniform(0.997, 1.0)
            if size == sizes[-1]:
                avg = gbps
            rows.append((size, 5000, avg * rng.uniform(1.0, 1.004), avg))
        command = f"ib_write_bw {server} -d mlx5_{pair - 1} -a -n 5000 -F"
    else:
        rows = [(8388608, 5000, gbps + rng.uniform(0.02, 0.2), gbps)]
        command = f"ib_write_bw {server} -d mlx5_{pair - 1} -s 8388608 -n 5000 -F"
    return _perftest(
        command=command, device=f"mlx5_{pair - 1}", qps=1, mtu=4096, link="IB", gids=None,
        unit="MB/sec", rows=rows, rng=rng,
    )  # fmt: skip


def main() -> None:
    rng = random.Random(20261202)
    for old in HERE.glob("*.json"):
        old.unlink()
    for old in HERE.glob("*.txt"):
        old.unlink()
    for pair, gbps in ((1, 9.42), (2, 9.38), (3, 9.31)):
        text = _iperf3(pair, streams=2, seconds=10, gbps=gbps, rng=rng)
        (HERE / f"dg10g_pair{pair}_iperf3_P2.json").write_text(text)
    for pair, gbps in ((1, 92.41), (2, 91.87), (3, 92.06), (4, 90.93)):
        (HERE / f"sz100g_roce_pair{pair}_ib_write_bw.txt").write_text(_roce(pair, gbps, rng))
    for pair, gbps in ((1, 195.62), (2, 194.87), (3, 195.21), (4, 193.96)):
        text = _ib(pair, gbps, rng, sweep=pair == 1)
        (HERE / f"gz200g_ib_pair{pair}_ib_write_bw.txt").write_text(text)


if __name__ == "__main__":
    main()
