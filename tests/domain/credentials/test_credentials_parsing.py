"""Licence numbers, business codes and ICP filing numbers."""

from __future__ import annotations

import pytest

from domain.credentials import (
    CredentialFormatError,
    looks_like_icp_filing,
    parse_icp_filing,
    parse_licence_number,
    validate_business_codes,
)


@pytest.mark.parametrize(
    ("text", "normalised", "classes", "province", "year", "serial"),
    [
        ("B1-20180001", "B1-20180001", ("B1",), None, 2018, 1),
        ("粤B1-20190001", "粤B1-20190001", ("B1",), "GD", 2019, 1),
        ("粤B1.B2-20190001", "粤B1.B2-20190001", ("B1", "B2"), "GD", 2019, 1),
        ("豫B2-20261089", "豫B2-20261089", ("B2",), "HA", 2026, 1089),
        ("B1.B2-20190123", "B1.B2-20190123", ("B1", "B2"), None, 2019, 123),
        ("粤B2-20090059", "粤B2-20090059", ("B2",), "GD", 2009, 59),
        # pasted from PDFs and web pages: full-width forms, odd dashes, spaces, lower case
        ("粤Ｂ１．Ｂ２－２０１９０００１", "粤B1.B2-20190001", ("B1", "B2"), "GD", 2019, 1),
        (" 粤 B1 · B2 — 2019 0001 ", "粤B1.B2-20190001", ("B1", "B2"), "GD", 2019, 1),
        ("b2.b1-20190001", "B1.B2-20190001", ("B1", "B2"), None, 2019, 1),
        ("京A2.B1.B2-20090001", "京A2.B1.B2-20090001", ("A2", "B1", "B2"), "BJ", 2009, 1),
    ],
)
def test_it_parses_licence_numbers(
    text: str,
    normalised: str,
    classes: tuple[str, ...],
    province: str | None,
    year: int,
    serial: int,
) -> None:
    number = parse_licence_number(text)
    assert number.raw == text
    assert number.normalised == normalised
    assert number.classes == classes
    assert number.province == province
    assert number.is_cross_regional is (province is None)
    assert (number.year, number.serial) == (year, serial)
    assert parse_licence_number(number.normalised) == parse_licence_number(normalised)


def test_it_reads_the_foreign_invested_marker() -> None:
    number = parse_licence_number("合字B2-20100014")
    assert number.foreign_invested and number.province is None
    assert number.normalised == "合字B2-20100014"
    assert not parse_licence_number("B2-20100014").foreign_invested


def test_an_alternative_abbreviation_is_normalised_to_the_usual_one() -> None:
    assert parse_licence_number("蜀B2-20100014").normalised == "川B2-20100014"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "licence_number_empty"),
        ("  ", "licence_number_empty"),
        ("滇ICP备2020007656号", "licence_is_icp_filing"),
        ("粤ICP备12345678号-3", "licence_is_icp_filing"),
        ("京ICP证030173号", "licence_is_icp_certificate"),
        ("B11-20180001", "licence_bad_class"),
        ("粤B3-20190001", "licence_bad_class"),
        ("粤B1.B1-20190001", "licence_duplicate_class"),
        ("粤B1..B2-20190001", "licence_bad_class"),
        ("粤B1-2019001", "licence_bad_serial"),
        ("粤B1-201900011", "licence_bad_serial"),
        ("粤B1-20190000", "licence_bad_serial"),
        ("粤B1-19800001", "licence_bad_year"),
        ("港B1-20190001", "licence_unknown_province"),
        ("广东B1-20190001", "licence_unknown_province"),
        ("龙B1-20190001", "licence_unknown_province"),
        ("B1 20180001", "licence_bad_format"),
        ("B1-2018000X", "licence_bad_format"),
        ("licence pending", "licence_bad_format"),
        ("20180001", "licence_bad_format"),
    ],
)
def test_it_rejects_malformed_licence_numbers(text: str, code: str) -> None:
    with pytest.raises(CredentialFormatError) as info:
        parse_licence_number(text)
    assert info.value.message.code == code
    assert info.value.message.en and info.value.message.zh


def test_an_icp_filing_offered_as_a_licence_is_explained() -> None:
    with pytest.raises(CredentialFormatError) as info:
        parse_licence_number("滇ICP备2020007656号")
    message = info.value.message
    assert "not" in message.en and "licence" in message.en
    assert "不是电信业务经营许可证" in message.zh


def test_a_business_code_in_the_number_gets_a_hint() -> None:
    with pytest.raises(CredentialFormatError) as info:
        parse_licence_number("B11-20180001")
    assert "B11 is a business code" in info.value.message.en


# --- business codes


def test_it_validates_and_canonicalises_business_codes() -> None:
    number = parse_licence_number("B1.B2-20180001")
    codes = validate_business_codes([" b11", "B12", "Ｂ１４", "B25"], number)
    assert codes == frozenset({"B11", "B12", "B14", "B25"})
    assert validate_business_codes([]) == frozenset()
    assert validate_business_codes(["A11", "B13", "B26"]) == frozenset({"A11", "B13", "B26"})


@pytest.mark.parametrize("bad", ["B15", "B27", "B1", "IDC", "C11", ""])
def test_it_rejects_unknown_business_codes(bad: str) -> None:
    with pytest.raises(CredentialFormatError) as info:
        validate_business_codes(["B11", bad])
    assert info.value.message.code == "business_code_unknown"


@pytest.mark.parametrize(
    ("number", "codes", "outside"),
    [
        ("豫B2-20261089", ["B11"], "B11"),  # B11 needs class B1
        ("粤B1-20190001", ["B11", "B25"], "B25"),  # B25 needs class B2
        ("B1-20180001", ["B14", "A11"], "A11"),
    ],
)
def test_business_codes_must_fit_the_numbers_classes(
    number: str, codes: list[str], outside: str
) -> None:
    with pytest.raises(CredentialFormatError) as info:
        validate_business_codes(codes, parse_licence_number(number))
    assert info.value.message.code == "business_code_class_mismatch"
    assert outside in info.value.message.en


# --- ICP filings


@pytest.mark.parametrize(
    ("text", "normalised", "province", "digits", "year", "site"),
    [
        ("滇ICP备2020007656号", "滇ICP备2020007656号", "YN", "2020007656", 2020, None),
        ("豫ICP备2026018319号", "豫ICP备2026018319号", "HA", "2026018319", 2026, None),
        ("粤ICP备12345678号-3", "粤ICP备12345678号-3", "GD", "12345678", None, 3),
        ("京icp备05012345号", "京ICP备05012345号", "BJ", "05012345", None, None),
        ("粤ICP备12345678-3", "粤ICP备12345678号-3", "GD", "12345678", None, 3),
        (" 蜀ICP备 2021000001 号－12 ", "川ICP备2021000001号-12", "SC", "2021000001", 2021, 12),
    ],
)
def test_it_parses_icp_filings(
    text: str, normalised: str, province: str, digits: str, year: int | None, site: int | None
) -> None:
    filing = parse_icp_filing(text)
    assert (filing.normalised, filing.province, filing.digits) == (normalised, province, digits)
    assert (filing.year, filing.site) == (year, site)
    assert looks_like_icp_filing(text)


def test_all_sites_of_one_entity_share_the_entity_filing() -> None:
    first = parse_icp_filing("粤ICP备12345678号-1")
    third = parse_icp_filing("粤ICP备12345678号-3")
    assert first.entity_filing == third.entity_filing == "粤ICP备12345678号"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("粤B2-20090059", "icp_filing_is_licence"),
        ("B1-20180001", "icp_filing_is_licence"),
        ("京ICP证030173号", "icp_filing_is_icp_certificate"),
        ("京公网安备11010502030143号", "icp_filing_is_police_filing"),
        ("ICP备2020007656号", "icp_filing_bad_format"),
        ("滇ICP备号", "icp_filing_bad_format"),
        ("滇ICP备12345号", "icp_filing_bad_format"),
        ("滇ICP备20200076561号", "icp_filing_bad_format"),
        ("粤ICP备12345678号-0", "icp_filing_bad_format"),
        ("港ICP备12345678号", "icp_filing_unknown_province"),
        ("", "icp_filing_bad_format"),
    ],
)
def test_it_rejects_what_is_not_an_icp_filing(text: str, code: str) -> None:
    with pytest.raises(CredentialFormatError) as info:
        parse_icp_filing(text)
    assert info.value.message.code == code


def test_a_licence_is_never_mistaken_for_a_filing_and_vice_versa() -> None:
    assert not looks_like_icp_filing("粤B2-20090059")
    assert not looks_like_icp_filing("京ICP证030173号")
    assert not looks_like_icp_filing("")
    assert looks_like_icp_filing("滇ICP备2020007656号")
