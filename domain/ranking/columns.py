"""Column-wise screening: offers as numpy columns, and which of them need no messages."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np

from domain.ranking.checks import MONEY_CEILING, _currency_ok, _gpu_spec_problems
from domain.ranking.inputs import FABRICS, MEASURED_KINDS, Offer, Workload
from domain.trainmodel.gpus import GpuSpec

_COLUMNS = (
    "id", "gpu", "gpus_per_node", "nodes", "price_per_node_month", "currency", "monthly_fees",
    "nic_gbps", "nics_per_node", "fabric", "rack_uplink_gbps", "servers_per_rack", "measured_gbps",
    "measured_kind", "availability", "measured_p50_gbps", "whole_offer_only", "pfc", "ecn",
    "vendor_flags", "delivered_ratio",
)  # fmt: skip
_WHOLE = ("gpus_per_node", "nodes", "nics_per_node", "servers_per_rack")
_REALS = ("price_per_node_month", "monthly_fees", "nic_gbps", "availability")
_OPTIONAL = (
    "rack_uplink_gbps", "servers_per_rack", "measured_gbps", "measured_p50_gbps",
    "delivered_ratio",
)  # fmt: skip
_Array = np.ndarray[Any, Any]


@dataclass(slots=True)
class _Table:
    """Offers as columns: raw values, and numbers as floats (nan where None or not a number)."""

    raw: dict[str, list[Any]]
    num: dict[str, _Array]
    none: dict[str, _Array]

    @classmethod
    def of(cls, offers: Sequence[Offer]) -> _Table:
        raw = {name: list(map(attrgetter(name), offers)) for name in _COLUMNS}
        num, none = {}, {}
        for name in {*_WHOLE, *_REALS, *_OPTIONAL}:
            allowed = {int, type(None)} if name in _WHOLE else {int, float, type(None)}
            col, kinds = raw[name], set(map(type, raw[name]))
            if not kinds <= allowed:
                col = [x if type(x) in allowed else math.nan for x in col]
            if type(None) in kinds:  # np.array turns None into nan; fromiter is faster without
                num[name] = np.array(col, dtype=float).reshape(len(col))
                none[name] = np.array([x is None for x in col], dtype=bool).reshape(len(col))
            else:
                num[name] = np.fromiter(col, float, len(col))
                none[name] = np.zeros(len(col), dtype=bool)
        return cls(raw, num, none)

    def take(self, keep: list[int]) -> _Table:
        raw = {name: [col[i] for i in keep] for name, col in self.raw.items()}
        num = {name: col[keep] for name, col in self.num.items()}
        return _Table(raw, num, {name: col[keep] for name, col in self.none.items()})


def _member(col: list[Any], options: Iterable[object]) -> _Array:
    valid = {x for x in set(col) if x in options}
    return np.array([x in valid for x in col], dtype=bool).reshape(len(col))


def _fast_valid(t: _Table, w: Workload, gpus: Mapping[str, GpuSpec]) -> _Array:
    """True where `offer_problems` would find nothing; the messages are built only for the rest."""
    raw, num, none = t.raw, t.num, t.none
    ok = _member(raw["gpu"], [k for k, s in gpus.items() if not _gpu_spec_problems(s)])
    ok &= _member(raw["fabric"], FABRICS) & _member(raw["measured_kind"], MEASURED_KINDS)
    ok &= _member(raw["currency"], [x for x in set(raw["currency"]) if _currency_ok(x)])
    ok &= np.array([type(x) is str and x != "" for x in raw["id"]], dtype=bool).reshape(len(ok))
    for name in _WHOLE:
        ok &= (num[name] >= 1) | (none[name] & (name in _OPTIONAL))
    for name in ("price_per_node_month", "monthly_fees"):
        ok &= (num[name] >= 0) & (num[name] <= MONEY_CEILING)
    for name in ("nic_gbps", "rack_uplink_gbps", "measured_gbps", "measured_p50_gbps"):
        ok &= ((num[name] > 0) & np.isfinite(num[name])) | (none[name] & (name in _OPTIONAL))
    ok &= (num["availability"] > 0) & (num["availability"] <= 1)
    ok &= none["measured_p50_gbps"] | (num["measured_p50_gbps"] >= num["measured_gbps"])
    ok &= none["delivered_ratio"] | (
        (num["delivered_ratio"] >= 0) & np.isfinite(num["delivered_ratio"])
    )
    if w.nodes is not None:
        ok &= num["nodes"] >= w.nodes
    return ok
