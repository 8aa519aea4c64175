"""Unified social credit codes (GB 32100-2015)."""

from __future__ import annotations

import pytest

from domain.credentials import (
    CredentialFormatError,
    credit_code_check_char,
    credit_code_division,
    normalize_credit_code,
)
from domain.regions import province_by_division_code

# Public codes: the standard's own worked example (which prints the body with a wrong 18th
# character "Z" and derives the check character 3), and two well-known companies' codes.
KNOWN_VALID = (
    "91350100M000100Y43",  # GB 32100-2015 worked example
    "914403001922038216",  # 华为技术有限公司
    "91440300708461136T",  # 腾讯科技（深圳）有限公司
)


@pytest.mark.parametrize("code", KNOWN_VALID)
def test_it_accepts_published_valid_codes(code: str) -> None:
    assert normalize_credit_code(code) == code


def test_it_reproduces_the_standards_worked_example() -> None:
    # The standard sums the weighted values to 1640, 1640 mod 31 = 28, check value 31 - 28 = 3.
    assert credit_code_check_char("91350100M000100Y4") == "3"


def test_it_normalises_case_whitespace_and_full_width_forms() -> None:
    assert normalize_credit_code("  91440300708461136t\n") == "91440300708461136T"
    assert normalize_credit_code("９１４４０３００１９２２０３８２１６") == "914403001922038216"


def test_a_check_value_of_31_wraps_to_zero() -> None:
    # Find a body whose weighted sum is divisible by 31: its check character must be "0".
    for serial in range(1000):
        body = f"91440300MA5{serial:06d}"
        if credit_code_check_char(body) == "0":
            assert normalize_credit_code(body + "0") == body + "0"
            return
    pytest.fail("no body with check character 0 found")


def test_constructed_codes_round_trip() -> None:
    for body in ("91110108MA01ABCDE", "12100000400000624", "52440000MJL123456"):
        code = body + credit_code_check_char(body)
        assert normalize_credit_code(code.lower()) == code


def _error(text: str) -> CredentialFormatError:
    with pytest.raises(CredentialFormatError) as info:
        normalize_credit_code(text)
    return info.value


def test_it_rejects_a_wrong_check_character_and_names_the_expected_one() -> None:
    err = _error("914403001922038217")
    assert err.message.code == "credit_code_check"
    assert "'6'" in err.message.en and "“6”" in err.message.zh


def test_it_rejects_the_standards_example_as_printed() -> None:
    err = _error("91350100M000100Y4Z")
    # "Z" is not even in the alphabet, so it is caught as a character before the checksum.
    assert err.message.code == "credit_code_characters"
    assert "Z→2" in err.message.en


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "credit_code_empty"),
        ("   ", "credit_code_empty"),
        ("9144030070846113", "credit_code_length"),
        ("91440300708461136T0", "credit_code_length"),
        ("440301000123456", "credit_code_length"),
        ("91440300708461136I", "credit_code_characters"),
        ("9144O300708461136T", "credit_code_characters"),
        ("91440300-08461136T", "credit_code_characters"),
        ("91440300708461136S", "credit_code_characters"),
        ("91440300708461136A", "credit_code_check"),
    ],
)
def test_each_failure_has_its_own_code(text: str, code: str) -> None:
    err = _error(text)
    assert err.message.code == code
    assert err.message.en and err.message.zh and err.message.en != err.message.zh
    assert str(err) == err.message.en


def test_an_old_registration_number_is_recognised_as_such() -> None:
    err = _error("440301000123456")
    assert "registration number" in err.message.en and "注册号" in err.message.zh


def test_bad_characters_are_listed_with_their_positions() -> None:
    err = _error("9144O300708461136V")
    assert "position 5" in err.message.en and "position 18" in err.message.en
    assert "第5位" in err.message.zh


def test_check_char_needs_exactly_17_characters() -> None:
    with pytest.raises(CredentialFormatError) as info:
        credit_code_check_char("9144030070846113")
    assert info.value.message.code == "credit_code_length"


def test_the_division_code_locates_the_registration_authority() -> None:
    division = credit_code_division("91440300708461136T")
    assert division == "440300"
    province = province_by_division_code(division)
    assert province is not None and province.code == "GD"
