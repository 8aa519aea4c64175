"""What the PDF's first page and appendices say, in words: the management summary (recommendation,
why, risk, savings, tie, decision), warnings by severity with references into the findings
appendix, and the workload and offer inputs as labelled values with units.

Everything here reads a `ReportData` and returns plain values for the template; no rule of the
ranking lives here (that is the cost model's), only how the outcome is told.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _

from domain import formatting as f
from domain import money
from domain.regions import province_by_code
from rankings.selectors import offer_warnings

from .selectors import ReportData


def _lang() -> str:
    return get_language() or "zh-hans"


def _name(r: Any) -> str:
    """The offer as the report names it (English names for English readers, report_data)."""
    shown = getattr(r, "display_name", None)
    if shown:
        return str(shown)
    return f"{r.vendor_name} · {r.label}" if r.vendor_name else str(r.label)


@dataclass
class FindingGroup:
    """One finding (same severity, code and text) and the ranked offers it applies to: appendix A
    lists it once, so fifty offers with the same caveat give one entry, not fifty."""

    ref: str
    severity: str
    item: dict[str, Any]
    ranks: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    @property
    def offers_text(self) -> str:
        """The offers' ranks, runs of consecutive ranks shortened (#1–#4, #7); with up to
        NAMED_OFFERS offers their names too."""
        if len(self.ranks) <= NAMED_OFFERS:
            return "; ".join(
                f"#{r} {n}" if r else f"✕ {n}" for r, n in zip(self.ranks, self.names, strict=True)
            )
        shown = [r for r in self.ranks if r]
        excluded = len(self.ranks) - len(shown)
        runs = _rank_runs(shown)
        if excluded:
            runs.append(ngettext("%(n)d excluded offer", "%(n)d excluded offers", excluded)
                        % {"n": excluded})  # fmt: skip
        return ", ".join(runs)


# A finding of this many offers or fewer names them; more are given as ranks.
NAMED_OFFERS = 3


def _rank_runs(ranks: list[int]) -> list[str]:
    runs: list[list[int]] = []
    for r in sorted(ranks):
        if runs and r == runs[-1][1] + 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    return [f"#{a}" if a == b else (f"#{a}, #{b}" if b == a + 1 else f"#{a}–#{b}") for a, b in runs]


@dataclass
class OfferFindings:
    """One ranked offer's warnings, most severe first, with the references of its findings in
    appendix A (F1, F2, …)."""

    ref: str
    rank: int  # the cost rank: the result's key in the report
    name: str
    counts: dict[str, int]
    shown: int = 0  # the rank the tables print (the decision's); 0: excluded, no rank
    items: list[dict[str, Any]] = field(default_factory=list)
    groups: list[FindingGroup] = field(default_factory=list)


def findings(data: ReportData) -> list[OfferFindings]:
    """Each ranked offer with warnings, and (through `groups`) the distinct findings it shares
    with other offers; references are numbered most severe first, then by the best rank."""
    out = []
    by_key: dict[tuple[str, str, str, str], FindingGroup] = {}
    for r in data.results:
        ws = offer_warnings(r.warnings or [], shown=10_000)
        if not ws["count"]:
            continue
        counts = dict.fromkeys(("critical", "warning", "info"), 0)
        offer = OfferFindings(ref="", rank=r.rank, name=_name(r), counts=counts,
                              items=ws["shown"], shown=r.shown_rank or 0)  # fmt: skip
        for w in ws["shown"]:
            counts[w["severity"]] += 1
            key = (w["severity"], w.get("code", ""), w.get("en", ""), w.get("zh", ""))
            group = by_key.setdefault(key, FindingGroup(ref="", severity=w["severity"], item=w))
            group.ranks.append(offer.shown)  # the rank the tables print; 0: excluded
            group.names.append(offer.name)
            offer.groups.append(group)
        out.append(offer)
    for i, group in enumerate(_ordered(list(by_key.values())), start=1):
        group.ref = f"F{i}"
    for offer in out:
        offer.groups.sort(key=lambda g: int(g.ref[1:]))
        offer.ref = ", ".join(g.ref for g in offer.groups)
    return out


_SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}


def _ordered(groups: list[FindingGroup]) -> list[FindingGroup]:
    def best(g: FindingGroup) -> int:
        return min((r for r in g.ranks if r), default=10**9)  # excluded offers (0) last

    return sorted(groups, key=lambda g: (_SEVERITY_RANK.get(g.severity, 3), best(g)))


def finding_groups(found: list[OfferFindings]) -> list[FindingGroup]:
    """The distinct findings of `found` in the order of their references."""
    seen: dict[str, FindingGroup] = {}
    for offer in found:
        for group in offer.groups:
            seen.setdefault(group.ref, group)
    return sorted(seen.values(), key=lambda g: int(g.ref[1:]))


def _margin(data: ReportData) -> float | None:
    """How much dearer per effective training hour, risk counted, the runner-up among the
    eligible offers is than the recommended one (a share): the figure the ranking ordered by."""
    w, r = data.winner, data.runner_up
    if w is None or r is None:
        return None
    mine = data.to_cny(_adjusted(w), w.currency)
    theirs = data.to_cny(_adjusted(r), r.currency)
    if not mine or theirs is None:
        return None
    return (theirs - mine) / mine


def _adjusted(r: Any) -> float:
    adjusted = getattr(r, "risk_adjusted_cost_per_eth", None)
    return float(adjusted if adjusted is not None else r.cost_per_eth)


def _risks(data: ReportData, refs: dict[int, OfferFindings]) -> list[dict[str, str]]:
    """The recommended offer's risks in words. Nothing on it is marked critical: an offer with
    a risk the team's policy treats as critical is excluded and never recommended, so what the
    policy kept is a warning here, counted as the ranking page counts it (the decision's marks)."""
    w = data.winner
    if w is None:
        return []
    risks = []
    marks = [_short(_stored(m)) for m in (getattr(w, "risk_marks", None) or ())]
    if marks:
        listed = " · ".join(marks[:PAGE_ONE_MARKS])
        if len(marks) > PAGE_ONE_MARKS:
            listed += " · " + _("%(n)d more in appendix A") % {"n": len(marks) - PAGE_ONE_MARKS}
        risks.append({"severity": "warning", "text": ngettext(
            "The team's risk policy marks the recommended offer %(n)d time: %(list)s",
            "The team's risk policy marks the recommended offer %(n)d times: %(list)s",
            len(marks),
        ) % {"n": len(marks), "list": listed}})  # fmt: skip
    for s in data.vendors:
        if s.critical and any(str(o.get("id")) == str(w.offer_id) for o in s.offers):
            risks.append({"severity": "warning", "text": ngettext(
                "Its vendor has %(n)d open due-diligence red flag that the team's risk policy "
                "does not exclude: resolve it before signing.",
                "Its vendor has %(n)d open due-diligence red flags that the team's risk policy "
                "does not exclude: resolve them before signing.",
                len(s.critical),
            ) % {"n": len(s.critical)}})  # fmt: skip
    if w.bandwidth_basis != "measured":
        risks.append({"severity": "warning", "text": _(
            "Its bandwidth is the vendor's claim, not measured: ask for a benchmark before signing."
        )})  # fmt: skip
    flips = [s["label"] for s in data.sensitivity if s.get("low_flips") or s.get("high_flips")]
    if flips:
        risks.append({"severity": "warning",
                      "text": _("Another offer wins if these inputs change: %s.")
                      % ", ".join(str(x) for x in flips)})  # fmt: skip
    return risks


# Page 1 names this many of the recommended offer's risk marks (the rest: appendix A), each
# cut to its first sentence, so the page holds the whole message.
PAGE_ONE_MARKS = 3


def _short(text: str) -> str:
    """A mark's first sentence (its advice follows in appendix A): up to the earliest full stop,
    never cut at a semicolon (the clause after it belongs to the sentence)."""
    ends = [(at, stop) for stop in (". ", "。") if (at := text.find(stop)) > 0]
    if not ends:
        return text
    at, stop = min(ends)
    return text[:at] + stop.strip()


def _term_risk(data: ReportData) -> dict[str, str] | None:
    """A job longer than the recommended offer's term: a condition of the contract to sign (a
    longer term or more nodes), said as such."""
    term = data.winner_term
    if not term or term.get("fits"):
        return None
    return {"severity": "warning", "text": _stored(term["message"])}


def _stored(m: dict[str, str]) -> str:
    """A stored bilingual message in the reader's language."""
    return str(m.get("zh") if _lang().startswith("zh") else m.get("en", ""))


def _premium_risk(data: ReportData) -> dict[str, str] | None:
    w = data.winner
    if w is None or not w.risk_premium_pct:
        return None
    pct = f.percent(w.risk_premium_pct / 100)
    text = _("A risk premium of %(pct)s for its warnings is already counted in its cost per "
             "effective training hour.") % {"pct": pct}  # fmt: skip
    return {"severity": "warning", "text": text}


def management_summary(data: ReportData, found: list[OfferFindings]) -> dict[str, Any]:
    """The first page's statements, each a sentence in the active language. The tie, the
    runner-up and the savings are the run's stored decision: the page, the API and every
    export say the same."""
    w = data.winner
    if w is None:
        return {}
    lang = _lang()
    margin = _margin(data)
    decided = data.decision
    tied = [r for r in data.results if r.tie_with_winner and not r.recommended]
    tie = bool(decided.get("tie")) and bool(tied)
    refs = {o.rank: o for o in found}
    risks = [r for r in (_term_risk(data), _premium_risk(data)) if r] + _risks(data, refs)
    low, high = w.deciding_range
    why = [_("Lowest cost per effective training hour among the eligible offers: %(cost)s "
             "(range %(low)s to %(high)s).")
           % {"cost": f.money(w.deciding_cost_per_eth, w.currency, lang),
              "low": f.money(low, w.currency, lang),
              "high": f.money(high, w.currency, lang)}]  # fmt: skip
    if w.premium_decides:
        why.append(_("That figure includes the risk premium of %(pct)s; without it: %(bare)s.")
                   % {"pct": f.percent(w.risk_premium_pct / 100),
                      "bare": f.money(w.cost_per_eth, w.currency, lang)})  # fmt: skip
    if margin is not None and data.runner_up is not None:
        why.append(_("The runner-up among the eligible offers, %(name)s, costs %(pct)s more per "
                     "effective training hour once risk is counted.")
                   % {"name": _name(data.runner_up), "pct": f.percent(margin)})  # fmt: skip
    rent = data.cheapest_rent
    if rent is not None and rent.offer_id != w.offer_id:
        why.append(_("The cheapest eligible rent (%(name)s) loses time to communication the GPUs "
                     "cannot hide, so it trains dearer.") % {"name": _name(rent)})  # fmt: skip
    knocked = sum(1 for r in data.excluded if r.risk_action == "knocked_out")
    excluded = len(data.excluded) - knocked
    if excluded:
        why.append(ngettext("%(n)d offer is excluded by the team's risk policy and is not "
                            "compared.", "%(n)d offers are excluded by the team's risk policy "
                            "and are not compared.", excluded) % {"n": excluded})  # fmt: skip
    if knocked:
        why.append(ngettext("%(n)d bid fails a mandatory requirement of the RFQ and is not "
                            "compared.", "%(n)d bids fail a mandatory requirement of the RFQ "
                            "and are not compared.", knocked) % {"n": knocked})  # fmt: skip
    headline = decided.get("headline")
    if tie:
        names = ", ".join(_name(r) for r in [w, *tied])
        decision = _("Choose among %(names)s (a tie): ask each for a measured benchmark and "
                     "their best price before deciding.") % {"names": names}  # fmt: skip
    elif data.winner_term and not data.winner_term.get("fits"):
        months = float(data.winner_term["job_hours"]) / money.HOURS_PER_MONTH
        decision = _(
            "Approve contracting %(a)s for this workload, with a term of at least %(m)s months "
            "(or more nodes) so that the whole job runs within it."
        ) % {"a": _name(w), "m": f"{months:.1f}"}
    else:
        decision = _("Approve contracting %(a)s for this workload.") % {"a": _name(w)}
    return {"why": why, "risks": risks, "tie": tie, "tied": tied, "margin": margin,
            "decision": decision, "headline": _stored(headline) if headline else "",
            "deciders": [_stored(m) for m in decided.get("deciders") or ()],
            "term": data.winner_term}  # fmt: skip


# The workload's inputs in words: label, and how the value is written.
WORKLOAD_LABELS: dict[str, Any] = {
    "params_b": gettext_lazy("Model size (parameters)"),
    "train_tokens": gettext_lazy("Tokens to train on"),
    "tokens_per_step": gettext_lazy("Tokens per optimiser step (global batch)"),
    "nodes": gettext_lazy("Nodes rented"),
    "strategy": gettext_lazy("Parallelism"),
    "grad_bytes": gettext_lazy("Gradient size per value"),
    "overlap": gettext_lazy("Communication hidden behind compute"),
    "mfu": gettext_lazy("Model FLOPs utilisation (MFU)"),
    "flops_per_token_factor": gettext_lazy("Training FLOPs per token and parameter"),
}
STRATEGIES = {
    "ddp": gettext_lazy("data parallel (DDP)"),
    "fsdp": gettext_lazy("fully sharded data parallel (FSDP)"),
    "zero": gettext_lazy("ZeRO sharding"),
}


def _workload_value(key: str, value: Any, lang: str) -> str:
    if value is None:
        return str(_("the GPU's default (GPU table)")) if key == "mfu" else f.DASH
    if key == "params_b":
        return f.tokens(float(value) * 1e9, lang)
    if key in ("train_tokens", "tokens_per_step"):
        return f.tokens(value, lang)
    if key == "strategy":
        return str(STRATEGIES.get(str(value), value))
    if key == "grad_bytes":
        return _("%s bytes") % f.significant(value)
    if key in ("overlap", "mfu"):
        return f.percent(value, 0)
    if key == "flops_per_token_factor":
        return f"{f.significant(value)} ×"
    return f.significant(value) if f.to_float(value) is not None else str(value)


def _humanise(key: str) -> str:
    return key.replace("_", " ").capitalize()


def workload_rows(data: ReportData) -> list[tuple[str, str]]:
    lang = _lang()
    return [(str(WORKLOAD_LABELS.get(k, _humanise(k))), _workload_value(k, v, lang))
            for k, v in data.workload.items()]  # fmt: skip


OFFER_LABELS: dict[str, Any] = {
    "evidence": gettext_lazy("Bandwidth evidence"),
    "delivered_ratio": gettext_lazy("Vendor's delivered ÷ committed bandwidth on past contracts"),
    "gpu": gettext_lazy("GPU"),
    "nodes": gettext_lazy("Nodes"),
    "gpus_per_node": gettext_lazy("GPUs per node"),
    "price_per_node_month": gettext_lazy("Price per node and month"),
    "monthly_fees": gettext_lazy("Other fees per month"),
    "fabric": gettext_lazy("Fabric"),
    "nic_gbps": gettext_lazy("NIC speed"),
    "nics_per_node": gettext_lazy("NICs per node"),
    "rack_uplink_gbps": gettext_lazy("Rack uplink"),
    "servers_per_rack": gettext_lazy("Servers per rack"),
    "availability": gettext_lazy("Availability (SLA)"),
    "whole_offer_only": gettext_lazy("Only rented as a whole"),
    "measured_gbps": gettext_lazy("Measured bandwidth, typical"),
    "measured_p50_gbps": gettext_lazy("Measured bandwidth, high end of the range"),
    "measured_kind": gettext_lazy("What was measured"),
    "pfc": gettext_lazy("PFC (lossless)"),
    "ecn": gettext_lazy("ECN (congestion marking)"),
    "tax": gettext_lazy("VAT terms"),
    "confirmed_outliers": gettext_lazy("Confirmed unusual values"),
    # inputs of the training-time model v2 (docs/MODEL.md §15)
    "storage_gbyte_s": gettext_lazy("checkpoint storage write (GB/s per server)"),
    "repair_hours": gettext_lazy("repair or replacement time (hours)"),
    "spare_nodes": gettext_lazy("spare servers kept ready"),
    "rail_optimised": gettext_lazy("rail-optimised network"),
    "term_months": gettext_lazy("Contract term (months)"),
}
# What the training-time model assumed when the quote left an input empty (as the page says)
ASSUMED_LABELS: dict[str, Any] = {
    "storage_gbyte_s": gettext_lazy("checkpoint storage 1 GB/s per server"),
    "repair_hours": gettext_lazy("repair time 4 h"),
    "spare_nodes": gettext_lazy("no spare server"),
    "rail_optimised": gettext_lazy("rail-optimised network unknown"),
    "architecture": gettext_lazy("a generic transformer shape of the workload's size"),
}
_HIDDEN = {"id", "vendor", "vendor_en", "label", "version", "quote_id", "vendor_flags", "currency"}
_MONEY = {"price_per_node_month", "monthly_fees"}
_GBPS = {"nic_gbps", "rack_uplink_gbps", "measured_gbps", "measured_p50_gbps"}
FABRICS = {"ib": "InfiniBand", "roce": "RoCE", "tcp": "TCP/IP"}


def outlier_words(outliers: list[dict[str, Any]], lang: str) -> str:
    """The unusual values an analyst confirmed, in the language of the page."""
    return "; ".join(str(o.get("zh" if lang.startswith("zh") else "en", "")) for o in outliers)


def tax_words(tax: dict[str, Any], lang: str) -> str:
    """An offer's VAT terms and the factor its prices were compared with (domain/money.py)."""
    if tax.get("assumed"):
        return money.TAX_ASSUMED.text(lang)
    included = _("VAT included") if tax.get("prices_include_vat") else _("VAT excluded")
    invoice = {"special": _("special VAT invoice (专票)"), "ordinary": _("ordinary invoice (普票)"),
               "none": _("no invoice")}.get(tax.get("invoice_type") or "", "—")  # fmt: skip
    factor = f.significant(tax.get("factor"), max_decimals=4)
    return f"{tax.get('vat_rate')}% · {included} · {invoice} · ×{factor}"


def _offer_value(key: str, value: Any, offer: dict[str, Any], lang: str) -> str:
    if value is None or value == "":
        return f.DASH
    if isinstance(value, bool):
        return str(_("yes") if value else _("no"))
    if key in _MONEY:
        return f.money(value, offer.get("currency") or "CNY", lang)
    if key in _GBPS:
        return f.bandwidth(value, lang)
    if key == "availability":
        return f.availability(value)
    if key == "fabric":
        return FABRICS.get(str(value), str(value))
    if key == "tax" and isinstance(value, dict):
        return tax_words(value, lang)
    if key == "confirmed_outliers" and isinstance(value, list):
        return outlier_words(value, lang)
    if key == "measured_kind":
        return measured_kind_words(value)
    if key == "evidence" and isinstance(value, dict):
        return evidence_words(value, lang)
    return f.significant(value) if f.to_float(value) is not None else str(value)


def measured_kind_words(value: Any) -> str:
    """What a measured figure is, in words (domain/evidence/offer.py kinds)."""
    words = {
        "link": _("links, scaled to the server's NICs"),
        "collective": _("a collective across servers"),
        "node": _("a whole node"),
    }
    return str(words.get(str(value), value))


def evidence_words(value: dict[str, Any], lang: str) -> str:
    """How a measured figure was derived, in the reader's language, with its range, then the
    evidence sentence (which logs gave it, which were set aside and why)."""
    text = str(value.get("zh") if lang.startswith("zh") else value.get("en")) or f.DASH
    low, high = value.get("low_gbps"), value.get("high_gbps")
    if low is not None and high is not None:
        text += f" ({f.bandwidth(low, lang)} – {f.bandwidth(high, lang)})"
    sentence = evidence_sentence(value, lang)
    return f"{text}. {sentence}" if sentence else text


def evidence_sentence(value: dict[str, Any] | None, lang: str) -> str:
    """The quote's evidence sentence (``measured_derivation["sentence"]``, carried in the run's
    snapshot) in the reader's language, then the card's acceptance-envelope grade when one
    applies; "" when the figure is claimed or the run predates it."""
    found = (value or {}).get("sentence") or {}
    text = str(found.get("zh") if lang.startswith("zh") else found.get("en")) if found else ""
    graded = envelope_words(value, lang)
    return f"{text} {graded}".strip() if graded else text


def envelope_words(value: dict[str, Any] | None, lang: str) -> str:
    """The offer's grade against its card's published acceptance envelope (domain/evidence/
    envelopes.py ``summary``, carried in the snapshot's evidence), in the reader's language."""
    found = (value or {}).get("envelope") or {}
    if not isinstance(found, dict) or not found.get("status"):
        return ""
    return str(found.get("zh") if lang.startswith("zh") else found.get("en")) or ""


def offer_rows(data: ReportData) -> dict[str, Any]:
    """Every offer's inputs in words: the values all offers share once, then each one's own."""
    lang = _lang()
    offers = [o for o in data.offers.values() if isinstance(o, dict)]
    keys: list[str] = []
    for o in offers:
        keys += [k for k in o if k not in keys and k not in _HIDDEN]

    def shown(o: dict[str, Any], k: str) -> str:
        return _offer_value(k, o.get(k), o, lang)

    shared = [k for k in keys if len(offers) > 1 and len({shown(o, k) for o in offers}) == 1]
    label = {k: str(OFFER_LABELS.get(k, _humanise(k))) for k in keys}
    own = [k for k in keys if k not in shared]
    return {
        "shared": [(label[k], shown(offers[0], k)) for k in shared],
        # When every offer has the same own inputs, their labels are said once above the lines.
        "own_labels": [label[k] for k in own] if all(k in o for o in offers for k in own) else [],
        "offers": [
            {"title": f"{_vendor_of(o, lang)} · {o.get('label', '')}",
             "version": o.get("version"),
             "values": [(label[k], shown(o, k)) for k in keys if k not in shared and k in o]}
            for o in offers
        ],
    }  # fmt: skip


def _vendor_of(offer: dict[str, Any], lang: str) -> str:
    """A snapshot offer's vendor in the reader's language (English name, legal name beside)."""
    if lang.startswith("zh"):
        return str(offer.get("vendor") or "")
    name_en, name_zh = offer.get("vendor_en"), offer.get("vendor")
    if name_en and name_zh and name_en != name_zh:
        return f"{name_en} ({name_zh})"
    return str(name_en or name_zh or "")


# Appendix C sets this many offers side by side in one table (inputs are the rows).
INPUT_COLUMNS = 4


def input_tables(inputs: dict[str, Any]) -> list[dict[str, Any]]:
    """Appendix C as tables: the inputs down the side, up to INPUT_COLUMNS offers across."""
    offers = inputs.get("offers") or []
    tables = []
    for start in range(0, len(offers), INPUT_COLUMNS):
        chunk = offers[start : start + INPUT_COLUMNS]
        labels: list[str] = []
        for o in chunk:
            labels += [label for label, _v in o["values"] if label not in labels]
        values = [dict(o["values"]) for o in chunk]
        rows = [(label, [v.get(label, f.DASH) for v in values]) for label in labels]
        tables.append({"offers": chunk, "rows": rows})
    return tables


def province(code: str | None) -> str:
    """A province in the reader's language only: 广东 in Chinese, Guangdong in English."""
    p = province_by_code(code or "")
    if p is None:
        return code or ""
    return p.zh if _lang().startswith("zh") else p.en
