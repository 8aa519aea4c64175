"""Benchmark the streaming iperf3 JSON parser on a 24-hour ``iperf3 -J -P 8`` log.

Builds the log (86,400 one-second intervals x 8 streams) in a temporary directory from the
structure of the corpus ``-P`` file, in iperf3's own layout (cJSON: tabs, a tab after each
colon) and in the other shapes users send the same document in:

- ``iperf3``: as iperf3 writes it;
- ``json.dump``: re-saved by Python's ``json.dump`` (one line, ``", "`` and ``": "``);
- ``indent``: re-saved by ``json.dump(indent=4)`` (four spaces, one member a line);
- ``minified``: one line, no whitespace at all (``separators=(",", ":")``);
- ``one-tab-less``: iperf3's layout with the interval objects indented one tab less;
- ``crlf``: iperf3's layout with CRLF line ends (saved on Windows or by a mail client).

For each layout it measures, in the same run and each in a fresh subprocess:

- time: ``domain.benchlogs.parse_path`` against plain ``json.load`` of the same file, as CPU
  time (user + system, ``ru_utime + ru_stime``) of the work, best of several alternating
  runs; CPU time is what the parser costs and is far less disturbed by other load on a shared
  machine than wall-clock time, which is printed too;
- memory: peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) of the subprocess minus the
  peak RSS of a baseline subprocess that imported the same modules and did nothing else,
  divided by the file size.

Then, as whole processes on the same file (median of three alternating runs, wall-clock and
CPU time of the child): ``manage.py parse_log FILE`` (start-up, parsing and printing 86,400
interval values to a file) against a bare ``python -c "import json; json.load(open(F))"``.

Goals, for every layout and against ``json.load`` of that same file: parse time / json.load
time <= 1.0, parse memory / file size <= 1.5 and the whole ``parse_log`` process <= 1.3x the bare
``json.load`` process. Every layout must also give the same figures as iperf3's own layout.
Run from the repository root:
``python3 scripts/bench_parse.py [--intervals N] [--runs N] [--layouts iperf3,minified,...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "tests/domain/data/corpus/iperf3-json/local_3.12_tcp_P4.json"
STREAMS = 8
TIME_GOAL = 1.0
MEMORY_GOAL = 1.5
COMMAND_GOAL = 1.3

# Each measurement runs in its own interpreter so one cannot inherit the other's heap.
_PROBE = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
import ijson
import domain.benchlogs as benchlogs
mode, path = sys.argv[1], sys.argv[2]
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu_before = usage.ru_utime + usage.ru_stime
started = time.perf_counter()
if mode == "parse":
    result = benchlogs.parse_path(path)
    check = [result.intervals, len(result.series), result.throughput_gbps]
elif mode == "json":
    with open(path, "rb") as stream:
        document = json.load(stream)
    check = [len(document["intervals"]), len(document["intervals"][0]["streams"]), None]
else:
    check = []
elapsed = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime - cpu_before
report = {{"seconds": elapsed, "cpu": cpu, "peak_bytes": usage.ru_maxrss * 1024, "check": check}}
print(json.dumps(report))
"""


def _cjson(value: Any, depth: int) -> str:
    """cJSON's formatted style: tab indentation and a tab after each colon."""
    if isinstance(value, dict):
        inner = "\t" * (depth + 1)
        members = [f'{inner}"{key}":\t{_cjson(item, depth + 1)}' for key, item in value.items()]
        return "{\n" + ",\n".join(members) + "\n" + "\t" * depth + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_cjson(item, depth + 1) for item in value) + "]"
    return json.dumps(value)


def _interval_template(corpus: dict[str, Any], depth: int = 2) -> str:
    """One interval in cJSON layout with %-placeholders for the figures that vary."""
    stream = dict(corpus["intervals"][0]["streams"][0])
    total = dict(corpus["intervals"][0]["sum"])
    fields = ("start", "end", "seconds", "bytes", "bits_per_second", "retransmits")
    streams = []
    for index in range(STREAMS):
        entry = dict(stream, socket=5 + index)
        entry.update({name: f"@S{index}_{name}@" for name in fields})
        streams.append(entry)
    total.update({name: f"@T_{name}@" for name in fields})
    text = _cjson({"streams": streams, "sum": total}, depth)
    text = text.replace("%", "%%")
    for marker in [f"@S{i}_{n}@" for i in range(STREAMS) for n in fields]:
        text = text.replace(f'"{marker}"', f"%({marker[1:-1]})s")
    for name in fields:
        text = text.replace(f'"@T_{name}@"', f"%(T_{name})s")
    return text


def _values(second: int, rng: random.Random) -> dict[str, object]:
    start, end = float(second), second + 1.000021
    values: dict[str, object] = {}
    total_bytes = total_retr = 0
    for index in range(STREAMS):
        sent = rng.randrange(1_300_000_000, 1_480_000_000)
        retr = rng.randrange(0, 4)
        total_bytes += sent
        total_retr += retr
        values.update(
            {
                f"S{index}_start": start,
                f"S{index}_end": end,
                f"S{index}_seconds": 1.000021,
                f"S{index}_bytes": sent,
                f"S{index}_bits_per_second": sent * 8 / 1.000021,
                f"S{index}_retransmits": retr,
            }
        )
    values.update(
        T_start=start,
        T_end=end,
        T_seconds=1.000021,
        T_bytes=total_bytes,
        T_bits_per_second=total_bytes * 8 / 1.000021,
        T_retransmits=total_retr,
    )
    return values


def _start(corpus: dict[str, Any], intervals: int) -> dict[str, Any]:
    start: dict[str, Any] = json.loads(json.dumps(corpus["start"]))
    start["connected"] = [
        dict(corpus["start"]["connected"][0], socket=5 + i, local_port=50000 + i)
        for i in range(STREAMS)
    ]
    start["test_start"].update(num_streams=STREAMS, duration=intervals)
    return start


def _end(corpus: dict[str, Any], seconds: float, total_bytes: int) -> dict[str, Any]:
    end: dict[str, Any] = json.loads(json.dumps(corpus["end"]))
    end["streams"] = [corpus["end"]["streams"][0] for _ in range(STREAMS)]
    for block in ("sum_sent", "sum_received"):
        end[block].update(
            end=seconds,
            seconds=seconds,
            bytes=total_bytes,
            bits_per_second=total_bytes * 8 / seconds,
        )
    return end


LAYOUTS = ("iperf3", "json.dump", "indent", "minified", "one-tab-less", "crlf")


def build_log(path: Path, intervals: int, depth: int = 2) -> None:
    """The log in iperf3's layout; ``depth`` 1 indents the interval objects one tab less."""
    corpus = json.loads(TEMPLATE.read_text())
    template = _interval_template(corpus, depth)
    rng = random.Random(24)
    total_bytes = 0
    with path.open("w") as out:
        out.write('{\n\t"start":\t' + _cjson(_start(corpus, intervals), 1))
        out.write(',\n\t"intervals":\t[')
        for second in range(intervals):
            values = _values(second, rng)
            total_bytes += int(str(values["T_bytes"]))
            out.write((", " if second else "") + template % values)
        end = _end(corpus, intervals * 1.000021, total_bytes)
        out.write('],\n\t"end":\t' + _cjson(end, 1) + "\n}\n")


def build_layout(original: Path, layout: str, intervals: int) -> Path:
    """The same document as ``original`` (iperf3's layout) in another layout, beside it.

    Written by a child process: re-saving holds the whole document (about 1 GiB), and a
    benchmark process that once held it would pass that peak on to every probe it starts
    (``ru_maxrss`` survives fork and exec), hiding the probes' own peaks."""
    path = original.with_name(f"iperf3_24h_P8.{layout}.json")
    if layout == "iperf3":
        return original
    args = ["--write-layout", layout, str(original), str(path), "--intervals", str(intervals)]
    subprocess.run([sys.executable, __file__, *args], check=True)
    return path


def _write_layout(original: Path, layout: str, intervals: int, path: Path) -> None:
    if layout == "one-tab-less":
        build_log(path, intervals, depth=1)
    elif layout == "crlf":
        with original.open("rb") as source, path.open("wb") as out:
            for line in source:
                out.write(line.replace(b"\n", b"\r\n"))
    else:
        with original.open("rb") as source:
            document = json.load(source)
        options: dict[str, Any] = {
            "json.dump": {},
            "indent": {"indent": 4},
            "minified": {"separators": (",", ":")},
        }[layout]
        with path.open("w") as out:
            json.dump(document, out, **options)


def _probe(mode: str, path: Path) -> dict[str, Any]:
    code = _PROBE.format(root=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code, mode, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def measure(path: Path, runs: int) -> dict[str, Any]:
    baseline = min(_probe("baseline", path)["peak_bytes"] for _ in range(2))
    parse_runs, json_runs = [], []
    for _ in range(runs):
        parse_runs.append(_probe("parse", path))
        json_runs.append(_probe("json", path))
    size = path.stat().st_size
    parse_time = min(run["cpu"] for run in parse_runs)
    json_time = min(run["cpu"] for run in json_runs)
    parse_wall = min(run["seconds"] for run in parse_runs)
    json_wall = min(run["seconds"] for run in json_runs)
    parse_peak = min(run["peak_bytes"] for run in parse_runs) - baseline
    json_peak = min(run["peak_bytes"] for run in json_runs) - baseline
    return {
        "check": parse_runs[0]["check"],
        "file_bytes": size,
        "baseline_rss_bytes": baseline,
        "parse_seconds": parse_time,
        "json_load_seconds": json_time,
        "parse_wall_seconds": parse_wall,
        "json_load_wall_seconds": json_wall,
        "wall_ratio": parse_wall / json_wall,
        "parse_peak_bytes": parse_peak,
        "json_load_peak_bytes": json_peak,
        "time_ratio": parse_time / json_time,
        "memory_ratio": parse_peak / size,
        "json_load_memory_ratio": json_peak / size,
    }


def _process(args: list[str], out: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child process, its stdout sent to ``out``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with out.open("wb") as sink:
        subprocess.run(args, stdout=sink, check=True, cwd=ROOT, env={**os.environ})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure_command(path: Path, runs: int = 3) -> dict[str, float]:
    """``manage.py parse_log`` as a whole process against a bare ``json.load`` process."""
    command = [sys.executable, str(ROOT / "manage.py"), "parse_log", str(path)]
    bare = [sys.executable, "-c", f"import json; json.load(open({str(path)!r}))"]
    printed = path.with_suffix(".out.json")
    commands, loads = [], []
    for _ in range(runs):
        commands.append(_process(command, printed))
        loads.append(_process(bare, path.with_suffix(".none")))
    objects = json.loads(printed.read_text())
    check = len(objects[0]["interval_gbps"])
    wall = statistics.median(w for w, _ in commands), statistics.median(w for w, _ in loads)
    cpu = statistics.median(c for _, c in commands), statistics.median(c for _, c in loads)
    return {
        "printed_intervals": check,
        "command_wall": wall[0],
        "json_process_wall": wall[1],
        "command_cpu": cpu[0],
        "json_process_cpu": cpu[1],
        "command_wall_ratio": wall[0] / wall[1],
        "command_cpu_ratio": cpu[0] / cpu[1],
    }


def _report(layout: str, figures: dict[str, float], command: dict[str, float]) -> bool:
    mib = 1024 * 1024
    print(f"--- layout {layout}")
    print(f"file size            {figures['file_bytes'] / mib:10.1f} MiB")
    print(f"baseline RSS         {figures['baseline_rss_bytes'] / mib:10.1f} MiB")
    print(f"parse_path CPU       {figures['parse_seconds']:10.2f} s")
    print(f"json.load CPU        {figures['json_load_seconds']:10.2f} s")
    print(f"parse_path wall      {figures['parse_wall_seconds']:10.2f} s")
    print(f"json.load wall       {figures['json_load_wall_seconds']:10.2f} s")
    print(f"parse peak RSS       {figures['parse_peak_bytes'] / mib:10.1f} MiB above baseline")
    print(f"json.load peak RSS   {figures['json_load_peak_bytes'] / mib:10.1f} MiB above baseline")
    print(f"time ratio (CPU)     {figures['time_ratio']:10.2f}   (goal <= {TIME_GOAL})")
    print(f"time ratio (wall)    {figures['wall_ratio']:10.2f}")
    print(f"memory ratio         {figures['memory_ratio']:10.2f}   (goal <= {MEMORY_GOAL})")
    print(f"json.load mem ratio  {figures['json_load_memory_ratio']:10.2f}   (for comparison)")
    print(f"parse_log printed     {command['printed_intervals']:10,} interval values")
    print(f"parse_log wall       {command['command_wall']:10.2f} s   (median)")
    print(f"json.load proc wall  {command['json_process_wall']:10.2f} s   (median)")
    print(f"parse_log CPU        {command['command_cpu']:10.2f} s   (median)")
    print(f"json.load proc CPU   {command['json_process_cpu']:10.2f} s   (median)")
    print(f"command ratio (wall) {command['command_wall_ratio']:10.2f}   (goal <= {COMMAND_GOAL})")
    print(f"command ratio (CPU)  {command['command_cpu_ratio']:10.2f}")
    return (
        figures["time_ratio"] <= TIME_GOAL
        and figures["memory_ratio"] <= MEMORY_GOAL
        and command["command_wall_ratio"] <= COMMAND_GOAL
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--intervals", type=int, default=86_400)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--command-runs", type=int, default=3)
    parser.add_argument("--layouts", default=",".join(LAYOUTS))
    parser.add_argument("--write-layout", nargs=3, metavar=("LAYOUT", "FROM", "TO"))
    options = parser.parse_args()
    if options.write_layout:
        layout, source, target = options.write_layout
        _write_layout(Path(source), layout, options.intervals, Path(target))
        return 0
    layouts = [name for name in options.layouts.split(",") if name]
    unknown = sorted(set(layouts) - set(LAYOUTS))
    if unknown:
        parser.error(f"unknown layouts {unknown}; known: {', '.join(LAYOUTS)}")
    rows: list[tuple[str, dict[str, float], dict[str, float], bool]] = []
    checks: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder:
        original = Path(folder) / "iperf3_24h_P8.json"
        build_log(original, options.intervals)
        for layout in layouts:
            path = build_layout(original, layout, options.intervals)
            figures = measure(path, options.runs)
            checks[layout] = figures.pop("check")
            command = measure_command(path, options.command_runs)
            rows.append((layout, figures, command, _report(layout, figures, command)))
            if path != original:
                path.unlink()
    print()
    print(
        f"{'layout':14}{'MiB':>8}{'CPU ratio':>11}{'process ratio':>15}{'memory ratio':>14}  goals"
    )
    for layout, figures, command, met in rows:
        print(
            f"{layout:14}{figures['file_bytes'] / 1048576:8.1f}{figures['time_ratio']:11.2f}"
            f"{command['command_wall_ratio']:15.2f}{figures['memory_ratio']:14.2f}"
            f"  {'met' if met else 'NOT met'}"
        )
    same = len({json.dumps(check) for check in checks.values()}) == 1
    print("every layout gives the same figures" if same else f"figures DIFFER: {checks}")
    met = same and all(row[3] for row in rows)
    print("goals met" if met else "goals NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
