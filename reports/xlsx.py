"""The workbook: ranking, per-offer breakdown, inputs and evidence; numbers stay numbers."""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

from django.utils.translation import get_language, gettext_lazy, pgettext_lazy
from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from core.export import (
    FREE_NUMBER,
    INT,
    MONEY,
    MONEY0,
    NUM1,
    NUM2,
    NUM3,
    PCT,
    at_precision,
    clean,
    number_cell,
)
from core.models import JobStatus
from domain import decision as dd
from domain import money

from .selectors import ReportData
from .summary import (
    ASSUMED_LABELS,
    FABRICS,
    OFFER_LABELS,
    STRATEGIES,
    WORKLOAD_LABELS,
    _humanise,
    _vendor_of,
    evidence_sentence,
    evidence_words,
    measured_kind_words,
    outlier_words,
    tax_words,
)

RANKING_COLUMNS = (
    # the decision's rank, among eligible offers only: an excluded offer has none (blank)
    (gettext_lazy("Rank"), INT),
    (gettext_lazy("Vendor"), None),
    (gettext_lazy("Offer"), None),
    (gettext_lazy("Currency"), None),
    (gettext_lazy("Rent per month"), MONEY),
    # the deciding figure and its range: risk-adjusted where a premium decides (the bare cost
    # beside it), as the page, the PDF and the API show it
    (gettext_lazy("Cost per ETH"), MONEY),
    (gettext_lazy("Cost per ETH (low)"), MONEY),
    (gettext_lazy("Cost per ETH (high)"), MONEY),
    (gettext_lazy("Cost per ETH without risk premium"), MONEY),
    (gettext_lazy("Risk premium"), PCT),
    (gettext_lazy("Step time (s)"), NUM2),
    (gettext_lazy("Exposed comm (s)"), NUM2),
    (gettext_lazy("Utilisation"), PCT),
    (gettext_lazy("Bandwidth (Gbit/s)"), NUM1),
    (gettext_lazy("Bandwidth basis"), None),
    # the quote's evidence sentence (which logs gave the figure, which were set aside, why)
    (gettext_lazy("Bandwidth evidence"), None),
    (gettext_lazy("Job hours"), MONEY0),
    (gettext_lazy("Job cost"), MONEY),
    (gettext_lazy("Warnings"), None),
    # the run's decision (domain/decision): the same flags the page and the API show
    (gettext_lazy("Recommended"), None),
    (gettext_lazy("Eligible"), None),
    (gettext_lazy("Excluded because"), None),
    (gettext_lazy("Tie with the recommended offer"), None),
    (gettext_lazy("Job fits the contract term"), None),
    # stale means said: the offer's quote got new terms (or was deleted) after this ranking
    (gettext_lazy("Quote changed since this ranking"), None),
)

BREAKDOWN_COLUMNS = (
    (gettext_lazy("Rank"), INT), (gettext_lazy("Offer"), None),
    (gettext_lazy("Compute time (s)"), NUM2), (gettext_lazy("Communication time (s)"), NUM2),
    (gettext_lazy("Exposed comm (s)"), NUM2), (gettext_lazy("Step time (s)"), NUM2),
    (gettext_lazy("ETH per hour"), NUM2), (gettext_lazy("Hourly cost"), MONEY),
    (gettext_lazy("Compute share of cost per ETH"), MONEY),
    (gettext_lazy("Exposed-comm share of cost per ETH"), MONEY),
    (gettext_lazy("Nodes used"), INT), (gettext_lazy("Oversubscription"), NUM2),
    (gettext_lazy("Tokens per GPU to hide comm"), MONEY0),
)  # fmt: skip

# The training-time model v2's breakdown per offer (RankingResult.model_detail, MODEL.md §15).
MODEL_COLUMNS = (
    (gettext_lazy("Rank"), INT), (gettext_lazy("Offer"), None),
    (gettext_lazy("Tensor parallel"), INT), (gettext_lazy("Pipeline parallel"), INT),
    (gettext_lazy("Data parallel"), INT), (gettext_lazy("Expert parallel"), INT),
    (gettext_lazy("ZeRO stage"), INT), (gettext_lazy("Microbatch"), INT),
    (gettext_lazy("GPUs used"), INT), (gettext_lazy("Memory per GPU (GB)"), NUM1),
    (gettext_lazy("Card memory (GB)"), NUM1), (gettext_lazy("Compute (s)"), NUM3),
    (gettext_lazy("Tensor-parallel comm (s)"), NUM3), (gettext_lazy("Pipeline bubble (s)"), NUM3),
    (gettext_lazy("Pipeline transfers (s)"), NUM3), (gettext_lazy("Data-parallel comm (s)"), NUM3),
    (gettext_lazy("Expert-parallel comm (s)"), NUM3), (gettext_lazy("Optimizer (s)"), NUM3),
    (gettext_lazy("Step time (s)"), NUM3), (gettext_lazy("MFU"), PCT),
    (gettext_lazy("Expected interruptions"), NUM1),
    (gettext_lazy("Checkpoint interval (s)"), MONEY0),
    (gettext_lazy("Checkpoint write (s)"), NUM1), (gettext_lazy("Goodput"), PCT),
    (gettext_lazy("Job wall hours"), MONEY0), (gettext_lazy("Job cost"), MONEY),
    (gettext_lazy("Layouts evaluated"), INT), (gettext_lazy("Bandwidth basis"), None),
    (gettext_lazy("Assumed inputs"), None),
)  # fmt: skip


def _msg(m: dict[str, str], lang: str | None) -> str:
    return str(m.get("zh") if (lang or "").startswith("zh") else m.get("en"))


BASIS_WORDS = {
    "measured": gettext_lazy("measured (benchmark)"),
    "nominal": gettext_lazy("claimed by the vendor"),
}


def _yes(flag: bool) -> str:
    return str(_("yes") if flag else _("no"))


def term_fits(data: ReportData) -> dict[str, bool]:
    """Whether the job fits each offer's contract term: the run's stored fits, and for the
    other offers the same domain rule on their stored job hours and term."""
    stored = data.decision.get("terms") or {}
    out: dict[str, bool] = {}
    for r in data.results:
        key = str(r.offer_id)
        if key in stored:
            out[key] = bool(stored[key].get("fits"))
            continue
        fit = dd.term_fit(r.job_hours, (data.offers.get(key) or {}).get("term_months"))
        if fit is not None:
            out[key] = fit.fits
    return out


def ranking_row(
    r: Any, lang: str | None, fits: dict[str, bool] | None = None,
    stale: set[int] | None = None,
) -> list[Any]:  # fmt: skip
    """One ranked offer as the ranking sheet and the CSV give it, in the reader's language."""
    excluded = "" if r.eligible else "; ".join(_msg(m, lang) for m in r.eligibility_reasons or [])
    low, high = r.deciding_range
    return [
        r.shown_rank, getattr(r, "display_vendor", r.vendor_name), r.label, r.currency,
        r.monthly_rent, r.deciding_cost_per_eth, low, high, r.cost_per_eth,
        # an excluded offer is not ranked: no premium counts on it
        (r.risk_premium_pct or 0.0) / 100 if r.eligible else None, r.step_time_s, r.exposed_comm_s,
        r.utilisation, r.bandwidth_gbps,
        str(BASIS_WORDS.get(r.bandwidth_basis, r.bandwidth_basis)),
        evidence_sentence((r.model_detail or {}).get("evidence"), lang or "en"),
        r.job_hours, r.job_cost,
        "; ".join(_msg(w, lang) for w in r.warnings or []),
        _yes(r.recommended), _yes(r.eligible), excluded,
        _yes(r.tie_with_winner and not r.recommended),
        "" if (fits or {}).get(str(r.offer_id)) is None else _yes((fits or {})[str(r.offer_id)]),
        _yes(r.quote_version_id in (stale or ())),
    ]  # fmt: skip


def _display(r: Any) -> str:
    return getattr(r, "display_name", None) or f"{r.vendor_name} · {r.label}"


def _breakdown_row(r: Any) -> list[Any]:
    step = r.step_time_s or 0
    share = (lambda t: r.cost_per_eth * t / step) if step else (lambda t: None)
    return [
        r.shown_rank, _display(r), r.compute_time_s, r.comm_time_s, r.exposed_comm_s,
        r.step_time_s, r.eth_per_hour, r.hourly_cost, share(r.compute_time_s),
        share(r.exposed_comm_s), r.nodes_used, r.oversubscription, r.tokens_per_gpu_to_hide_comm,
    ]  # fmt: skip


def _model_row(r: Any) -> list[Any]:
    d = r.model_detail
    lay, mem, step, fail, job = d["layout"], d["memory"], d["step"], d["failures"], d["job"]
    return [
        r.shown_rank, _display(r), lay["tp"], lay["pp"], lay["dp"], lay["ep"],
        lay["zero_stage"], lay["microbatch"], d["gpus_used"], mem["total_gb"], mem["card_gb"],
        step["compute_s"], step["tp_s"], step["bubble_s"], step["pp_transfer_s"], step["dp_s"],
        step["ep_s"], step["optimizer_s"], step["step_s"], d["mfu"],
        fail["expected_interruptions"], fail["checkpoint_interval_s"], fail["checkpoint_write_s"],
        fail["goodput"], job["wall_hours"], job["cost"], d["layouts_evaluated"],
        str(BASIS_WORDS.get(d["bandwidth_basis"], d["bandwidth_basis"])),
        "; ".join(str(ASSUMED_LABELS.get(a, a)) for a in d["assumed"]),
    ]  # fmt: skip


def _cell(ws: Any, value: Any, fmt: str | None) -> Any:
    value = clean(value)
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        if fmt is None:  # numbers in untyped columns (inputs) still read as grouped numbers
            fmt = MONEY0 if isinstance(value, int) else FREE_NUMBER
        return number_cell(ws, at_precision(value, fmt), fmt)
    cell = WriteOnlyCell(ws, value=value)
    if isinstance(value, str) and value.startswith("="):
        cell.data_type = "s"  # a label "=HYPERLINK(...)" stays text
    return cell


def money_suffix(currencies: set[str]) -> str:
    """What a money column's header says about its currency: the one currency of every row,
    or that each row is in its offer's currency (the Currency column)."""
    if len(currencies) == 1:
        return f" ({next(iter(currencies))})"
    return " (" + str(_("in the offer's currency")) + ")"


def _sheet(wb: Workbook, title: str, columns, rows, currency: str = "") -> Any:  # type: ignore[no-untyped-def]
    """One sheet in openpyxl's write-only mode: rows are written as they come (constant
    memory per row), each number rounded to its column's display precision."""
    ws = wb.create_sheet(title)
    for idx, (_t, fmt) in enumerate(columns, start=1):
        ws.column_dimensions[get_column_letter(idx)].width = 14 if fmt else 28
    ws.freeze_panes = "A2"
    head = []
    for t, fmt in columns:
        cell = WriteOnlyCell(ws, value=clean(str(t) + (currency if fmt == MONEY else "")))
        cell.font = Font(bold=True)
        cell.fill = PatternFill("solid", fgColor="EEF1F6")
        cell.alignment = Alignment(wrap_text=True, vertical="top")
        head.append(cell)
    ws.append(head)
    formats = [fmt for _t, fmt in columns]
    for row in rows:
        ws.append([_cell(ws, v, formats[i] if i < len(formats) else None)
                   for i, v in enumerate(row)])  # fmt: skip
    return ws


GPU_LABELS: dict[str, Any] = {
    "tflops_bf16": gettext_lazy("BF16 compute (TFLOPS)"), "memory_gb": gettext_lazy("Memory (GB)"),
    "intra_node_gbyte_s": gettext_lazy("Within a node (GB/s)"),
    "default_mfu": gettext_lazy("Default MFU"),
    "hbm_tbps": gettext_lazy("Memory bandwidth (TB/s)"),
    "intra_kind": gettext_lazy("Link within a node"),
    "efficiency": gettext_lazy("Compute efficiency (large matrices)"),
    "fp8_tflops": gettext_lazy("FP8 compute (TFLOPS)"),
}  # fmt: skip
_INPUT_HIDDEN = {"id", "quote_id", "vendor", "vendor_en", "label", "currency"}


def _inputs_rows(data: ReportData) -> list[list[Any]]:
    """The ranking's inputs, one per row, named in words (numbers stay numbers to recompute)."""
    lang = get_language()
    rows: list[list[Any]] = [[_("Ranking run"), _("Ranking run"), data.run.pk]]
    changed = data.stale_results
    status = _(
        "yes: %(offers)s changed since this ranking; rank again with the current "
        "quotes before signing"
    ) % {"offers": "; ".join(_display(r) for r in changed)}
    rows.append([_("Ranking run"), _("Out of date"), status if changed else _("no")])
    for k, v in data.workload.items():
        value = str(STRATEGIES.get(str(v), v)) if k == "strategy" else v
        rows.append([_("Workload"), str(WORKLOAD_LABELS.get(k, _humanise(k))), value])
    rows += [[_("Exchange rate to CNY"), f"1 {k} (CNY)", v] for k, v in data.fx_to_cny.items()]
    basis = data.run.snapshot.get("tax_basis")
    basis_text = (money.basis_label(basis) if basis else money.TAX_ASSUMED).text(lang)
    rows.append([_("Tax basis"), _("Prices compared"), basis_text])
    for key, gpu in data.gpus.items():
        rows += [[f"GPU {key}", str(GPU_LABELS.get(k, _humanise(k))), v] for k, v in gpu.items()]
    for offer in data.offers.values():
        name = f"{_vendor_of(offer, lang or 'en')} · {offer.get('label', '')}"
        for k, v in offer.items():
            if k in _INPUT_HIDDEN:
                continue
            if k == "vendor_flags":
                rows.append([name, _("Red flags"), "; ".join(_msg(m, lang) for m in v or [])])
                continue
            label = _("quote version") if k == "version" else str(OFFER_LABELS.get(k, _humanise(k)))
            if k == "fabric":
                v = FABRICS.get(str(v), v)
            elif k == "measured_kind":
                v = measured_kind_words(v)
            elif k == "evidence" and isinstance(v, dict):
                v = evidence_words(v, lang or "en")
            elif k == "tax" and isinstance(v, dict):
                label, v = _("VAT terms"), tax_words(v, lang or "en")
            elif k == "confirmed_outliers" and isinstance(v, list):
                label, v = _("Confirmed unusual values"), outlier_words(v, lang or "en")
            elif isinstance(v, bool):
                v = _("yes") if v else _("no")
            rows.append(
                [name, label, v if isinstance(v, int | float | str) or v is None else str(v)]
            )
    return rows


def _evidence_rows(data: ReportData) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for s in data.vendors:
        v = s.vendor
        if v is None:
            rows.append([s.name, _("vendor"), "", "", "; ".join(s.missing), None, ""])
            continue
        for lic in v.licences.all():
            rows.append([s.name, _("Telecom licence"), lic.number, lic.get_state_display(),
                         ", ".join(lic.business_codes or []), None, ""])  # fmt: skip
        for icp in v.icp_filings.all():
            rows.append([s.name, _("ICP filing"), icp.number, icp.get_state_display(), icp.website,
                         None, ""])  # fmt: skip
        for f in s.critical:
            rows.append([s.name, _("Red flag"), "", _("critical"),
                         f.message.text(get_language()), None, ""])  # fmt: skip
        for tr in s.test_runs:
            for log in tr.logs.all():
                state, details = _log_state(log)
                rows.append([s.name, tr.name, log.original_name, state, details or log.tool,
                             log.throughput_gbps, log.sha256, *log_checks(log)])  # fmt: skip
        for m in s.missing:
            rows.append([s.name, _("Missing"), "", "", m, None, ""])
    return rows


def log_checks(log: Any) -> list[str]:
    """A log's trust level, integrity, re-use and admission in words (the run page's columns),
    in the reader's language."""
    lang = get_language() or "en"
    if log.status != JobStatus.DONE:
        return ["", "", "", ""]
    integrity = log.integrity or {}
    status = integrity.get("status") or "unchecked"
    findings = "; ".join(_msg(m, lang) for m in integrity.get("findings") or [])
    if status == "inconsistent":
        checked = _("inconsistent: the log contradicts its own arithmetic")
    elif status == "consistent":
        checked = _("consistent: the tool's own arithmetic holds")
    else:
        checked = _("not checked (nothing in the log to check against)")
    checks = log.checks or {}
    reused = sorted({*(checks.get("reused_by") or ()), *(integrity.get("reused") or ())})
    held = sorted(checks.get("body_held_by") or ())
    reuse = []
    if reused:
        ids = ", ".join(f"#{i}" for i in reused)
        reuse.append(_("re-used: the same test is held as log %(ids)s") % {"ids": ids})
    if held:
        ids = ", ".join(f"#{i}" for i in held)
        reuse.append(_("already held: the same body as log %(ids)s") % {"ids": ids})
    admission = log.admission or {}
    if not admission:
        admitted = ""
    elif admission.get("admitted"):
        admitted = str(_("Counts towards the figure"))
    else:
        reasons = " · ".join(_msg(m, lang) for m in admission.get("reasons") or [])
        admitted = _("Set aside: %(reasons)s") % {"reasons": reasons}
    return [
        str(log.get_trust_level_display()),
        f"{checked}: {findings}" if findings else str(checked),
        "; ".join(str(x) for x in reuse) or str(_("no")),
        admitted,
    ]


def _log_state(log: Any) -> tuple[str, str]:
    """A log's verdict in words; a log that could not be read says so, with the parser's
    reason (it is not waiting for a verdict)."""
    if log.status == JobStatus.FAILED:
        reason = log.error_zh if (get_language() or "").startswith("zh") else log.error_en
        return str(_("Could not be read")), reason or log.error or ""
    if log.status != JobStatus.DONE:
        return str(_("Being read")), ""
    return str(log.get_verdict_display()), ""


EVIDENCE_COLUMNS = (
    (gettext_lazy("Vendor"), None), (gettext_lazy("Kind / test run"), None),
    (gettext_lazy("Number / file"), None), (gettext_lazy("State / verdict"), None),
    (gettext_lazy("Details"), None), (gettext_lazy("Throughput (Gbit/s)"), NUM1),
    ("SHA-256", None), (gettext_lazy("Trust level"), None),
    (pgettext_lazy("log integrity", "Integrity"), None), (gettext_lazy("Re-use"), None),
    (gettext_lazy("Admission"), None),
)  # fmt: skip


def build_xlsx(data: ReportData, progress: Any = None) -> bytes:
    """The workbook, written in write-only mode. A run of more than APPENDIX_AFTER offers
    keeps every offer on the Ranking sheet (a row each) and writes the per-offer Breakdown and
    Model detail sheets for the first APPENDIX_AFTER ranks only, saying so in a last row."""
    lang = get_language()
    tick = progress or (lambda p: None)
    wb = Workbook(write_only=True)
    fits = term_fits(data)
    suffix = money_suffix({r.currency for r in data.results if r.currency})
    ranking = _sheet(wb, _("Ranking")[:31], RANKING_COLUMNS,
                     (ranking_row(r, lang, fits, data.stale_version_ids) for r in data.results),
                     suffix)  # fmt: skip
    if not data.results:
        ranking.append([None, _cell(ranking, "; ".join(data.missing), None)])
    tick(50)
    shown = data.results[:APPENDIX_AFTER]
    more = len(data.results) - len(shown)
    note = [None, _("Offers ranked below %(n)s are on the Ranking sheet only (%(more)s more).")
            % {"n": APPENDIX_AFTER, "more": more}] if more > 0 else None  # fmt: skip
    breakdown = _sheet(wb, _("Breakdown")[:31], BREAKDOWN_COLUMNS,
                       (_breakdown_row(r) for r in shown), suffix)  # fmt: skip
    if note:
        breakdown.append(note)
    detailed = [r for r in shown if r.model_detail]
    if detailed:
        model = _sheet(wb, _("Model detail")[:31], MODEL_COLUMNS,
                       (_model_row(r) for r in detailed), suffix)  # fmt: skip
        if note:
            model.append(note)
    tick(70)
    input_columns = ((_("Group"), None), (_("Input"), None), (_("Value"), None))
    _sheet(wb, _("Inputs")[:31], input_columns, _inputs_rows(data))
    _sheet(wb, _("Evidence")[:31], EVIDENCE_COLUMNS, _evidence_rows(data))
    tick(85)
    wb.properties.title = clean(f"{_('Ranking run')} #{data.run.pk} · {data.team_name}")[:200]
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


# Per-offer detail sheets stop after this many ranks; the Ranking sheet keeps every offer.
APPENDIX_AFTER = 500
