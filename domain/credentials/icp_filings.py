"""ICP filing numbers (ICP备案, ``滇ICP备2020007656号``): they register a website, nothing more."""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.credentials.formats import CredentialFormatError, _fail, fold_credential
from domain.credentials.licence_numbers import parse_licence_number
from domain.regions import province_by_abbr


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


_ICP_FILING_RE = re.compile(
    r"(?P<abbr>[^\x00-\x7f])ICP备(?P<digits>[0-9]{1,12})号?(?:-(?P<site>[0-9]{1,4}))?"
)


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
