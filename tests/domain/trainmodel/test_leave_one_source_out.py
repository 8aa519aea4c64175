"""Leave-one-source-out validation: fitted constants re-fitted without the source predicted."""

from __future__ import annotations

from dataclasses import replace

from domain.trainmodel.calibration import FITTED, cal, calibrated
from domain.trainmodel.validation import (
    _objective,
    compute_errors,
    fit_calibration,
    leave_one_source_out,
    source_family,
    validation_cases,
)

SMALL_GRID = {"efficiency_scale": (0.9, 1.0, 1.1), "elementwise_bytes": (0.0, 24.0, 48.0)}


def test_every_compute_case_has_a_source_family():
    compute = [c["id"] for c in validation_cases() if c["kind"] == "compute"]
    assert compute and all(source_family(i) != "other" for i in compute)
    assert len({source_family(i) for i in compute}) >= 5


def test_calibrated_changes_the_predictions_and_restores_them():
    before = compute_errors()
    with calibrated(replace(FITTED, efficiency_scale=0.8)) as values:
        assert cal() is values
        slower = compute_errors()
    assert cal() is FITTED
    assert compute_errors() == before
    assert slower != before


def test_a_held_out_source_is_predicted_by_a_fit_on_the_others_only():
    summary = leave_one_source_out(SMALL_GRID)
    assert summary.cases == len(compute_errors())
    for family in summary.families:
        train = [i for i in compute_errors() if source_family(i) != family.family]
        refit = fit_calibration(train, grid=SMALL_GRID)
        assert refit.as_dict() == family.refit
        # the re-fit is no worse than the shipped values on the cases it was fitted on
        with calibrated(refit):
            fitted_score = _objective(compute_errors(), train)
        assert fitted_score <= _objective(compute_errors(), train) + 1e-12
        assert family.loso_worst >= family.loso_median >= 0
    assert 0 < summary.loso_median <= summary.loso_worst
