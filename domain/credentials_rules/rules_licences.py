"""Rules on telecom business licences (records, coverage, regions) and ICP filings."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from domain.credentials import (
    BUSINESS_CODES,
    REJECTED,
    VENDOR,
    CredentialFormatError,
    Finding,
    LicenceFacts,
    LicenceNumber,
    business_code_class,
    fold_credential,
    parse_icp_filing,
    parse_licence_number,
)
from domain.credentials_rules.context import (
    EXPIRY_WARNING_DAYS,
    IDC_SERVICES,
    REGULATED_SERVICES,
    _Context,
    _Licence,
    _province,
    _services,
    _state,
    flag,
)

# --- licences -----------------------------------------------------------------------------------


def _parse_licence(lic: LicenceFacts) -> tuple[LicenceNumber | None, Finding | None]:
    if not lic.number.strip():
        return None, flag("licence_number_missing", lic.ref)
    try:
        return parse_licence_number(lic.number), None
    except CredentialFormatError as err:
        icp = err.message.code == "licence_is_icp_filing"
        code = "licence_is_icp_filing" if icp else "licence_unparseable"
        details = {"detail_en": err.message.en, "detail_zh": err.message.zh}
        return None, flag(code, lic.ref, number=lic.number, **details)


def _licence_dates(lic: LicenceFacts, today: date) -> Iterator[Finding]:
    start, until = lic.valid_from, lic.valid_until
    if start is not None and until is not None and until < start:
        yield flag("licence_dates_inverted", lic.ref, start=start, until=until)
        return
    if start is not None and start > today:
        yield flag("licence_not_yet_valid", lic.ref, start=start)
    if until is None:
        yield flag("licence_validity_unknown", lic.ref)
    elif until < today:
        yield flag("licence_expired", lic.ref, until=until)
    elif (until - today).days <= EXPIRY_WARNING_DAYS:
        yield flag("licence_expiring", lic.ref, until=until, days=(until - today).days)


def _licence_codes(lic: LicenceFacts, number: LicenceNumber) -> Iterator[Finding]:
    codes = sorted(fold_credential(c) for c in lic.business_codes)
    if not codes:
        yield flag("licence_business_codes_missing", lic.ref, number=number.normalised)
    unknown = [c for c in codes if c not in BUSINESS_CODES]
    if unknown:
        yield flag("licence_business_codes_unknown", lic.ref, codes=", ".join(unknown))
    outside = [
        c for c in codes if c in BUSINESS_CODES and not number.has_class(business_code_class(c))
    ]
    if outside:
        yield flag(
            "licence_codes_inconsistent",
            lic.ref,
            codes=", ".join(outside),
            number=number.normalised,
            classes="+".join(number.classes),
        )


def _licence_number_facts(
    lic: LicenceFacts, number: LicenceNumber, today: date
) -> Iterator[Finding]:
    expected = "NATIONAL" if number.province is None else number.province
    scope = (lic.issuer_scope or "").strip().upper()
    if scope and scope != expected:
        yield flag(
            "licence_issuer_mismatch",
            lic.ref,
            scope=lic.issuer_scope,
            number=number.normalised,
            expected=expected.lower() if number.province is None else expected,
        )
    if number.year > today.year:
        yield flag("licence_year_in_future", lic.ref, number=number.normalised, year=number.year)


def _licence_records(ctx: _Context) -> Iterator[Finding]:
    for lic in ctx.facts.licences:
        yield from _state("licence", lic.ref, lic.state, lic.number)
        if lic.state == REJECTED:
            continue
        number, problem = _parse_licence(lic)
        if problem is not None:
            yield problem
        # An ICP filing entered as a licence is no licence at all, so its dates mean nothing.
        if problem is None or problem.code != "licence_is_icp_filing":
            yield from _licence_dates(lic, ctx.today)
        if number is not None:
            yield from _licence_codes(lic, number)
            yield from _licence_number_facts(lic, number, ctx.today)


def _has_code(ctx: _Context, code: str) -> bool:
    # A licence whose business codes were never recorded gets the benefit of the doubt for its
    # class; licence_business_codes_missing already asks for the annex.
    return any(
        code in lic.codes
        or (lic.number.has_class(business_code_class(code)) and not lic.facts.business_codes)
        for lic in ctx.licences
    )


def _idc_coverage(ctx: _Context, sold: frozenset[str]) -> Iterator[Finding]:
    if not sold:
        return
    no_b1 = not any(lic.number.has_class("B1") for lic in ctx.licences)
    if no_b1 and any(lic.number.has_class("B2") for lic in ctx.licences):
        numbers = ", ".join(lic.number.normalised for lic in ctx.licences)
        yield flag("licence_b2_only_for_idc", VENDOR, numbers=numbers, **_services(sold))
        return
    if not _has_code(ctx, "B11"):
        yield flag("licence_b11_missing", VENDOR, **_services(sold))


def _licence_coverage(ctx: _Context) -> Iterator[Finding]:
    sold = ctx.facts.services & REGULATED_SERVICES
    if not sold:
        return
    if not ctx.licences:
        yield flag("licence_missing", VENDOR, **_services(sold))
        for filing in ctx.facts.icp_filings:
            yield flag("icp_filing_is_not_a_licence", filing.ref, number=filing.number)
        return
    yield from _idc_coverage(ctx, sold & IDC_SERVICES)
    for service, code in (("cdn", "B12"), ("isp", "B14")):
        if service in sold and not _has_code(ctx, code):
            yield flag(f"licence_{code.lower()}_missing", VENDOR)
    yield from _licence_history(ctx)


def _licence_history(ctx: _Context) -> Iterator[Finding]:
    founded = ctx.facts.founded_year
    oldest = min(ctx.licences, key=lambda lic: lic.number.year)
    if founded is not None and oldest.number.year - founded >= 5:
        yield flag(
            "licence_newer_than_history",
            oldest.facts.ref,
            number=oldest.number.normalised,
            year=oldest.number.year,
            founded=founded,
        )


def _covers(lic: _Licence, province: str) -> bool:
    if lic.number.province is not None:
        return lic.number.province == province
    regions = {r.strip().upper() for r in lic.facts.coverage_regions}
    return not regions or "NATIONAL" in regions or province in regions


def _licence_regions(ctx: _Context) -> Iterator[Finding]:
    provinces = sorted({dc.province.upper() for dc in ctx.data_centres if dc.province})
    for province in provinces:
        if any(_covers(lic, province) for lic in ctx.licences):
            continue
        where = _province(province)
        for lic in ctx.licences:
            code = "licence_other_province" if lic.number.province else "licence_region_not_covered"
            issued = _province(lic.number.province or "")
            yield flag(
                code,
                lic.facts.ref,
                number=lic.number.normalised,
                dc_en=where["en"],
                dc_zh=where["zh"],
                lic_en=issued["en"],
                lic_zh=issued["zh"],
            )


def _icp_filings(ctx: _Context) -> Iterator[Finding]:
    for filing in ctx.facts.icp_filings:
        yield from _state("icp_filing", filing.ref, filing.state, filing.number)
        if filing.state == REJECTED:
            continue
        try:
            parse_icp_filing(filing.number)
        except CredentialFormatError as err:
            if err.message.code == "icp_filing_is_licence":
                yield flag("icp_filing_is_licence_number", filing.ref, number=filing.number)
            else:
                details = {"detail_en": err.message.en, "detail_zh": err.message.zh}
                yield flag("icp_filing_unparseable", filing.ref, number=filing.number, **details)
