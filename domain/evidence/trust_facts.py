"""What a raw log says about where and when it ran: hosts, addresses, tool version, start time,
iperf3's cookie, perftest's queue pairs, nccl-tests' ranks, and any challenge token or date line.

Read from the raw bytes (the head and the tail of the file, both bounded), not from the parsed
result, because the parsers keep figures, not these identities. Every pattern is anchored on the
tool's own labels and bounded in length, so a hostile file cannot make a match expensive.

- iperf3 JSON (iperf_api.c, ``start``): ``connected[].local_host / remote_host``,
  ``connecting_to.host``, ``version``, ``timestamp.timesecs``, ``cookie``; ``title`` and
  ``extra_data`` sit at the top level after ``end``, hence the tail.
- iperf3 text: ``Connecting to host H, port P``, ``local A port p connected to B port q``,
  with ``-V`` also ``Time: …`` and ``Cookie: …``; ``--title T`` prefixes every line with ``T:``.
- perftest: ``local address: LID … QPN 0x… PSN 0x…`` and ``remote address: …`` lines, random
  per queue pair and per run.
- nccl-tests: ``Rank N Group G Pid P on HOST device D`` lines.

The parameters a test ran with, as the tool printed them (checked against the ones the kit's
token derives, ``tokens.expected_parameters``): perftest's result rows (``#bytes``,
``#iterations``) and ``Number of qps``; iperf3's ``test_start`` (``blksize``, ``duration``) and
the server ports of ``connected`` (text: ``Starting Test: … N byte blocks, … T second test`` and
``Connecting to host H, port P``); nccl-tests' header (``minBytes``, ``maxBytes``, ``iters``).
The kit's script also prints ``GPK-HOST host=NAME guid=… mac=… gpu=…`` lines: the host it ran on
and its NIC GUIDs, MAC addresses and GPU UUIDs (``host_facts``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

HEAD_BYTES = 256 * 1024
TAIL_BYTES = 64 * 1024

TOKEN_RE = re.compile(r"\bGPK-(\d{1,12})-(\d{1,12})-([a-z0-9_]{1,32})-([0-9a-f]{16})\b")
DATE_RE = re.compile(r"GPK-DATE[ :]+(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)")
_STR = r'"((?:[^"\\]|\\.){0,200})"'
_JSON = {
    "cookie": re.compile(r'"cookie"\s*:\s*' + _STR),
    "version": re.compile(r'"version"\s*:\s*' + _STR),
    "system_info": re.compile(r'"system_info"\s*:\s*' + _STR),
    "title": re.compile(r'"title"\s*:\s*' + _STR),
    "extra_data": re.compile(r'"extra_data"\s*:\s*' + _STR),
}
_TIMESECS = re.compile(r'"timesecs"\s*:\s*(\d{1,12})')
_JSON_HOSTS = re.compile(r'"(?:local_host|remote_host|host)"\s*:\s*"([^"\s]{1,100})"')
_TEXT_CONNECTING = re.compile(r"Connecting to host (\S{1,100}), port")
_TEXT_CONNECTED = re.compile(r"local (\S{1,100}) port \d+ connected (?:to|with) (\S{1,100}) port")
_TEXT_COOKIE = re.compile(r"Cookie: (\S{1,100})")
_TEXT_TIME = re.compile(r"^(?:\S{0,200}:\s*)?Time: (.{10,60})$", re.MULTILINE)
_TEXT_VERSION = re.compile(r"^(?:\S{0,200}:\s*)?(iperf 3\.\S{1,20})", re.MULTILINE)
_QP = re.compile(
    r"(local|remote) address: LID\s+(\S{1,10})\s+"
    r"QPN\s+(0x[0-9a-fA-F]{1,8})\s+PSN\s+(0x[0-9a-fA-F]{1,8})"
)
_PERFTEST_VERSION = re.compile(r"Version\s*:\s*(\S{1,20})")
_NCCL_RANK = re.compile(
    r"Rank\s+(\d{1,6})\s+(?:Group\s+\d+\s+)?Pid\s+(\d{1,10})\s+on\s+(\S{1,100})\s+device\s+(\d{1,4})"
)
_NCCL_GPU = re.compile(
    r"Rank\s+\d{1,6}\s+(?:Group\s+\d+\s+)?Pid\s+\d{1,10}\s+on\s+\S{1,100}\s+device\s+\d{1,4}"
    r"\s+\[([^\]\n]{1,20})\]\s+([^\n]{1,80})"
)
# Port facts printed beside a test: ``ibstatus`` ("rate:  200 Gb/sec (4X HDR)"), ``ibv_devinfo
# -v`` ("active_width: 4X (2)", "active_speed: 50.0 Gbps (64)"), ``ethtool`` ("Speed: 100000Mb/s").
_IBSTATUS_RATE = re.compile(r"^\s{0,20}rate:\s{1,20}(\d{1,4}(?:\.\d{1,3})?) Gb/sec", re.MULTILINE)
_DEVINFO_WIDTH = re.compile(r"active_width:\s{1,20}(\d{1,2})X")
_DEVINFO_SPEED = re.compile(r"active_speed:\s{1,20}(\d{1,4}(?:\.\d{1,3})?) Gbps")
_ETHTOOL_SPEED = re.compile(r"^\s{0,20}Speed:\s{0,5}(\d{1,7})Mb/s", re.MULTILINE)
_RDMA_END = re.compile(
    r"(local|remote) address: LID\s+(\S{1,10})\s+QPN[^\n]{0,200}"
    r"(?:\n\s{0,20}GID:\s{0,5}(\S{1,60}))?"
)
_JSON_ENDS = re.compile(
    r'"local_host"\s*:\s*"([^"\s]{1,100})"\s*,\s*"local_port"\s*:\s*\d{1,5}\s*,'
    r'\s*"remote_host"\s*:\s*"([^"\s]{1,100})"'
)
# Printed parameters. perftest's result table starts after its "#bytes  #iterations" header.
_PERFTEST_HEADER = re.compile(r"#bytes\s{1,20}#iterations[^\n]{0,200}\n")
_PERFTEST_ROW = re.compile(r"[ \t]{0,20}(\d{1,12})[ \t]{1,30}(\d{1,15})[ \t]{1,30}\d")
_PERFTEST_QPS = re.compile(r"Number of qps\s{0,20}:\s{0,20}(\d{1,6})")
_IPERF_BLKSIZE = re.compile(r'"blksize"\s*:\s*(\d{1,12})')
_IPERF_DURATION = re.compile(r'"test_start"\s*:\s*\{[^{}]{0,400}?"duration"\s*:\s*(\d{1,9})')
_IPERF_REMOTE_PORT = re.compile(r'"remote_port"\s*:\s*(\d{1,5})')
_TEXT_PORT = re.compile(r"Connecting to host \S{1,100}, port (\d{1,5})")
_TEXT_STARTING = re.compile(
    r"Starting Test: protocol: \w{1,10}, \d{1,4} streams?, (\d{1,12}) byte blocks, "
    r"omitting \d{1,6} seconds, (\d{1,9}) second test"
)
_NCCL_HEADER = re.compile(
    r"minBytes\s{1,10}(\d{1,15})\s{1,10}maxBytes\s{1,10}(\d{1,15})[^\n]{0,120}?"
    r"warmup iters:\s{0,10}\d{1,9}\s{1,10}iters:\s{0,10}(\d{1,9})"
)
HOST_RE = re.compile(
    r"GPK-HOST\s{1,5}host=([^\s\"]{1,100})((?:[ \t]{1,5}(?:guid|mac|gpu)=[^\s\"]{0,4000}){0,3})"
)
_HOST_IDS = re.compile(r"(guid|mac|gpu)=([^\s\"]{0,4000})")
_NCCL_VERSION = re.compile(r"NCCL version (\S{1,40})|nccl-tests version (\S{1,40})")


@dataclass(frozen=True)
class RawFacts:
    is_json: bool = False
    cookie: str | None = None
    start_epoch_s: float | None = None
    version: str | None = None
    system_info: str | None = None
    hosts: tuple[str, ...] = ()
    title: str | None = None
    extra_data: str | None = None
    tokens: tuple[str, ...] = ()
    dates: tuple[float, ...] = ()
    queue_pairs: tuple[str, ...] = ()
    ranks: tuple[str, ...] = ()
    # Where the two ends of the test were: iperf3 (local, remote) addresses, perftest
    # (side, LID, GID); the GPUs nccl-tests ran on (bus id, model); the port rates printed.
    ends: tuple[tuple[str, str], ...] = ()
    rdma_ends: tuple[tuple[str, str, str], ...] = ()
    gpus: tuple[tuple[str, str], ...] = ()
    port_rates_gbps: tuple[float, ...] = ()
    # The parameters the tool printed, (name, value) in the order found: ``perftest_bytes``,
    # ``perftest_iters``, ``perftest_qps``, ``iperf3_blksize``, ``iperf3_duration``,
    # ``iperf3_port``, ``nccl_min_bytes``, ``nccl_max_bytes``, ``nccl_iters``.
    printed: tuple[tuple[str, int], ...] = ()
    # The kit script's host facts: (host name, its identifiers: NIC GUIDs, MACs, GPU UUIDs).
    host_facts: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def printed_values(self, name: str) -> tuple[int, ...]:
        return tuple(dict.fromkeys(v for k, v in self.printed if k == name))

    def as_dict(self) -> dict[str, object]:
        return {
            "cookie": self.cookie,
            "start_epoch_s": self.start_epoch_s,
            "version": self.version,
            "system_info": self.system_info,
            "hosts": list(self.hosts),
            "title": self.title,
            "tokens": list(self.tokens),
            "dates": list(self.dates),
            "queue_pairs": list(self.queue_pairs)[:16],
            "ranks": list(self.ranks)[:64],
            "ends": [list(e) for e in self.ends[:16]],
            "rdma_ends": [list(e) for e in self.rdma_ends[:16]],
            "gpus": [list(g) for g in self.gpus[:64]],
            "port_rates_gbps": list(self.port_rates_gbps[:16]),
            "printed": [list(p) for p in self.printed[:64]],
            "host_facts": [[name, list(ids)] for name, ids in self.host_facts[:32]],
        }


def read_head_tail(stream: object, size: int) -> str:
    """The head and (if the file is longer) the tail of a binary stream, as text."""
    read = stream.read  # type: ignore[attr-defined]
    seek = stream.seek  # type: ignore[attr-defined]
    seek(0)
    head: bytes = read(HEAD_BYTES)
    tail = b""
    if size > HEAD_BYTES:
        seek(max(HEAD_BYTES, size - TAIL_BYTES))
        tail = read(TAIL_BYTES)
    seek(0)
    return (head + b"\n" + tail).decode("utf-8", errors="replace")


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.search(text)
    return next((g for g in found.groups() if g), None) if found else None


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


def _epoch(text: str) -> float | None:
    try:
        return parsedate_to_datetime(text.strip()).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _iso(text: str) -> float | None:
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


def scan(text: str) -> RawFacts:
    """Facts from the text of a log's head and tail (see ``read_head_tail``)."""
    is_json = text.lstrip().startswith("{")
    tokens = _unique([m.group(0) for m in TOKEN_RE.finditer(text)][:8])
    dates = tuple(d for d in (_iso(m.group(1)) for m in DATE_RE.finditer(text)) if d)[:8]
    queue_pairs = _unique([" ".join(m.groups()) for m in _QP.finditer(text)][:64])
    ranks = [m.groups() for m in _NCCL_RANK.finditer(text)][:1024]
    rank_ids = _unique([" ".join(r) for r in ranks])
    site = {
        "rdma_ends": tuple(dict.fromkeys(m.groups() for m in _RDMA_END.finditer(text)))[:16],
        "gpus": tuple(dict.fromkeys((b.strip(), n.strip()) for b, n in _NCCL_GPU.findall(text)))[
            :64
        ],
        "port_rates_gbps": port_rates(text),
        "printed": printed_parameters(text, is_json=is_json),
        "host_facts": host_facts(text),
    }
    if is_json:
        timesecs = _first(_TIMESECS, text)
        return RawFacts(
            ends=tuple(dict.fromkeys(_JSON_ENDS.findall(text)))[:16],
            **site,  # type: ignore[arg-type]
            is_json=True,
            cookie=_first(_JSON["cookie"], text),
            start_epoch_s=float(timesecs) if timesecs else None,
            version=_first(_JSON["version"], text),
            system_info=_first(_JSON["system_info"], text),
            hosts=_unique(_JSON_HOSTS.findall(text)[:64]),
            title=_first(_JSON["title"], text),
            extra_data=_first(_JSON["extra_data"], text),
            tokens=tokens,
            dates=dates,
            queue_pairs=queue_pairs,
            ranks=rank_ids,
        )
    hosts = _TEXT_CONNECTING.findall(text)[:16]
    ends = _TEXT_CONNECTED.findall(text)[:64]
    for local, remote in ends:
        hosts += [local, remote]
    hosts += [host for _rank, _pid, host, _device in ranks]
    time_text = _first(_TEXT_TIME, text)
    version = _first(_TEXT_VERSION, text) or _first(_NCCL_VERSION, text)
    return RawFacts(
        ends=tuple(dict.fromkeys(ends))[:16],
        **site,  # type: ignore[arg-type]
        cookie=_first(_TEXT_COOKIE, text),
        start_epoch_s=_epoch(time_text) if time_text else None,
        version=version or _first(_PERFTEST_VERSION, text),
        hosts=_unique(hosts),
        tokens=tokens,
        dates=dates,
        queue_pairs=queue_pairs,
        ranks=rank_ids,
    )


def port_rates(text: str) -> tuple[float, ...]:
    """Every port rate (Gbit/s) the log prints from ``ibstatus``, ``ibv_devinfo`` or ``ethtool``."""
    found = [float(r) for r in _IBSTATUS_RATE.findall(text)[:16]]
    widths = [int(w) for w in _DEVINFO_WIDTH.findall(text)[:16]]
    speeds = [float(s) for s in _DEVINFO_SPEED.findall(text)[:16]]
    found += [w * s for w, s in zip(widths, speeds, strict=False)]
    found += [int(m) / 1000 for m in _ETHTOOL_SPEED.findall(text)[:16]]
    return tuple(dict.fromkeys(r for r in found if r > 0))


def normal_id(value: str) -> str:
    """A NIC GUID, MAC or GPU UUID as one spelling: lower case; a GUID or MAC without ``0x``,
    colons or dashes (``0x0c42a103…``, ``0c42:a103:…`` and ``0C:42:…`` compare equal)."""
    text = value.strip().lower()
    if text.startswith("gpu-"):
        return text
    text = text.removeprefix("0x")
    bare = text.replace(":", "").replace("-", "")
    return bare if bare and all(c in "0123456789abcdef" for c in bare) else text


def host_facts(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The ``GPK-HOST`` lines the kit's script prints: each host and its identifiers."""
    found: dict[str, list[str]] = {}
    for match in list(HOST_RE.finditer(text))[:32]:
        ids = found.setdefault(match[1], [])
        for _kind, values in _HOST_IDS.findall(match[2] or ""):
            ids += [normal_id(v) for v in values.split(",")[:64] if v.strip()]
    return tuple((name, tuple(dict.fromkeys(ids))[:128]) for name, ids in found.items())


def _perftest_rows(text: str) -> list[tuple[int, int]]:
    rows: list[tuple[int, int]] = []
    for header in list(_PERFTEST_HEADER.finditer(text))[:4]:
        at = header.end()
        for line in text[at : at + 8192].splitlines()[:64]:
            row = _PERFTEST_ROW.match(line)
            if row is None:
                if line.strip().startswith("-") or line.strip().startswith("#"):
                    break
                continue  # a warning printed inside the table
            rows.append((int(row[1]), int(row[2])))
    return rows


def printed_parameters(text: str, *, is_json: bool) -> tuple[tuple[str, int], ...]:
    """The parameters the tool printed (see the module's docstring)."""
    found: list[tuple[str, int]] = []
    for size, iters in _perftest_rows(text)[:64]:
        found += [("perftest_bytes", size), ("perftest_iters", iters)]
    found += [("perftest_qps", int(q)) for q in _PERFTEST_QPS.findall(text)[:4]]
    if is_json:
        found += [("iperf3_blksize", int(b)) for b in _IPERF_BLKSIZE.findall(text)[:2]]
        found += [("iperf3_duration", int(d)) for d in _IPERF_DURATION.findall(text)[:2]]
        found += [("iperf3_port", int(p)) for p in _IPERF_REMOTE_PORT.findall(text)[:64]]
    else:
        for blocks, seconds in _TEXT_STARTING.findall(text)[:2]:
            found += [("iperf3_blksize", int(blocks)), ("iperf3_duration", int(seconds))]
        found += [("iperf3_port", int(p)) for p in _TEXT_PORT.findall(text)[:16]]
    for low, high, iters in _NCCL_HEADER.findall(text)[:2]:
        found += [("nccl_min_bytes", int(low)), ("nccl_max_bytes", int(high))]
        found += [("nccl_iters", int(iters))]
    return tuple(dict.fromkeys(found))
