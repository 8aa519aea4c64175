"""The words on the ranking charts, in the active language: one source for the page and the PDF.

`rankings.figures` builds figures from plain label dicts (no Django); this module fills them.
"""

from __future__ import annotations

from django.utils.translation import gettext as _


def chart_labels() -> dict[str, dict[str, str]]:
    """Title, legend and axis labels of the breakdown, bandwidth and tornado charts."""
    return {
        "breakdown": {
            "title": _("Cost per effective training hour: compute vs exposed communication"),
            "compute": _("compute"), "exposed": _("exposed communication (GPUs idle)"),
            "axis": _("cost per ETH"),
        },
        "bandwidth": {
            "title": _("Cost per ETH against effective bandwidth"),
            "x": _("effective bandwidth per node (Gbit/s, log)"), "y": _("cost per ETH"),
            "measured": _("measured"), "nominal": _("nominal (unverified)"),
        },
        "tornado": {
            "title": _("Sensitivity of the winner's cost per ETH"),
            "low": _("low value"), "high": _("high value"), "axis": _("change (%)"),
        },
    }  # fmt: skip
