"""Provincial-level regions."""

from __future__ import annotations

from domain.regions import (
    MAINLAND_PROVINCE_CHOICES,
    MAINLAND_PROVINCES,
    PROVINCE_CHOICES,
    PROVINCES,
    province_by_abbr,
    province_by_code,
)


def test_there_are_31_mainland_regions_plus_three_marked_outside() -> None:
    assert len(MAINLAND_PROVINCES) == 31
    outside = {p.code for p in PROVINCES if not p.mainland}
    assert outside == {"HK", "MO", "TW"}


def test_codes_abbreviations_and_numeric_prefixes_are_unique() -> None:
    for attr in ("code", "abbr", "zh", "en", "numeric"):
        values = [getattr(p, attr) for p in PROVINCES]
        assert len(values) == len(set(values)), attr
    assert all(len(p.code) == 2 and p.code.isupper() for p in PROVINCES)
    assert all(len(p.abbr) == 1 for p in PROVINCES)


def test_the_seed_provinces_resolve() -> None:
    for code, abbr, zh, en in (
        ("GD", "粤", "广东", "Guangdong"),
        ("HA", "豫", "河南", "Henan"),
        ("YN", "滇", "云南", "Yunnan"),
    ):
        province = province_by_code(code)
        assert province is not None
        assert (province.abbr, province.zh, province.en) == (abbr, zh, en)
        assert province_by_abbr(abbr) is province


def test_lookups_are_forgiving_but_return_none_for_unknowns() -> None:
    assert province_by_code(" gd ") is province_by_code("GD")
    assert province_by_code("XX") is None
    assert province_by_abbr("龙") is None


def test_alternative_abbreviations_used_by_icp_filings_resolve() -> None:
    assert province_by_abbr("蜀") is province_by_code("SC")
    assert province_by_abbr("陇") is province_by_code("GS")


def test_choices_are_code_label_pairs() -> None:
    assert ("GD", "广东 Guangdong") in PROVINCE_CHOICES
    assert ("BJ", "北京 Beijing") in PROVINCE_CHOICES
    assert len(PROVINCE_CHOICES) == len(PROVINCES)
    assert len(MAINLAND_PROVINCE_CHOICES) == 31
    assert all(isinstance(c, str) and isinstance(label, str) for c, label in PROVINCE_CHOICES)
