"""The ordered list of rules and :func:`run_rules`, which applies them to one vendor."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import date

from domain.credentials import Finding, VendorFacts
from domain.credentials_rules.context import _Context, _context
from domain.credentials_rules.rules_entity import _capital, _company_age, _credit_code
from domain.credentials_rules.rules_facilities import (
    _certifications,
    _cross_site,
    _data_centres,
    _sla,
)
from domain.credentials_rules.rules_licences import (
    _icp_filings,
    _licence_coverage,
    _licence_records,
    _licence_regions,
)

RULES: tuple[Callable[[_Context], Iterable[Finding]], ...] = (
    _credit_code,
    _company_age,
    _capital,
    _licence_records,
    _licence_coverage,
    _licence_regions,
    _icp_filings,
    _certifications,
    _data_centres,
    _cross_site,
    _sla,
)


def run_rules(facts: VendorFacts, *, today: date) -> Iterator[Finding]:
    """Every finding for a vendor, unsorted; :func:`domain.credentials.check_vendor` sorts them."""
    ctx = _context(facts, today)
    for rule in RULES:
        yield from rule(ctx)
