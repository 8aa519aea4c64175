"""Thresholds, the evaluation context and the small helpers every rule module shares."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from domain.credentials import (
    BUSINESS_CODES,
    REJECTED,
    VERIFIED,
    CredentialFormatError,
    DataCentreFacts,
    Finding,
    LicenceFacts,
    LicenceNumber,
    VendorFacts,
    business_code_class,
    fold_credential,
    parse_licence_number,
)
from domain.credentials_rules.catalogue import CATALOGUE
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


def _state(kind: str, subject: str, state: str, name: str = "") -> Iterator[Finding]:
    """The verification finding of one record, naming it (three certificates only claimed must
    read as three different findings)."""
    name = name.strip() or "—"
    if state == REJECTED:
        yield flag(f"{kind}_rejected", subject, name=name)
    elif state != VERIFIED:
        yield flag(f"{kind}_unverified", subject, name=name)


def _services(services: Iterable[str]) -> dict[str, str]:
    names = [_SERVICE_NAMES[s] for s in sorted(services)]
    return {
        "services_en": ", ".join(n[0] for n in names),
        "services_zh": "、".join(n[1] for n in names),
    }


def _province(code: str) -> dict[str, str]:
    province = province_by_code(code)
    return {"en": province.en, "zh": province.zh} if province else {"en": code, "zh": code}
