"""Derived figures over parsed results, in one place: efficiency, stability, verdicts and the
summary of concurrent runs. The definitions live in ``measures``, ``verdict`` and
``concurrent``; see ``measures`` for the percentile, CV and dip conventions.
"""

from __future__ import annotations

from domain.benchlogs.concurrent import RunSummary, summarise_run
from domain.benchlogs.measures import (
    DIP_FRACTION,
    Stability,
    coefficient_of_variation,
    jain_index,
    line_rate_efficiency,
    longest_dip,
    percentile,
    series_stability,
    stability,
)
from domain.benchlogs.verdict import FAIL, PASS, WARN, Thresholds, Verdict, verdict

__all__ = [
    "DIP_FRACTION",
    "FAIL",
    "PASS",
    "WARN",
    "RunSummary",
    "Stability",
    "Thresholds",
    "Verdict",
    "coefficient_of_variation",
    "jain_index",
    "line_rate_efficiency",
    "longest_dip",
    "percentile",
    "series_stability",
    "stability",
    "summarise_run",
    "verdict",
]
