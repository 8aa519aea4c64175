"""validate_model: the training-time model v2 against the published runs (TRAINING-MODEL.md).

Prints, per case, predicted vs published (MFU for compute cases - tokens/s per GPU for the FP8 /
MoE runs - , the reason for a case the model refuses, fits / does not fit for memory
cases, checkpoint interval and effective training time for failure cases) and the summary figures
the model is judged by, then the leave-one-source-out score (docs/MODEL.md §17): every fitted
constant re-fitted on all published sources but one, that source predicted, for each source in
turn - the figure that says how the model does on runs it has never seen (`--no-loso` skips it).
`--json` prints the same as JSON. Exit code 0 when every in-sample goal is met, 1 otherwise; the
leave-one-source-out goals are printed with their verdict.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict

from django.core.management.base import BaseCommand

from domain.trainmodel.validation import (
    KNOWN_GAPS,
    LOSO_FAMILY_MEDIAN_GOAL,
    LOSO_MEDIAN_GOAL,
    MFU_MAX_GOAL,
    MFU_MEDIAN_GOAL,
    MODERN_MAX_GOAL,
    STRONG_SCALING_GOAL,
    CaseResult,
    LosoSummary,
    leave_one_source_out,
    run_validation,
    strong_scaling,
    table2_series,
)


def _value(x: float | bool) -> str:
    if isinstance(x, bool):
        return "fits" if x else "no fit"
    return f"{x:.4g}"


def _signed(r: CaseResult) -> str:
    """Predicted over published, signed: + is the model too fast (optimistic)."""
    if isinstance(r.predicted, bool) or isinstance(r.published, bool) or not r.published:
        return "no answer"
    return f"{float(r.predicted) / float(r.published) - 1.0:+.0%}"


class Command(BaseCommand):
    help = "Compare the training-time model with the published runs and print the goal figures."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
        parser.add_argument(
            "--no-loso", action="store_true", help="skip the leave-one-source-out re-fits"
        )

    def _loso_lines(self, loso: LosoSummary) -> list[str]:
        lines = [
            f"Leave-one-source-out over {loso.cases} compute cases: in-sample median "
            f"{loso.in_sample_median:.1%}, worst {loso.in_sample_worst:.1%}; held-out median "
            f"{loso.loso_median:.1%} (goal <= {LOSO_MEDIAN_GOAL:.0%}), worst "
            f"{loso.loso_worst:.1%} at {loso.loso_worst_case}"
        ]
        for f in loso.families:
            refit = ", ".join(f"{k} {v:g}" for k, v in f.refit.items())
            lines.append(
                f"  {f.family}: {f.cases} cases, in-sample median {f.in_sample_median:.1%} "
                f"worst {f.in_sample_worst:.1%}; held out median {f.loso_median:.1%} worst "
                f"{f.loso_worst:.1%} ({f.loso_worst_case}); re-fit on the others: {refit}"
            )
        met = (
            loso.loso_median <= LOSO_MEDIAN_GOAL
            and loso.family_worst_median <= LOSO_FAMILY_MEDIAN_GOAL
        )
        lines.append(
            f"Leave-one-source-out goals (median <= {LOSO_MEDIAN_GOAL:.0%}, no source family's "
            f"median beyond {LOSO_FAMILY_MEDIAN_GOAL:.0%}): {'met' if met else 'NOT met'}"
        )
        return lines

    def _row(self, r: CaseResult) -> str:
        err = "" if r.error is None else f"{r.error:7.1%}"
        flag = "ok" if r.ok else "MISS"
        return (
            f"{r.id:44s} {r.kind:8s} {_value(r.published):>9s} {_value(r.predicted):>9s} "
            f"{err:>7s} {flag:4s} {r.note}"
        )

    @staticmethod
    def _beyond(results: list[CaseResult]) -> str:
        missed = [r for r in results if r.kind == "compute" and not r.ok]
        if not missed:
            return ""
        known = sum(r.id in KNOWN_GAPS for r in missed)
        listed = ", ".join(f"{r.id} {_signed(r)}" for r in missed)
        return f" ({listed}; {known} of them with a known-gap note)"

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        results, summary = run_validation()
        loso = None if options["no_loso"] else leave_one_source_out()
        if options["json"]:
            payload = {
                "cases": [asdict(r) for r in results],
                "summary": asdict(summary)
                | {"goals_met": summary.goals_met, "beyond_goal": summary.beyond_goal},
                "table2_tflops": [
                    {"series": n, "published": pub, "predicted": pred}
                    for n, pub, pred in table2_series(results)
                ],
                "strong_scaling": [asdict(s) for s in strong_scaling(results)],
                "leave_one_source_out": None if loso is None else asdict(loso),
            }
            self.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False))
        else:
            header = f"{'case':44s} {'kind':8s} {'published':>9s} {'predicted':>9s} {'error':>7s}"
            self.stdout.write(header)
            for r in results:
                self.stdout.write(self._row(r))
            self.stdout.write("")
            for name, pub, pred in table2_series(results):
                self.stdout.write(
                    f"Megatron Table 2 {name}: TFLOP/s per GPU published {pub}, predicted {pred}"
                )
            for sc in strong_scaling(results):
                self.stdout.write(
                    f"Strong scaling {sc.series}: MFU published "
                    f"{' -> '.join(f'{x:.3f}' for x in sc.published_mfu)} (fall "
                    f"{sc.published_fall:.3f}), predicted "
                    f"{' -> '.join(f'{x:.3f}' for x in sc.predicted_mfu)} (fall "
                    f"{sc.predicted_fall:.3f}): {'ok' if sc.ok else 'MISS'}"
                )
            self.stdout.write(
                f"Strong scaling: {summary.scaling_correct}/{summary.scaling_series} series with "
                f"the MFU fall predicted within {STRONG_SCALING_GOAL}"
            )
            self.stdout.write(
                f"MFU over {summary.compute_cases} compute cases: median relative error "
                f"{summary.mfu_median_error:.1%} (goal <= {MFU_MEDIAN_GOAL:.0%}), max "
                f"{summary.mfu_max_error:.1%} at {summary.mfu_worst_case} "
                f"(goal per case <= {MFU_MAX_GOAL:.0%} for MFU cases, <= {MODERN_MAX_GOAL:.0%} "
                f"for the FP8 / MoE tokens/s cases); within goal "
                f"{summary.compute_correct}/{summary.compute_cases}, beyond the goal "
                f"{summary.beyond_goal}{self._beyond(results)}; refused with a reason "
                f"(the model cannot express them): {summary.refused_cases}"
            )
            self.stdout.write(
                f"Memory cases right: {summary.memory_correct}/{summary.memory_cases}; "
                f"failure/goodput cases right: {summary.failure_correct}/{summary.failure_cases}; "
                f"bandwidth cases right: {summary.bandwidth_correct}/{summary.bandwidth_cases}"
            )
            for line in self._loso_lines(loso) if loso is not None else []:
                self.stdout.write(line)
            self.stdout.write("All goals met." if summary.goals_met else "Goals NOT met.")
        if not summary.goals_met:
            sys.exit(1)
        return None
