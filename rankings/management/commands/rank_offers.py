"""rank_offers FILE.json [--workload NAME]: rank offers for a workload by cost per effective
training hour with the training-time model v2 (docs/MODEL.md §15), through `rank_snapshot`.

The file holds {"workload": ..., "offers": [{...}], "fx_to_cny": {...}?} with the input names of
COST-MODEL.md. The workload is either an object of COST-MODEL.md inputs, or a preset name of the
training-time model ("llama3-70b", see domain/trainmodel/data/presets.json), or an object with
"name" (the preset) and COST-MODEL.md inputs that override it ("nodes", "strategy"...); a
workload object may also give "model" (and "parallel") in predict_runs' names;
`--workload NAME` replaces the file's workload by that preset. A preset brings its real
architecture, batch and tokens to train. GPU specs come from the GPU table in the database.
Prints a JSON array sorted by rank with the output names of COST-MODEL.md plus `model_detail`.
A bad file (not JSON, no workload, offers without unique ids) or a bad workload: a clear
message and exit code 2. A bad offer (an input missing or unknown, a value out of range) is
"not ranked" with its reason in both languages on stderr; the other offers are ranked (exit 0).
"""

from __future__ import annotations

import json

from domain import ranking
from domain.trainmodel import TrainModelError, preset
from rankings.inputs import InputFileError, offer_from_dict
from rankings.management.jsonfile import JsonFileCommand
from rankings.services import gpu_table, outcome_dict, rank_snapshot


class Command(JsonFileCommand):
    help = "Rank offers from a JSON file by cost per effective training hour."

    file_help = "JSON file with workload and offers"

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        super().add_arguments(parser)
        parser.add_argument(
            "--workload", help="a workload preset name (e.g. llama3-70b) replacing the file's"
        )

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        data = self.read_json(options["file"])
        if isinstance(data, dict) and options.get("workload"):
            data = {**data, "workload": options["workload"]}
        if (
            not isinstance(data, dict)
            or "workload" not in data
            or not isinstance(data.get("offers"), list)
        ):
            return self._fail('the file must hold {"workload": {...}, "offers": [{...}, ...]}')
        architecture = None
        if isinstance(data["workload"], dict) and ("model" in data["workload"]):
            given = dict(data["workload"])
            architecture = {"model": given.pop("model"), "parallel": given.pop("parallel", None)}
            if isinstance(architecture["model"], dict):
                given.setdefault("params_b", architecture["model"].get("params_b"))
            if isinstance(architecture["parallel"], dict):
                batch = architecture["parallel"].get("global_batch_tokens")
                if batch is not None:
                    given.setdefault("tokens_per_step", batch)
            given.setdefault("tokens_per_step", 4_194_304)
            data = {**data, "workload": given}
        workload, preset_key = self._workload(data["workload"])
        ids = [o.get("id") for o in data["offers"] if isinstance(o, dict)]
        if len(ids) != len(data["offers"]) or None in ids or len(set(map(str, ids))) != len(ids):
            return self._fail("every offer needs an object with a unique id")
        # one bad offer never aborts the batch: it is "not ranked" with its reason, as an offer
        # the model refuses is (the file's own shape above is still all or nothing)
        offers, refused = [], []
        for index, offer in enumerate(data["offers"]):
            try:
                offer_from_dict(offer, index)
            except (InputFileError, TypeError, ValueError) as exc:
                reasons = exc.problems if isinstance(exc, InputFileError) else [f"bad input: {exc}"]
                refused.append((offer.get("id"), reasons))
                continue
            offers.append(offer)
        snapshot = {
            "workload": workload,
            "workload_preset": preset_key,
            "workload_architecture": architecture,
            "offers": offers,
            "gpus": gpu_table(),
            "fx_to_cny": data.get("fx_to_cny") or {},
        }
        for offer_id, reasons in refused:
            self.stderr.write(f"offer {offer_id} not ranked: {'; '.join(reasons)}")
        if not offers:
            self.stdout.write("[]")
            return None
        try:
            outcome = rank_snapshot(snapshot)
        except InputFileError as exc:
            return self._fail("; ".join(exc.problems))
        except ranking.ModelInputError as exc:
            return self._fail(_both(exc.messages))
        except TypeError as exc:
            return self._fail(f"bad input: {exc}")
        result = outcome_dict(outcome)
        for problem in result["problems"]:
            text = "; ".join(f"{m['en']} / {m['zh']}" for m in problem["messages"])
            self.stderr.write(f"offer {problem['id']} not ranked: {text}")
        self.stdout.write(json.dumps(result["results"], indent=2, ensure_ascii=False))
        return None

    def _workload(self, given: object) -> tuple[object, str | None]:
        """COST-MODEL.md workload inputs and the preset they come from (None: none)."""
        name = given if isinstance(given, str) else None
        if isinstance(given, dict) and "name" in given:
            name = given["name"]
        if name is None:
            return given, None
        if not isinstance(name, str):
            self._fail("workload name must be a preset name (text)")
        try:
            found = preset(name)
        except TrainModelError as exc:
            self._fail(_both(exc.messages))
        stage = found.parallel.zero_stage
        inputs: dict[str, object] = {
            "params_b": found.model.params_b,
            "tokens_per_step": found.parallel.global_batch_tokens,
            "strategy": {0: "ddp", 1: "zero1", 2: "zero2", 3: "fsdp"}.get(stage, "zero1"),
            "train_tokens": found.train_tokens,
        }
        if isinstance(given, dict):
            inputs.update({k: v for k, v in given.items() if k != "name"})
        return inputs, found.key


def _both(messages: object) -> str:
    """Bilingual messages on one line: "English / 中文; ..."."""
    return "; ".join(f"{m.en} / {m.zh}" for m in messages)  # type: ignore[attr-defined]
