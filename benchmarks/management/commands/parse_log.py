"""`manage.py parse_log FILE [FILE ...]`: parse logs and print one JSON object per file.

Besides the headline figures, each object carries what the tool printed in detail: for a
bidirectional test ``directions`` (each direction's receiver and sender figures),
``bidir_total_gbps`` and ``direction_used``; for a UDP client ``interval_sent_gbps``; for
perftest latency sweeps ``latency_sizes`` (min, typical, avg, max, stdev, P99, P99.9 per size);
for nccl-tests ``sizes`` and ``avg_busbw_gbps``; ``omitted_intervals`` and ``warmup``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from benchmarks import parsing
from benchmarks.services import UNEXPECTED
from domain.benchlogs.errors import BenchLogError


class Command(BaseCommand):
    help = "Parse iperf3 / perftest / nccl-tests logs and print a JSON array, one object per file."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("files", nargs="+", help="log files to parse")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        paths = [Path(p) for p in options["files"]]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            # A path that is not a readable file is a bad argument, not a bad log: exit status 2.
            self.stderr.write(f"parse_log: no such file: {', '.join(missing)}")
            sys.exit(2)
        out = [self._one(path) for path in paths]
        self.stdout.write(json.dumps(out, ensure_ascii=False, indent=2))

    def _one(self, path: Path) -> dict:  # type: ignore[type-arg]
        try:
            with path.open("rb") as fh:
                result = parsing.parse_upload(fh, path.name)
            data = parsing.result_json(result, str(path))
        except BenchLogError as exc:
            return parsing.error_json(str(path), exc.message)
        except Exception:  # noqa: BLE001 - one broken parser must not hide the other files
            return parsing.error_json(str(path), UNEXPECTED)
        data["file"] = str(path)
        # The series are for the charts; the command prints the documented fields only.
        data.pop("series", None)
        data.pop("interval_end_s", None)
        return data


__all__ = ["Command", "CommandError"]
