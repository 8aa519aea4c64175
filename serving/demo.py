"""Demo serving data (runs after the quotes and rankings demos): three serving offers, one per
bandwidth billing model, one serving workload and one mixed plan."""

from __future__ import annotations

from decimal import Decimal

from domain import labels
from quotes.models import GpuModel, Quote
from quotes.services import quote_create

from .services import mixed_plan_create, serving_workload_create

# (offer, GPU, nodes, price per node and month, public Mbit/s, billing, price, elastic); the
# label is "<offer> · serving · <billing>", stored in English and shown in the reader's language
# (domain/labels.py)
SERVING_OFFERS = (
    ("4×8 A100", "A100-SXM4-80GB", 4, "40500", 500, "p95", "25", True),
    ("6×8 L40S", "L40S", 6, "16000", 200, "per_gb", "0.8", False),
    ("6×8 RTX 4090", "RTX4090", 6, "9000", 100, "fixed", "35", False),
)


def _serving_quotes(team, user, vendors) -> list[Quote]:  # type: ignore[no-untyped-def]
    made = []
    for (offer, gpu, nodes, price, mbps, billing, bw_price, elastic), vendor in zip(
        SERVING_OFFERS, vendors, strict=False
    ):
        label = labels.SERVING_BY_BILLING[billing].compose(offer=offer).en
        dc = vendor.data_centres.first()
        net = getattr(dc, "network", None)
        data = {
            "vendor": vendor, "data_centre": dc, "label": label, "is_current": True,
            "gpu": GpuModel.objects.get(key=gpu), "gpus_per_node": 8, "nodes": nodes,
            "price_per_node_month": Decimal(price), "currency": "CNY",
            "monthly_fees": Decimal("2000"), "nic_gbps": float(net.nic_gbps) if net else 25.0,
            "nics_per_node": 1, "fabric": net.fabric if net else "roce",
            "availability": Decimal("0.995"), "public_bandwidth_mbps": mbps,
            "bandwidth_billing": billing, "bandwidth_price": Decimal(bw_price),
            "bandwidth_elastic": elastic, "term_months": 12, "notes": "演示数据 / demo data",
            "prices_include_vat": False, "vat_rate": 6, "invoice_type": "special",
        }  # fmt: skip
        quote = quote_create(team=team, user=user, data=data)
        Quote.objects.filter(pk=quote.pk).update(is_demo=True)
        made.append(quote)
    return made


def load(*, team, user) -> None:  # type: ignore[no-untyped-def]
    quotes = list(Quote.objects.for_team(team).select_related("vendor").order_by("pk"))
    if not quotes:
        return
    training = next((q for q in quotes if "IB" in q.label), None) or next(
        (q for q in quotes if "100G" in q.label), quotes[0]
    )
    others = [q.vendor for q in quotes if q.vendor_id != training.vendor_id]
    vendors = [training.vendor, *dict.fromkeys(others)]
    vendors += [training.vendor] * (len(SERVING_OFFERS) - len(vendors))
    serving = _serving_quotes(team, user, vendors)
    workload = serving_workload_create(team=team, data={
        "name": "7B 对话服务 / 7B chat API", "params_b": 7.0, "precision": "bf16",
        "mean_rps": 20.0, "peak_rps": 60.0, "tokens_in": 800.0, "tokens_out": 300.0,
        "response_kb": 150.0, "latency_target_s": 10.0, "gpus_per_replica": 1,
        "bandwidth_headroom": 0.3, "peak_hours_per_day": 4.0,
        "notes": "演示数据：带图片的回答，约 150 kB / demo data: answers with images",
    })  # fmt: skip
    mixed_plan_create(team=team, data={
        "name": "训练 3 个月后上线推理 / Train 3 months, then serve",
        "training_quote": training, "training_months": 3, "training_bandwidth_mbps": 1000.0,
        "serving_workload": workload, "serving_quote": serving[0], "horizon_months": 12,
        "bandwidth_price_mbps_month": Decimal("30"), "elastic_premium": 0.05,
    })  # fmt: skip
