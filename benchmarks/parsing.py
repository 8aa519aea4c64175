"""The one place the benchmarks app talks to ``domain.benchlogs``.

The parsers are being finished alongside this app, so every call goes through these few functions:
``parse_upload`` (stream -> BenchResult or BenchLogError), ``result_json`` (JSON-ready dict plus
per-stream series), ``zip_members`` (safe expansion) and ``log_verdict`` / ``run_summary``. They use
the package's public API (``parse_stream``, ``result_to_json``, ``archive``, ``stats``) when it is
there and otherwise a small fallback, so that the web layer never changes shape.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from domain.benchlogs.errors import BenchLogError
from domain.messages import Message

try:  # the package's public entry point, once its __init__ exists
    from domain import benchlogs as _pkg
except ImportError:  # pragma: no cover - the package root is always importable
    _pkg = None  # type: ignore[assignment]


def _msg(code: str, en: str, zh: str) -> Message:
    return Message(code=code, en=en, zh=zh)


# ---------------------------------------------------------------- parsing


def parse_upload(stream: IO[bytes], filename: str) -> Any:
    """Parse one log; raises ``BenchLogError`` (and only that) when it cannot be read."""
    parse_stream = getattr(_pkg, "parse_stream", None)
    if parse_stream is not None:
        return parse_stream(stream, filename)
    return _fallback_parse(stream, filename)


def _fallback_parse(stream: IO[bytes], filename: str) -> Any:
    from domain.benchlogs import detect, textio

    head, rewound = textio.peek(stream)
    fmt = detect.detect(head, filename)
    if fmt == detect.IPERF3_JSON:
        from domain.benchlogs.iperf3_json import parse_iperf3_json

        return parse_iperf3_json(rewound)
    raise BenchLogError(
        _msg(
            "benchlog.parser_missing",
            f"The {fmt} parser is not available yet.",
            f"{fmt} 解析器尚未就绪。",
        )
    )


def _plain(value: Any) -> Any:
    if isinstance(value, Message):
        return value.as_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def result_json(result: Any, filename: str = "") -> dict[str, Any]:
    """``result_to_json`` output, plus the per-stream series and interval times for the charts."""
    to_json = getattr(_pkg, "result_to_json", None)
    data: dict[str, Any]
    if to_json is not None:
        data = dict(_plain(_call_to_json(to_json, result, filename)))
    else:
        data = _fallback_json(result, filename)
    data["series"] = [
        {"label": s.label, "gbps": [_finite(v) for v in s.gbps]}
        for s in getattr(result, "series", ())
    ]
    data["interval_end_s"] = [_finite(v) for v in getattr(result, "interval_end_s", ())]
    data["measured_kind"] = getattr(result, "measured_kind", "link")
    data["fabric"] = getattr(result, "fabric", None)
    data["truncated"] = bool(getattr(result, "truncated", False))
    data.setdefault("interval_gbps", [_finite(v) for v in getattr(result, "interval_gbps", ())])
    return data


def _call_to_json(to_json: Any, result: Any, filename: str) -> Any:
    try:
        return to_json(result, file=filename)
    except TypeError:
        return to_json(result)


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _fallback_json(result: Any, filename: str) -> dict[str, Any]:
    gbps = [v for v in result.interval_gbps if v is not None]
    lat = result.latency
    return {
        "file": filename,
        "tool": result.tool,
        "test": result.test,
        "throughput_gbps": result.throughput_gbps,
        "sender_gbps": result.sender_gbps,
        "retransmits": result.retransmits,
        "streams": result.streams,
        "duration_s": result.duration_s,
        "intervals": len(gbps),
        "interval_gbps": gbps,
        "cv": _cv(gbps),
        "p5_gbps": percentile(gbps, 5),
        "lost_percent": result.lost_percent,
        "jitter_ms": result.jitter_ms,
        "latency_us": None
        if lat is None
        else {"min": lat.min_us, "avg": lat.avg_us, "p99": lat.p99_us, "p999": lat.p999_us},
        "sizes": [
            {"bytes": r.bytes, "bw_avg_gbps": r.bw_avg_gbps, "bw_peak_gbps": r.bw_peak_gbps}
            for r in result.sizes
        ],
        "link_type": result.link_type,
        "warnings": [w.as_dict() for w in result.warnings],
        "error": result.error.as_dict() if result.error else None,
    }


def error_json(filename: str, message: Message) -> dict[str, Any]:
    """The object ``parse_log`` prints for a file that failed."""
    return {"file": filename, "tool": None, "throughput_gbps": None, "error": message.as_dict()}


# ---------------------------------------------------------------- archives


@dataclass(frozen=True)
class Member:
    """One zip member: its bytes when accepted, else the reason it was refused."""

    name: str
    data: bytes | None
    refusal: Message | None


MAX_MEMBERS = 500
MAX_RATIO = 200


def zip_members(stream: IO[bytes], *, max_bytes: int) -> Iterator[Member]:
    """Expand a zip safely: no ``../`` or absolute paths, no links, no bombs, nothing too big."""
    archive = getattr(_pkg, "archive", None)
    iterate = getattr(archive, "iter_zip_members", None)
    if iterate is not None:
        yield from _from_domain_archive(iterate, stream, max_bytes)
        return
    yield from _fallback_zip(stream, max_bytes)


def _from_domain_archive(iterate: Any, stream: IO[bytes], max_bytes: int) -> Iterator[Member]:
    try:
        items = iterate(stream, max_member_bytes=max_bytes)
    except TypeError:
        items = iterate(stream)
    for item in items:
        name = getattr(item, "name", "") or getattr(item, "filename", "")
        refusal = getattr(item, "error", None) or getattr(item, "refusal", None)
        data = getattr(item, "data", None)
        if data is None and refusal is None and hasattr(item, "open"):
            with item.open() as fh:
                data = fh.read()
        yield Member(name=name, data=None if refusal else data, refusal=refusal)


def _refuse(name: str, code: str, en: str, zh: str) -> Member:
    return Member(name=name, data=None, refusal=_msg(code, en, zh))


def _fallback_zip(stream: IO[bytes], max_bytes: int) -> Iterator[Member]:
    try:
        zf = zipfile.ZipFile(stream)
    except (zipfile.BadZipFile, OSError):
        raise BenchLogError(
            _msg("benchlog.zip_damaged", "The zip archive is damaged.", "zip 压缩包已损坏。")
        ) from None
    infos = [i for i in zf.infolist() if not i.is_dir()]
    if len(infos) > MAX_MEMBERS:
        raise BenchLogError(
            _msg(
                "benchlog.zip_too_many",
                f"The zip holds more than {MAX_MEMBERS} files.",
                f"zip 内文件超过 {MAX_MEMBERS} 个。",
            )
        )
    total = 0
    for info in infos:
        refusal = _member_refusal(info, max_bytes)
        if refusal is not None:
            yield refusal
            continue
        data = _read_capped(zf, info, max_bytes)
        if data is None:
            yield _bomb(info.filename)
            continue
        total += len(data)
        if total > max_bytes:
            yield _bomb(info.filename)
            return
        yield Member(name=info.filename.rsplit("/", 1)[-1], data=data, refusal=None)


def _bomb(name: str) -> Member:
    return _refuse(
        name,
        "benchlog.zip_bomb",
        f"{name}: refused, it expands far beyond its compressed size (a compression bomb?).",
        f"{name}：已拒绝，解压后远大于压缩大小（疑似压缩炸弹）。",
    )


def _member_refusal(info: zipfile.ZipInfo, max_bytes: int) -> Member | None:
    name = info.filename
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or ".." in parts or (len(name) > 1 and name[1] == ":"):
        return _refuse(
            name,
            "benchlog.zip_traversal",
            f"{name}: refused, the path leaves the archive.",
            f"{name}：已拒绝，路径指向压缩包之外。",
        )
    mode = (info.external_attr >> 16) & 0o170000
    if mode == 0o120000:
        return _refuse(
            name,
            "benchlog.zip_link",
            f"{name}: refused, it is a symbolic link.",
            f"{name}：已拒绝，这是一个符号链接。",
        )
    if info.file_size > max_bytes or (
        info.compress_size and info.file_size / info.compress_size > MAX_RATIO
    ):
        return _bomb(name)
    return None


def _read_capped(zf: zipfile.ZipFile, info: zipfile.ZipInfo, max_bytes: int) -> bytes | None:
    """Read at most ``max_bytes`` (headers can lie about sizes); None when it would exceed it."""
    chunks, size = [], 0
    with zf.open(info) as fh:
        while chunk := fh.read(1 << 20):
            size += len(chunk)
            if size > max_bytes:
                return None
            chunks.append(chunk)
    return b"".join(chunks)


# ---------------------------------------------------------------- statistics and verdicts


def percentile(values: Sequence[float], pct: float) -> float | None:
    """Linear-interpolated percentile (same method as numpy's default)."""
    data = sorted(v for v in values if v is not None)
    if not data:
        return None
    rank = (len(data) - 1) * pct / 100
    lo = math.floor(rank)
    hi = math.ceil(rank)
    return data[lo] + (data[hi] - data[lo]) * (rank - lo)


def _cv(values: Sequence[float]) -> float | None:
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    return statistics.pstdev(values) / mean if mean > 0 else None


def jain(values: Sequence[float]) -> float | None:
    if not values:
        return None
    square_sum = sum(v * v for v in values)
    return (sum(values) ** 2) / (len(values) * square_sum) if square_sum > 0 else None


@dataclass(frozen=True)
class Limits:
    """The team's thresholds, as plain values."""

    rdma_min_line_fraction: float = 0.90
    tcp_min_line_fraction: float = 0.85
    max_cv: float = 0.05
    warn_margin: float = 0.05
    p99_latency_ib_us: float = 5.0
    p99_latency_roce_us: float = 10.0
    p99_latency_tcp_us: float = 50.0


PASS, WARN, FAIL, UNKNOWN = "pass", "warn", "fail", "unknown"
_RANK = {PASS: 0, WARN: 1, UNKNOWN: 2, FAIL: 3}


def log_verdict(
    data: dict[str, Any], *, limits: Limits, line_rate_gbps: float | None, fabric: str | None
) -> tuple[str, list[dict[str, str]]]:
    """Pass / warn / fail of one parsed log (its ``result_json``), with bilingual reasons."""
    reasons: list[tuple[str, Message]] = []
    test = data.get("test")
    if test == "rdma_lat":
        reasons.append(_latency_check(data, limits, fabric))
    elif data.get("throughput_gbps") is not None:
        reasons.append(_rate_check(data, limits, line_rate_gbps))
        cv = data.get("cv")
        if cv is not None:
            reasons.append(_cv_check(cv, limits))
    else:
        reasons.append(
            (UNKNOWN, _msg("verdict.no_figure", "No throughput figure.", "没有吞吐量数据。"))
        )
    status = max((r[0] for r in reasons), key=_RANK.__getitem__)
    return status, [m.as_dict() | {"status": s} for s, m in reasons]


def _band(value: float, limit: float, margin: float, higher_is_better: bool) -> str:
    if higher_is_better:
        return PASS if value >= limit else WARN if value >= limit - margin else FAIL
    return PASS if value <= limit else WARN if value <= limit * (1 + margin) + margin else FAIL


def _rate_check(data: dict[str, Any], limits: Limits, line: float | None) -> tuple[str, Message]:
    rate = float(data["throughput_gbps"])
    if not line:
        return UNKNOWN, _msg(
            "verdict.line_rate_unknown",
            f"{rate:.2f} Gbit/s measured, but the line rate is unknown: set it on the test run or "
            "the data centre's network profile.",
            f"实测 {rate:.2f} Gbit/s，但线速未知：请在测试批次或机房网络信息中填写端口速率。",
        )
    rdma = data.get("test") in ("rdma_bw", "nccl")
    limit = limits.rdma_min_line_fraction if rdma else limits.tcp_min_line_fraction
    share = rate / line
    status = _band(share, limit, limits.warn_margin, True)
    return status, _msg(
        f"verdict.line_rate_{status}",
        f"{rate:.2f} Gbit/s is {share:.1%} of the {line:g} Gbit/s line rate (limit {limit:.0%}).",
        f"{rate:.2f} Gbit/s 为 {line:g} Gbit/s 线速的 {share:.1%}（要求 {limit:.0%}）。",
    )


def _cv_check(cv: float, limits: Limits) -> tuple[str, Message]:
    status = _band(cv, limits.max_cv, limits.warn_margin, False)
    return status, _msg(
        f"verdict.cv_{status}",
        f"Coefficient of variation {cv:.1%} (limit {limits.max_cv:.0%}).",
        f"变异系数 {cv:.1%}（上限 {limits.max_cv:.0%}）。",
    )


def _latency_check(data: dict[str, Any], limits: Limits, fabric: str | None) -> tuple[str, Message]:
    p99 = (data.get("latency_us") or {}).get("p99")
    fabric = fabric or data.get("fabric") or ""
    limit = {
        "ib": limits.p99_latency_ib_us,
        "roce": limits.p99_latency_roce_us,
        "tcp": limits.p99_latency_tcp_us,
    }.get(fabric)
    if p99 is None or limit is None:
        return UNKNOWN, _msg(
            "verdict.latency_unknown",
            "The P99 latency or the fabric is unknown, so no latency limit applies.",
            "P99 时延或网络类型未知，无法套用时延上限。",
        )
    status = _band(p99, limit, limits.warn_margin, False)
    return status, _msg(
        f"verdict.latency_{status}",
        f"P99 latency {p99:.2f} µs (limit {limit:g} µs for {fabric}).",
        f"P99 时延 {p99:.2f} µs（{fabric} 上限 {limit:g} µs）。",
    )


@dataclass(frozen=True)
class RunSummary:
    pairs: int
    aggregate_gbps: float | None
    min_pair_gbps: float | None
    max_pair_gbps: float | None
    jain_index: float | None
    aggregate_vs_line: float | None
    tail_p5_gbps: float | None
    p50_gbps: float | None
    measured_kind: str


def run_summary(results: Sequence[dict[str, Any]], *, line_rate_gbps: float | None) -> RunSummary:
    """Aggregate, fairness and tail of the pairs that ran together (bandwidth logs only)."""
    bw = [
        r for r in results if r.get("throughput_gbps") is not None and r.get("test") != "rdma_lat"
    ]
    rates = [float(r["throughput_gbps"]) for r in bw]
    intervals = [v for r in bw for v in (r.get("interval_gbps") or []) if v is not None]
    # perftest and nccl logs have no intervals: their one figure stands for the whole test.
    intervals += [float(r["throughput_gbps"]) for r in bw if not r.get("interval_gbps")]
    kind = (
        "collective" if bw and all(r.get("measured_kind") == "collective" for r in bw) else "link"
    )
    aggregate = sum(rates) if rates else None
    return RunSummary(
        pairs=len(rates),
        aggregate_gbps=aggregate,
        min_pair_gbps=min(rates) if rates else None,
        max_pair_gbps=max(rates) if rates else None,
        jain_index=jain(rates),
        aggregate_vs_line=aggregate / (len(rates) * line_rate_gbps)
        if aggregate is not None and line_rate_gbps
        else None,
        tail_p5_gbps=percentile(intervals, 5),
        p50_gbps=percentile(intervals, 50),
        measured_kind=kind if bw else "",
    )
