"""The network figure shown beside each offer, and its caveats (bandwidth tier, racks, RoCE).

The figure is per server, in Gbit/s, from one credited link capacity per port
(`credited_port_gbps`): a claim counts at what its ports can carry (the data rate after line
encoding, less headers, never more than a clean test of the port type shows:
`domain.evidence.linkrates.achievable_gbps`, the table admission uses), admitted link evidence at
what it measured, capped at that same rate. The training model is fed the same credited figure
(`rank.cluster_of`), and both pay the fabric's collective efficiency (the training model's own
table, domain/trainmodel/links.py): a measured offer and its claimed twin are priced from the
same physics, so clean evidence never costs more than its claim except by its own shortfall."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from domain.evidence.linkrates import port_achievable_gbps
from domain.messages import Message
from domain.ranking.columns import _Array, _Table
from domain.trainmodel.links import FABRIC_EFFICIENCY

# (last node count of the tier or None, recommended Gbit/s, English, Chinese), DOMAIN.md §2; the
# table leaves 9 servers out, so 9 joins the larger tier to err on the safe side.
_TIERS = (
    (8, 25.0, "2-8 servers: 25G/50G RoCE", "2–8 台服务器：25G/50G RoCE"),
    (32, 50.0, "10-32 servers: 50G/100G RoCE or IB", "10–32 台服务器：50G/100G RoCE 或 IB"),
    (None, 100.0, "over 32 servers: 100G/200G IB", "32 台以上服务器：以 100G/200G IB 为主"),
)
_CLASS_FLOOR = (
    50.0,
    "8-GPU A100/H100-class servers: 50G and up",
    "8 卡 A100/H100 级服务器：50G 以上",
)
_A100_CLASS_TFLOPS = 300.0

UNVERIFIED = Message(
    "bandwidth_unverified",
    "Inter-node bandwidth is claimed (what the ports can carry after line encoding × fabric "
    "efficiency), not verified by accepted benchmark evidence.",
    "节点间带宽为声称值（端口在线路编码后可承载的速率 × 网络效率），尚未经认可的测试证据验证。",
)
ROCE_NO_LOSSLESS = Message(
    "roce_without_lossless",
    "RoCE without PFC/ECN lossless configuration collapses under congestion (TCP incast).",
    "RoCE 未启用 PFC/ECN 无损配置，拥塞时（TCP incast）性能会崩溃。",
)
ROCE_LOSSLESS_UNKNOWN = Message(
    "roce_lossless_unknown",
    "The offer does not state whether PFC and ECN are enabled on its RoCE network; ask the vendor.",
    "报价未说明 RoCE 网络是否启用 PFC 和 ECN，请向供应商确认。",
)


def _warnings_column(
    c: dict[str, list[Any]], n: _Array, peak: _Array, measured: _Array, oversub: _Array
) -> list[tuple[Message, ...]]:
    keys = zip(
        n.astype(int).tolist(),
        (np.array(c["nic_gbps"], dtype=float) * np.array(c["nics_per_node"])).tolist(),
        c["gpus_per_node"],
        (peak / 1e12).tolist(),
        oversub.tolist(),
        c["servers_per_rack"],
        list(map(_roce_state, c["fabric"], c["pfc"], c["ecn"])),
        measured.tolist(),
        strict=True,
    )  # fmt: skip
    return [
        _network_warnings(*key) + flags for key, flags in zip(keys, c["vendor_flags"], strict=True)
    ]


def _roce_state(fabric: str, pfc: bool | None, ecn: bool | None) -> int:
    """0: not RoCE or lossless; 1: PFC/ECN not stated; 2: one of them is off."""
    if fabric != "roce" or (pfc is True and ecn is True):
        return 0
    return 2 if pfc is False or ecn is False else 1


@lru_cache(maxsize=8192)
def _network_warnings(
    n: int, nominal: float, gpn: int, tflops: float, oversub: float, spr: int | None, roce: int,
    measured: bool,
) -> tuple[Message, ...]:  # fmt: skip
    """Network caveats of one offer for an n-server job; `roce` as `_roce_state` gives it."""
    if n == 1:  # one server moves no gradients between servers
        return ()
    out = [_tier_warning(n, nominal, gpn, tflops)]
    if oversub < 1.0:
        out.append(_oversubscribed(n, spr, oversub))
    out.append((None, ROCE_LOSSLESS_UNKNOWN, ROCE_NO_LOSSLESS)[roce])
    out.append(None if measured else UNVERIFIED)
    return tuple(m for m in out if m is not None)


def _tier_warning(n: int, nominal: float, gpn: int, tflops: float) -> Message | None:
    if nominal <= 10.0:
        return Message(
            "bandwidth_inference_only",
            f"{nominal:g} Gbit/s per server is inference-only bandwidth: training across {n} "
            "servers stalls in communication (25G is the floor, 50G the value choice).",
            f"每台服务器 {nominal:g} Gbit/s 仅适合推理：{n} 台服务器的多机训练会卡在通信上"
            "（25G 为底线，50G 为性价比之选）。",
        )
    rec, en, zh = next((t[1], t[2], t[3]) for t in _TIERS if t[0] is None or n <= t[0])
    if gpn >= 8 and tflops >= _A100_CLASS_TFLOPS and _CLASS_FLOOR[0] > rec:
        rec, en, zh = _CLASS_FLOOR
    if nominal >= rec:
        return None
    return Message(
        "bandwidth_below_tier",
        f"{nominal:g} Gbit/s per server is below the {rec:g}G recommended for {n} servers ({en}).",
        f"每台服务器 {nominal:g} Gbit/s 低于 {n} 台服务器规模的推荐值 {rec:g}G（{zh}）。",
    )


def _oversubscribed(n: int, servers_per_rack: int | None, factor: float) -> Message:
    ratio = 1.0 / factor
    return Message(
        "rack_oversubscribed",
        f"The job spans racks ({n} servers, {servers_per_rack} per rack) and the rack uplink is "
        f"oversubscribed {ratio:.2g}:1; nominal bandwidth is scaled by {factor:.2f}.",
        f"作业跨机柜（{n} 台服务器，每柜 {servers_per_rack} 台），机柜上行收敛比 {ratio:.2g}:1；"
        f"标称带宽按 {factor:.2f} 折算。",
    )


def bandwidth(t: _Table, n: _Array) -> tuple[_Array, _Array, _Array]:
    """Per-server Gbit/s shown for each offer, where it is measured, and the racks'
    oversubscription factor (1 when the job stays in one rack or the uplink is not given)."""
    num = t.num
    nominal = num["nic_gbps"] * num["nics_per_node"]
    spr, uplink = num["servers_per_rack"], num["rack_uplink_gbps"]
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = np.minimum(1.0, uplink / (spr * nominal))
    factor = np.where((n > spr) & ~t.none["rack_uplink_gbps"], factor, 1.0)
    eff = np.array([FABRIC_EFFICIENCY[f] for f in t.raw["fabric"]], dtype=float).reshape(len(n))
    server = credited(t)
    measured = ~t.none["measured_gbps"]
    collective = np.array([k == "collective" for k in t.raw["measured_kind"]], dtype=bool)
    # A "link" figure is the NIC capacity link tests showed and pays the fabric efficiency as
    # a claim does; a "collective" figure already is what collectives reach.
    b = np.where(measured, np.where(collective, server, server * eff), server * eff * factor)
    return b, measured, factor


def credited_port_gbps(
    fabric: str, nic_gbps: float, measured_gbps: float | None, nics: int, share: float = 1.0
) -> float:
    """The link capacity one port of an offer is credited, Gbit/s: a claim (no admitted
    evidence) at what the port can carry (`port_achievable_gbps`) times the vendor's track
    record `share`; a measured per-server figure per port, never above that same rate. The one
    figure the ranking shows and the training model is fed (`rank.cluster_of`)."""
    ceiling = port_achievable_gbps(fabric, nic_gbps)
    if measured_gbps is None:
        return ceiling * share
    per_port = measured_gbps / max(nics, 1)
    return min(per_port, ceiling) if ceiling > 0 else per_port


def credited(t: _Table) -> _Array:
    """Per-server credited link capacity of each offer (`credited_port_gbps` × its NICs)."""
    share = claim_share(t).tolist()
    measured = [None if none else float(v) for v, none in zip(
        t.num["measured_gbps"].tolist(), t.none["measured_gbps"].tolist(), strict=True
    )]  # fmt: skip
    per_port = list(
        map(credited_port_gbps, t.raw["fabric"], t.num["nic_gbps"].tolist(), measured,
            t.raw["nics_per_node"], share)
    )  # fmt: skip
    return np.array(per_port, dtype=float).reshape(len(share)) * t.num["nics_per_node"]


def claim_share(t: _Table) -> _Array:
    """The share of a claimed (unmeasured) figure the ranking counts: the vendor's delivered ÷
    committed bandwidth on the team's past contracts when below 1, else all of it. Admitted
    evidence is never discounted: it shows what this offer carries."""
    ratio = t.num["delivered_ratio"]
    return np.where(t.none["delivered_ratio"], 1.0, np.clip(ratio, 0.0, 1.0))


def track_record_warning(ratio: float) -> Message:
    """Why an offer's claimed bandwidth counts at less than its NICs x rate."""
    pct = round(ratio * 100)
    return Message(
        "claim_discounted_by_track_record",
        f"On the team's past contracts this vendor delivered {pct}% of the bandwidth it signed: "
        f"its claimed bandwidth counts at {pct}% until admitted evidence shows otherwise.",
        f"在团队以往的合同中，该供应商实际交付了签约带宽的 {pct}%：在有被采纳的实测证据之前，"
        f"其声称的带宽按 {pct}% 计。",
    )
