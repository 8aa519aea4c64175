"""predict_runs FILE.json: the training-time model v2 on a list of run cases (TRAINING-MODEL.md).

Reads a JSON list of run cases and prints a JSON array, one object per case in input order, with
`id, step_time_s, tokens_per_s, mfu, hfu, memory_gb_per_gpu, fits, reason, layout, breakdown_s`
and, when the case gives `failures`, `checkpoint_interval_s`, `ettr` and `goodput`. Missing
`parallel` values are searched. The model is `domain.trainmodel.predict_case`, the code path the
ranking uses.

Exit codes: 0 every case was predicted (a case that does not fit is a prediction: `fits: false`
with its reason); 1 some case had bad input (its object carries `error`, bilingual messages, and
the others are still printed); 2 the file cannot be read or is not a JSON list (message on stderr,
nothing on stdout).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from domain.trainmodel import predict_case


class Command(BaseCommand):
    help = "Predict step time, MFU, memory and layout for a JSON list of training run cases."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("file", help="JSON file with a list of run cases")

    def _fail(self, message: str) -> None:
        self.stderr.write(f"predict_runs: {message}")
        sys.exit(2)

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        path = Path(options["file"])
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            return self._fail(f"cannot read {path}: {exc.strerror}")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return self._fail(f"{path} is not valid JSON: {exc}")
        if not isinstance(data, list):
            return self._fail("the file must hold a JSON list of run cases [{...}, ...]")
        results = [predict_case(case) for case in data]
        self.stdout.write(json.dumps(results, indent=2, ensure_ascii=False))
        bad = [r for r in results if "error" in r]
        for r in bad:
            self.stderr.write(f"case {r.get('id')!r}: {r['reason']}")
        if bad:
            sys.exit(1)
        return None
