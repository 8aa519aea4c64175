"""``manage.py parse_log FILE [FILE ...]`` without starting Django.

Parsing a log needs nothing of Django: ``benchmarks.parsing`` talks only to the domain. So
``manage.py`` hands a plain ``parse_log FILE ...`` call straight to ``main`` here, skipping the
settings and the app registry (most of a short run's time). Any option (``--help``,
``--settings``, ...) takes the ordinary management-command path, which calls the same functions,
so both print the same bytes.

Output: a JSON array, one object per file, written in one buffered write. The long interval
arrays are printed on one line each; everything else is indented.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from benchmarks import parsing
from domain.benchlogs.errors import BenchLogError

# Long per-interval arrays: printed compactly (one line) inside the indented object.
_ARRAYS = ("interval_gbps", "interval_sent_gbps", "interval_start_s")


def missing(files: Sequence[str]) -> list[str]:
    return [name for name in files if not Path(name).is_file()]


def parse_one(name: str) -> dict[str, Any]:
    """The documented object for one file; a broken file gets its error, never an exception."""
    path = Path(name)
    try:
        with path.open("rb") as fh:
            result = parsing.parse_upload(fh, path.name)
        data = parsing.result_json(result, name, charts=False)
    except BenchLogError as exc:
        return parsing.error_json(name, exc.message)
    except Exception:  # noqa: BLE001 - one broken parser must not hide the other files
        return parsing.error_json(name, parsing.UNEXPECTED)
    data["file"] = name
    return data


def render(objects: list[dict[str, Any]]) -> str:
    """Indented JSON with each long interval array on a single line (fast, and readable)."""
    arrays: list[str] = []
    for data in objects:
        for key in _ARRAYS:
            values = data.get(key)
            if isinstance(values, list) and values:
                data[key] = f"\x00{len(arrays)}\x00"
                arrays.append(json.dumps(values))
    text = json.dumps(objects, ensure_ascii=False, indent=2)
    for index, compact in enumerate(arrays):
        text = text.replace(f'"\\u0000{index}\\u0000"', compact, 1)
    return text + "\n"


def main(files: Sequence[str], stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    absent = missing(files)
    if absent:
        # A path that is not a readable file is a bad argument, not a bad log: exit status 2.
        stderr.write(f"parse_log: no such file: {', '.join(absent)}\n")
        return 2
    stdout.write(render([parse_one(name) for name in files]))
    stdout.flush()
    return 0


def fast_path(argv: Sequence[str]) -> int | None:
    """``manage.py`` argv -> exit status when it is a plain ``parse_log FILE ...``, else None."""
    if len(argv) < 3 or argv[1] != "parse_log" or any(a.startswith("-") for a in argv[2:]):
        return None
    return main(argv[2:])
