"""The due-diligence red-flag rules behind :func:`domain.credentials.check_vendor`.

Each finding code has exactly one severity and one bilingual text, kept together in ``CATALOGUE``
so a reviewer can read every rule's wording in one place; the rule functions only decide when a
code applies and fill in the details.

Layout: :mod:`.context` (thresholds, the evaluation context, ``flag``), one rule module per
area (:mod:`.rules_entity`, :mod:`.rules_licences`, :mod:`.rules_facilities`), :mod:`.rules`
(``RULES`` and ``run_rules``) and :mod:`.catalogue`, merged from ``catalogue_<area>`` modules.
"""

from __future__ import annotations

from domain.credentials_rules.catalogue import CATALOGUE
from domain.credentials_rules.context import (
    CAPITAL_MIN_CROSS_REGIONAL_CNY,
    CAPITAL_MIN_PROVINCIAL_CNY,
    EXPIRY_WARNING_DAYS,
    IDC_SERVICES,
    NIC_8GPU_GBPS,
    NIC_FLOOR_GBPS,
    RACK_POWER_MIN_KW,
    REGULATED_SERVICES,
    SLA_MAX_HW_REPLACEMENT_HOURS,
    SLA_MAX_RESPONSE_MINUTES,
    SLA_MIN_AVAILABILITY_PERCENT,
    YOUNG_COMPANY_YEARS,
    flag,
)
from domain.credentials_rules.rules import RULES, run_rules

__all__ = [
    "CAPITAL_MIN_CROSS_REGIONAL_CNY",
    "CAPITAL_MIN_PROVINCIAL_CNY",
    "CATALOGUE",
    "EXPIRY_WARNING_DAYS",
    "IDC_SERVICES",
    "NIC_8GPU_GBPS",
    "NIC_FLOOR_GBPS",
    "RACK_POWER_MIN_KW",
    "REGULATED_SERVICES",
    "RULES",
    "SLA_MAX_HW_REPLACEMENT_HOURS",
    "SLA_MAX_RESPONSE_MINUTES",
    "SLA_MIN_AVAILABILITY_PERCENT",
    "YOUNG_COMPANY_YEARS",
    "flag",
    "run_rules",
]
