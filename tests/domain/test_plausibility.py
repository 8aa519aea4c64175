"""domain/plausibility.py: hard bounds are errors, soft bounds warnings, both languages."""

from __future__ import annotations

from types import SimpleNamespace

from domain import plausibility as pl


def _v(**over):  # type: ignore[no-untyped-def]
    base = SimpleNamespace(
        gpus_per_node=8, nodes=8, nic_gbps=100, nics_per_node=1, availability=0.99,
        term_months=12, trial_days=0, price_per_node_month=40000, currency="CNY",
        monthly_fees=3000, setup_fee=0, storage_tb=0, public_bandwidth_mbps=0,
    )  # fmt: skip
    base.__dict__.update(over)
    return base


def test_a_normal_quote_has_no_findings() -> None:
    assert pl.quote_findings(_v(), "A100-SXM4-80GB") == []


def test_hard_bounds() -> None:
    hard, soft = pl.split(pl.quote_findings(_v(nic_gbps=99_999, gpus_per_node=64), "H100-SXM"))
    assert {f.field for f in hard} == {"nic_gbps", "gpus_per_node"}
    nic = next(f for f in hard if f.field == "nic_gbps")
    assert "99,999" in nic.message.en and "800" in nic.message.en and "不可能" in nic.message.zh
    hard, _ = pl.split(pl.quote_findings(_v(availability=0.9), None))
    assert [f.field for f in hard] == ["availability"]  # (0.9, 1]: 0.9 itself is out
    hard, _ = pl.split(pl.quote_findings(_v(availability=1.2), None))
    assert [f.field for f in hard] == ["availability"]
    assert pl.split(pl.quote_findings(_v(availability=1), None)) == ([], [])


def test_soft_bounds_ask_for_confirmation() -> None:
    hard, soft = pl.split(pl.quote_findings(_v(price_per_node_month=400), "A100-SXM4-80GB"))
    assert hard == [] and [f.field for f in soft] == ["price_per_node_month"]
    assert "usual range" in soft[0].message.en and "常见范围" in soft[0].message.zh
    # a USD price typed as if it were CNY is cheap enough to be questioned once converted
    _, soft = pl.split(pl.quote_findings(_v(currency="USD", fx_to_cny=0.14), "H100-SXM"))
    assert {f.field for f in soft} == {"fx_to_cny", "price_per_node_month"}
    _, soft = pl.split(pl.quote_findings(_v(term_months=90, availability=0.93), None))
    assert {f.field for f in soft} == {"term_months", "availability"}
    assert soft[0].as_dict()["field"] and soft[0].as_dict()["zh"]


def test_workload_bounds() -> None:
    w = SimpleNamespace(params_b=7, tokens_per_step=4e6, overlap=0.5, mfu=None, nodes=8,
                        train_tokens=1e12, flops_per_token_factor=6, grad_bytes=2)  # fmt: skip
    assert pl.workload_findings(w) == []
    w.params_b, w.mfu = 1e6, 0.95
    hard, soft = pl.split(pl.workload_findings(w))
    assert [f.field for f in hard] == ["params_b"] and [f.field for f in soft] == ["mfu"]
