"""Labels the portal generates are recognised in either language and written in the reader's;
any other label is the user's own text and stays as stored."""

from __future__ import annotations

import pytest

from domain import labels


@pytest.mark.parametrize(
    ("stored", "en", "zh"),
    [
        ("RFQ 2 · Acme Cloud", "RFQ 2 · Acme Cloud", "询价单 2 · Acme Cloud"),
        ("询价单 2 · 示例云", "RFQ 2 · 示例云", "询价单 2 · 示例云"),
        ("询价单 7 · 已截止 · 64×A100", "RFQ 7 · 已截止 · 64×A100", "询价单 7 · 已截止 · 64×A100"),
        ("RFQ 5 · bid", "RFQ 5 · bid", "询价单 5 · 报价"),
        ("询价单 5 · 报价", "RFQ 5 · bid", "询价单 5 · 报价"),
        ("RFQ 3 · acceptance test", "RFQ 3 · acceptance test", "询价单 3 · 验收测试"),
        ("询价单 3 · 验收测试", "RFQ 3 · acceptance test", "询价单 3 · 验收测试"),
        ("RFQ 4 · evidence of Acme", "RFQ 4 · evidence of Acme", "询价单 4 · Acme 的证据"),
        ("询价单 4 · 示例云 的证据", "RFQ 4 · evidence of 示例云", "询价单 4 · 示例云 的证据"),
        ("6×8 L40S · serving · per GB", "6×8 L40S · serving · per GB",
         "6×8 L40S · 推理服务 · 按流量计费"),
        ("4×8 A100 · 推理服务 · 95 计费", "4×8 A100 · serving · 95th pct",
         "4×8 A100 · 推理服务 · 95 计费"),
        ("6×8 RTX 4090 · serving · fixed", "6×8 RTX 4090 · serving · fixed",
         "6×8 RTX 4090 · 推理服务 · 固定带宽"),
    ],
)  # fmt: skip
def test_a_generated_label_is_written_in_the_reader_s_language(stored, en, zh) -> None:
    assert labels.shown(stored, "en") == en
    assert labels.shown(stored, "zh-hans") == zh
    # and back: what one language shows reads as the same label in the other
    assert labels.shown(labels.shown(stored, "zh-hans"), "en") == en


@pytest.mark.parametrize(
    "own",
    ["8×8 A100 · 100G RoCE", "RFQ pricing · draft", "RFQ x · Acme", "rfq 2 · Acme", "", "RFQ 2",
     "serving · fixed", "我的报价 · 固定"],
)  # fmt: skip
def test_the_user_s_own_label_is_shown_as_stored(own: str) -> None:
    assert labels.shown(own, "en") == own and labels.shown(own, "zh-hans") == own


def test_compose_gives_both_languages() -> None:
    m = labels.RFQ_NAMED.compose(rfq=12, name="Acme")
    assert (m.en, m.zh) == ("RFQ 12 · Acme", "询价单 12 · Acme")
    assert labels.parse(m.zh) == (labels.RFQ_NAMED, {"rfq": "12", "name": "Acme"})
