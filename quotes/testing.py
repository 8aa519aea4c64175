"""Small builders for tests and the benchmark (not used by the portal itself)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from vendors.models import DataCentre, NetworkProfile, Vendor

from .models import GpuModel, Quote, WorkloadProfile
from .services import quote_create, workload_create


def make_vendor(team, name: str, *, fabric: str = "roce", gbps: float = 100, pfc=True, ecn=True):  # type: ignore[no-untyped-def]
    vendor = Vendor.objects.create(team=team, name_en=name, name_zh=name)
    dc = DataCentre.objects.create(vendor=vendor, name=f"{name} DC")
    NetworkProfile.objects.create(
        data_centre=dc,
        fabric=fabric,
        pfc=pfc,
        ecn=ecn,
        nic_gbps=Decimal(str(gbps)),
        nics_per_node=1,
    )
    return vendor


def quote_data(vendor, **over: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    dc = vendor.data_centres.first()
    net = getattr(dc, "network", None)
    data: dict[str, Any] = {
        "vendor": vendor, "data_centre": dc, "label": f"{vendor.name_en} offer", "is_current": True,
        "gpu": GpuModel.objects.get(key="A100-SXM4-80GB"), "gpus_per_node": 8, "nodes": 8,
        "price_per_node_month": Decimal("40000"), "currency": "CNY",
        "monthly_fees": Decimal("3000"),
        "nic_gbps": float(net.nic_gbps) if net else 100.0, "nics_per_node": 1,
        "fabric": net.fabric if net else "roce", "availability": Decimal("0.99"),
    }  # fmt: skip
    data.update(over)
    return data


def make_quote(team, user, vendor, **over: Any) -> Quote:  # type: ignore[no-untyped-def]
    return quote_create(team=team, user=user, data=quote_data(vendor, **over))


def make_workload(team, **over: Any) -> WorkloadProfile:  # type: ignore[no-untyped-def]
    data: dict[str, Any] = {
        "name": "7B seed", "params_b": 7.0, "tokens_per_step": 4_000_000, "strategy": "ddp",
        "overlap": 0.5, "nodes": 8, "train_tokens": 1e12,
    }  # fmt: skip
    data.update(over)
    return workload_create(team=team, data=data)


def seed_quotes(team, user) -> tuple[Quote, Quote]:  # type: ignore[no-untyped-def]
    """The seed example: 10G TCP cheaper, 100G RoCE 5,000 CNY/month dearer in total."""
    tcp = make_vendor(team, "Cheap TCP", fabric="tcp", gbps=10, pfc=None, ecn=None)
    roce = make_vendor(team, "Fast RoCE", fabric="roce", gbps=100)
    a = make_quote(team, user, tcp, label="10G TCP")
    b = make_quote(team, user, roce, label="100G RoCE", price_per_node_month=Decimal("40500"),
                   monthly_fees=Decimal("4000"))  # fmt: skip
    return a, b
