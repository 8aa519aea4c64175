"""Demo quotes for the demo vendors (the seed example: 8 x 8 A100) and the workload presets."""

from __future__ import annotations

from decimal import Decimal

from vendors.models import DataCentre

from .models import GpuModel
from .presets import PRESETS, preset_data
from .services import quote_create, workload_create

# (fabric, NIC Gbit/s) -> (price per node and month, other monthly fees, NICs per node, label).
# 10G TCP rents 323,000 CNY/month for 8 nodes; 100G RoCE 328,000: 5,000 dearer in total.
OFFERS = {
    ("tcp", 10): (Decimal("40000"), Decimal("3000"), 1, "8×8 A100 · 10G TCP"),
    ("roce", 25): (Decimal("40200"), Decimal("3000"), 1, "8×8 A100 · 25G RoCE"),
    ("roce", 100): (Decimal("40500"), Decimal("4000"), 1, "8×8 A100 · 100G RoCE"),
    ("ib", 200): (Decimal("52000"), Decimal("5000"), 4, "8×8 A100 · 4×200G IB"),
}


def _terms(dc: DataCentre, gpu: GpuModel) -> dict | None:  # type: ignore[type-arg]
    net = getattr(dc, "network", None)
    if net is None or net.nic_gbps is None:
        return None
    key = (net.fabric, int(net.nic_gbps))
    if key not in OFFERS:
        return None
    price, fees, nics, label = OFFERS[key]
    return {
        "vendor": dc.vendor, "data_centre": dc, "label": label, "is_current": True,
        "gpu": gpu, "gpus_per_node": 8, "nodes": 8, "price_per_node_month": price,
        "currency": "CNY", "monthly_fees": fees, "nic_gbps": float(net.nic_gbps),
        "nics_per_node": nics, "fabric": net.fabric, "servers_per_rack": 4,
        "rack_uplink_gbps": float(net.nic_gbps) * nics * 4, "availability": Decimal("0.99"),
        "term_months": 12, "trial_days": 7, "public_bandwidth_mbps": 0,
        "notes": "演示数据 / demo data",
        # the usual terms of an IDC rental: prices without VAT, 6 %, special VAT invoice (专票)
        "prices_include_vat": False, "vat_rate": 6, "invoice_type": "special",
    }  # fmt: skip


def load(*, team, user) -> None:  # type: ignore[no-untyped-def]
    gpu = GpuModel.objects.get(key="A100-SXM4-80GB")
    dcs = DataCentre.objects.filter(vendor__team=team).select_related("vendor", "network")
    seen: set[tuple[int, str]] = set()
    for dc in dcs.order_by("vendor_id", "pk"):
        terms = _terms(dc, gpu)
        if terms is None or (dc.vendor_id, terms["label"]) in seen:
            continue  # one quote per vendor and network kind
        seen.add((dc.vendor_id, terms["label"]))
        quote = quote_create(team=team, user=user, data=terms)
        quote.is_demo = True
        quote.save(update_fields=["is_demo"])
    for key in PRESETS:
        workload_create(team=team, data=preset_data(key))
