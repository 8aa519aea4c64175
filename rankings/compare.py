"""The compare page: one column per offer, what it costs to train on it first (cost per ETH and
the whole job's cost for a workload, from the ranking's own code path), then red flags and
evidence, then every term in words, the best value of each row marked."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

from django.urls import reverse
from django.utils.text import capfirst
from django.utils.timezone import get_current_timezone_name
from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _

from core import cache
from domain import formatting, money
from domain.ranking import ModelInputError
from quotes.models import Quote, QuoteVersion, WorkloadProfile

from .services import SNAPSHOT_VERSION, rank_snapshot, snapshot_build

# Rows whose best value is the lowest / the highest (others are not ranked).
LOWER_IS_BETTER = {"price_per_node_month", "monthly_fees", "setup_fee", "storage_price_tb_month",
                   "bandwidth_price"}  # fmt: skip
HIGHER_IS_BETTER = {"nic_gbps", "nics_per_node", "availability", "rack_uplink_gbps", "trial_days",
                    "storage_tb", "public_bandwidth_mbps"}  # fmt: skip
MONEY = LOWER_IS_BETTER

# The rows' shape and words: bump when they change (a shared cache must not serve older rows).
ROWS_VERSION = 1
# The compare table's markup (quote_compare.html's cached fragment): bump when it changes.
TABLE_VERSION = 1


def compare_quotes(team, ids: Sequence[int]) -> list[Quote]:  # type: ignore[no-untyped-def]
    """The quotes of the page (chosen ones, else the team's current ones) with a current
    version, with what it reads (version, GPU, vendor, SLA, data centre and network) in one
    query, ordered by vendor, label and id. A missing SLA or network is known to be missing
    (``select_related`` over a reverse one-to-one): reading it costs no query."""
    if team is None:
        return []
    qs = (
        Quote.objects.filter(team=team, current_version__isnull=False)
        .select_related("current_version__gpu", "vendor__sla", "data_centre__network")
        .order_by("vendor__name_zh", "vendor__name_en", "label", "pk")
    )  # fmt: skip
    return list(qs.filter(pk__in=list(ids)) if ids else qs.filter(is_current=True))


def table_key(quotes: list[Quote], workload: WorkloadProfile | None, basis: str) -> str:
    """What the compare table (its heads, cost, red-flag and term rows) is written from, as the
    digest its cached fragment is kept under: every stored column of every row the page loaded
    for each offer (quote, version, GPU, vendor, SLA, data centre, network), of the workload,
    the tax basis, the language, the time zone and the detail addresses. Nothing else goes
    into the table: the ranking's model reads the offers' own GPU rows (its table's other
    rows are never looked up), and the risk policy and the due-diligence findings change no
    cost (the red-flag row reads the vendors' stored counts). So a change by any path, a bulk
    ``update()`` that leaves the change stamps alone included, is a new key, and a second view
    of the same offers writes nothing: no snapshot, no model, no rows."""
    rows = []
    for q in quotes:
        v = q.current_version
        vendor = q.vendor
        dc = q.data_centre if q.data_centre_id else None
        rows.append(tuple(_columns(o) for o in (
            q, v, getattr(v, "gpu", None), vendor, getattr(vendor, "sla", None), dc,
            getattr(dc, "network", None) if dc is not None else None,
        )))  # fmt: skip
    return cache.digest(
        TABLE_VERSION, ROWS_VERSION, SNAPSHOT_VERSION, get_language(), get_current_timezone_name(),
        basis, reverse("vendors:detail", args=[0]), reverse("quotes:detail", args=[0]),
        _columns(workload), rows,
    )  # fmt: skip


def _columns(obj: Any) -> tuple[Any, ...] | None:
    """Every stored column of a loaded row (None for a missing one), as a key's part: values
    as the database returned them (str, numbers, dates, JSON read back in its stored order),
    whose repr is the same in every process."""
    if obj is None:
        return None
    read = _READERS.get(type(obj))
    if read is None:
        names = ("pk", *(f.attname for f in obj._meta.concrete_fields))
        read = _READERS[type(obj)] = attrgetter(*names)
    return (type(obj).__name__, read(obj))


_READERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}  # a model's columns, per process


def _cell(text: str, value: float | None = None, **extra: Any) -> dict[str, Any]:
    return {"text": text, "value": value, "best": False, **extra}


def _mark_best(cells: list[dict[str, Any]], lower: bool) -> None:
    values = [c["value"] for c in cells if c["value"] is not None]
    if len(values) < 2 or min(values) == max(values):
        return
    best = min(values) if lower else max(values)
    for c in cells:
        c["best"] = c["value"] == best


def bill_row(quotes: list[Quote], basis: str) -> dict[str, Any]:
    """The monthly bill in CNY on the team's tax basis (domain/money.py), as the list shows it."""
    lang = get_language()
    cells = []
    for q in quotes:
        v = q.current_version
        try:
            value = float(v.bill(basis=basis).comparable) if v is not None else None
        except money.MoneyError:
            value = None
        cells.append(_cell(formatting.money(value, "CNY", lang), value))
    _mark_best(cells, lower=True)
    return {"label": _("Monthly bill (CNY, comparison basis)"), "cells": cells, "key": "bill"}


def cost_rows(
    quotes: list[Quote], workload: WorkloadProfile | None, basis: str = money.DEFAULT_TAX_BASIS
) -> list[dict[str, Any]]:
    """Cost per ETH and job cost per offer for the workload, ranked as a run ranks them (the
    offers it cannot run say why), then the monthly bill; the cheapest, in CNY, is marked."""
    if not quotes:
        return []
    if workload is None:
        return [bill_row(quotes, basis)]
    # The snapshot a ranking run of these offers would store (rankings.services): the workload
    # with its preset or architecture, the offers on the team's tax basis, the GPU table, the
    # quotes' own exchange rates; one source of the numbers. Without the due-diligence findings
    # (they change no number; the page's red-flag row reads the vendors' counts).
    snapshot = snapshot_build(workload=workload, quotes=quotes, fx={}, findings=False)
    # The rows are a function of the snapshot (every model input), the versions' terms (the
    # bill row), the workload's node count (a problem's words), the basis and the language:
    # kept in the cache under those, so that a table written again for a change that moves no
    # cost (a vendor's findings, a note, the time zone) does not run the model again.
    parts = (
        get_language(), basis, workload.nodes,
        json.dumps(snapshot, sort_keys=True, default=str),
        tuple(_columns(q.current_version) for q in quotes),
    )  # fmt: skip
    return cache.get_or_set(
        "compare-costs", ROWS_VERSION, parts, lambda: _cost_rows(quotes, workload, basis, snapshot)
    )


def _cost_rows(
    quotes: list[Quote], workload: WorkloadProfile, basis: str, snapshot: dict[str, Any]
) -> list[dict[str, Any]]:
    rates = snapshot["fx_to_cny"]
    try:
        outcome = rank_snapshot(snapshot)
    except ModelInputError as exc:
        text = "; ".join(formatting_message(m) for m in exc.messages)
        return [
            {"label": _("Cost per ETH"), "cells": [_cell(text) for _q in quotes]},
            bill_row(quotes, basis),
        ]
    results = {r.offer_id: r for r in outcome.results}
    problems = {p.offer_id: p for p in outcome.problems}
    eth, job = [], []
    lang = get_language()
    for q in quotes:
        oid = str(q.current_version_id)
        r = results.get(oid)
        if r is None:
            p = problems.get(oid)
            why = "; ".join(_problem_text(m, q, workload) for m in p.messages) if p else ""
            eth.append(_cell(_("cannot run this workload"), note=why, problem=True))
            job.append(_cell("—"))
            continue
        rate = 1.0 if r.currency == "CNY" else rates.get(r.currency)
        eth.append(_cell(formatting.money(r.cost_per_eth, r.currency, lang),
                         r.cost_per_eth * rate if rate else None))  # fmt: skip
        finite = bool(r.job_cost and r.job_hours and r.job_cost < 1e15)
        hours = formatting.hours(r.job_hours, lang) if finite else "—"
        cost = formatting.money(r.job_cost, r.currency, lang) if finite else ""
        job.append(_cell(f"{cost} · {hours}" if cost else "—",
                         r.job_cost * rate if rate and cost else None))  # fmt: skip
    _mark_best(eth, lower=True)
    _mark_best(job, lower=True)
    return [
        {"label": _("Cost per effective training hour (ETH)"), "cells": eth, "key": "cost_per_eth"},
        {"label": _("Whole job: cost · time"), "cells": job, "key": "job_cost"},
        bill_row(quotes, basis),
    ]


def _problem_text(m: Any, quote: Quote, workload: WorkloadProfile) -> str:
    if getattr(m, "code", "") == "workload_nodes_exceeds_offer":
        return _("the workload needs %(w)s nodes; this offer has %(n)s") % {
            "w": workload.nodes, "n": quote.current_version.nodes}  # fmt: skip
    return formatting_message(m)


def formatting_message(m: Any) -> str:
    text = getattr(m, "text", None)
    return text(get_language() or "zh-hans") if callable(text) else str(m)


def risk_rows(quotes: list[Quote]) -> list[dict[str, Any]]:
    """Red flags (the vendor's due-diligence findings) and the bandwidth evidence per offer."""
    flags, evidence = [], []
    for q in quotes:
        vendor = q.vendor
        if vendor.findings_critical:
            text = ngettext(
                "%(n)s critical of %(t)s finding", "%(n)s critical of %(t)s findings",
                vendor.findings_total,
            ) % {"n": vendor.findings_critical, "t": vendor.findings_total}  # fmt: skip
        elif vendor.findings_total:
            text = ngettext("%(t)s finding, none critical", "%(t)s findings, none critical",
                            vendor.findings_total) % {"t": vendor.findings_total}  # fmt: skip
        else:
            text = _("no findings")
        flags.append(_cell(text, float(vendor.findings_critical * 1000 + vendor.findings_total),
                           severity="critical" if vendor.findings_critical else
                           "warning" if vendor.findings_total else "ok"))  # fmt: skip
        if q.measured_gbps:
            evidence.append(_cell(_("measured %(g)s (benchmark)") % {
                "g": formatting.bandwidth(q.measured_gbps)}, severity="ok"))  # fmt: skip
        else:
            evidence.append(_cell(_("claimed only (no benchmark yet)"), severity="warning"))
    _mark_best(flags, lower=True)
    return [
        {"label": _("Red flags"), "cells": flags, "key": "flags"},
        {"label": _("Bandwidth evidence"), "cells": evidence, "key": "evidence"},
    ]


def _lossless(q: Quote) -> str:
    network = getattr(q.data_centre, "network", None) if q.data_centre_id else None
    if network is None:
        return _("not recorded")

    def state(flag: bool | None) -> str:
        # a context of their own: a bare "on" shared a msgid with "(runs) on" a quote
        if flag is None:
            return pgettext("PFC/ECN setting", "unknown")
        return pgettext("PFC/ECN setting", "on") if flag else pgettext("PFC/ECN setting", "off")

    return f"PFC {state(network.pfc)} · ECN {state(network.ecn)}"


def term_rows(
    quotes: list[Quote], names: Sequence[str], display: Callable[[QuoteVersion, str], str]
) -> list[dict[str, Any]]:
    """Every term of the offers in words (the field's own label), best values marked. Written
    only when the page's table is (its fragment is kept under `table_key`)."""
    fields = {f.name: f for f in QuoteVersion._meta.fields}
    currencies = {q.current_version.currency for q in quotes}
    rows = []
    for name in names:
        field = fields.get(name)
        label = capfirst(str(field.verbose_name)) if field is not None else name
        cells = []
        for q in quotes:
            v = q.current_version
            raw = getattr(v, name, None)
            numeric = isinstance(raw, int | float) or hasattr(raw, "as_tuple")
            number = float(raw) if numeric else None
            cells.append(_cell(display(v, name), None if isinstance(raw, bool) else number))
        ranked = name in LOWER_IS_BETTER or name in HIGHER_IS_BETTER
        if ranked and not (name in MONEY and len(currencies) > 1):
            _mark_best(cells, lower=name in LOWER_IS_BETTER)
        rows.append({"label": label, "cells": cells, "key": name})
    rows.append({"label": _("Lossless network (PFC / ECN)"), "key": "lossless",
                 "cells": [_cell(_lossless(q)) for q in quotes]})  # fmt: skip
    return rows
