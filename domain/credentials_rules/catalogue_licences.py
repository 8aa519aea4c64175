"""Severity and wording of the findings on telecom business licences and ICP filings."""

from __future__ import annotations

from domain.credentials import Severity

_C, _W, _I = Severity.CRITICAL, Severity.WARNING, Severity.INFO
_ASK_LICENCE = "Ask for a copy of the licence with its annex of business codes and regions."
_ASK_LICENCE_ZH = "请索取许可证正本复印件及列明业务种类和覆盖范围的附页。"

LICENCE_CATALOGUE: dict[str, tuple[Severity, str, str]] = {
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
        "Licence {name} is only claimed. Look it up in the MIIT licence system (电信业务市场综合"
        "管理信息系统) and record who checked it and when.",
        "许可证 {name} 仅为供应商声称，请在工信部电信业务市场综合管理信息系统中查验，"
        "并记录查验人和时间。",
    ),
    "licence_rejected": (
        _C,
        "A reviewer rejected licence {name}: treat the vendor as unlicensed until a valid one is "
        "shown.",
        "许可证 {name} 已被审核驳回，在出示有效许可证前应视为无证经营。",
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
        "ICP filing {name} is only claimed; look it up in the MIIT ICP filing system (it shows the "
        "registered entity, which should match the vendor).",
        "ICP 备案 {name} 仅为声称，请在工信部 ICP 备案管理系统查询，核对备案主体是否与供应商一致。",
    ),
    "icp_filing_rejected": (
        _W,
        "A reviewer rejected ICP filing {name}: it does not belong to the vendor or does not "
        "exist.",
        "ICP 备案 {name} 已被审核驳回：备案不属于该供应商或并不存在。",
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
}
