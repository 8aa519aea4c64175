"""Property tests: parsers fail only with CredentialFormatError, and checksums catch typos."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.credentials import (
    CREDIT_CODE_ALPHABET,
    CredentialFormatError,
    credit_code_check_char,
    looks_like_icp_filing,
    normalize_credit_code,
    parse_icp_filing,
    parse_licence_number,
    validate_business_codes,
)

# Characters that steer the parsers deep into their branches, mixed with anything at all.
_NEAR_MISS = st.text(
    alphabet=st.sampled_from(list("粤豫滇港龙合字ICP备证号公网安BA12.-－．·0123456789 ")),
    max_size=30,
)
_ANY = st.one_of(st.text(max_size=60), _NEAR_MISS)
_BODY = st.text(alphabet=st.sampled_from(CREDIT_CODE_ALPHABET), min_size=17, max_size=17)


def _only_format_errors(parser: object, text: object) -> None:
    try:
        parser(text)  # type: ignore[operator]
    except CredentialFormatError as err:
        assert err.message.code and err.message.en and err.message.zh


@given(_ANY)
def test_licence_parser_fails_only_with_format_errors(text: str) -> None:
    _only_format_errors(parse_licence_number, text)


@given(_ANY)
def test_icp_parser_fails_only_with_format_errors(text: str) -> None:
    _only_format_errors(parse_icp_filing, text)


@given(
    st.one_of(st.text(max_size=40), st.text(alphabet=CREDIT_CODE_ALPHABET + "IOZSV", max_size=20))
)
def test_credit_code_functions_fail_only_with_format_errors(text: str) -> None:
    _only_format_errors(normalize_credit_code, text)
    _only_format_errors(credit_code_check_char, text)


@given(st.lists(_ANY, max_size=5))
def test_business_code_validation_fails_only_with_format_errors(codes: list[str]) -> None:
    _only_format_errors(validate_business_codes, codes)


@given(_ANY)
def test_looks_like_icp_filing_never_raises(text: str) -> None:
    assert isinstance(looks_like_icp_filing(text), bool)


@given(_BODY)
def test_a_body_plus_its_check_character_is_valid(body: str) -> None:
    code = body + credit_code_check_char(body)
    assert normalize_credit_code(code) == code


@given(_BODY, st.integers(0, 17), st.integers(1, 30))
def test_any_single_character_typo_is_caught(body: str, position: int, shift: int) -> None:
    # 31 is prime and no weight is 0 mod 31, so changing one character always moves the sum.
    code = body + credit_code_check_char(body)
    typo_char = CREDIT_CODE_ALPHABET[(CREDIT_CODE_ALPHABET.index(code[position]) + shift) % 31]
    typo = code[:position] + typo_char + code[position + 1 :]
    try:
        normalize_credit_code(typo)
    except CredentialFormatError as err:
        assert err.message.code == "credit_code_check"
    else:
        raise AssertionError(f"{typo} accepted")


@given(
    st.sampled_from(["", "粤", "豫", "京", "滇", "合字", "粤合字"]),
    st.lists(st.sampled_from(["A1", "A2", "B1", "B2"]), min_size=1, max_size=4, unique=True),
    st.integers(1995, 2099),
    st.integers(1, 9999),
)
def test_licence_numbers_round_trip_through_their_normal_form(
    prefix: str, classes: list[str], year: int, serial: int
) -> None:
    number = parse_licence_number(f"{prefix}{'.'.join(classes)}-{year}{serial:04d}")
    assert number.classes == tuple(sorted(classes))
    assert (number.year, number.serial) == (year, serial)
    assert parse_licence_number(number.normalised) == parse_licence_number(number.normalised)
    assert parse_licence_number(number.normalised).normalised == number.normalised
