"""Vendor facts as the checks see them, the findings they produce, and :func:`check_vendor`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import StrEnum

from domain.messages import Message

VENDOR = "vendor"
CLAIMED, VERIFIED, REJECTED = "claimed", "verified", "rejected"


class Severity(StrEnum):
    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.CRITICAL: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True)
class Finding:
    """One red flag: ``subject`` is the ``ref`` of the record concerned, or ``"vendor"``."""

    code: str
    severity: Severity
    subject: str
    message: Message


@dataclass(frozen=True)
class LicenceFacts:
    ref: str
    number: str
    business_codes: frozenset[str]
    issuer_scope: str | None  # "national" or a province code
    coverage_regions: frozenset[str]  # province codes, or {"national"}
    valid_from: date | None
    valid_until: date | None
    state: str  # "claimed" | "verified" | "rejected"


@dataclass(frozen=True)
class IcpFilingFacts:
    ref: str
    number: str
    state: str


@dataclass(frozen=True)
class CertificationFacts:
    ref: str
    kind: str  # "iso9001" | "iso27001" | "other"
    name: str
    number: str
    issuer: str
    valid_until: date | None
    state: str


@dataclass(frozen=True)
class NetworkFacts:
    fabric: str  # "ib" | "roce" | "tcp"
    pfc: bool | None
    ecn: bool | None
    dcqcn: bool | None
    topology: str  # "spine_leaf" | "three_tier" | "unknown"
    mgmt_separated: bool | None
    nic_gbps: float | None
    dedicated_cross_site: bool | None
    state: str


@dataclass(frozen=True)
class DataCentreFacts:
    ref: str
    name: str
    city: str
    province: str | None
    ownership: str  # "self_operated" | "leased" | "re_leased" | "unknown"
    power_per_rack_kw: float | None
    state: str
    network: NetworkFacts | None


@dataclass(frozen=True)
class SlaFacts:
    availability: float | None  # percent, e.g. 99.9 (a fraction such as 0.999 is also accepted)
    response_minutes: int | None
    hw_replacement_hours: float | None
    bandwidth_in_contract: bool | None
    compensation_clause: bool | None
    state: str


@dataclass(frozen=True)
class VendorFacts:
    name_zh: str
    name_en: str
    credit_code: str | None
    registered_capital_cny: Decimal | None
    founded_year: int | None
    services: frozenset[str]  # subset of {"idc","gpu_rental","cloud","bare_metal","cdn","isp"}
    licences: tuple[LicenceFacts, ...]
    icp_filings: tuple[IcpFilingFacts, ...]
    certifications: tuple[CertificationFacts, ...]
    data_centres: tuple[DataCentreFacts, ...]
    sla: SlaFacts | None


def sort_findings(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    return tuple(sorted(findings, key=lambda f: (f.severity.rank, f.code, f.subject)))


def check_vendor(facts: VendorFacts, *, today: date) -> tuple[Finding, ...]:
    """Every red flag for one vendor, most severe first, then by code."""
    # The rules module imports the types above, so it is loaded here rather than at the top to
    # keep the import graph free of cycles.
    from domain import credentials_rules

    return sort_findings(credentials_rules.run_rules(facts, today=today))
