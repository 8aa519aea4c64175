"""Provincial-level regions of China as plain data.

Codes are the two-letter GB/T 2260 alphabetic codes (also used by ISO 3166-2:CN since 2017). The
single-character abbreviation is what appears in front of licence numbers (``粤B1-…``) and ICP
filing numbers (``滇ICP备…``). ``numeric`` is the two-digit GB/T 2260 prefix that opens the
six-digit administrative division code embedded in unified social credit codes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Province:
    """One provincial-level region (province, autonomous region, municipality or SAR)."""

    code: str
    abbr: str
    zh: str
    en: str
    numeric: str
    # Some regions have a second customary abbreviation; the ICP filing system uses 蜀 and 陇
    # where licence numbers use 川 and 甘, so both must resolve.
    alt_abbrs: tuple[str, ...] = ()
    mainland: bool = True

    @property
    def label(self) -> str:
        """``广东 Guangdong``: the form used in choice lists."""
        return f"{self.zh} {self.en}"


PROVINCES: tuple[Province, ...] = (
    Province("BJ", "京", "北京", "Beijing", "11"),
    Province("TJ", "津", "天津", "Tianjin", "12"),
    Province("HE", "冀", "河北", "Hebei", "13"),
    Province("SX", "晋", "山西", "Shanxi", "14"),
    Province("NM", "蒙", "内蒙古", "Inner Mongolia", "15"),
    Province("LN", "辽", "辽宁", "Liaoning", "21"),
    Province("JL", "吉", "吉林", "Jilin", "22"),
    Province("HL", "黑", "黑龙江", "Heilongjiang", "23"),
    Province("SH", "沪", "上海", "Shanghai", "31"),
    Province("JS", "苏", "江苏", "Jiangsu", "32"),
    Province("ZJ", "浙", "浙江", "Zhejiang", "33"),
    Province("AH", "皖", "安徽", "Anhui", "34"),
    Province("FJ", "闽", "福建", "Fujian", "35"),
    Province("JX", "赣", "江西", "Jiangxi", "36"),
    Province("SD", "鲁", "山东", "Shandong", "37"),
    Province("HA", "豫", "河南", "Henan", "41"),
    Province("HB", "鄂", "湖北", "Hubei", "42"),
    Province("HN", "湘", "湖南", "Hunan", "43"),
    Province("GD", "粤", "广东", "Guangdong", "44"),
    Province("GX", "桂", "广西", "Guangxi", "45"),
    Province("HI", "琼", "海南", "Hainan", "46"),
    Province("CQ", "渝", "重庆", "Chongqing", "50"),
    Province("SC", "川", "四川", "Sichuan", "51", alt_abbrs=("蜀",)),
    Province("GZ", "黔", "贵州", "Guizhou", "52", alt_abbrs=("贵",)),
    Province("YN", "滇", "云南", "Yunnan", "53", alt_abbrs=("云",)),
    Province("XZ", "藏", "西藏", "Tibet", "54"),
    Province("SN", "陕", "陕西", "Shaanxi", "61", alt_abbrs=("秦",)),
    Province("GS", "甘", "甘肃", "Gansu", "62", alt_abbrs=("陇",)),
    Province("QH", "青", "青海", "Qinghai", "63"),
    Province("NX", "宁", "宁夏", "Ningxia", "64"),
    Province("XJ", "新", "新疆", "Xinjiang", "65"),
    # Outside the mainland telecom licensing system: listed so addresses can be recorded, but no
    # MIIT or provincial licence is ever issued for them.
    Province("TW", "台", "台湾", "Taiwan", "71", mainland=False),
    Province("HK", "港", "香港", "Hong Kong", "81", mainland=False),
    Province("MO", "澳", "澳门", "Macao", "82", mainland=False),
)

MAINLAND_PROVINCES: tuple[Province, ...] = tuple(p for p in PROVINCES if p.mainland)

_BY_CODE: dict[str, Province] = {p.code: p for p in PROVINCES}
_BY_ABBR: dict[str, Province] = {a: p for p in PROVINCES for a in (p.abbr, *p.alt_abbrs)}
_BY_NUMERIC: dict[str, Province] = {p.numeric: p for p in PROVINCES}

PROVINCE_CHOICES: tuple[tuple[str, str], ...] = tuple((p.code, p.label) for p in PROVINCES)
MAINLAND_PROVINCE_CHOICES: tuple[tuple[str, str], ...] = tuple(
    (p.code, p.label) for p in MAINLAND_PROVINCES
)


def province_names(language: str | None) -> dict[str, str]:
    """code -> the name in one language (广东 for ``zh-hans``, Guangdong otherwise): what a page's
    choice list shows, so that a page reads in one language."""
    zh = bool(language) and str(language).lower().startswith("zh")
    return {p.code: (p.zh if zh else p.en) for p in PROVINCES}


def province_by_code(code: str) -> Province | None:
    """Look a region up by its two-letter code (case-insensitive); None when unknown."""
    return _BY_CODE.get(code.strip().upper())


def province_by_abbr(abbr: str) -> Province | None:
    """Look a region up by its one-character abbreviation (粤, 豫, 滇, 蜀 …); None when unknown."""
    return _BY_ABBR.get(abbr.strip())


def province_by_division_code(division: str) -> Province | None:
    """Region of a six-digit administrative division code such as ``440300`` (Shenzhen)."""
    return _BY_NUMERIC.get(division.strip()[:2])
