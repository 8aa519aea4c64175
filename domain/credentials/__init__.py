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
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import StrEnum

from domain.messages import Message
from domain.regions import Province, province_by_abbr


class CredentialFormatError(ValueError):
    """A credential string that cannot be what it claims to be; ``message`` says why."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.en)
        self.message = message


def _fail(code: str, en: str, zh: str) -> CredentialFormatError:
    return CredentialFormatError(Message(code, en, zh))


_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
_CLASS_SEPARATORS = "\u00b7\u2022\u30fb\u3001,/"


def fold_credential(text: str) -> str:
    """Fold full-width forms, odd dashes and all whitespace so pasted numbers compare equal."""
    folded = unicodedata.normalize("NFKC", text)
    folded = folded.translate({ord(c): "-" for c in _DASHES})
    folded = folded.translate({ord(c): "." for c in _CLASS_SEPARATORS})
    return "".join(folded.split()).upper()


# --- Unified social credit code (GB 32100-2015) -------------------------------------------------

CREDIT_CODE_ALPHABET = "0123456789ABCDEFGHJKLMNPQRTUWXY"
_CREDIT_VALUE = {char: value for value, char in enumerate(CREDIT_CODE_ALPHABET)}
_CREDIT_WEIGHTS = tuple(pow(3, i, 31) for i in range(17))
# The standard drops these letters because they are misread as the digits/letters shown.
_CONFUSABLE = {"I": "1", "O": "0", "Z": "2", "S": "5", "V": "U"}


def _check_credit_alphabet(text: str) -> None:
    bad = [(i + 1, c) for i, c in enumerate(text) if c not in _CREDIT_VALUE]
    if not bad:
        return
    listed = ", ".join(f"{c!r} at position {pos}" for pos, c in bad)
    listed_zh = "，".join(f"第{pos}位“{c}”" for pos, c in bad)
    hints = sorted({f"{c}→{_CONFUSABLE[c]}" for _, c in bad if c in _CONFUSABLE})
    hint = f" (possibly mistyped: {', '.join(hints)})" if hints else ""
    hint_zh = f"（可能是录入错误：{'，'.join(hints)}）" if hints else ""
    raise _fail(
        "credit_code_characters",
        f"The credit code contains characters that a unified social credit code never uses: "
        f"{listed}{hint}. Only digits and capital letters except I, O, Z, S and V are allowed; "
        f"copy the code again from the vendor's business licence (营业执照).",
        f"统一社会信用代码含有不允许的字符：{listed_zh}{hint_zh}。代码只由数字和除 I、O、Z、S、V "
        f"以外的大写字母组成，请对照供应商营业执照重新录入。",
    )


def credit_code_check_char(first17: str) -> str:
    """The 18th (check) character for the first 17 characters of a credit code."""
    body = fold_credential(first17)
    if len(body) != 17:
        raise _fail(
            "credit_code_length",
            f"A check character is computed from exactly 17 characters; got {len(body)}.",
            f"校验码须由前 17 位计算，当前为 {len(body)} 位。",
        )
    _check_credit_alphabet(body)
    total = sum(_CREDIT_VALUE[c] * w for c, w in zip(body, _CREDIT_WEIGHTS, strict=True))
    return CREDIT_CODE_ALPHABET[-total % 31]


def _credit_length_error(text: str) -> CredentialFormatError:
    if not text:
        return _fail(
            "credit_code_empty",
            "No credit code was entered. Ask the vendor for the 18-character unified social "
            "credit code printed on its business licence (营业执照).",
            "未填写统一社会信用代码。请向供应商索取营业执照上的 18 位统一社会信用代码。",
        )
    if len(text) == 15 and text.isdigit():
        return _fail(
            "credit_code_length",
            "This is 15 digits: an old business registration number (注册号) from before 2015, "
            "not a unified social credit code. Ask for the 18-character code on the current "
            "business licence.",
            "该号码为 15 位数字，是 2015 年前的工商注册号，不是统一社会信用代码。请索取现行营业"
            "执照上的 18 位代码。",
        )
    return _fail(
        "credit_code_length",
        f"A unified social credit code has 18 characters; this one has {len(text)}. "
        f"Check it against the vendor's business licence.",
        f"统一社会信用代码应为 18 位，当前为 {len(text)} 位。请对照供应商营业执照核对。",
    )


def normalize_credit_code(text: str) -> str:
    """Return the credit code in canonical form (trimmed, upper case) or raise."""
    code = unicodedata.normalize("NFKC", text).strip().upper()
    if len(code) != 18:
        raise _credit_length_error(code)
    _check_credit_alphabet(code)
    expected = credit_code_check_char(code[:17])
    if code[17] != expected:
        raise _fail(
            "credit_code_check",
            f"The last character of credit code {code} should be {expected!r} but is "
            f"{code[17]!r}: the code is mistyped or invented. Check it on the National "
            f"Enterprise Credit Information Publicity System (国家企业信用信息公示系统).",
            f"统一社会信用代码 {code} 的校验位应为“{expected}”，实际为“{code[17]}”，"
            f"代码有误或系编造。请在国家企业信用信息公示系统中核实。",
        )
    return code


def credit_code_division(code: str) -> str:
    """The six-digit administrative division (registration authority's area) of a valid code."""
    return normalize_credit_code(code)[2:8]


# --- Value-added telecom business licence numbers -----------------------------------------------

LICENCE_CLASSES = ("A1", "A2", "B1", "B2")

BUSINESS_CODES: dict[str, tuple[str, str]] = {
    "A11": ("fixed communications", "固定通信业务"),
    "A12": ("cellular mobile communications", "蜂窝移动通信业务"),
    "A13": ("class-1 satellite communications", "第一类卫星通信业务"),
    "A14": ("class-1 data communications", "第一类数据通信业务"),
    "A21": ("trunked radio", "集群通信业务"),
    "A22": ("wireless data communications", "无线数据通信业务"),
    "A23": ("class-2 satellite communications", "第二类卫星通信业务"),
    "A24": ("class-2 data communications", "第二类数据通信业务"),
    "A25": ("network access facility services", "网络接入设施服务业务"),
    "A26": ("domestic communications facility services", "国内通信设施服务业务"),
    "B11": ("Internet data centre (IDC)", "互联网数据中心业务"),
    "B12": ("content delivery network (CDN)", "内容分发网络业务"),
    "B13": ("domestic Internet VPN (IP-VPN)", "国内互联网虚拟专用网业务"),
    "B14": ("Internet access (ISP)", "互联网接入服务业务"),
    "B21": ("online data and transaction processing", "在线数据处理与交易处理业务"),
    "B22": ("domestic multi-party communications", "国内多方通信服务业务"),
    "B23": ("store-and-forward services", "存储转发类业务"),
    "B24": ("call centre", "呼叫中心业务"),
    "B25": ("information services (ICP)", "信息服务业务"),
    "B26": ("code and protocol conversion", "编码和规程转换业务"),
}


@dataclass(frozen=True)
class LicenceNumber:
    """A parsed licence number such as ``粤B1.B2-20190001``."""

    raw: str
    normalised: str
    classes: tuple[str, ...]
    province: str | None  # region code of the issuing provincial administration; None = MIIT
    year: int
    serial: int
    foreign_invested: bool = False  # 合字: issued to a foreign-invested enterprise

    @property
    def is_cross_regional(self) -> bool:
        return self.province is None

    def has_class(self, licence_class: str) -> bool:
        return licence_class in self.classes


_LICENCE_RE = re.compile(
    r"(?P<prefix>[^\x00-\x7f]*)(?P<classes>[A-Z0-9.]+)-(?P<digits>[0-9]{1,12})"
)
_ICP_FILING_RE = re.compile(
    r"(?P<abbr>[^\x00-\x7f])ICP备(?P<digits>[0-9]{1,12})号?(?:-(?P<site>[0-9]{1,4}))?"
)


def _licence_province(prefix: str, raw: str) -> tuple[Province | None, bool]:
    foreign = prefix.endswith("合字")
    abbr = prefix.removesuffix("合字")
    if not abbr:
        return None, foreign
    province = province_by_abbr(abbr) if len(abbr) == 1 else None
    if province is None or not province.mainland:
        raise _fail(
            "licence_unknown_province",
            f"{raw!r} starts with {abbr!r}, which is not the abbreviation of a mainland province "
            f"that issues telecom licences (粤, 豫, 京 …). Ask for a copy of the licence.",
            f"“{raw}”开头的“{abbr}”不是可核发电信业务经营许可证的省级行政区简称（如粤、豫、京）。"
            f"请索取许可证复印件。",
        )
    return province, foreign


def _licence_classes(text: str, raw: str) -> tuple[str, ...]:
    parts = text.split(".")
    for part in parts:
        if part in LICENCE_CLASSES:
            continue
        hint = ""
        hint_zh = ""
        if part in BUSINESS_CODES:
            hint = f" {part} is a business code; the number only carries its class {part[:2]}."
            hint_zh = f"{part} 是业务代码，许可证编号中只出现其类别 {part[:2]}。"
        raise _fail(
            "licence_bad_class",
            f"{raw!r} names the licence class {part!r}; a licence number carries only the "
            f"classes A1, A2, B1 or B2 (for example 粤B1.B2-20190001).{hint}",
            f"“{raw}”中的类别“{part}”无效，许可证编号只包含 A1、A2、B1、B2 类别"
            f"（例如 粤B1.B2-20190001）。{hint_zh}",
        )
    if len(set(parts)) != len(parts):
        raise _fail(
            "licence_duplicate_class",
            f"{raw!r} lists the same licence class twice; ask for a copy of the licence.",
            f"“{raw}”重复列出同一许可类别，请索取许可证复印件核对。",
        )
    return tuple(sorted(parts))


def _licence_digits(digits: str, raw: str) -> tuple[int, int]:
    if len(digits) != 8 or int(digits[4:]) == 0:
        raise _fail(
            "licence_bad_serial",
            f"After the dash a licence number has eight digits: the year of issue and a "
            f"four-digit serial (…-20190001). {raw!r} does not; ask for a copy of the licence.",
            f"许可证编号短横线后应为 8 位数字（发证年份 + 4 位序号，如 -20190001），"
            f"“{raw}”不符合。请索取许可证复印件。",
        )
    year, serial = int(digits[:4]), int(digits[4:])
    if not 1995 <= year <= 2099:
        raise _fail(
            "licence_bad_year",
            f"{raw!r} would have been issued in {year}, which is impossible for a Chinese "
            f"telecom licence. Ask for a copy of the licence.",
            f"“{raw}”对应的发证年份 {year} 不可能存在，请索取许可证复印件。",
        )
    return year, serial


def _reject_non_licence(folded: str, raw: str) -> None:
    if looks_like_icp_filing(folded):
        raise _fail(
            "licence_is_icp_filing",
            f"{raw!r} is an ICP filing number (ICP备案), which only registers a website. It is not "
            f"a telecom business licence. Ask for the licence number (like B1-20180001 or "
            f"粤B1-20190001) and a copy of the licence.",
            f"“{raw}”是 ICP 备案号，只表示网站已备案，不是电信业务经营许可证。请索取许可证编号"
            f"（如 B1-20180001、粤B1-20190001）及许可证复印件。",
        )
    if "ICP证" in folded:
        raise _fail(
            "licence_is_icp_certificate",
            f"{raw!r} is the website display form of an ICP licence (ICP证), i.e. a class B2 (B25 "
            f"information services) licence. Ask for its licence number (like 粤B2-20090059); it "
            f"never covers running a data centre.",
            f"“{raw}”是网站展示的 ICP 经营许可证号（ICP证），对应 B2 类（B25 信息服务）许可。"
            f"请索取其许可证编号（如 粤B2-20090059）；该许可不涵盖数据中心业务。",
        )


def parse_licence_number(text: str) -> LicenceNumber:
    """Parse ``B1-20180001``, ``粤B1.B2-20190001``, ``豫B2-20261089`` and similar, or raise."""
    folded = fold_credential(text)
    if not folded:
        raise _fail(
            "licence_number_empty",
            "No licence number was entered. Ask the vendor for its value-added telecom business "
            "licence (增值电信业务经营许可证) number and a copy of the licence.",
            "未填写许可证编号。请向供应商索取增值电信业务经营许可证编号及复印件。",
        )
    _reject_non_licence(folded, text)
    match = _LICENCE_RE.fullmatch(folded)
    if match is None:
        raise _fail(
            "licence_bad_format",
            f"{text!r} is not shaped like a telecom licence number, which looks like B1-20180001 "
            f"(MIIT, cross-regional) or 粤B1.B2-20190001 (provincial). "
            f"Ask for a copy of the licence.",
            f"“{text}”不符合电信业务经营许可证编号格式（跨地区如 B1-20180001，省内如 "
            f"粤B1.B2-20190001）。请索取许可证复印件。",
        )
    province, foreign = _licence_province(match["prefix"], text)
    classes = _licence_classes(match["classes"], text)
    year, serial = _licence_digits(match["digits"], text)
    abbr = province.abbr if province else ""
    normalised = f"{abbr}{'合字' if foreign else ''}{'.'.join(classes)}-{match['digits']}"
    code = province.code if province else None
    return LicenceNumber(text, normalised, classes, code, year, serial, foreign)


def business_code_class(code: str) -> str:
    """The licence class a business code belongs to: ``B11`` → ``B1``."""
    return code[:2]


def validate_business_codes(
    codes: Iterable[str], number: LicenceNumber | None = None
) -> frozenset[str]:
    """Canonical business codes; raise if any is unknown or, given a number, outside its classes."""
    canonical = frozenset(fold_credential(c) for c in codes)
    unknown = sorted(c for c in canonical if c not in BUSINESS_CODES)
    if unknown:
        raise _fail(
            "business_code_unknown",
            f"Unknown business codes: {', '.join(unknown)}. Codes come from the telecom business "
            f"catalogue: B11–B14 (class B1), B21–B26 (class B2), A11–A26 (basic telecom).",
            f"未知业务代码：{'、'.join(unknown)}。业务代码应取自《电信业务分类目录》："
            f"B11–B14（B1 类）、B21–B26（B2 类）、A11–A26（基础电信）。",
        )
    if number is not None:
        outside = sorted(c for c in canonical if not number.has_class(business_code_class(c)))
        if outside:
            raise _fail(
                "business_code_class_mismatch",
                f"Licence {number.normalised} only grants class {'+'.join(number.classes)}, so it "
                f"cannot include {', '.join(outside)}. Ask for the licence annex listing its "
                f"business codes.",
                f"许可证 {number.normalised} 仅含 {'+'.join(number.classes)} 类，不可能包含"
                f"{'、'.join(outside)}。请索取列明业务种类的许可证附页。",
            )
    return canonical


# --- ICP filings --------------------------------------------------------------------------------


@dataclass(frozen=True)
class IcpFilingNumber:
    """A parsed ICP filing number such as ``粤ICP备12345678号-3``."""

    raw: str
    normalised: str
    province: str
    digits: str
    year: int | None  # filings since about 2010 open with the year; older ones do not
    site: int | None  # the ``-N`` suffix numbering one website of the filing entity

    @property
    def entity_filing(self) -> str:
        """The filing without the site suffix: the same for every website of one entity."""
        return self.normalised.split("-")[0]


def looks_like_icp_filing(text: str) -> bool:
    """True when the text has the shape of an ICP filing (``…ICP备<digits>…``)."""
    return re.search(r"ICP备[0-9]", fold_credential(text)) is not None


def _icp_filing_mismatch(folded: str, raw: str) -> CredentialFormatError:
    try:
        number = parse_licence_number(raw)
    except CredentialFormatError:
        number = None
    if number is not None:
        return _fail(
            "icp_filing_is_licence",
            f"{raw!r} is a telecom business licence number (class {'+'.join(number.classes)}), "
            f"not an ICP filing. Record it as a licence.",
            f"“{raw}”是电信业务经营许可证编号（{'+'.join(number.classes)} 类），不是 ICP 备案号，"
            f"请作为许可证录入。",
        )
    if "公网安备" in folded:
        return _fail(
            "icp_filing_is_police_filing",
            f"{raw!r} is a public-security network filing (公网安备), not an ICP filing.",
            f"“{raw}”是公安联网备案号（公网安备），不是 ICP 备案号。",
        )
    if "ICP证" in folded:
        return _fail(
            "icp_filing_is_icp_certificate",
            f"{raw!r} is an ICP licence (ICP证, class B2), not an ICP filing. Ask for its licence "
            f"number (like 粤B2-20090059) and record it as a licence.",
            f"“{raw}”是 ICP 经营许可证（ICP证，B2 类），不是 ICP 备案号。请索取其许可证编号"
            f"（如 粤B2-20090059）并作为许可证录入。",
        )
    return _fail(
        "icp_filing_bad_format",
        f"{raw!r} is not shaped like an ICP filing number such as 滇ICP备2020007656号 or "
        f"粤ICP备12345678号-3. Look the vendor's domain up in the MIIT filing system "
        f"(ICP备案查询).",
        f"“{raw}”不符合 ICP 备案号格式（如 滇ICP备2020007656号、粤ICP备12345678号-3）。"
        f"请在工信部 ICP 备案管理系统中查询供应商域名。",
    )


def parse_icp_filing(text: str) -> IcpFilingNumber:
    """Parse ``滇ICP备2020007656号`` or ``粤ICP备12345678号-3``, or raise."""
    folded = fold_credential(text)
    match = _ICP_FILING_RE.fullmatch(folded)
    site = int(match["site"]) if match and match["site"] else None
    if match is None or not 6 <= len(match["digits"]) <= 10 or site == 0:
        raise _icp_filing_mismatch(folded, text)
    province = province_by_abbr(match["abbr"])
    if province is None or not province.mainland:
        raise _fail(
            "icp_filing_unknown_province",
            f"{text!r} starts with {match['abbr']!r}, which is not a mainland province "
            f"abbreviation used in ICP filings (滇, 粤, 京 …).",
            f"“{text}”开头的“{match['abbr']}”不是 ICP 备案使用的省级行政区简称（如滇、粤、京）。",
        )
    digits = match["digits"]
    year = int(digits[:4]) if len(digits) == 10 and 2000 <= int(digits[:4]) <= 2099 else None
    suffix = f"-{site}" if site is not None else ""
    normalised = f"{province.abbr}ICP备{digits}号{suffix}"
    return IcpFilingNumber(text, normalised, province.code, digits, year, site)


# --- Vendor facts and findings ------------------------------------------------------------------

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
