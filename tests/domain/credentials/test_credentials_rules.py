"""Each red-flag rule fires on its own defect and stays quiet on a well-documented vendor."""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal

import pytest

from domain.credentials import (
    CertificationFacts,
    DataCentreFacts,
    Finding,
    IcpFilingFacts,
    LicenceFacts,
    NetworkFacts,
    Severity,
    SlaFacts,
    VendorFacts,
    check_vendor,
    credit_code_check_char,
)
from domain.credentials_rules import CATALOGUE

TODAY = date(2026, 12, 2)
BODY = "91440300MA5F12345"
CREDIT_CODE = BODY + credit_code_check_char(BODY)
WRONG_CHECK = BODY + next(c for c in "0123456789" if c != CREDIT_CODE[-1])

NETWORK = NetworkFacts(
    fabric="roce",
    pfc=True,
    ecn=True,
    dcqcn=True,
    topology="spine_leaf",
    mgmt_separated=True,
    nic_gbps=100.0,
    dedicated_cross_site=True,
    state="verified",
)
SHENZHEN = DataCentreFacts(
    ref="dc-sz",
    name="深圳南山机房",
    city="深圳",
    province="GD",
    ownership="self_operated",
    power_per_rack_kw=20.0,
    state="verified",
    network=NETWORK,
)
DONGGUAN = replace(SHENZHEN, ref="dc-dg", name="东莞松山湖机房", city="东莞")
LICENCE = LicenceFacts(
    ref="lic-1",
    number="B1.B2-20180001",
    business_codes=frozenset({"B11", "B12", "B14", "B25"}),
    issuer_scope="national",
    coverage_regions=frozenset({"GD"}),
    valid_from=date(2023, 3, 1),
    valid_until=date(2028, 3, 1),
    state="verified",
)
ISO27001 = CertificationFacts(
    ref="cert-27001",
    kind="iso27001",
    name="ISO/IEC 27001",
    number="04423I1234R0M",
    issuer="某认证有限公司",
    valid_until=date(2028, 6, 30),
    state="verified",
)
ISO9001 = replace(ISO27001, ref="cert-9001", kind="iso9001", name="ISO 9001")
SLA = SlaFacts(
    availability=99.95,
    response_minutes=15,
    hw_replacement_hours=4.0,
    bandwidth_in_contract=True,
    compensation_clause=True,
    state="verified",
)
GOOD = VendorFacts(
    name_zh="示例算力有限公司",
    name_en="Example Compute Co., Ltd.",
    credit_code=CREDIT_CODE,
    registered_capital_cny=Decimal("50000000"),
    founded_year=2016,
    services=frozenset({"idc", "gpu_rental", "cloud", "bare_metal", "cdn", "isp"}),
    licences=(LICENCE,),
    icp_filings=(IcpFilingFacts("icp-1", "粤ICP备2020012345号-1", "verified"),),
    certifications=(ISO27001, ISO9001),
    data_centres=(SHENZHEN, DONGGUAN),
    sla=SLA,
)


def codes(facts: VendorFacts) -> set[str]:
    return {f.code for f in check_vendor(facts, today=TODAY)}


def findings(facts: VendorFacts, code: str) -> list[Finding]:
    return [f for f in check_vendor(facts, today=TODAY) if f.code == code]


def licence(**changes: object) -> VendorFacts:
    return replace(GOOD, licences=(replace(LICENCE, **changes),))  # type: ignore[arg-type]


def network(**changes: object) -> VendorFacts:
    net = replace(NETWORK, **changes)  # type: ignore[arg-type]
    return replace(GOOD, data_centres=(replace(SHENZHEN, network=net), DONGGUAN))


def data_centre(**changes: object) -> VendorFacts:
    return replace(GOOD, data_centres=(replace(SHENZHEN, **changes), DONGGUAN))  # type: ignore[arg-type]


def sla(**changes: object) -> VendorFacts:
    return replace(GOOD, sla=replace(SLA, **changes))  # type: ignore[arg-type]


def certificate(cert: CertificationFacts, **changes: object) -> VendorFacts:
    others = tuple(c for c in GOOD.certifications if c.ref != cert.ref)
    return replace(GOOD, certifications=(replace(cert, **changes), *others))  # type: ignore[arg-type]


def test_a_well_documented_vendor_raises_nothing() -> None:
    assert check_vendor(GOOD, today=TODAY) == ()


# (how to break the good vendor, the code that must appear, the subject it must be about)
CASES: list[tuple[str, Callable[[], VendorFacts], str, str]] = [
    # the entity
    ("no credit code", lambda: replace(GOOD, credit_code=None), "credit_code_missing", "vendor"),
    ("blank credit code", lambda: replace(GOOD, credit_code=" "), "credit_code_missing", "vendor"),
    (
        "bad checksum",
        lambda: replace(GOOD, credit_code=WRONG_CHECK),
        "credit_code_invalid",
        "vendor",
    ),
    ("bad length", lambda: replace(GOOD, credit_code="9144"), "credit_code_invalid", "vendor"),
    (
        "no founding year",
        lambda: replace(GOOD, founded_year=None),
        "founded_year_unknown",
        "vendor",
    ),
    (
        "founded next year",
        lambda: replace(GOOD, founded_year=2027),
        "founded_year_in_future",
        "vendor",
    ),
    ("young", lambda: replace(GOOD, founded_year=2025), "company_young", "vendor"),
    (
        "capital unknown",
        lambda: replace(GOOD, registered_capital_cny=None),
        "registered_capital_unknown",
        "vendor",
    ),
    (
        "capital below the cross-regional minimum",
        lambda: replace(GOOD, registered_capital_cny=Decimal(5_000_000)),
        "registered_capital_below_licence_minimum",
        "vendor",
    ),
    (
        "capital low, no licence",
        lambda: replace(
            GOOD, registered_capital_cny=Decimal(500_000), services=frozenset(), licences=()
        ),
        "registered_capital_low",
        "vendor",
    ),
    # licence numbers
    ("number empty", lambda: licence(number=""), "licence_number_missing", "lic-1"),
    (
        "ICP filing as licence",
        lambda: licence(number="粤ICP备2020012345号"),
        "licence_is_icp_filing",
        "lic-1",
    ),
    ("garbage number", lambda: licence(number="B1-2018"), "licence_unparseable", "lic-1"),
    (
        "ICP licence display form",
        lambda: licence(number="粤ICP证030173号"),
        "licence_unparseable",
        "lic-1",
    ),
    (
        "number from the future",
        lambda: licence(number="B1.B2-20290001"),
        "licence_year_in_future",
        "lic-1",
    ),
    (
        "issuer says province",
        lambda: licence(issuer_scope="GD"),
        "licence_issuer_mismatch",
        "lic-1",
    ),
    (
        "no business codes",
        lambda: licence(business_codes=frozenset()),
        "licence_business_codes_missing",
        "lic-1",
    ),
    (
        "unknown business code",
        lambda: licence(business_codes=frozenset({"B11", "B12", "B14", "B19"})),
        "licence_business_codes_unknown",
        "lic-1",
    ),
    (
        "B11 on a B2 number",
        lambda: licence(number="B2-20180001"),
        "licence_codes_inconsistent",
        "lic-1",
    ),
    (
        "B25 on a B1 number",
        lambda: licence(number="B1-20180001"),
        "licence_codes_inconsistent",
        "lic-1",
    ),
    # licence dates and state
    (
        "dates inverted",
        lambda: licence(valid_from=date(2026, 1, 1), valid_until=date(2025, 1, 1)),
        "licence_dates_inverted",
        "lic-1",
    ),
    (
        "not yet valid",
        lambda: licence(valid_from=date(2027, 1, 1)),
        "licence_not_yet_valid",
        "lic-1",
    ),
    ("no expiry date", lambda: licence(valid_until=None), "licence_validity_unknown", "lic-1"),
    ("expired", lambda: licence(valid_until=TODAY - timedelta(days=1)), "licence_expired", "lic-1"),
    (
        "expiring",
        lambda: licence(valid_until=TODAY + timedelta(days=30)),
        "licence_expiring",
        "lic-1",
    ),
    ("licence claimed", lambda: licence(state="claimed"), "licence_unverified", "lic-1"),
    ("licence rejected", lambda: licence(state="rejected"), "licence_rejected", "lic-1"),
    # licence coverage
    ("no licence", lambda: replace(GOOD, licences=()), "licence_missing", "vendor"),
    ("only licence rejected", lambda: licence(state="rejected"), "licence_missing", "vendor"),
    (
        "only licence expired",
        lambda: licence(valid_until=date(2026, 1, 1)),
        "licence_missing",
        "vendor",
    ),
    (
        "filing but no licence",
        lambda: replace(GOOD, licences=()),
        "icp_filing_is_not_a_licence",
        "icp-1",
    ),
    (
        "B2-only IDC seller",
        lambda: licence(number="B2-20180001", business_codes=frozenset({"B25"})),
        "licence_b2_only_for_idc",
        "vendor",
    ),
    (
        "B1 without B11",
        lambda: licence(business_codes=frozenset({"B12", "B14", "B25"})),
        "licence_b11_missing",
        "vendor",
    ),
    (
        "CDN without B12",
        lambda: licence(business_codes=frozenset({"B11", "B14"})),
        "licence_b12_missing",
        "vendor",
    ),
    (
        "ISP without B14",
        lambda: licence(business_codes=frozenset({"B11", "B12"})),
        "licence_b14_missing",
        "vendor",
    ),
    (
        "licence much newer than the company",
        lambda: replace(GOOD, founded_year=2005),
        "licence_newer_than_history",
        "lic-1",
    ),
    (
        "other province",
        lambda: licence(number="豫B1.B2-20180001", issuer_scope="HA"),
        "licence_other_province",
        "lic-1",
    ),
    (
        "coverage list lacks GD",
        lambda: licence(coverage_regions=frozenset({"BJ", "SH"})),
        "licence_region_not_covered",
        "lic-1",
    ),
    # ICP filings
    (
        "filing claimed",
        lambda: replace(
            GOOD, icp_filings=(IcpFilingFacts("icp-1", "粤ICP备2020012345号", "claimed"),)
        ),
        "icp_filing_unverified",
        "icp-1",
    ),
    (
        "filing rejected",
        lambda: replace(
            GOOD, icp_filings=(IcpFilingFacts("icp-1", "粤ICP备2020012345号", "rejected"),)
        ),
        "icp_filing_rejected",
        "icp-1",
    ),
    (
        "licence entered as filing",
        lambda: replace(GOOD, icp_filings=(IcpFilingFacts("icp-1", "粤B2-20090059", "verified"),)),
        "icp_filing_is_licence_number",
        "icp-1",
    ),
    (
        "garbage filing",
        lambda: replace(GOOD, icp_filings=(IcpFilingFacts("icp-1", "备案中", "verified"),)),
        "icp_filing_unparseable",
        "icp-1",
    ),
    # certifications
    (
        "no ISO 27001",
        lambda: replace(GOOD, certifications=(ISO9001,)),
        "iso27001_missing",
        "vendor",
    ),
    (
        "ISO 27001 rejected counts as missing",
        lambda: certificate(ISO27001, state="rejected"),
        "iso27001_missing",
        "vendor",
    ),
    (
        "ISO 27001 expired",
        lambda: certificate(ISO27001, valid_until=date(2026, 11, 30)),
        "iso27001_expired",
        "cert-27001",
    ),
    (
        "ISO 27001 expiring",
        lambda: certificate(ISO27001, valid_until=date(2027, 1, 15)),
        "iso27001_expiring",
        "cert-27001",
    ),
    ("no ISO 9001", lambda: replace(GOOD, certifications=(ISO27001,)), "iso9001_missing", "vendor"),
    (
        "ISO 9001 expired",
        lambda: certificate(ISO9001, valid_until=date(2025, 5, 1)),
        "iso9001_expired",
        "cert-9001",
    ),
    (
        "ISO 9001 expiring",
        lambda: certificate(ISO9001, valid_until=date(2027, 1, 1)),
        "iso9001_expiring",
        "cert-9001",
    ),
    (
        "other certificate expired",
        lambda: replace(
            GOOD,
            certifications=(
                *GOOD.certifications,
                replace(
                    ISO9001,
                    ref="cnnic",
                    kind="other",
                    name="CNNIC IP联盟",
                    valid_until=date(2025, 1, 1),
                ),
            ),
        ),
        "certificate_expired",
        "cnnic",
    ),
    (
        "certificate without number",
        lambda: certificate(ISO27001, number=""),
        "certificate_details_missing",
        "cert-27001",
    ),
    (
        "certificate without issuer",
        lambda: certificate(ISO27001, issuer=" "),
        "certificate_details_missing",
        "cert-27001",
    ),
    (
        "certificate without expiry",
        lambda: certificate(ISO27001, valid_until=None),
        "certificate_validity_unknown",
        "cert-27001",
    ),
    (
        "certificate claimed",
        lambda: certificate(ISO27001, state="claimed"),
        "certification_unverified",
        "cert-27001",
    ),
    (
        "certificate rejected",
        lambda: certificate(ISO27001, state="rejected"),
        "certification_rejected",
        "cert-27001",
    ),
    # data centres
    ("re-leased", lambda: data_centre(ownership="re_leased"), "data_centre_re_leased", "dc-sz"),
    ("leased", lambda: data_centre(ownership="leased"), "data_centre_leased", "dc-sz"),
    (
        "ownership unknown",
        lambda: data_centre(ownership="unknown"),
        "data_centre_ownership_unknown",
        "dc-sz",
    ),
    (
        "ownership unexpected",
        lambda: data_centre(ownership="partner"),
        "data_centre_ownership_unknown",
        "dc-sz",
    ),
    (
        "province unknown",
        lambda: data_centre(province=None),
        "data_centre_province_unknown",
        "dc-sz",
    ),
    (
        "power unknown",
        lambda: data_centre(power_per_rack_kw=None),
        "data_centre_power_unknown",
        "dc-sz",
    ),
    ("power low", lambda: data_centre(power_per_rack_kw=8.0), "data_centre_power_low", "dc-sz"),
    ("no network profile", lambda: data_centre(network=None), "network_profile_missing", "dc-sz"),
    (
        "data centre claimed",
        lambda: data_centre(state="claimed"),
        "data_centre_unverified",
        "dc-sz",
    ),
    (
        "data centre rejected",
        lambda: data_centre(state="rejected"),
        "data_centre_rejected",
        "dc-sz",
    ),
    (
        "two sites, no dedicated links",
        lambda: replace(
            GOOD,
            data_centres=tuple(
                replace(dc, network=replace(NETWORK, dedicated_cross_site=None))
                for dc in GOOD.data_centres
            ),
        ),
        "cross_site_links_missing",
        "vendor",
    ),
    (
        "two sites, no network data",
        lambda: replace(
            GOOD, data_centres=tuple(replace(dc, network=None) for dc in GOOD.data_centres)
        ),
        "cross_site_links_missing",
        "vendor",
    ),
    # networks
    ("RoCE without PFC", lambda: network(pfc=False), "roce_without_pfc", "dc-sz"),
    ("RoCE PFC unknown", lambda: network(pfc=None), "roce_pfc_unknown", "dc-sz"),
    ("RoCE without ECN", lambda: network(ecn=False), "roce_without_ecn", "dc-sz"),
    ("RoCE ECN unknown", lambda: network(ecn=None), "roce_ecn_unknown", "dc-sz"),
    ("RoCE without DCQCN", lambda: network(dcqcn=False), "roce_without_dcqcn", "dc-sz"),
    ("RoCE DCQCN unknown", lambda: network(dcqcn=None), "roce_dcqcn_unknown", "dc-sz"),
    ("plain TCP", lambda: network(fabric="tcp"), "network_tcp_only", "dc-sz"),
    ("odd fabric", lambda: network(fabric="omnipath"), "network_fabric_unknown", "dc-sz"),
    ("three-tier", lambda: network(topology="three_tier"), "network_three_tier", "dc-sz"),
    ("topology unknown", lambda: network(topology="unknown"), "network_topology_unknown", "dc-sz"),
    (
        "shared management network",
        lambda: network(mgmt_separated=False),
        "network_mgmt_not_separated",
        "dc-sz",
    ),
    (
        "management separation unknown",
        lambda: network(mgmt_separated=None),
        "network_mgmt_unknown",
        "dc-sz",
    ),
    ("NIC unknown", lambda: network(nic_gbps=None), "network_nic_unknown", "dc-sz"),
    ("10G NIC", lambda: network(nic_gbps=10.0), "network_nic_below_training_floor", "dc-sz"),
    (
        "25G NIC for 8-GPU servers",
        lambda: network(nic_gbps=25.0),
        "network_nic_below_8gpu",
        "dc-sz",
    ),
    ("network claimed", lambda: network(state="claimed"), "network_unverified", "dc-sz"),
    ("network rejected", lambda: network(state="rejected"), "network_rejected", "dc-sz"),
    # SLA
    ("no SLA", lambda: replace(GOOD, sla=None), "sla_missing", "vendor"),
    ("SLA claimed", lambda: sla(state="claimed"), "sla_unverified", "vendor"),
    ("SLA rejected", lambda: sla(state="rejected"), "sla_rejected", "vendor"),
    (
        "bandwidth not in contract",
        lambda: sla(bandwidth_in_contract=False),
        "sla_bandwidth_not_in_contract",
        "vendor",
    ),
    (
        "bandwidth clause unknown",
        lambda: sla(bandwidth_in_contract=None),
        "sla_bandwidth_unknown",
        "vendor",
    ),
    ("no compensation", lambda: sla(compensation_clause=False), "sla_no_compensation", "vendor"),
    (
        "compensation unknown",
        lambda: sla(compensation_clause=None),
        "sla_compensation_unknown",
        "vendor",
    ),
    ("availability unknown", lambda: sla(availability=None), "sla_availability_unknown", "vendor"),
    ("availability 99.5%", lambda: sla(availability=99.5), "sla_availability_low", "vendor"),
    (
        "availability as a fraction",
        lambda: sla(availability=0.99),
        "sla_availability_low",
        "vendor",
    ),
    (
        "replacement unknown",
        lambda: sla(hw_replacement_hours=None),
        "sla_hw_replacement_unknown",
        "vendor",
    ),
    (
        "replacement in 48 h",
        lambda: sla(hw_replacement_hours=48.0),
        "sla_hw_replacement_slow",
        "vendor",
    ),
    ("response unknown", lambda: sla(response_minutes=None), "sla_response_unknown", "vendor"),
    ("response in 4 h", lambda: sla(response_minutes=240), "sla_response_slow", "vendor"),
]


@pytest.mark.parametrize(
    ("build", "code", "subject"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_rule_fires_on_its_defect(
    build: Callable[[], VendorFacts], code: str, subject: str
) -> None:
    hits = findings(build(), code)
    assert hits, f"{code} did not fire"
    assert {f.subject for f in hits} == {subject}
    for hit in hits:
        assert hit.severity is CATALOGUE[code][0]
        assert hit.message.code == code


def test_every_catalogued_code_has_a_firing_case() -> None:
    assert {c[2] for c in CASES} == set(CATALOGUE)


@pytest.mark.parametrize(
    ("build", "quiet"),
    [
        (lambda: licence(valid_until=TODAY), "licence_expired"),  # valid on its last day
        (lambda: licence(valid_until=TODAY + timedelta(days=91)), "licence_expiring"),
        (
            lambda: certificate(ISO27001, valid_until=TODAY + timedelta(days=91)),
            "iso27001_expiring",
        ),
        (lambda: data_centre(power_per_rack_kw=10.0), "data_centre_power_low"),
        (lambda: sla(availability=99.9), "sla_availability_low"),
        (lambda: sla(availability=0.999), "sla_availability_low"),
        (lambda: sla(hw_replacement_hours=24.0), "sla_hw_replacement_slow"),
        (lambda: sla(response_minutes=60), "sla_response_slow"),
        (lambda: network(nic_gbps=50.0), "network_nic_below_8gpu"),
        (lambda: network(fabric="ib", pfc=None, ecn=None, dcqcn=None), "roce_pfc_unknown"),
        (lambda: replace(GOOD, data_centres=(SHENZHEN,)), "cross_site_links_missing"),
        (lambda: licence(number="粤B1.B2-20180001", issuer_scope="GD"), "licence_other_province"),
        (lambda: licence(coverage_regions=frozenset({"national"})), "licence_region_not_covered"),
        (lambda: licence(coverage_regions=frozenset()), "licence_region_not_covered"),
        (lambda: replace(GOOD, founded_year=2023), "company_young"),
        (lambda: replace(GOOD, founded_year=2014), "licence_newer_than_history"),
        (
            lambda: replace(
                GOOD,
                services=frozenset({"idc"}),
                licences=(replace(LICENCE, business_codes=frozenset({"B11"})),),
            ),
            "licence_b12_missing",
        ),
        (lambda: replace(GOOD, services=frozenset()), "licence_missing"),
        (lambda: licence(business_codes=frozenset()), "licence_b11_missing"),
        (lambda: licence(issuer_scope=None), "licence_issuer_mismatch"),
        (lambda: licence(issuer_scope="NATIONAL"), "licence_issuer_mismatch"),
    ],
)
def test_rules_stay_quiet_just_inside_their_thresholds(
    build: Callable[[], VendorFacts], quiet: str
) -> None:
    assert quiet not in codes(build())


def test_expiry_follows_the_injected_today() -> None:
    facts = licence(valid_until=date(2027, 3, 1))
    early = {f.code for f in check_vendor(facts, today=date(2026, 11, 1))}
    near = check_vendor(facts, today=date(2027, 1, 1))
    late = {f.code for f in check_vendor(facts, today=date(2027, 3, 2))}
    assert not {"licence_expired", "licence_expiring"} & early
    assert [f.code for f in near if f.code.startswith("licence_exp")] == ["licence_expiring"]
    assert "59 days" in next(f for f in near if f.code == "licence_expiring").message.en
    assert "licence_expired" in late and "licence_missing" in late


def test_a_rejected_record_only_reports_the_rejection() -> None:
    facts = licence(state="rejected", number="garbage", valid_until=date(2020, 1, 1))
    on_licence = {f.code for f in check_vendor(facts, today=TODAY) if f.subject == "lic-1"}
    assert on_licence == {"licence_rejected"}


def test_an_icp_filing_as_licence_is_not_also_checked_for_dates() -> None:
    facts = licence(number="滇ICP备2020007656号", valid_until=None)
    on_licence = {f.code for f in check_vendor(facts, today=TODAY) if f.subject == "lic-1"}
    assert on_licence == {"licence_is_icp_filing"}


def test_a_provincial_licence_is_fine_when_another_licence_covers_the_province() -> None:
    henan = replace(
        LICENCE,
        ref="lic-ha",
        number="豫B1-20190001",
        business_codes=frozenset({"B11"}),
        issuer_scope="HA",
    )
    facts = replace(GOOD, licences=(LICENCE, henan))
    assert "licence_other_province" not in codes(facts)


def test_the_other_province_message_names_both_provinces() -> None:
    [hit] = findings(
        licence(number="豫B1.B2-20180001", issuer_scope="HA"), "licence_other_province"
    )
    assert "Henan" in hit.message.en and "Guangdong" in hit.message.en
    assert "河南" in hit.message.zh and "广东" in hit.message.zh
    assert hit.severity is Severity.CRITICAL


def test_b2_only_explains_that_b2_does_not_cover_a_data_centre() -> None:
    [hit] = findings(
        licence(number="B2-20180001", business_codes=frozenset({"B25"})), "licence_b2_only_for_idc"
    )
    assert "B11" in hit.message.en and "B11" in hit.message.zh
    assert "B2-20180001" in hit.message.en
    assert "licence_b11_missing" not in codes(
        licence(number="B2-20180001", business_codes=frozenset({"B25"}))
    )


def test_findings_are_sorted_by_severity_then_code() -> None:
    bad = replace(
        GOOD,
        credit_code=None,
        sla=None,
        licences=(),
        certifications=(),
        data_centres=(replace(SHENZHEN, ownership="re_leased", state="claimed"),),
    )
    result = check_vendor(bad, today=TODAY)
    keys = [(f.severity.rank, f.code, f.subject) for f in result]
    assert keys == sorted(keys)
    assert result[0].severity is Severity.CRITICAL and result[-1].severity is Severity.INFO
    assert isinstance(result, tuple)


def test_findings_and_facts_are_frozen() -> None:
    [hit] = findings(replace(GOOD, sla=None), "sla_missing")
    with pytest.raises(AttributeError):
        hit.code = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        GOOD.name_en = "x"  # type: ignore[misc]


# --- the wording itself

_CJK = re.compile(r"[\u4e00-\u9fff]")
_FIELD = re.compile(r"\{(\w+)")


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_message_is_bilingual_and_plain(code: str) -> None:
    severity, en, zh = CATALOGUE[code]
    assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", code)
    assert isinstance(severity, Severity)
    assert en[0] in string.ascii_uppercase + "{'" and en.rstrip().endswith((".", "}", ")"))
    assert _CJK.search(zh), "the Chinese text must be Chinese"
    assert not any(name.endswith("_zh") for name in _FIELD.findall(en))
    assert not any(name.endswith("_en") for name in _FIELD.findall(zh))
