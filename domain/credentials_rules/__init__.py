"""The due-diligence red-flag rules behind :func:`domain.credentials.check_vendor`.

Each finding code has exactly one severity and one bilingual text, kept together in ``_CATALOGUE``
so a reviewer can read every rule's wording in one place; the rule functions only decide when a
code applies and fill in the details.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from domain.credentials import (
    BUSINESS_CODES,
    REJECTED,
    VENDOR,
    VERIFIED,
    CertificationFacts,
    CredentialFormatError,
    DataCentreFacts,
    Finding,
    LicenceFacts,
    LicenceNumber,
    NetworkFacts,
    Severity,
    SlaFacts,
    VendorFacts,
    business_code_class,
    fold_credential,
    normalize_credit_code,
    parse_icp_filing,
    parse_licence_number,
)
from domain.messages import Message
from domain.regions import province_by_code

EXPIRY_WARNING_DAYS = 90
# NVIDIA publishes about 6.5 kW maximum system power for a DGX A100 and 10.2 kW for a DGX H100:
# below 10 kW a rack cannot run even one 8-GPU H100 server at full load.
RACK_POWER_MIN_KW = 10.0
# DOMAIN.md §2: 25G between servers is the floor for multi-node training, 50G for 8×A100/H100.
NIC_FLOOR_GBPS = 25.0
NIC_8GPU_GBPS = 50.0
SLA_MIN_AVAILABILITY_PERCENT = 99.9
SLA_MAX_HW_REPLACEMENT_HOURS = 24.0
SLA_MAX_RESPONSE_MINUTES = 60  # the seed asks for a response "within the hour" (小时内响应)
YOUNG_COMPANY_YEARS = 3
# 《电信业务经营许可管理办法》: 1 million CNY registered capital for business inside one province,
# 10 million CNY for nationwide or cross-regional business.
CAPITAL_MIN_PROVINCIAL_CNY = Decimal(1_000_000)
CAPITAL_MIN_CROSS_REGIONAL_CNY = Decimal(10_000_000)

IDC_SERVICES = frozenset({"idc", "gpu_rental", "cloud", "bare_metal"})
REGULATED_SERVICES = IDC_SERVICES | {"cdn", "isp"}
_SERVICE_NAMES = {
    "idc": ("IDC / data-centre space", "IDC 机房托管"),
    "gpu_rental": ("GPU server rental", "GPU 服务器租用"),
    "cloud": ("cloud services", "云服务"),
    "bare_metal": ("bare-metal servers", "裸金属服务器"),
    "cdn": ("CDN", "CDN 内容分发"),
    "isp": ("Internet access", "互联网接入"),
}


def flag(code: str, subject: str, **fields: object) -> Finding:
    """A finding for a catalogued code, its texts filled in with ``fields``."""
    severity, en, zh = CATALOGUE[code]
    message = Message(code, en.format(**fields), zh.format(**fields))
    return Finding(code, severity, subject, message)


@dataclass(frozen=True)
class _Licence:
    facts: LicenceFacts
    number: LicenceNumber
    codes: frozenset[str]  # recorded codes that exist and fit the number's classes


@dataclass(frozen=True)
class _Context:
    facts: VendorFacts
    today: date
    licences: tuple[_Licence, ...]  # usable: parseable, not rejected, not expired
    data_centres: tuple[DataCentreFacts, ...]  # not rejected


def _usable_licence(lic: LicenceFacts, today: date) -> _Licence | None:
    if lic.state == REJECTED or (lic.valid_until is not None and lic.valid_until < today):
        return None
    try:
        number = parse_licence_number(lic.number)
    except CredentialFormatError:
        return None
    codes = frozenset(fold_credential(c) for c in lic.business_codes)
    fitting = frozenset(
        c for c in codes if c in BUSINESS_CODES and number.has_class(business_code_class(c))
    )
    return _Licence(lic, number, fitting)


def _context(facts: VendorFacts, today: date) -> _Context:
    usable = (_usable_licence(lic, today) for lic in facts.licences)
    return _Context(
        facts,
        today,
        tuple(u for u in usable if u is not None),
        tuple(dc for dc in facts.data_centres if dc.state != REJECTED),
    )


def _state(kind: str, subject: str, state: str) -> Iterator[Finding]:
    if state == REJECTED:
        yield flag(f"{kind}_rejected", subject)
    elif state != VERIFIED:
        yield flag(f"{kind}_unverified", subject)


def _services(services: Iterable[str]) -> dict[str, str]:
    names = [_SERVICE_NAMES[s] for s in sorted(services)]
    return {
        "services_en": ", ".join(n[0] for n in names),
        "services_zh": "、".join(n[1] for n in names),
    }


def _province(code: str) -> dict[str, str]:
    province = province_by_code(code)
    return {"en": province.en, "zh": province.zh} if province else {"en": code, "zh": code}


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
        yield from _state("licence", lic.ref, lic.state)
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
        yield from _state("icp_filing", filing.ref, filing.state)
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


# --- certifications -----------------------------------------------------------------------------

_CERT_EXPIRY: dict[str, tuple[str, str | None]] = {
    "iso27001": ("iso27001_expired", "iso27001_expiring"),
    "iso9001": ("iso9001_expired", "iso9001_expiring"),
    "other": ("certificate_expired", None),
}


def _certificate(cert: CertificationFacts, today: date) -> Iterator[Finding]:
    if not cert.number.strip() or not cert.issuer.strip():
        yield flag("certificate_details_missing", cert.ref, name=cert.name)
    expired, expiring = _CERT_EXPIRY.get(cert.kind, _CERT_EXPIRY["other"])
    until = cert.valid_until
    if until is None:
        yield flag("certificate_validity_unknown", cert.ref, name=cert.name)
    elif until < today:
        yield flag(expired, cert.ref, name=cert.name, until=until)
    elif expiring and (until - today).days <= EXPIRY_WARNING_DAYS:
        yield flag(expiring, cert.ref, name=cert.name, until=until, days=(until - today).days)


def _certifications(ctx: _Context) -> Iterator[Finding]:
    held: set[str] = set()
    for cert in ctx.facts.certifications:
        yield from _state("certification", cert.ref, cert.state)
        if cert.state == REJECTED:
            continue
        held.add(cert.kind)
        yield from _certificate(cert, ctx.today)
    for kind in ("iso27001", "iso9001"):
        if kind not in held:
            yield flag(f"{kind}_missing", VENDOR)


# --- data centres and networks ------------------------------------------------------------------

_OWNERSHIP_FLAGS = {
    "re_leased": "data_centre_re_leased",
    "leased": "data_centre_leased",
    "unknown": "data_centre_ownership_unknown",
}


def _data_centre(dc: DataCentreFacts) -> Iterator[Finding]:
    if dc.ownership != "self_operated":
        code = _OWNERSHIP_FLAGS.get(dc.ownership, "data_centre_ownership_unknown")
        yield flag(code, dc.ref, name=dc.name)
    if not dc.province:
        yield flag("data_centre_province_unknown", dc.ref, name=dc.name)
    power = dc.power_per_rack_kw
    if power is None:
        yield flag("data_centre_power_unknown", dc.ref, name=dc.name)
    elif power < RACK_POWER_MIN_KW:
        yield flag(
            "data_centre_power_low", dc.ref, name=dc.name, kw=power, min_kw=RACK_POWER_MIN_KW
        )
    if dc.network is None:
        yield flag("network_profile_missing", dc.ref, name=dc.name)


def _data_centres(ctx: _Context) -> Iterator[Finding]:
    for dc in ctx.facts.data_centres:
        yield from _state("data_centre", dc.ref, dc.state)
        if dc.state == REJECTED:
            continue
        yield from _data_centre(dc)
        if dc.network is not None:
            yield from _state("network", dc.ref, dc.network.state)
            if dc.network.state != REJECTED:
                yield from _network(dc.ref, dc.network)


# Each lossless-Ethernet feature: the code when the vendor says it is off, and when nobody knows.
_ROCE_FEATURES = (
    ("pfc", "roce_without_pfc", "roce_pfc_unknown"),
    ("ecn", "roce_without_ecn", "roce_ecn_unknown"),
    ("dcqcn", "roce_without_dcqcn", "roce_dcqcn_unknown"),
)
_FABRIC_FLAGS = {"tcp": "network_tcp_only"}
_TOPOLOGY_FLAGS = {"three_tier": "network_three_tier", "unknown": "network_topology_unknown"}


def _network(ref: str, net: NetworkFacts) -> Iterator[Finding]:
    if net.fabric == "roce":
        for attr, off_code, unknown_code in _ROCE_FEATURES:
            value = getattr(net, attr)
            if value is not True:
                yield flag(off_code if value is False else unknown_code, ref)
    elif net.fabric not in ("ib", "roce", "tcp"):
        yield flag("network_fabric_unknown", ref, fabric=net.fabric)
    if net.fabric in _FABRIC_FLAGS:
        yield flag(_FABRIC_FLAGS[net.fabric], ref)
    if net.topology != "spine_leaf":
        yield flag(_TOPOLOGY_FLAGS.get(net.topology, "network_topology_unknown"), ref)
    if net.mgmt_separated is not True:
        code = (
            "network_mgmt_not_separated" if net.mgmt_separated is False else "network_mgmt_unknown"
        )
        yield flag(code, ref)
    yield from _nic_speed(ref, net.nic_gbps)


def _nic_speed(ref: str, gbps: float | None) -> Iterator[Finding]:
    if gbps is None:
        yield flag("network_nic_unknown", ref)
    elif gbps < NIC_FLOOR_GBPS:
        yield flag("network_nic_below_training_floor", ref, gbps=gbps, floor=NIC_FLOOR_GBPS)
    elif gbps < NIC_8GPU_GBPS:
        yield flag("network_nic_below_8gpu", ref, gbps=gbps, recommended=NIC_8GPU_GBPS)


def _cross_site(ctx: _Context) -> Iterator[Finding]:
    if len(ctx.data_centres) < 2:
        return
    networks = [dc.network for dc in ctx.data_centres if dc.network is not None]
    if not any(net.dedicated_cross_site is True for net in networks):
        yield flag("cross_site_links_missing", VENDOR, sites=len(ctx.data_centres))


# --- SLA ----------------------------------------------------------------------------------------

# Contract clauses: the code when the clause is known to be absent, and when nobody has checked.
_SLA_CLAUSES = (
    ("bandwidth_in_contract", "sla_bandwidth_not_in_contract", "sla_bandwidth_unknown"),
    ("compensation_clause", "sla_no_compensation", "sla_compensation_unknown"),
)


def _sla_figures(sla: SlaFacts) -> Iterator[Finding]:
    if sla.availability is None:
        yield flag("sla_availability_unknown", VENDOR)
    else:
        percent = sla.availability * 100 if sla.availability <= 1 else sla.availability
        if percent < SLA_MIN_AVAILABILITY_PERCENT:
            minimum = SLA_MIN_AVAILABILITY_PERCENT
            yield flag("sla_availability_low", VENDOR, value=percent, minimum=minimum)
    hours = sla.hw_replacement_hours
    if hours is None:
        yield flag("sla_hw_replacement_unknown", VENDOR)
    elif hours > SLA_MAX_HW_REPLACEMENT_HOURS:
        yield flag("sla_hw_replacement_slow", VENDOR, hours=hours, max=SLA_MAX_HW_REPLACEMENT_HOURS)
    minutes = sla.response_minutes
    if minutes is None:
        yield flag("sla_response_unknown", VENDOR)
    elif minutes > SLA_MAX_RESPONSE_MINUTES:
        yield flag("sla_response_slow", VENDOR, minutes=minutes, max=SLA_MAX_RESPONSE_MINUTES)


def _sla(ctx: _Context) -> Iterator[Finding]:
    sla = ctx.facts.sla
    if sla is None:
        yield flag("sla_missing", VENDOR)
        return
    yield from _state("sla", VENDOR, sla.state)
    if sla.state == REJECTED:
        return
    for attr, absent_code, unknown_code in _SLA_CLAUSES:
        value = getattr(sla, attr)
        if value is not True:
            yield flag(absent_code if value is False else unknown_code, VENDOR)
    yield from _sla_figures(sla)


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


# --- catalogue: severity and wording of every finding code --------------------------------------

_C, _W, _I = Severity.CRITICAL, Severity.WARNING, Severity.INFO
_ASK_LICENCE = "Ask for a copy of the licence with its annex of business codes and regions."
_ASK_LICENCE_ZH = "请索取许可证正本复印件及列明业务种类和覆盖范围的附页。"

CATALOGUE: dict[str, tuple[Severity, str, str]] = {
    # the vendor entity
    "credit_code_missing": (
        _W,
        "No unified social credit code is on file, so the legal entity cannot be identified. "
        "Ask for the business licence (营业执照) and check the code in the National Enterprise "
        "Credit Information Publicity System.",
        "未登记统一社会信用代码，无法确认签约主体。请索取营业执照，并在国家企业信用信息公示系统"
        "中核实。",
    ),
    "credit_code_invalid": (
        _C,
        "The credit code is invalid: {detail_en}",
        "统一社会信用代码无效：{detail_zh}",
    ),
    "founded_year_unknown": (
        _I,
        "The founding year is unknown; take it from the business licence, not from marketing.",
        "成立年份未知，请以营业执照为准，而非宣传材料。",
    ),
    "founded_year_in_future": (
        _W,
        "The recorded founding year {year} lies in the future; correct it from the business "
        "licence.",
        "登记的成立年份 {year} 晚于今天，请按营业执照更正。",
    ),
    "company_young": (
        _I,
        "The company was founded in {year}, less than {years} years ago: ask for references from "
        "current training customers and check who owns the data centres.",
        "公司成立于 {year} 年，不足 {years} 年。请索取现有训练客户的案例，并核实机房归属。",
    ),
    "registered_capital_unknown": (
        _I,
        "Registered capital is unknown; read it from the business licence or the credit system.",
        "注册资本未知，请以营业执照或信用公示系统为准。",
    ),
    "registered_capital_low": (
        _I,
        "Registered capital is only {capital:,.0f} CNY; weigh the vendor's ability to pay SLA "
        "compensation and keep hardware spares.",
        "注册资本仅 {capital:,.0f} 元，请评估其赔付能力和备件储备能力。",
    ),
    "registered_capital_below_licence_minimum": (
        _W,
        "Registered capital of {capital:,.0f} CNY is below the {minimum:,.0f} CNY the licensing "
        "rules require for the licence claimed, which makes the licence claim doubtful. Check the "
        "licence in the MIIT licence system.",
        "注册资本 {capital:,.0f} 元低于所称许可证要求的最低 {minimum:,.0f} 元，许可证真实性存疑。"
        "请在工信部电信业务市场综合管理信息系统中核查。",
    ),
    # licences
    "licence_number_missing": (
        _C,
        "A licence is claimed without a number, so nobody can check it. " + _ASK_LICENCE,
        "声称持有许可证但未提供编号，无从核查。" + _ASK_LICENCE_ZH,
    ),
    "licence_is_icp_filing": (
        _C,
        "The 'licence' {number} is an ICP filing number. An ICP filing only registers a website; "
        "it is not a telecom business licence and proves nothing about running a data centre. "
        "Ask for the B1 licence number (like B1-20180001) and a copy of the licence.",
        "所称“许可证”{number}实为 ICP 备案号。ICP 备案只表示网站已备案，不是电信业务经营许可证，"
        "不能证明其具备数据中心经营资质。请索取 B1 类许可证编号（如 B1-20180001）及复印件。",
    ),
    "licence_unparseable": (
        _C,
        "The licence number {number} cannot be a real licence number: {detail_en}",
        "许可证编号 {number} 不可能是有效编号：{detail_zh}",
    ),
    "licence_dates_inverted": (
        _C,
        "The licence is recorded as valid until {until}, before it became valid on {start}; "
        "the dates are wrong or the document is. Re-read them from the licence itself.",
        "许可证到期日 {until} 早于生效日 {start}，日期或证件有误，请对照许可证原件重新录入。",
    ),
    "licence_not_yet_valid": (
        _W,
        "The licence only becomes valid on {start}; until then the vendor may not use it.",
        "该许可证自 {start} 起才生效，此前不得据此经营。",
    ),
    "licence_validity_unknown": (
        _W,
        "The licence's expiry date is not recorded (licences run five years). " + _ASK_LICENCE,
        "未登记许可证有效期（许可证有效期为五年）。" + _ASK_LICENCE_ZH,
    ),
    "licence_expired": (
        _C,
        "The licence expired on {until}. Ask for the renewed licence before signing.",
        "该许可证已于 {until} 到期，签约前请索取续期后的许可证。",
    ),
    "licence_expiring": (
        _W,
        "The licence expires on {until}, in {days} days. Ask for proof that renewal is under way.",
        "该许可证将于 {until} 到期（还剩 {days} 天），请索取续期申请材料。",
    ),
    "licence_business_codes_missing": (
        _W,
        "No business codes are recorded for licence {number}, so it is unknown whether it covers "
        "IDC (B11). " + _ASK_LICENCE,
        "许可证 {number} 未登记业务种类，无法判断是否包含 IDC（B11）。" + _ASK_LICENCE_ZH,
    ),
    "licence_business_codes_unknown": (
        _W,
        "Business codes {codes} do not exist in the telecom business catalogue; correct them from "
        "the licence annex.",
        "业务代码 {codes} 不在《电信业务分类目录》中，请按许可证附页更正。",
    ),
    "licence_codes_inconsistent": (
        _C,
        "Licence {number} grants only class {classes}, yet business codes {codes} are claimed for "
        "it (B11–B14 need class B1, B21–B26 class B2). " + _ASK_LICENCE,
        "许可证 {number} 仅含 {classes} 类，却声称包含业务 {codes}（B11–B14 须为 B1 类，"
        "B21–B26 须为 B2 类）。" + _ASK_LICENCE_ZH,
    ),
    "licence_issuer_mismatch": (
        _W,
        "The issuer is recorded as '{scope}', but number {number} shows it was issued by "
        "'{expected}'. Correct the record from the licence.",
        "登记的发证机关范围为“{scope}”，但编号 {number} 显示发证范围为“{expected}”，请按原件更正。",
    ),
    "licence_year_in_future": (
        _C,
        "Licence number {number} claims to be issued in {year}, which has not happened yet: "
        "the number is invented or mistyped.",
        "许可证编号 {number} 显示发证年份为 {year} 年，晚于今天，编号系编造或录入错误。",
    ),
    "licence_unverified": (
        _W,
        "The licence is only claimed. Look it up in the MIIT licence system (电信业务市场综合"
        "管理信息系统) and record who checked it and when.",
        "该许可证仅为供应商声称，请在工信部电信业务市场综合管理信息系统中查验，并记录查验人和时间。",
    ),
    "licence_rejected": (
        _C,
        "A reviewer rejected this licence: treat the vendor as unlicensed until a valid one is "
        "shown.",
        "该许可证已被审核驳回，在出示有效许可证前应视为无证经营。",
    ),
    "licence_missing": (
        _C,
        "The vendor sells {services_en} but has no usable value-added telecom business licence on "
        "file (none, or only rejected, expired or invalid ones). Renting servers in a data centre "
        "needs a B1 licence with B11 (IDC). Ask for the licence number and a copy.",
        "供应商经营{services_zh}，却没有可用的增值电信业务经营许可证（未提供，或已驳回、过期、"
        "编号无效）。出租机房服务器须持有含 B11（IDC）的 B1 类许可证。请索取许可证编号及复印件。",
    ),
    "icp_filing_is_not_a_licence": (
        _I,
        "ICP filing {number} does not replace the missing licence: a filing only registers the "
        "vendor's website.",
        "ICP 备案 {number} 不能替代许可证：备案只表示供应商的网站已登记。",
    ),
    "licence_b2_only_for_idc": (
        _C,
        "The vendor sells {services_en} but holds only class B2 ({numbers}). B2 (for example B25 "
        "information services) covers websites and online services, not running a data centre; "
        "that needs class B1 with B11 (IDC). Ask for a B1 licence.",
        "供应商经营{services_zh}，但只持有 B2 类许可证（{numbers}）。B2 类（如 B25 信息服务）"
        "只涵盖网站和在线服务，不涵盖数据中心经营，后者须持有含 B11（IDC）的 B1 类许可证。"
        "请索取 B1 类许可证。",
    ),
    "licence_b11_missing": (
        _C,
        "The vendor sells {services_en}, but no licence on file includes B11 (Internet data "
        "centre), which renting out data-centre space and servers requires. " + _ASK_LICENCE,
        "供应商经营{services_zh}，但所持许可证均不含 B11（互联网数据中心业务），"
        "出租机房和服务器须具备该业务。" + _ASK_LICENCE_ZH,
    ),
    "licence_b12_missing": (
        _W,
        "The vendor sells CDN, but no licence on file includes B12 (content delivery network); "
        "a 'full IDC/CDN/ISP licence' means B11+B12+B14. " + _ASK_LICENCE,
        "供应商提供 CDN 服务，但许可证不含 B12（内容分发网络业务）；"
        "“IDC/CDN/ISP 全牌照”应包含 B11+B12+B14。" + _ASK_LICENCE_ZH,
    ),
    "licence_b14_missing": (
        _W,
        "The vendor sells Internet access, but no licence on file includes B14 (ISP); a 'full "
        "IDC/CDN/ISP licence' means B11+B12+B14. " + _ASK_LICENCE,
        "供应商提供互联网接入，但许可证不含 B14（互联网接入服务业务）；"
        "“IDC/CDN/ISP 全牌照”应包含 B11+B12+B14。" + _ASK_LICENCE_ZH,
    ),
    "licence_newer_than_history": (
        _I,
        "The oldest licence, {number}, was first issued in {year}, but the vendor claims to "
        "operate since {founded}. Ask under which licence and entity the earlier years ran.",
        "最早的许可证 {number} 于 {year} 年首次核发，而供应商自称 {founded} 年起经营。"
        "请询问此前年份以哪一主体、哪一许可证经营。",
    ),
    "licence_other_province": (
        _C,
        "Licence {number} was issued by {lic_en} and is valid only there, but the vendor has a "
        "data centre in {dc_en} that no other licence covers. Ask for a cross-regional B1 "
        "licence, or a {dc_en} licence, listing that data centre.",
        "许可证 {number} 由{lic_zh}核发，仅在{lic_zh}有效，但供应商在{dc_zh}的机房不在任何许可证"
        "覆盖范围内。请索取覆盖该机房的跨地区 B1 类许可证或{dc_zh}许可证。",
    ),
    "licence_region_not_covered": (
        _W,
        "Cross-regional licence {number} does not list {dc_en}, where the vendor has a data "
        "centre. Ask for the licence annex showing the covered regions.",
        "跨地区许可证 {number} 的覆盖范围不含{dc_zh}，而供应商在该地有机房。"
        "请索取列明覆盖地区的许可证附页。",
    ),
    # ICP filings
    "icp_filing_unverified": (
        _I,
        "The ICP filing is only claimed; look it up in the MIIT ICP filing system (it shows the "
        "registered entity, which should match the vendor).",
        "该 ICP 备案仅为声称，请在工信部 ICP 备案管理系统查询，核对备案主体是否与供应商一致。",
    ),
    "icp_filing_rejected": (
        _W,
        "A reviewer rejected this ICP filing: it does not belong to the vendor or does not exist.",
        "该 ICP 备案已被审核驳回：备案不属于该供应商或并不存在。",
    ),
    "icp_filing_is_licence_number": (
        _W,
        "{number} was entered as an ICP filing but is a telecom business licence number; record "
        "it as a licence so that it is checked as one.",
        "{number} 被录入为 ICP 备案，实为电信业务经营许可证编号，请作为许可证录入以便核查。",
    ),
    "icp_filing_unparseable": (
        _W,
        "ICP filing {number} is not a valid filing number: {detail_en}",
        "ICP 备案号 {number} 无效：{detail_zh}",
    ),
    # certifications
    "certificate_details_missing": (
        _W,
        "{name} is claimed without a certificate number or certification body, so it cannot be "
        "checked. Ask for the certificate and verify it on the CNCA certification information "
        "platform (全国认证认可信息公共服务平台).",
        "声称持有{name}，但未提供证书编号或认证机构，无法核查。"
        "请索取证书，并在全国认证认可信息公共服务平台查验。",
    ),
    "certificate_validity_unknown": (
        _I,
        "The expiry date of {name} is not recorded; take it from the certificate.",
        "未登记{name}的有效期，请按证书录入。",
    ),
    "certificate_expired": (
        _I,
        "{name} expired on {until}.",
        "{name}已于 {until} 过期。",
    ),
    "iso27001_missing": (
        _W,
        "No ISO 27001 (information security) certificate is on file. Your training data and "
        "models sit on the vendor's machines: ask for the certificate or their security controls.",
        "未登记 ISO 27001（信息安全管理）证书。训练数据和模型将存放在供应商机器上，"
        "请索取证书或其安全管理措施说明。",
    ),
    "iso27001_expired": (
        _C,
        "{name} (ISO 27001) expired on {until}: information security is no longer certified. Ask "
        "for the renewed certificate.",
        "{name}（ISO 27001）已于 {until} 过期，信息安全管理不再受认证，请索取换发后的证书。",
    ),
    "iso27001_expiring": (
        _W,
        "{name} (ISO 27001) expires on {until}, in {days} days; ask for the surveillance or "
        "recertification audit date.",
        "{name}（ISO 27001）将于 {until} 到期（还剩 {days} 天），请询问监督审核或再认证时间。",
    ),
    "iso9001_missing": (
        _I,
        "No ISO 9001 (quality management) certificate is on file.",
        "未登记 ISO 9001（质量管理体系）证书。",
    ),
    "iso9001_expired": (
        _W,
        "{name} (ISO 9001) expired on {until}; ask for the renewed certificate.",
        "{name}（ISO 9001）已于 {until} 过期，请索取换发后的证书。",
    ),
    "iso9001_expiring": (
        _I,
        "{name} (ISO 9001) expires on {until}, in {days} days.",
        "{name}（ISO 9001）将于 {until} 到期（还剩 {days} 天）。",
    ),
    "certification_unverified": (
        _I,
        "The certificate is only claimed; verify it on the CNCA certification information "
        "platform.",
        "该证书仅为声称，请在全国认证认可信息公共服务平台查验。",
    ),
    "certification_rejected": (
        _C,
        "A reviewer rejected this certificate: it is fake, expired or belongs to someone else.",
        "该证书已被审核驳回：证书虚假、过期或不属于该供应商。",
    ),
    # data centres
    "data_centre_re_leased": (
        _C,
        "{name} is re-leased from a third party (转租). The re-leaser controls neither the "
        "bandwidth nor repair response; ask who operates the room and get their commitments in "
        "the contract, or prefer a licensed self-operated data centre.",
        "{name}为转租第三方机房，转租方既不掌控带宽也不掌控故障响应。请问清实际运营方并将其承诺写入"
        "合同，或优先选择持牌自营机房。",
    ),
    "data_centre_leased": (
        _I,
        "{name} is leased space in someone else's data centre; ask who handles power, cooling and "
        "network faults and how fast.",
        "{name}为租用他人机房空间，请问清供电、制冷和网络故障由谁处理、响应多快。",
    ),
    "data_centre_ownership_unknown": (
        _W,
        "It is unknown whether {name} is self-operated or re-leased. Ask for the data-centre "
        "operator's name and the vendor's contract with it.",
        "{name}是自营还是转租尚不清楚，请索取机房运营方名称及供应商与其签订的合同。",
    ),
    "data_centre_province_unknown": (
        _I,
        "The province of {name} is not recorded, so licence coverage cannot be checked.",
        "未登记{name}所在省份，无法核对许可证覆盖范围。",
    ),
    "data_centre_power_unknown": (
        _I,
        "Power per rack at {name} is unknown; 8-GPU A100/H100 servers need about 6.5–10.2 kW "
        "each at full load. Ask for the contracted kW per rack.",
        "{name}单机柜功率未知；8 卡 A100/H100 服务器满载约需 6.5–10.2 kW。请询问合同约定的"
        "单机柜功率。",
    ),
    "data_centre_power_low": (
        _W,
        "Racks at {name} supply {kw:g} kW, below {min_kw:g} kW: not even one 8-GPU H100 server "
        "(about 10.2 kW) runs at full load. Ask for high-power racks or fewer servers per rack.",
        "{name}单机柜功率为 {kw:g} kW，低于 {min_kw:g} kW，连一台 8 卡 H100 服务器（约 10.2 kW）"
        "都无法满载运行。请要求高功率机柜或减少每柜服务器数量。",
    ),
    "data_centre_unverified": (
        _I,
        "The data centre is only claimed; visit it or ask for the operator contract and photos.",
        "该机房仅为声称，请实地考察或索取机房运营合同及现场照片。",
    ),
    "data_centre_rejected": (
        _C,
        "A reviewer rejected this data centre claim: the vendor does not have it as described.",
        "该机房信息已被审核驳回：供应商并不具备所述机房。",
    ),
    # networks
    "network_profile_missing": (
        _W,
        "Nothing is known about the training network at {name}: ask for the fabric (IB/RoCE), "
        "NIC speed, topology and lossless settings before comparing prices.",
        "{name}的训练网络信息空缺，比价前请问清组网方式（IB/RoCE）、网卡速率、拓扑和无损配置。",
    ),
    "network_unverified": (
        _I,
        "The network profile is only claimed; verify it with ib_write_bw / iperf3 runs across "
        "many server pairs at once during the trial.",
        "网络配置仅为声称，请在测试期用 ib_write_bw / iperf3 做多节点并发测试验证。",
    ),
    "network_rejected": (
        _C,
        "A reviewer rejected this network profile: the benchmarks or inspection contradicted it.",
        "该网络配置已被审核驳回：实测或核查结果与之不符。",
    ),
    "roce_without_pfc": (
        _C,
        "RoCE runs without PFC (priority flow control): under synchronized bursts (TCP incast) "
        "the switches drop packets and throughput collapses. Ask for PFC to be enabled.",
        "RoCE 网络未启用 PFC（优先级流控），同步突发流量（TCP Incast）时交换机丢包，"
        "吞吐断崖式下降。请要求启用 PFC。",
    ),
    "roce_pfc_unknown": (
        _W,
        "It is unknown whether PFC is enabled on the RoCE network; without it RoCE collapses "
        "under congestion. Ask for the switch configuration.",
        "不清楚 RoCE 网络是否启用 PFC，未启用时拥塞下性能会崩溃。请索取交换机配置。",
    ),
    "roce_without_ecn": (
        _C,
        "RoCE runs without ECN (explicit congestion notification): senders are never told to "
        "slow down, so congestion turns into pauses and loss. Ask for ECN to be enabled.",
        "RoCE 网络未启用 ECN（显式拥塞通知），发送端无法及时降速，拥塞会导致暂停和丢包。"
        "请要求启用 ECN。",
    ),
    "roce_ecn_unknown": (
        _W,
        "It is unknown whether ECN is enabled on the RoCE network. Ask for the switch "
        "configuration.",
        "不清楚 RoCE 网络是否启用 ECN，请索取交换机配置。",
    ),
    "roce_without_dcqcn": (
        _W,
        "RoCE runs without DCQCN congestion control; ask which congestion control is used and who "
        "tunes its parameters.",
        "RoCE 网络未启用 DCQCN 拥塞控制，请问清采用何种拥塞控制、由谁调参。",
    ),
    "roce_dcqcn_unknown": (
        _I,
        "It is unknown whether DCQCN (or another congestion control) runs on the RoCE network; ask "
        "who tunes the congestion-control parameters.",
        "不清楚 RoCE 网络是否启用 DCQCN 等拥塞控制，请询问拥塞控制参数由谁调优。",
    ),
    "network_fabric_unknown": (
        _W,
        "The network fabric '{fabric}' is not InfiniBand, RoCE or TCP; ask what it is.",
        "网络类型“{fabric}”不属于 InfiniBand、RoCE 或 TCP，请问清具体方案。",
    ),
    "network_tcp_only": (
        _W,
        "Nodes talk over plain TCP/Ethernet without RDMA: gradient sync will be slow for "
        "multi-node training. Ask for RoCE or InfiniBand.",
        "节点间仅为普通 TCP/以太网，无 RDMA，多机训练时梯度同步会很慢。请要求 RoCE 或 InfiniBand。",
    ),
    "network_three_tier": (
        _W,
        "The network is a traditional three-tier design, which bottlenecks east-west traffic "
        "between GPU servers. Ask for a spine-leaf fabric.",
        "网络采用传统三层架构，GPU 服务器间横向流量易形成瓶颈。请要求 Spine-Leaf 架构。",
    ),
    "network_topology_unknown": (
        _I,
        "The network topology is unknown; ask whether it is spine-leaf.",
        "网络拓扑未知，请问清是否为 Spine-Leaf 架构。",
    ),
    "network_mgmt_not_separated": (
        _W,
        "Management and training traffic share one network, so monitoring and storage traffic "
        "disturb gradient sync. Ask for separate management and business networks.",
        "管理网与业务（训练）网未隔离，监控和存储流量会干扰梯度同步。请要求管理网和业务网分离。",
    ),
    "network_mgmt_unknown": (
        _I,
        "It is unknown whether the management network is separate from the training network.",
        "不清楚管理网是否与训练业务网隔离。",
    ),
    "network_nic_unknown": (
        _I,
        "The server NIC speed is unknown; ask for port speed and NICs per server (not the data "
        "centre's Internet exit bandwidth).",
        "服务器网卡速率未知，请询问端口速率及每台网卡数量（而非机房出口带宽）。",
    ),
    "network_nic_below_training_floor": (
        _C,
        "Servers connect at {gbps:g}G, below the {floor:g}G floor for multi-node training: "
        "good for inference only, training will stall in communication.",
        "服务器网卡仅 {gbps:g}G，低于多机训练 {floor:g}G 的底线，只适合推理，训练会卡在通信阶段。",
    ),
    "network_nic_below_8gpu": (
        _W,
        "Servers connect at {gbps:g}G; 8-GPU A100/H100 training servers should get "
        "{recommended:g}G or more per server.",
        "服务器网卡为 {gbps:g}G；8 卡 A100/H100 训练机建议每台 {recommended:g}G 起步。",
    ),
    "cross_site_links_missing": (
        _W,
        "The vendor uses {sites} sites but no dedicated cross-site links are confirmed; training "
        "across sites would ride on shared links. Ask for dedicated lines and their bandwidth.",
        "供应商使用 {sites} 个机房，但未确认机房间有专线互联，跨机房训练将走共享链路。"
        "请索取专线及其带宽说明。",
    ),
    # SLA
    "sla_missing": (
        _W,
        "There is no SLA: bandwidth, availability, response and replacement times are promises "
        "only. Ask for a written SLA before signing.",
        "没有 SLA，带宽、可用性、响应和更换时间都只是口头承诺。签约前请索取书面 SLA。",
    ),
    "sla_unverified": (
        _I,
        "The SLA terms are only claimed; check them against the draft contract.",
        "SLA 条款仅为声称，请对照合同草案核实。",
    ),
    "sla_rejected": (
        _C,
        "A reviewer rejected the SLA: the contract does not contain what was claimed.",
        "SLA 已被审核驳回：合同中并无所称条款。",
    ),
    "sla_bandwidth_not_in_contract": (
        _W,
        "The inter-node bandwidth is not written into the contract, so a shortfall cannot be "
        "claimed. Ask for the bandwidth figures in the contract.",
        "节点间带宽未写入合同，带宽不达标时无从追责。请要求将带宽指标写入合同。",
    ),
    "sla_bandwidth_unknown": (
        _I,
        "It is unknown whether the bandwidth is written into the contract.",
        "不清楚带宽是否写入合同。",
    ),
    "sla_no_compensation": (
        _W,
        "The contract has no compensation when bandwidth or availability is missed (超额赔付 / "
        "达标补偿). Ask for a compensation clause.",
        "合同中没有带宽或可用性不达标时的补偿条款（超额赔付 / 达标补偿），请要求增加。",
    ),
    "sla_compensation_unknown": (
        _I,
        "It is unknown whether the contract compensates missed bandwidth or availability.",
        "不清楚合同是否约定不达标补偿。",
    ),
    "sla_availability_unknown": (
        _I,
        "No availability figure is given; ask for the committed availability (99.9% or better).",
        "未给出可用性指标，请索取承诺的可用性（不低于 99.9%）。",
    ),
    "sla_availability_low": (
        _W,
        "The SLA promises {value:g}% availability, below {minimum:g}%: each outage also costs "
        "the restart from the last checkpoint.",
        "SLA 承诺可用性 {value:g}%，低于 {minimum:g}%；每次中断还要从最近的 checkpoint 重新开始。",
    ),
    "sla_hw_replacement_unknown": (
        _I,
        "The hardware replacement time is not stated; ask for it in hours.",
        "未约定硬件更换时限，请要求以小时为单位写明。",
    ),
    "sla_hw_replacement_slow": (
        _W,
        "Failed hardware is replaced within {hours:g} h, slower than {max:g} h: a dead GPU "
        "server idles the whole job meanwhile. Ask for on-site spares.",
        "硬件更换时限为 {hours:g} 小时，超过 {max:g} 小时，期间坏掉的 GPU 服务器会拖停整个任务。"
        "请要求现场备件。",
    ),
    "sla_response_unknown": (
        _I,
        "The fault response time is not stated; ask for a response within the hour.",
        "未约定故障响应时间，请要求一小时内响应。",
    ),
    "sla_response_slow": (
        _W,
        "Faults get a response within {minutes} minutes, slower than {max} minutes; training is "
        "down while nobody responds.",
        "故障响应时间为 {minutes} 分钟，超过 {max} 分钟，无人响应期间训练处于中断状态。",
    ),
}
