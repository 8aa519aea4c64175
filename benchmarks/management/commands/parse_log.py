"""`manage.py parse_log FILE [FILE ...]`: parse logs and print one JSON object per file.

Besides the headline figures, each object carries what the tool printed in detail: for a
bidirectional test ``directions`` (each direction's receiver and sender figures),
``bidir_total_gbps`` and ``direction_used``; for a UDP client ``interval_sent_gbps``; for
perftest latency sweeps ``latency_sizes`` (min, typical, avg, max, stdev, P99, P99.9 per size);
for nccl-tests ``sizes`` and ``avg_busbw_gbps``; ``omitted_intervals`` and ``warmup``.

A plain call never reaches this class: ``manage.py`` runs ``benchmarks.cli`` without starting
Django (see there). This command is the same code for calls with options and ``call_command``.
"""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from benchmarks import cli


class Command(BaseCommand):
    help = "Parse iperf3 / perftest / nccl-tests logs and print a JSON array, one object per file."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("files", nargs="+", help="log files to parse")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        status = cli.main(options["files"], stdout=self.stdout, stderr=self.stderr)
        if status:
            sys.exit(status)


__all__ = ["Command", "CommandError"]
