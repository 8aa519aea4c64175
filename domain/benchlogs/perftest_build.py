"""Turn a perftest report into a BenchResult, converting units read from its table header.

The bandwidth that counts is the BW average at the largest message size: perftest ``-a`` runs
climb from latency-bound to bandwidth-bound sizes, and the top size is the bandwidth regime
(FORMATS.md §2). The headline latency is the smallest size, the latency-bound one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from domain.benchlogs import catalogue
from domain.benchlogs.directions import perftest_one_direction
from domain.benchlogs.errors import BenchLogError
from domain.benchlogs.perftest import Column, PerftestLog, Report, read_perftest
from domain.benchlogs.result import (
    BIDIR,
    FORWARD,
    RDMA_BW,
    RDMA_LAT,
    BenchResult,
    LatencyStats,
    SizeRow,
)
from domain.benchlogs.units import perftest_bw_factor
from domain.messages import Message

_OPS = {"RDMA_Write": "write", "RDMA_Read": "read", "Send": "send", "Atomic": "atomic"}
# Ethernet-only RDMA devices: their presence under "Link type : IB" means --force-link IB.
_ROCE_DEVICE = re.compile(r"^(roce|rxe|bnxt_re|qedr)")
_LATENCY_COLUMNS = {
    "t_min": "min_us",
    "t_max": "max_us",
    "t_typical": "typical_us",
    "t_avg": "avg_us",
    "t_stdev": "stdev_us",
    "99% percentile": "p99_us",
    "99.9% percentile": "p999_us",
}


def parse_perftest_lines(lines: Iterable[str]) -> BenchResult:
    return build_perftest(read_perftest(lines))


def parse_perftest_all(lines: Iterable[str]) -> tuple[BenchResult, ...]:
    log = read_perftest(lines)
    reports = [report for report in log.reports if report.rows]
    if not reports:
        _raise_no_results(log)
    return tuple(_build(report, log) for report in reports)


def build_perftest(log: PerftestLog) -> BenchResult:
    reports = [report for report in log.reports if report.rows]
    if not reports:
        _raise_no_results(log)
    clients = [report for report in reports if not report.is_server]
    chosen = clients[0] if clients else reports[0]
    result = _build(chosen, log)
    if len(reports) > 1:
        # One test seen from both ends, or several tests in a row (a pasted session, or the
        # same test run twice from the client).
        same_test = len({report.title for report in reports}) == 1
        if same_test and any(report.is_server for report in reports):
            extra = catalogue.perftest_client_preferred(len(reports))
        else:
            extra = catalogue.multiple_tests(len(reports))
        return _with_warning(result, extra)
    return result


def _raise_no_results(log: PerftestLog) -> None:
    if log.failure:
        raise BenchLogError(catalogue.perftest_failed(log.failure))
    raise BenchLogError(catalogue.no_results("perftest"))


def _with_warning(result: BenchResult, message: Message) -> BenchResult:
    return replace(result, warnings=(*result.warnings, message))


def _build(report: Report, log: PerftestLog) -> BenchResult:
    untitled = not report.title
    op = "unknown" if untitled else _OPS.get(report.op.split(" ")[0])
    if op is None:
        raise BenchLogError(catalogue.perftest_unknown_test(report.title))
    latency = report.kind == "Latency"
    sizes = _latency_sizes(report) if latency else _bw_sizes(report)
    truncated = report is log.reports[-1] and not report.closed
    fabric, fabric_warning = _fabric(report)
    warnings = _warnings(report, sizes, latency, truncated) + fabric_warning
    if untitled:
        warnings.insert(0, catalogue.perftest_title_missing())
    qps = report.header.get("Number of qps", "")
    return perftest_one_direction(
        _result(report, op, latency, sizes, fabric, warnings, truncated, qps)
    )


def _result(  # noqa: PLR0913 - the parts _build computed, assembled in one place
    report: Report,
    op: str,
    latency: bool,
    sizes: tuple[SizeRow, ...],
    fabric: str | None,
    warnings: list[Message],
    truncated: bool,
    qps: str,
) -> BenchResult:
    return BenchResult(
        tool=f"ib_{op}_{'lat' if latency else 'bw'}",
        test=RDMA_LAT if latency else RDMA_BW,
        direction=BIDIR if "Bidirectional" in report.extra else FORWARD,
        streams=int(qps) if qps.isdigit() else None,
        throughput_gbps=None if latency else sizes[-1].bw_avg_gbps,
        latency=sizes[0].latency if latency else None,
        sizes=sizes,
        link_type=report.header.get("Link type"),
        fabric=fabric,
        device=report.header.get("Device"),
        role="server" if report.is_server else "client",
        header=tuple(report.header.items()),
        warnings=tuple(warnings),
        truncated=truncated,
    )


def _index(columns: tuple[Column, ...], name: str) -> int | None:
    for position, column in enumerate(columns):
        if column.name == name:
            return position
    return None


def _bw_sizes(report: Report) -> tuple[SizeRow, ...]:
    columns = report.columns
    peak, avg, rate = (_index(columns, name) for name in ("BW peak", "BW average", "MsgRate"))
    iterations = _index(columns, "#iterations")
    if avg is None or columns[avg].unit is None:
        raise BenchLogError(catalogue.missing_units(catalogue.PERFTEST_BW))
    factor = perftest_bw_factor(columns[avg].unit or "")
    peak_factor = perftest_bw_factor(columns[peak].unit or "") if peak is not None else factor
    if rate is not None and columns[rate].unit not in ("Mpps", None):
        raise BenchLogError(
            catalogue.unknown_units(columns[rate].unit or "", catalogue.PERFTEST_BW)
        )
    rows = []
    for size in sorted(report.rows):
        values = report.rows[size]
        peak_value = values[peak] * peak_factor if peak is not None else None
        rows.append(
            SizeRow(
                bytes=size,
                iterations=int(values[iterations]) if iterations is not None else None,
                # Duration mode and server side print 0.00: "not measured", not zero.
                bw_peak_gbps=peak_value or None,
                bw_avg_gbps=values[avg] * factor,
                msg_rate_mpps=values[rate] if rate is not None else None,
            )
        )
    return tuple(rows)


def _latency_sizes(report: Report) -> tuple[SizeRow, ...]:
    positions: dict[str, int] = {}
    for position, column in enumerate(report.columns):
        field_name = _LATENCY_COLUMNS.get(column.name)
        if field_name is None:
            continue
        if column.unit != "usec":
            raise BenchLogError(
                catalogue.unknown_units(column.unit or "(none)", catalogue.PERFTEST_LAT)
            )
        positions[field_name] = position
    # perftest before 4.x prints only t_min, t_max and t_typical (the median): that table is
    # read as printed, with no average made up from the median.
    if "avg_us" not in positions and "typical_us" not in positions:
        raise BenchLogError(catalogue.missing_units(catalogue.PERFTEST_LAT))
    iterations = _index(report.columns, "#iterations")
    rows = []
    for size in sorted(report.rows):
        values = report.rows[size]
        stats = LatencyStats(**{name: values[pos] for name, pos in positions.items()})
        count = int(values[iterations]) if iterations is not None else None
        rows.append(SizeRow(bytes=size, iterations=count, latency=stats))
    return tuple(rows)


def _fabric(report: Report) -> tuple[str | None, list[Message]]:
    link = report.header.get("Link type")
    device = report.header.get("Device", "")
    roce_device = _ROCE_DEVICE.match(device) is not None
    if link == "Ethernet":
        return "roce", []
    if link == "IB" and roce_device:
        return "roce", [catalogue.perftest_link_type_overridden(device)]
    if link == "IB":
        return "ib", []
    return ("roce" if roce_device else None), []


def _warnings(
    report: Report, sizes: tuple[SizeRow, ...], latency: bool, truncated: bool
) -> list[Message]:
    warnings = []
    if report.interleaved:
        warnings.append(catalogue.perftest_interleaved())
    elif report.duplicates:
        # One report printing a size again (--run_infinitely, a repeated run): first row kept.
        warnings.append(catalogue.duplicate_sizes(report.duplicates))
    if report.cpu_warning:
        warnings.append(catalogue.perftest_cpu_frequency())
    if not latency and all(row.bw_peak_gbps is None for row in sizes):
        warnings.append(catalogue.perftest_peak_not_measured())
    if latency and all(row.latency and row.latency.avg_us is None for row in sizes):
        warnings.append(catalogue.latency_typical_only())
    elif latency and all(row.latency and row.latency.p99_us is None for row in sizes):
        warnings.append(catalogue.latency_without_percentiles())
    if report.skipped:
        warnings.append(catalogue.skipped_lines(report.skipped))
    if truncated:
        warnings.append(catalogue.truncated_log())
    return warnings
