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

from domain.trainmodel import predict_case
from rankings.management.jsonfile import JsonFileCommand


class Command(JsonFileCommand):
    help = "Predict step time, MFU, memory and layout for a JSON list of training run cases."

    file_help = "JSON file with a list of run cases"

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        data = self.read_json(options["file"])
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
