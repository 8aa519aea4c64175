"""Parser for nccl-tests output (all_reduce_perf, all_gather_perf, …).

Columns differ by version and collective (FORMATS.md §3.1), so rows are mapped by the header
text, and the units line must say what nccl-tests always prints: bytes, µs and GB/s (10^9 B/s).
The result's throughput is the bus bandwidth at the largest message size in Gbit/s, marked as a
collective figure; nccl-tests' "Avg bus bandwidth" is kept as ``avg_busbw_gbps``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from domain.benchlogs import catalogue
from domain.benchlogs.errors import BenchLogError
from domain.benchlogs.nccl_collective import collective_from_text, infer_collective
from domain.benchlogs.result import COLLECTIVE, NCCL, BenchResult, NcclRow, NcclTiming, SizeRow
from domain.benchlogs.units import NCCL_GBYTES_TO_GBPS
from domain.messages import Message

# What launchers put before each line: indentation, a timestamp (kubectl logs --timestamps), a
# Ray / SkyPilot "(head, rank=0, pid=3808) ", Open MPI's "[1,0]<stdout>:", Intel MPI's "[0] " and
# srun's "0: " label. A result row never holds a colon or a bracket, so none of these eats one.
_PREFIX = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\dT[\d:.]+Z?\s+)?(?:\([^()]*\)\s*)?"
    r"(?:\[\d+,\d+\]<std\w+>:\s*)?(?:\[\d+\]\s+)?(?:\d+:\s+)?"
)
_NTHREAD = re.compile(r"^#\s*nThread:?\s+(?P<threads>\d+)\s+nGpus:?\s+(?P<gpus>\d+)")
_BYTES_RANGE = re.compile(r"\bminBytes:?\s+(?P<min>\d+)\s+maxBytes:?\s+(?P<max>\d+)")
_PID = re.compile(r"\bPid\s+(?P<pid>\d+)")
_ITERS = re.compile(r"(?<!warmup )(?<!agg )\biters:\s*(?P<iters>\d+)")
_NOT_VALIDATED = re.compile(r"\bvalidation:\s*0\b")
_RANK = re.compile(
    r"^#\s*Rank\s+(?P<rank>\d+)\b.*?\bon\s+(?P<host>\S+)\s+device\s+(?P<dev>\d+)"
    r"(?:\s+\[[^\]]*\])?\s*(?P<model>.*)$"
)
_COLUMNS = re.compile(r"^#\s*size\s+count\s+type\b")
_UNITS = re.compile(r"^#\s*\(B\)")
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(?P<n>\d+)\s+(?P<status>OK|FAILED)")
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(?P<avg>[-+.\deE]+)")
# nccl-tests 2.17+ names itself: "# Collective test starting: all_gather_perf[_mpi]".
_STARTING = re.compile(r"^#\s*Collective test starting:\s*(?P<name>\S+)")
_VERSION = re.compile(r"^#\s*[nr]ccl-tests version\b")
# How a run that died says so: nccl-tests' own "Test CUDA failure common.cu:502 …" and the
# launcher's or the C runtime's last words.
_FAILURE = re.compile(
    r"Test (?:CUDA |NCCL |HIP )?failure|Segmentation fault|Bus error|terminate called"
    r"|exited on signal|NCCL failure",
    re.IGNORECASE,
)
_TIMING_FIELDS = 4  # time, algbw, busbw, error|#wrong — once out-of-place, once in-place
# The lines that open a run, in the order nccl-tests prints them: a second one of the same
# rank (or an earlier one) after a run has begun starts the next run of a concatenated log.
_VERSION_MARK, _STARTING_MARK, _NTHREAD_MARK = 0, 1, 2


_SeriesKey = tuple[str, str | None, int | None]


@dataclass
class _Log:
    threads: int | None = None
    gpus: int | None = None
    iterations: int | None = None
    ranks: set[str] = field(default_factory=set)
    pids: set[str] = field(default_factory=set)
    min_bytes: int | None = None
    max_bytes: int | None = None
    rank_lines: int = 0
    hosts: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)
    columns: list[str] = field(default_factory=list)
    units_ok: bool | None = None
    rows: list[tuple[int, NcclRow]] = field(default_factory=list)
    # One series per (type, redop, root): `-d all` / `-o all` print several in one table.
    series: dict[_SeriesKey, list[tuple[int, NcclRow]]] = field(default_factory=dict)
    cycled: set[_SeriesKey] = field(default_factory=set)
    duplicates: int = 0
    avg_gbytes: float | None = None
    failed: bool = False
    flagged: int = 0
    skipped: int = 0
    text_hints: list[str] = field(default_factory=list)
    next_hints: list[str] = field(default_factory=list)
    named: str | None = None
    marks: set[int] = field(default_factory=set)
    not_validated: bool = False
    failure: str | None = None

    def opens_next_run(self, mark: int) -> bool:
        begun = bool(self.rows) or self.avg_gbytes is not None or self.failure is not None
        return begun or any(seen >= mark for seen in self.marks)


class _Reader:
    """Split a log into runs and feed each run's lines to its own ``_Log``."""

    def __init__(self) -> None:
        self.runs: list[_Log] = [_Log()]

    def feed(self, raw: str) -> None:
        line = _PREFIX.sub("", raw, count=1).strip()
        if not line:
            return
        log = self.runs[-1]
        if not line.startswith("#"):
            finished = log.avg_gbytes is not None
            if line[0].isdigit() and log.columns:
                _row(log, line)
            elif _FAILURE.search(line) and not finished:
                log.failure = log.failure or line  # after the footer it cannot undo the run
            elif "_perf" in line:
                # A command line after a run's rows introduces the next run.
                (log.next_hints if log.rows else log.text_hints).append(line)
            return
        mark = _run_mark(line)
        if mark is not None:
            if log.opens_next_run(mark):
                hints = log.next_hints if log.rows else log.text_hints
                log = _Log(text_hints=list(hints))
                self.runs.append(log)
            log.marks.add(mark)
        _header_line(log, line)


def _run_mark(line: str) -> int | None:
    if _VERSION.match(line):
        return _VERSION_MARK
    if _STARTING.match(line):
        return _STARTING_MARK
    if _NTHREAD.match(line):
        return _NTHREAD_MARK
    return None


def _header_line(log: _Log, line: str) -> None:
    if match := _NTHREAD.match(line):
        log.threads, log.gpus = int(match.group("threads")), int(match.group("gpus"))
        if found := _BYTES_RANGE.search(line):
            log.min_bytes, log.max_bytes = int(found.group("min")), int(found.group("max"))
        iters = _ITERS.search(line)
        log.iterations = int(iters.group("iters")) if iters else None
        log.not_validated = _NOT_VALIDATED.search(line) is not None
    elif match := _RANK.match(line):
        log.rank_lines += 1
        log.ranks.add(match.group("rank"))
        if pid := _PID.search(line):
            log.pids.add(pid.group("pid"))
        log.hosts.add(match.group("host"))
        if match.group("model").strip():
            log.models.add(match.group("model").strip())
    elif _COLUMNS.match(line):
        log.columns = line.lstrip("#").split()
    elif _UNITS.match(line):
        units = line.lstrip("#").split()
        log.units_ok = "(us)" in units and units.count("(GB/s)") == 4
        if not log.units_ok:
            odd = next((u for u in units if u not in ("(B)", "(elements)", "(us)", "(GB/s)")), "")
            raise BenchLogError(
                catalogue.unknown_units(odd or " ".join(units), catalogue.NCCL_TABLE)
            )
    elif match := _STARTING.match(line):
        log.named = log.named or collective_from_text(match.group("name"))
    elif match := _OOB.match(line):
        log.failed = match.group("status") == "FAILED"
    elif match := _AVG.match(line):
        log.avg_gbytes = float(match.group("avg"))


def _row(log: _Log, line: str) -> None:
    tokens = line.split()
    if not tokens[0].isdigit():
        return  # e.g. "10-0-0-1:77:77 [0] NCCL INFO …" from a host named by its address
    if len(tokens) != len(log.columns) or len(tokens) < 3 + 2 * _TIMING_FIELDS:
        log.skipped += 1
        return
    lead = dict(zip(log.columns[: -2 * _TIMING_FIELDS], tokens, strict=False))
    try:
        if len(lead["size"]) > 18 or len(lead["count"]) > 18:
            raise ValueError("count out of range")  # damage, not a buffer size
        size, count = int(lead["size"]), int(lead["count"])
        out_of_place, out_flag = _timing(tokens[-8:-4])
        in_place, in_flag = _timing(tokens[-4:])
        root = int(lead["root"]) if "root" in lead else None
    except (KeyError, ValueError):
        log.skipped += 1
        return
    row = NcclRow(count, lead.get("type", "?"), lead.get("redop"), root, out_of_place, in_place)
    key = (row.dtype, row.redop, row.root)
    series = log.series.setdefault(key, [])
    # Sizes never shrink within one sweep (tiny all_gather sizes round to 0 several times);
    # a smaller one starts another pass (`-N` cycles), and the first pass is kept.
    # A smaller size that is not the sweep's first is a row out of order, not a new pass: it is
    # kept where it stands, for the integrity check to find (rows ascend from minBytes).
    restarts = bool(series) and size < series[-1][0] and size <= series[0][0]
    if key in log.cycled or restarts:
        log.cycled.add(key)
        log.duplicates += 1
        return
    series.append((size, row))
    log.flagged += out_flag + in_flag
    log.rows.append((size, row))


def _timing(tokens: list[str]) -> tuple[NcclTiming, int]:
    """One half of a row, and 1 when its error value carries rccl-tests' over-threshold '*'."""
    flagged = tokens[3].endswith("*")
    error = tokens[3].rstrip("*")
    time_us, algbw, busbw = (float(token) for token in tokens[:3])
    wrong = None if error == "N/A" else float(error)
    if not all(math.isfinite(value) for value in (time_us, algbw, busbw, wrong or 0.0)):
        raise ValueError("value out of range")
    timing = NcclTiming(time_us, algbw * NCCL_GBYTES_TO_GBPS, busbw * NCCL_GBYTES_TO_GBPS, wrong)
    return timing, int(flagged)


def parse_nccl_lines(lines: Iterable[str], filename: str = "") -> BenchResult:
    """The first run of the log; a log of several runs says so in a warning."""
    results = parse_nccl_all(lines, filename)
    first = results[0]
    if len(results) > 1:
        return replace(first, warnings=(*first.warnings, catalogue.multiple_tests(len(results))))
    return first


def parse_nccl_all(lines: Iterable[str], filename: str = "") -> tuple[BenchResult, ...]:
    """Every run of the log that printed result rows, in file order (never rows of two runs)."""
    reader = _Reader()
    for line in lines:
        reader.feed(line)
    runs = [log for log in reader.runs if log.rows]
    if not runs:
        failure = next((log.failure for log in reader.runs if log.failure), None)
        if failure:
            raise BenchLogError(catalogue.nccl_failed(failure))
        split = next((log for log in reader.runs if _ranks_not_joined(log)), None)
        if split is not None:
            raise BenchLogError(_ranks_not_joined(split) or catalogue.no_results("nccl-tests"))
        raise BenchLogError(catalogue.no_results("nccl-tests"))
    return tuple(_build(log, filename) for log in runs)


def _build(log: _Log, filename: str) -> BenchResult:
    if log.units_ok is None:
        raise BenchLogError(catalogue.missing_units(catalogue.NCCL_TABLE))
    ranks = len(log.ranks) or ((log.threads or 1) * (log.gpus or 1) if log.gpus else None)
    warnings: list[Message] = []
    # The tool's own header line first, then a command line, then the file name.
    collective = (
        log.named
        or collective_from_text(" ".join(log.text_hints))
        or collective_from_text(os.path.basename(filename))
    )
    if collective is None:
        collective = infer_collective(log.columns, [row for _, row in log.rows], log.rows, ranks)
        warnings.append(catalogue.nccl_collective_inferred(collective))
    chosen = _headline_series(log, warnings)
    sizes = tuple(_size_row(size, row, log.iterations) for size, row in chosen)
    average, truncated = _average(log, sizes, warnings)
    return BenchResult(
        tool=f"{collective}_perf",
        test=NCCL,
        # The headline is the out-of-place busbw at the largest size (what nccl-tests users
        # quote; the in-place figure stays beside it in the size table).
        throughput_gbps=_out_of_place(_largest(sizes)),
        avg_busbw_gbps=average,
        measured_kind=COLLECTIVE,
        sizes=sizes,
        collective=collective,
        ranks=ranks,
        hosts=len(log.hosts) or None,
        header=_header(log),
        warnings=tuple(warnings),
        error=_ranks_not_joined(log) or _validation_error(log),
        truncated=truncated,
    )


def _out_of_place(row: SizeRow) -> float | None:
    return row.nccl.out_of_place.busbw_gbps if row.nccl is not None else row.bw_avg_gbps


def _headline_series(log: _Log, warnings: list[Message]) -> list[tuple[int, NcclRow]]:
    """The rows the figures come from: the only series, or with several (``-d all``) the
    default data type's (float), else the first printed."""
    keys = list(log.series)
    if len(keys) == 1:
        return log.series[keys[0]]
    key = next((k for k in keys if k[0].lower() in ("float", "float32")), keys[0])
    label = "/".join(str(part) for part in key if part is not None)
    warnings.append(catalogue.nccl_several_series(len(keys), label))
    return log.series[key]


def _size_row(size: int, row: NcclRow, iterations: int | None) -> SizeRow:
    busbw = (row.out_of_place.busbw_gbps, row.in_place.busbw_gbps)
    return SizeRow(
        bytes=size,
        iterations=iterations,
        bw_avg_gbps=sum(busbw) / 2,
        bw_peak_gbps=max(busbw),
        nccl=row,
    )


def _average(log: _Log, sizes: tuple[SizeRow, ...], warnings: list[Message]) -> tuple[float, bool]:
    truncated = log.avg_gbytes is None or log.failure is not None
    if log.avg_gbytes is not None:
        average = log.avg_gbytes * NCCL_GBYTES_TO_GBPS
    else:
        # nccl-tests averages busbw over every row of the table (every series), out-of-place
        # and in-place alike.
        halves = [
            (row.out_of_place.busbw_gbps + row.in_place.busbw_gbps) / 2 for _, row in log.rows
        ]
        average = sum(halves) / len(halves)
        warnings.extend((catalogue.nccl_average_recomputed(), catalogue.truncated_log()))
    largest = _largest(sizes).bw_avg_gbps or 0.0
    if average < 0.8 * largest:
        warnings.append(catalogue.nccl_average_small_sizes(average, largest))
    if log.skipped:
        warnings.append(catalogue.skipped_lines(log.skipped))
    if log.duplicates:
        warnings.append(catalogue.duplicate_sizes(log.duplicates))
    if log.not_validated:
        warnings.append(catalogue.nccl_not_validated())
    if log.failure:
        warnings.append(catalogue.nccl_run_stopped(log.failure))
    return average, truncated


def _largest(sizes: tuple[SizeRow, ...]) -> SizeRow:
    """The largest message size: the bandwidth-bound end of the curve, the headline figure.

    nccl-tests' own "Avg bus bandwidth" averages every size, so the small, latency-bound ones
    pull it far below what a large gradient all-reduce gets; it is kept as ``avg_busbw_gbps``.
    This is the same rule as perftest's (BW average at the largest size).
    """
    return max(sizes, key=lambda row: row.bytes)


def _ranks_not_joined(log: _Log) -> Message | None:
    """Processes that each printed "Rank 0": separate one-rank jobs, not one communicator."""
    if log.rank_lines > len(log.ranks):
        return catalogue.nccl_ranks_not_joined(log.rank_lines, len(log.ranks))
    return None


def _validation_error(log: _Log) -> Message | None:
    # Only the newer `#wrong` column counts bad values; the old `error` column is a float
    # deviation, so for old builds the footer's FAILED is the verdict.
    counted = "#wrong" in log.columns
    wrong = sum(
        timing.wrong or 0.0
        for _, row in log.rows
        for timing in (row.out_of_place, row.in_place)
        if counted
    )
    if wrong > 0 or log.failed or log.flagged:
        return catalogue.nccl_validation_failed(wrong)
    return None


def _header(log: _Log) -> tuple[tuple[str, str], ...]:
    pairs = []
    if log.threads is not None:
        pairs.append(("nThread", str(log.threads)))
    if log.gpus is not None:
        pairs.append(("nGpus", str(log.gpus)))
    if log.min_bytes is not None and log.max_bytes is not None:
        pairs += [("minBytes", str(log.min_bytes)), ("maxBytes", str(log.max_bytes))]
    if log.pids:
        pairs.append(("processes", str(len(log.pids))))
    if log.ranks:
        pairs.append(("rank_max", str(max(int(r) for r in log.ranks))))
    if log.hosts:
        pairs.append(("hosts", ",".join(sorted(log.hosts))))
    if log.models:
        pairs.append(("devices", ",".join(sorted(log.models))))
    return tuple(pairs)
