"""Value-added telecom business licence numbers (``粤B1.B2-20190001``) and business codes."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from domain.credentials.formats import _fail, fold_credential, looks_like_icp_filing
from domain.regions import Province, province_by_abbr

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
