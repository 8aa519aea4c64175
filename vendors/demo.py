"""Demo vendors, all fictional and plainly marked (示例 / demo): vendors with varied data centres
and networks, and look-alikes that repeat the claims of the seed articles' vendors under made-up
names (domain/seed_vendor_claims.py)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from domain.credentials import (
    CertificationFacts,
    DataCentreFacts,
    LicenceFacts,
    NetworkFacts,
    SlaFacts,
    VendorFacts,
    credit_code_check_char,
)
from domain.seed_vendor_claims import DEMO_PATTERN_VENDORS

from .choices import IssuerScope
from .models import Certification, DataCentre, IcpFiling, Licence, NetworkProfile, SlaTerms, Vendor
from .services import vendor_refresh_findings


def _code(body17: str) -> str:
    return body17 + credit_code_check_char(body17)


def _net(
    fabric: str,
    gbps: float,
    *,
    pfc=None,
    ecn=None,
    dcqcn=None,
    topo="spine_leaf",  # type: ignore[no-untyped-def]
    mgmt=True,
    cross=None,
    state="claimed",
) -> NetworkFacts:
    return NetworkFacts(fabric, pfc, ecn, dcqcn, topo, mgmt, gbps, cross, state)


def _lic(
    ref: str,
    number: str,
    codes: set[str],
    scope: str,
    regions: set[str],  # type: ignore[no-untyped-def]
    until: date | None,
    state: str = "claimed",
) -> LicenceFacts:
    return LicenceFacts(
        ref, number, frozenset(codes), scope, frozenset(regions), None, until, state
    )


FICTIONAL_VENDORS: tuple[VendorFacts, ...] = (
    VendorFacts(
        name_zh="示例智算科技（广州）有限公司【演示】",
        name_en="Example AI Compute (Guangzhou) Co., Ltd. [demo]",
        credit_code=_code("91440101MA5DEM001"),
        registered_capital_cny=Decimal("50000000"),
        founded_year=2015,
        services=frozenset({"idc", "gpu_rental", "bare_metal"}),
        licences=(
            _lic(
                "l1",
                "B1-20159001",
                {"B11", "B12", "B14"},
                "national",
                {"national"},
                date(2030, 6, 30),
                "verified",
            ),
        ),
        icp_filings=(),
        certifications=(
            CertificationFacts(
                "c1",
                "iso27001",
                "ISO/IEC 27001",
                "DEMO-27001-001",
                "示例认证中心",
                date(2028, 5, 1),
                "verified",
            ),
            CertificationFacts(
                "c2",
                "iso9001",
                "ISO 9001",
                "DEMO-9001-001",
                "示例认证中心",
                date(2028, 5, 1),
                "claimed",
            ),
        ),
        data_centres=(
            DataCentreFacts(
                "d1",
                "广州黄埔自营机房（演示）",
                "广州",
                "GD",
                "self_operated",
                24.0,
                "verified",
                _net("ib", 200, pfc=None, ecn=None, cross=True, state="verified"),
            ),
        ),
        sla=SlaFacts(0.9995, 15, 4, True, True, "verified"),
    ),
    VendorFacts(
        name_zh="示例算力网络（深圳）有限公司【演示】",
        name_en="Example Compute Networks (Shenzhen) Ltd. [demo]",
        credit_code=_code("91440300MA5DEM002"),
        registered_capital_cny=Decimal("20000000"),
        founded_year=2018,
        services=frozenset({"idc", "gpu_rental"}),
        licences=(_lic("l1", "粤B1-20189002", {"B11", "B14"}, "GD", {"GD"}, date(2028, 3, 31)),),
        icp_filings=(),
        certifications=(
            CertificationFacts(
                "c1",
                "iso27001",
                "ISO/IEC 27001",
                "DEMO-27001-002",
                "示例认证中心",
                date(2027, 9, 30),
                "claimed",
            ),
        ),
        data_centres=(
            DataCentreFacts(
                "d1",
                "深圳南山机房（演示）",
                "深圳",
                "GD",
                "self_operated",
                16.0,
                "claimed",
                _net("roce", 100, pfc=True, ecn=True, dcqcn=True),
            ),
        ),
        sla=SlaFacts(0.999, 30, 8, True, True, "claimed"),
    ),
    VendorFacts(
        name_zh="示例云联（东莞）数据有限公司【演示】",
        name_en="Example CloudLink (Dongguan) Data Co. [demo]",
        credit_code=_code("91441900MA5DEM003"),
        registered_capital_cny=Decimal("5000000"),
        founded_year=2021,
        services=frozenset({"gpu_rental", "cloud"}),
        licences=(
            _lic("l1", "粤B1.B2-20219003", {"B11", "B25"}, "GD", {"GD"}, date(2026, 12, 20)),
        ),
        icp_filings=(),
        certifications=(
            CertificationFacts(
                "c1",
                "iso27001",
                "ISO/IEC 27001",
                "DEMO-27001-003",
                "示例认证中心",
                date(2025, 11, 30),
                "claimed",
            ),
        ),
        data_centres=(
            DataCentreFacts(
                "d1",
                "东莞松山湖机房（演示）",
                "东莞",
                "GD",
                "leased",
                8.0,
                "claimed",
                _net("tcp", 10, topo="three_tier", mgmt=False),
            ),
        ),
        sla=SlaFacts(0.995, 120, 48, False, False, "claimed"),
    ),
    VendorFacts(
        name_zh="示例数据港（惠州）科技有限公司【演示】",
        name_en="Example DataPort (Huizhou) Technology [demo]",
        credit_code=_code("91441300MA5DEM004"),
        registered_capital_cny=Decimal("10000000"),
        founded_year=2019,
        services=frozenset({"idc", "gpu_rental"}),
        licences=(_lic("l1", "豫B1-20199004", {"B11"}, "HA", {"HA"}, date(2029, 1, 31)),),
        icp_filings=(),
        certifications=(),
        data_centres=(
            DataCentreFacts(
                "d1",
                "惠州仲恺机房（演示）",
                "惠州",
                "GD",
                "re_leased",
                12.0,
                "claimed",
                _net("roce", 25, pfc=False, ecn=False, cross=False),
            ),
            DataCentreFacts(
                "d2",
                "深圳宝安机房（演示）",
                "深圳",
                "GD",
                "re_leased",
                10.0,
                "claimed",
                _net("roce", 25, pfc=False, ecn=False, cross=False),
            ),
        ),
        sla=None,
    ),
)


def _save_credential(obj, state: str, user) -> None:  # type: ignore[no-untyped-def]
    if state in ("verified", "rejected"):
        obj.verified_by = user
        from django.utils import timezone

        obj.verified_at = timezone.now()
        obj.verification_note = "演示数据 / demo data"
    obj.full_clean()
    obj.save()


def vendor_from_facts(*, facts: VendorFacts, team, user, note: str = "") -> Vendor:  # type: ignore[no-untyped-def]
    """Create a vendor with every credential of `facts` (used by the demo loader only)."""
    vendor = Vendor(
        team=team,
        name_zh=facts.name_zh,
        name_en=facts.name_en,
        credit_code=facts.credit_code or "",
        registered_capital_cny=facts.registered_capital_cny,
        founded_year=facts.founded_year,
        services=sorted(facts.services),
        is_demo=True,
        notes=note,
    )
    vendor.full_clean()
    vendor.save()
    for lic in facts.licences:
        national = lic.issuer_scope == "national"
        obj = Licence(
            vendor=vendor,
            number=lic.number,
            business_codes=sorted(lic.business_codes),
            issuer_scope=IssuerScope.NATIONAL if national else IssuerScope.PROVINCIAL,
            issuer_province="" if national or not lic.issuer_scope else lic.issuer_scope,
            coverage_regions=sorted(lic.coverage_regions),
            valid_from=lic.valid_from,
            valid_until=lic.valid_until,
            state=lic.state,
        )
        _save_credential(obj, lic.state, user)
    for icp in facts.icp_filings:
        _save_credential(
            IcpFiling(vendor=vendor, number=icp.number, state=icp.state), icp.state, user
        )
    for c in facts.certifications:
        obj = Certification(
            vendor=vendor,
            kind=c.kind,
            name=c.name,
            number=c.number,
            issuer=c.issuer,
            valid_until=c.valid_until,
            state=c.state,
        )
        _save_credential(obj, c.state, user)
    for d in facts.data_centres:
        dc = DataCentre(
            vendor=vendor,
            name=d.name,
            city=d.city,
            province=d.province or "",
            ownership=d.ownership,
            state=d.state,
            power_per_rack_kw=None
            if d.power_per_rack_kw is None
            else Decimal(str(d.power_per_rack_kw)),
        )
        _save_credential(dc, d.state, user)
        if d.network:
            n = d.network
            net = NetworkProfile(
                data_centre=dc,
                fabric=n.fabric,
                pfc=n.pfc,
                ecn=n.ecn,
                dcqcn=n.dcqcn,
                topology=n.topology,
                mgmt_separated=n.mgmt_separated,
                nic_gbps=None if n.nic_gbps is None else Decimal(str(n.nic_gbps)),
                nics_per_node=1 if n.nic_gbps else None,
                dedicated_cross_site=n.dedicated_cross_site,
                state=n.state,
            )
            _save_credential(net, n.state, user)
    if facts.sla:
        s = facts.sla
        availability = s.availability
        if availability is not None and availability > 1:
            availability = availability / 100
        sla = SlaTerms(
            vendor=vendor,
            availability=None if availability is None else Decimal(str(availability)),
            response_minutes=s.response_minutes,
            hw_replacement_hours=None
            if s.hw_replacement_hours is None
            else Decimal(str(s.hw_replacement_hours)),
            bandwidth_in_contract=s.bandwidth_in_contract,
            compensation_clause=s.compensation_clause,
            state=s.state,
        )
        _save_credential(sla, s.state, user)
    return vendor_refresh_findings(vendor=vendor)


def load(*, team, user) -> list[Vendor]:  # type: ignore[no-untyped-def]
    """Demo loader hook called by `manage.py demo_setup`: fictional vendors only, plainly marked.

    The seed articles' vendors are real companies the articles cite favourably; the demo shows
    the red flags their claims would raise on fictional look-alikes
    (`domain.seed_vendor_claims.DEMO_PATTERN_VENDORS`), never on their names."""
    vendors = []
    note = "虚构的演示厂商 / fictional demo vendor"
    for facts in FICTIONAL_VENDORS:
        vendors.append(vendor_from_facts(facts=facts, team=team, user=user, note=note))
    pattern_note = (
        "虚构的演示厂商：其声称的资质与种子文章中的常见问题相同，均未经核实。"
        " / Fictional demo vendor: its claims repeat problems seen in the seed articles; "
        "unverified."
    )
    for facts in DEMO_PATTERN_VENDORS:
        vendors.append(vendor_from_facts(facts=facts, team=team, user=user, note=pattern_note))
    return vendors
