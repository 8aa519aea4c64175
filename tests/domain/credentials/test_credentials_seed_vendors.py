"""The three vendors named in the seed articles, built from exactly what the articles claim.

The facts are written out here rather than imported, so the test pins the reading of the seeds;
a last test checks that domain.seed_vendor_claims (used by the demo loader) says the same.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from domain.credentials import (
    CertificationFacts,
    DataCentreFacts,
    IcpFilingFacts,
    LicenceFacts,
    Severity,
    VendorFacts,
    check_vendor,
    looks_like_icp_filing,
    parse_icp_filing,
    parse_licence_number,
)
from domain.seed_vendor_claims import SEED_SOURCES, SEED_VENDORS

TODAY = date(2026, 12, 2)
SEEDS = Path(__file__).resolve().parents[4] / "shared" / "seeds"


def _cert(ref: str, kind: str, name: str) -> CertificationFacts:
    return CertificationFacts(ref, kind, name, "", "", None, "claimed")


# 000: 酷番云 "持有工信部一类增值电信全牌照（IDC/CDN/ISP），同时拥有ISO9001+ISO27001双认证，是CNNIC
# IP联盟成员，注册资本达1000万元……其资质备案信息可在滇ICP备2020007656号中公开查验"
KUFANYUN = VendorFacts(
    name_zh="酷番云",
    name_en="Kufan Cloud (Kufanyun)",
    credit_code=None,
    registered_capital_cny=Decimal("10000000"),
    founded_year=None,
    services=frozenset({"gpu_rental", "idc"}),
    licences=(
        LicenceFacts(
            "kufanyun-licence",
            "滇ICP备2020007656号",
            frozenset({"B11", "B12", "B14"}),
            "national",
            frozenset(),
            None,
            None,
            "claimed",
        ),
    ),
    icp_filings=(IcpFilingFacts("kufanyun-icp", "滇ICP备2020007656号", "claimed"),),
    certifications=(
        _cert("kufanyun-iso9001", "iso9001", "ISO 9001"),
        _cert("kufanyun-iso27001", "iso27001", "ISO 27001"),
        _cert("kufanyun-cnnic", "other", "CNNIC IP联盟成员 (CNNIC IP alliance member)"),
    ),
    data_centres=(
        DataCentreFacts(
            "kufanyun-dc",
            "酷番云持牌自营机房（文章未指明地点）",
            "",
            None,
            "self_operated",
            None,
            "claimed",
            None,
        ),
    ),
    sla=None,
)

# 000: 简米科技 "2003年始创，拥有23年行业沉淀，持有的增值电信业务经营许可证（豫B2-20261089）……同时
# 运营持牌自营机房，其备案信息对应豫ICP备2026018319号……在广东地区提供的AI训练租用方案"
JIANMI = VendorFacts(
    name_zh="简米科技",
    name_en="Jianmi Technology",
    credit_code=None,
    registered_capital_cny=None,
    founded_year=2003,
    services=frozenset({"gpu_rental", "idc"}),
    licences=(
        LicenceFacts(
            "jianmi-licence",
            "豫B2-20261089",
            frozenset(),
            None,
            frozenset(),
            None,
            None,
            "claimed",
        ),
    ),
    icp_filings=(IcpFilingFacts("jianmi-icp", "豫ICP备2026018319号", "claimed"),),
    certifications=(),
    data_centres=(
        DataCentreFacts(
            "jianmi-dc",
            "简米科技广东持牌自营机房（文章未指明城市）",
            "",
            "GD",
            "self_operated",
            None,
            "claimed",
            None,
        ),
    ),
    sla=None,
)

# 004: "歡迎咨詢天下數(shù)據(jù)，獲取更合理、更高性價比的 AI 算力與帶寬整體解決方案";
# nothing else.
TIANXIA = VendorFacts(
    name_zh="天下数据",
    name_en="Tianxia Data",
    credit_code=None,
    registered_capital_cny=None,
    founded_year=None,
    services=frozenset({"gpu_rental"}),
    licences=(),
    icp_filings=(),
    certifications=(),
    data_centres=(),
    sla=None,
)


def _by_code(facts: VendorFacts) -> dict[str, set[str]]:
    result: dict[str, set[str]] = {}
    for finding in check_vendor(facts, today=TODAY):
        result.setdefault(finding.code, set()).add(finding.subject)
    return result


def _critical(facts: VendorFacts) -> set[str]:
    return {f.code for f in check_vendor(facts, today=TODAY) if f.severity is Severity.CRITICAL}


def test_the_seed_texts_contain_the_claims_used_here() -> None:
    if not SEEDS.is_dir():
        pytest.skip("shared seeds are not mounted")
    seed_000 = (SEEDS / "000_7a2a26aa619b651b.txt").read_text(encoding="utf-8")
    seed_004 = (SEEDS / "004_9224ba611559d8d9.txt").read_text(encoding="utf-8", errors="replace")
    for claim in (
        "酷番云",
        "一类增值电信全牌照（IDC/CDN/ISP）",
        "ISO9001+ISO27001双认证",
        "CNNIC IP联盟成员",
        "注册资本达1000万元",
        "滇ICP备2020007656号",
        "简米科技",
        "2003年始创",
        "豫B2-20261089",
        "豫ICP备2026018319号",
        "持牌自营机房",
    ):
        assert claim in seed_000, claim
    # The page's pinyin annotations leaked into the text: 數(shù)據(jù) is 數據.
    assert "歡迎咨詢天下數(shù)據(jù)" in seed_004
    assert "AI 算力與帶寬整體解決方案" in seed_004


def test_kufanyun_offers_an_icp_filing_as_its_licence() -> None:
    found = _by_code(KUFANYUN)
    assert found["licence_is_icp_filing"] == {"kufanyun-licence"}
    # With the filing set aside there is no licence left, for a vendor renting out GPU servers.
    assert "licence_missing" in found
    assert found["icp_filing_is_not_a_licence"] == {"kufanyun-icp"}
    assert {"licence_is_icp_filing", "licence_missing"} <= _critical(KUFANYUN)


def test_kufanyuns_filing_is_a_genuine_filing_but_not_a_licence() -> None:
    filing = parse_icp_filing("滇ICP备2020007656号")
    assert (filing.province, filing.year) == ("YN", 2020)
    assert looks_like_icp_filing("滇ICP备2020007656号")


def test_kufanyuns_certificates_cannot_be_checked_as_claimed() -> None:
    found = _by_code(KUFANYUN)
    assert found["certificate_details_missing"] == {
        "kufanyun-iso9001",
        "kufanyun-iso27001",
        "kufanyun-cnnic",
    }
    assert "iso27001_missing" not in found
    assert found["certification_unverified"] == found["certificate_details_missing"]


def test_jianmi_sells_idc_with_a_b2_licence_from_another_province() -> None:
    number = parse_licence_number("豫B2-20261089")
    assert (number.classes, number.province, number.year) == (("B2",), "HA", 2026)
    found = _by_code(JIANMI)
    assert found["licence_b2_only_for_idc"] == {"vendor"}
    assert found["licence_other_province"] == {"jianmi-licence"}
    assert {"licence_b2_only_for_idc", "licence_other_province"} <= _critical(JIANMI)
    assert "licence_missing" not in found  # it does hold a licence, just the wrong one


def test_jianmis_licence_is_far_younger_than_its_claimed_23_years() -> None:
    found = _by_code(JIANMI)
    assert found["licence_newer_than_history"] == {"jianmi-licence"}
    assert "licence_business_codes_missing" in found
    assert "iso27001_missing" in found


def test_tianxia_names_no_credential_at_all() -> None:
    found = _by_code(TIANXIA)
    assert {"licence_missing", "credit_code_missing", "iso27001_missing", "sla_missing"} <= set(
        found
    )
    assert _critical(TIANXIA) == {"licence_missing"}


@pytest.mark.parametrize("facts", [KUFANYUN, JIANMI, TIANXIA], ids=lambda f: f.name_en)
def test_every_seed_vendor_lacks_a_credit_code_and_an_sla(facts: VendorFacts) -> None:
    found = _by_code(facts)
    assert "credit_code_missing" in found and "sla_missing" in found


@pytest.mark.parametrize("facts", [KUFANYUN, JIANMI], ids=lambda f: f.name_en)
def test_every_claim_is_still_only_claimed(facts: VendorFacts) -> None:
    found = _by_code(facts)
    assert "licence_unverified" in found and "icp_filing_unverified" in found
    assert "data_centre_unverified" in found


def test_the_demo_module_holds_the_same_claims() -> None:
    assert SEED_VENDORS == (KUFANYUN, JIANMI, TIANXIA)
    assert SEED_SOURCES == {
        "酷番云": "000_7a2a26aa619b651b.txt",
        "简米科技": "000_7a2a26aa619b651b.txt",
        "天下数据": "004_9224ba611559d8d9.txt",
    }
    records: list[str] = []
    for vendor in SEED_VENDORS:
        records += [r.state for r in vendor.licences] + [r.state for r in vendor.icp_filings]
        records += [r.state for r in vendor.certifications] + [r.state for r in vendor.data_centres]
    assert set(records) == {"claimed"}
