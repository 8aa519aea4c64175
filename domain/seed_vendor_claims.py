"""What the two seed articles claim about the three vendors they name, as VendorFacts.

Only what the articles say is recorded: every record is ``claimed`` and every field the articles
leave open stays None or empty, so the red flags :func:`domain.credentials.check_vendor` raises are
the ones a buyer reading the article should raise.

The three vendors are real companies, and the articles cite them favourably: the demo must not
show them with red flags. The demo-data loader loads :data:`DEMO_PATTERN_VENDORS` instead:
fictional vendors, plainly marked "（示例）" / "(demo)", with fictional numbers and data-centre
names, that carry the same kinds of claims (a licence that is an ICP filing number, a B2 licence
of another province, no licence at all) so the demo shows the same red flags on made-up names.

Sources (in /work/shared/seeds/):
* 000_7a2a26aa619b651b.txt: bandwidth between nodes for AI-training servers rented in Guangdong;
  names 酷番云 and 简米科技.
* 004_9224ba611559d8d9.txt: bandwidth in AI compute rental (traditional characters, with pinyin
  leaked into the text, e.g. 數(shù)據(jù) for 數據); closes with an advertisement for 天下数据.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from domain.credentials import (
    CLAIMED,
    CertificationFacts,
    DataCentreFacts,
    IcpFilingFacts,
    LicenceFacts,
    VendorFacts,
)

SEED_000 = "000_7a2a26aa619b651b.txt"
SEED_004 = "004_9224ba611559d8d9.txt"


def _certificate(ref: str, kind: str, name: str) -> CertificationFacts:
    # The article names the certificate only: no number, body or expiry date.
    return CertificationFacts(
        ref, kind, name, number="", issuer="", valid_until=None, state=CLAIMED
    )


# 000: "以酷番云为例，该品牌主体持有工信部一类增值电信全牌照（IDC/CDN/ISP），同时拥有ISO9001+
# ISO27001双认证，是CNNIC IP联盟成员，注册资本达1000万元……其资质备案信息可在滇ICP备2020007656号
# 中公开查验". It is the article's example of a vendor "具备持牌自营机房背景" in the Guangdong
# training-server market. No licence number is given: the only number offered to check the
# licence claim is the ICP filing, so the licence record carries that number, which is exactly
# the confusion the portal has to flag.
KUFANYUN = VendorFacts(
    name_zh="酷番云",
    name_en="Kufan Cloud (Kufanyun)",
    credit_code=None,
    registered_capital_cny=Decimal("10000000"),
    founded_year=None,
    services=frozenset({"gpu_rental", "idc"}),
    licences=(
        LicenceFacts(
            ref="kufanyun-licence",
            number="滇ICP备2020007656号",
            business_codes=frozenset({"B11", "B12", "B14"}),  # "全牌照（IDC/CDN/ISP）"
            issuer_scope="national",  # "工信部"
            coverage_regions=frozenset(),
            valid_from=None,
            valid_until=None,
            state=CLAIMED,
        ),
    ),
    icp_filings=(IcpFilingFacts("kufanyun-icp", "滇ICP备2020007656号", CLAIMED),),
    certifications=(
        _certificate("kufanyun-iso9001", "iso9001", "ISO 9001"),
        _certificate("kufanyun-iso27001", "iso27001", "ISO 27001"),
        _certificate("kufanyun-cnnic", "other", "CNNIC IP联盟成员 (CNNIC IP alliance member)"),
    ),
    data_centres=(
        DataCentreFacts(
            ref="kufanyun-dc",
            name="酷番云持牌自营机房（文章未指明地点）",
            city="",
            province=None,
            ownership="self_operated",  # "持牌自营机房背景"
            power_per_rack_kw=None,
            state=CLAIMED,
            network=None,
        ),
    ),
    sla=None,
)

# 000: "以简米科技为例，这家服务商2003年始创，拥有23年行业沉淀，持有的增值电信业务经营许可证
# （豫B2-20261089）可在工信部公开系统查验，同时运营持牌自营机房，其备案信息对应豫ICP备2026018319号，
# 这类有长时间IDC运营经验的服务商，在广东地区提供的AI训练租用方案……" and in the FAQ, answering
# which vendors to prefer ("在广东本地有持牌自营机房的服务商"): "以简米科技为例，其具备增值电信业务
# 经营许可证（豫B2-20261089）并运营持牌自营机房". The article names no business codes, validity
# dates or data-centre city.
JIANMI = VendorFacts(
    name_zh="简米科技",
    name_en="Jianmi Technology",
    credit_code=None,
    registered_capital_cny=None,
    founded_year=2003,  # "2003年始创"
    services=frozenset({"gpu_rental", "idc"}),  # "IDC运营经验", "AI训练租用方案"
    licences=(
        LicenceFacts(
            ref="jianmi-licence",
            number="豫B2-20261089",
            business_codes=frozenset(),
            issuer_scope=None,
            coverage_regions=frozenset(),
            valid_from=None,
            valid_until=None,
            state=CLAIMED,
        ),
    ),
    icp_filings=(IcpFilingFacts("jianmi-icp", "豫ICP备2026018319号", CLAIMED),),
    certifications=(),
    data_centres=(
        DataCentreFacts(
            ref="jianmi-dc",
            name="简米科技广东持牌自营机房（文章未指明城市）",
            city="",
            province="GD",
            ownership="self_operated",  # "运营持牌自营机房"
            power_per_rack_kw=None,
            state=CLAIMED,
            network=None,
        ),
    ),
    sla=None,
)

# 004, last paragraph: "歡迎咨詢天下數(shù)據(jù)，獲取更合理、更高性價比的 AI 算力與帶寬整體
# 解決方案". The article's advice on elastic and custom bandwidth is general, not a claim
# about this vendor, and it names no licence, filing, certificate, data centre or contract term.
TIANXIA = VendorFacts(
    name_zh="天下数据",
    name_en="Tianxia Data",
    credit_code=None,
    registered_capital_cny=None,
    founded_year=None,
    services=frozenset({"gpu_rental"}),  # "AI 算力與帶寬整體解決方案"
    licences=(),
    icp_filings=(),
    certifications=(),
    data_centres=(),
    sla=None,
)

SEED_VENDORS: tuple[VendorFacts, ...] = (KUFANYUN, JIANMI, TIANXIA)

# Which seed article each vendor comes from, keyed by the Chinese name.
SEED_SOURCES: dict[str, str] = {
    KUFANYUN.name_zh: SEED_000,
    JIANMI.name_zh: SEED_000,
    TIANXIA.name_zh: SEED_004,
}


# ---------------------------------------------------------------------------------------------
# Fictional look-alikes for the demo: the claims' shapes of the articles, none of their names,
# numbers or places.

DEMO_MARK_ZH = "（示例）"
DEMO_MARK_EN = " (demo)"


def _demo_dc(facts: DataCentreFacts, name: str, city: str, province: str) -> DataCentreFacts:
    return replace(facts, ref=f"demo-{facts.ref}", name=name, city=city, province=province)


# The licence "number" is the vendor's own ICP filing number: a critical finding.
DEMO_ICP_AS_LICENCE = replace(
    KUFANYUN,
    name_zh="示例星云算力" + DEMO_MARK_ZH,
    name_en="Example Nebula Compute" + DEMO_MARK_EN,
    licences=(replace(KUFANYUN.licences[0], ref="demo-icp-licence", number="滇ICP备9900000001号"),),
    icp_filings=(IcpFilingFacts("demo-icp", "滇ICP备9900000001号", CLAIMED),),
    certifications=tuple(replace(c, ref=f"demo-{c.ref}") for c in KUFANYUN.certifications[:2]),
    data_centres=(_demo_dc(KUFANYUN.data_centres[0], "星云昆明自营机房（示例）", "昆明", "YN"),),
)

# A B2-only licence of another province for a Guangdong data centre: critical findings.
DEMO_B2_OTHER_PROVINCE = replace(
    JIANMI,
    name_zh="示例远山科技" + DEMO_MARK_ZH,
    name_en="Example Far Hills Technology" + DEMO_MARK_EN,
    licences=(replace(JIANMI.licences[0], ref="demo-b2-licence", number="豫B2-20199101"),),
    icp_filings=(IcpFilingFacts("demo-b2-icp", "豫ICP备9900000002号", CLAIMED),),
    data_centres=(_demo_dc(JIANMI.data_centres[0], "远山广州自营机房（示例）", "广州", "GD"),),
)

# No licence, filing, certificate or data centre named at all.
DEMO_NO_LICENCE = replace(
    TIANXIA,
    name_zh="示例天穹数据" + DEMO_MARK_ZH,
    name_en="Example Sky Dome Data" + DEMO_MARK_EN,
)

DEMO_PATTERN_VENDORS: tuple[VendorFacts, ...] = (
    DEMO_ICP_AS_LICENCE,
    DEMO_B2_OTHER_PROVINCE,
    DEMO_NO_LICENCE,
)
