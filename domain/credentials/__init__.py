"""Vendor credentials: parsing of Chinese registration numbers and the due-diligence red flags.

Three kinds of number are easy to confuse in vendor marketing, and the seed articles themselves
blur them, so each has its own parser and its own error codes:

* the unified social credit code (统一社会信用代码, GB 32100-2015) identifies the legal entity;
* the value-added telecom business licence number (增值电信业务经营许可证, ``粤B1-20190001``) is
  the permission to run an IDC, CDN, ISP (class B1) or information services (class B2);
* the ICP filing number (ICP备案, ``滇ICP备2020007656号``) only registers a website and permits
  nothing.

The red-flag rules live in :mod:`domain.credentials_rules`; :func:`check_vendor` is their entry
point. Everything here is pure Python so the web layer, the demo loader and tasks can share it.

Layout: :mod:`.formats` (the error type, folding), :mod:`.credit_code`,
:mod:`.licence_numbers`, :mod:`.icp_filings`, and :mod:`.facts` (the facts dataclasses,
findings and :func:`check_vendor`); every public name is re-exported here.
"""

from __future__ import annotations

from domain.credentials.credit_code import (
    CREDIT_CODE_ALPHABET,
    credit_code_check_char,
    credit_code_division,
    normalize_credit_code,
)
from domain.credentials.facts import (
    CLAIMED,
    REJECTED,
    VENDOR,
    VERIFIED,
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
    sort_findings,
)
from domain.credentials.formats import (
    CredentialFormatError,
    fold_credential,
    looks_like_icp_filing,
)
from domain.credentials.icp_filings import (
    IcpFilingNumber,
    parse_icp_filing,
)
from domain.credentials.licence_numbers import (
    BUSINESS_CODES,
    LICENCE_CLASSES,
    LicenceNumber,
    business_code_class,
    parse_licence_number,
    validate_business_codes,
)

__all__ = [
    "BUSINESS_CODES",
    "CLAIMED",
    "CREDIT_CODE_ALPHABET",
    "LICENCE_CLASSES",
    "REJECTED",
    "VENDOR",
    "VERIFIED",
    "CertificationFacts",
    "CredentialFormatError",
    "DataCentreFacts",
    "Finding",
    "IcpFilingFacts",
    "IcpFilingNumber",
    "LicenceFacts",
    "LicenceNumber",
    "NetworkFacts",
    "Severity",
    "SlaFacts",
    "VendorFacts",
    "business_code_class",
    "check_vendor",
    "credit_code_check_char",
    "credit_code_division",
    "fold_credential",
    "looks_like_icp_filing",
    "normalize_credit_code",
    "parse_icp_filing",
    "parse_licence_number",
    "sort_findings",
    "validate_business_codes",
]
