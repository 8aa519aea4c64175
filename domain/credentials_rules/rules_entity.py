"""Rules on the vendor entity: credit code, company age and registered capital."""

from __future__ import annotations

from collections.abc import Iterator

from domain.credentials import VENDOR, CredentialFormatError, Finding, normalize_credit_code
from domain.credentials_rules.context import (
    CAPITAL_MIN_CROSS_REGIONAL_CNY,
    CAPITAL_MIN_PROVINCIAL_CNY,
    YOUNG_COMPANY_YEARS,
    _Context,
    flag,
)

# --- the vendor entity --------------------------------------------------------------------------


def _credit_code(ctx: _Context) -> Iterator[Finding]:
    code = ctx.facts.credit_code
    if code is None or not code.strip():
        yield flag("credit_code_missing", VENDOR)
        return
    try:
        normalize_credit_code(code)
    except CredentialFormatError as err:
        yield flag(
            "credit_code_invalid", VENDOR, detail_en=err.message.en, detail_zh=err.message.zh
        )


def _company_age(ctx: _Context) -> Iterator[Finding]:
    founded = ctx.facts.founded_year
    if founded is None:
        yield flag("founded_year_unknown", VENDOR)
    elif founded > ctx.today.year:
        yield flag("founded_year_in_future", VENDOR, year=founded)
    elif ctx.today.year - founded < YOUNG_COMPANY_YEARS:
        yield flag("company_young", VENDOR, year=founded, years=YOUNG_COMPANY_YEARS)


def _capital(ctx: _Context) -> Iterator[Finding]:
    capital = ctx.facts.registered_capital_cny
    if capital is None:
        yield flag("registered_capital_unknown", VENDOR)
        return
    minimum = None
    if ctx.licences:
        cross = any(lic.number.is_cross_regional for lic in ctx.licences)
        minimum = CAPITAL_MIN_CROSS_REGIONAL_CNY if cross else CAPITAL_MIN_PROVINCIAL_CNY
    if minimum is not None and capital < minimum:
        yield flag(
            "registered_capital_below_licence_minimum", VENDOR, capital=capital, minimum=minimum
        )
    elif capital < CAPITAL_MIN_PROVINCIAL_CNY:
        yield flag("registered_capital_low", VENDOR, capital=capital)
