"""rank_offers FILE.json: rank offers for a workload with the portal's cost model.

The file holds {"workload": {...}, "offers": [{...}], "fx_to_cny": {...}?} with the input names of
COST-MODEL.md; GPU specs come from the GPU table in the database. Prints a JSON array sorted by
rank with the output names of COST-MODEL.md. Bad file: a clear message and exit code 2.
"""

from __future__ import annotations

import json

from domain import costmodel as cm
from rankings.inputs import InputFileError
from rankings.management.jsonfile import JsonFileCommand
from rankings.services import gpu_table, outcome_dict, rank_snapshot


class Command(JsonFileCommand):
    help = "Rank offers from a JSON file by cost per effective training hour."

    file_help = "JSON file with workload and offers"

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        data = self.read_json(options["file"])
        if (
            not isinstance(data, dict)
            or "workload" not in data
            or not isinstance(data.get("offers"), list)
        ):
            return self._fail('the file must hold {"workload": {...}, "offers": [{...}, ...]}')
        ids = [o.get("id") for o in data["offers"] if isinstance(o, dict)]
        if len(ids) != len(data["offers"]) or None in ids or len(set(map(str, ids))) != len(ids):
            return self._fail("every offer needs an object with a unique id")
        snapshot = {
            "workload": data["workload"],
            "offers": data["offers"],
            "gpus": gpu_table(),
            "fx_to_cny": data.get("fx_to_cny") or {},
        }
        try:
            outcome = rank_snapshot(snapshot)
        except InputFileError as exc:
            return self._fail("; ".join(exc.problems))
        except cm.ModelInputError as exc:
            return self._fail("; ".join(m.en for m in exc.messages))
        except TypeError as exc:
            return self._fail(f"bad input: {exc}")
        result = outcome_dict(outcome)
        for problem in result["problems"]:
            text = "; ".join(m["en"] for m in problem["messages"])
            self.stderr.write(f"offer {problem['id']} not ranked: {text}")
        self.stdout.write(json.dumps(result["results"], indent=2, ensure_ascii=False))
        return None
