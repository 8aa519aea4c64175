"""Dict adapters for the CLI and the API: input names as in COST-MODEL.md."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import MISSING, fields
from typing import Any

from domain.costmodel.inputs import Offer, Workload
from domain.costmodel.results import OfferProblem, OfferResult, RankingOutcome
from domain.costmodel.validation import ModelInputError, _real, field_message
from domain.messages import Message


def _convert(owner: str, name: str, kind: str, value: object) -> tuple[object, Message | None]:
    """Check a JSON value against a dataclass field type written as text (`float | None`)."""
    if value is None and kind.endswith("| None"):
        return None, None
    base = kind.removesuffix(" | None")
    real = _real(value)  # JSON gives 8.0 for 8 at times: a whole float is fine for an int
    if real is not None and (base == "float" or (base == "int" and real.is_integer())):
        return (float(real) if base == "float" else int(real)), None
    if base in ("str", "bool") and type(value).__name__ == base:
        return value, None
    if name == "id" and type(value) is int:
        return str(value), None
    if base.startswith("tuple[Message") and isinstance(value, list):
        flags = [_message_from(v) for v in value]
        if all(f is not None for f in flags):
            return tuple(flags), None
    expected = "list of {code, en, zh}" if base.startswith("tuple") else kind
    return None, field_message(owner, name, "wrong_type", value, expected)


def _message_from(value: object) -> Message | None:
    if isinstance(value, dict) and all(isinstance(value.get(k), str) for k in ("code", "en", "zh")):
        return Message(value["code"], value["en"], value["zh"])
    return None


def _kwargs_from(owner: str, cls: type, data: object) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise ModelInputError([field_message(owner, "data", "not_object", type(data).__name__)])
    known = {f.name: f for f in fields(cls)}
    problems = [
        Message(
            f"{owner}_unknown_field",
            f"{owner}: unknown field {key!r}.",
            f"{owner}：未知字段 {key!r}。",
        )
        for key in data
        if key not in known
    ]
    kwargs: dict[str, Any] = {}
    for name, f in known.items():
        if name not in data:
            if f.default is MISSING and f.default_factory is MISSING:
                problems.append(
                    Message(
                        f"{owner}_{name}_missing",
                        f"{owner}.{name} is required.",
                        f"{owner}.{name} 为必填项。",
                    )
                )
            continue
        kwargs[name], problem = _convert(owner, name, str(f.type), data[name])
        problems.extend([problem] if problem else [])
    if problems:
        raise ModelInputError(problems)
    return kwargs


def workload_from_dict(data: object) -> Workload:
    """A Workload from JSON; ModelInputError lists missing, unknown and ill-typed fields."""
    return Workload(**_kwargs_from("workload", Workload, data))


def offer_from_dict(data: object) -> Offer:
    """An Offer from JSON (currency is upper-cased); ModelInputError as for workloads."""
    kwargs = _kwargs_from("offer", Offer, data)
    if isinstance(kwargs.get("currency"), str):
        kwargs["currency"] = kwargs["currency"].upper()
    return Offer(**kwargs)


def result_to_dict(result: OfferResult) -> dict[str, object]:
    """Output names of COST-MODEL.md; an infinite batch-to-hide figure (overlap 0) becomes None."""
    out: dict[str, object] = {f.name: getattr(result, f.name) for f in fields(OfferResult)}
    out["warnings"] = [m.as_dict() for m in result.warnings]
    if math.isinf(result.tokens_per_gpu_to_hide_comm):
        out["tokens_per_gpu_to_hide_comm"] = None
    return out


def outcome_to_dict(outcome: RankingOutcome) -> dict[str, object]:
    problems = [
        {"offer_id": p.offer_id, "messages": [m.as_dict() for m in p.messages]}
        for p in outcome.problems
    ]
    return {"results": [result_to_dict(r) for r in outcome.results], "problems": problems}


def request_from_dict(data: object) -> tuple[Workload, tuple[Offer, ...], tuple[OfferProblem, ...]]:
    """Parse `{"workload": {...}, "offers": [...]}`; a malformed offer is a problem, no failure."""
    if not isinstance(data, Mapping):
        raise ModelInputError([field_message("request", "data", "not_object", type(data).__name__)])
    if not isinstance(data.get("offers"), list):
        raise ModelInputError([field_message("request", "offers", "not_list", data.get("offers"))])
    workload = workload_from_dict(data.get("workload"))
    offers: list[Offer] = []
    problems: list[OfferProblem] = []
    for i, raw in enumerate(data["offers"]):
        try:
            offers.append(offer_from_dict(raw))
        except ModelInputError as exc:
            offer_id = raw.get("id") if isinstance(raw, Mapping) else None
            problems.append(OfferProblem(str(offer_id or f"#{i + 1}"), exc.messages))
    return workload, tuple(offers), tuple(problems)
