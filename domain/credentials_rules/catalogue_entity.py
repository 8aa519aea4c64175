"""Severity and wording of the findings on the vendor entity (credit code, age, capital)."""

from __future__ import annotations

from domain.credentials import Severity

_C, _W, _I = Severity.CRITICAL, Severity.WARNING, Severity.INFO

ENTITY_CATALOGUE: dict[str, tuple[Severity, str, str]] = {
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
}
