"""Pages of the rankings app: list, start form, run page (progress, table, charts, what-if), and
the quotes' compare page (`quotes:compare`, /quotes/compare/: its cost rows run the ranking, so
it lives above quotes; portal/urls.py adds it to the quotes namespace)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import F, Q
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import View

from accounts.mixins import TeamRequiredMixin, TeamWriteMixin
from core.models import JobStatus
from core.queue import unavailable_text, was_unqueued
from domain import formatting
from domain.eligibility import DEFAULT_POLICY
from domain.labels import shown as shown_label
from quotes.selectors import workload_list
from quotes.views import COMPARE_ROWS

from .compare import compare_quotes, cost_rows, risk_rows, table_key, term_rows
from .decision import policy_note
from .forms import RankingStartForm, RiskPolicyForm
from .inputs import InputFileError, offer_vendor
from .models import RankingRun, TeamRiskPolicy
from .page_data import (
    CHART_OFFERS,
    PAGE_DATA_VERSION,
    chart_figures,
    is_current,
    language_charts,
    page_inputs,
)
from .policy import policy_history, policy_save
from .selectors import (
    money_marks,
    ranking_decision,
    ranking_detail,
    ranking_lesson,
    ranking_overview,
    stale_quotes,
    stale_run_ids,
    team_risk_policy,
)
from .services import (
    compute_snapshot,
    outcome_dict,
    ranking_recompute,
    ranking_rerun,
    ranking_start,
    result_rows,
)
from .whatif import (
    control_rows,
    ranking_start_scenario,
    saved_scenario,
    scenario_from,
    scenario_snapshot,
    scenario_text,
    stored_sensitivity,
)


def _run_or_404(team, pk: int) -> RankingRun:  # type: ignore[no-untyped-def]
    try:
        return ranking_detail(team=team, pk=pk)
    except RankingRun.DoesNotExist as exc:
        raise Http404 from exc


class RankingListView(TeamRequiredMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        page = Paginator(ranking_overview(team=self.team), 25).get_page(request.GET.get("page"))
        done = [r for r in page if r.status == JobStatus.DONE]
        return render(request, "rankings/ranking_list.html", {
            "page": page, "can_write": self.membership.can_write,
            "stale_ids": stale_run_ids(done),  # live: a quote may change any time (one query)
        })  # fmt: skip


class GlossaryView(TeamRequiredMixin, View):
    """The words of the ranking pages and reports explained (ETH, MFU, overlap, P5)."""

    def get(self, request):  # type: ignore[no-untyped-def]
        return render(request, "rankings/glossary.html")


class RankingStartView(TeamWriteMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        form = RankingStartForm(team=self.team)
        return render(request, "rankings/ranking_start.html", {"form": form})

    def post(self, request):  # type: ignore[no-untyped-def]
        form = RankingStartForm(request.POST, team=self.team)
        if form.is_valid():
            d = form.cleaned_data
            try:
                run = ranking_start(
                    team=self.team, user=request.user, workload=d["workload"],
                    quotes=list(d["quotes"]) or None, fx_to_cny=d["fx_to_cny"],
                )  # fmt: skip
                if was_unqueued(run):  # the run is kept pending and sent again later
                    messages.warning(request, unavailable_text(get_language()))
                return redirect("rankings:detail", pk=run.pk)
            except ValidationError as exc:
                for field, msgs in exc.message_dict.items():
                    for m in msgs:
                        form.add_error(field if field in form.fields else None, m)
        return render(request, "rankings/ranking_start.html", {"form": form}, status=400)


# Offers per page of a finished run's results table (a ranking may hold thousands).
RESULTS_PER_PAGE = 50
# Offers up to which the what-if computes a scenario in the request (a few seconds at most);
# a larger run's scenario is saved as a run and computed by the job.
WHATIF_LIVE_OFFERS = 60


def _render_section(  # type: ignore[no-untyped-def]
    request,
    run: RankingRun,
    rows: list,
    *,
    page,
    stored: dict,
    scenario: str = "",  # type: ignore[type-arg]
    every: list | None = None,  # type: ignore[type-arg]
) -> str:
    """The finished section of the run page: one template for the saved run and a scenario.

    `rows` are the results on this `page` of the table; `stored` is what the job stored for
    the page (rankings/page_data.py) or, for a scenario, the same computed with it. The lesson
    and the decision name offers of any page: a scenario's are all in `every`, a saved run's
    are read by their own small queries."""
    ctx: dict = {"run": run, "results": rows, "charts": {}, "scenario": scenario}  # type: ignore[type-arg]
    ctx["results_page"] = page
    ctx["chart_offers"] = CHART_OFFERS
    ctx["stored_current"] = bool(scenario) or is_current(stored)
    if rows:
        ctx["charts"] = language_charts(stored, get_language())
        ctx["tornado"] = stored_sensitivity(stored.get("sensitivity"))
        ctx.update(_lesson(run, rows, every))
        for row in ctx["result_rows"]:
            _risk_lines(row)
        money_marks(stored.get("marks") or {}, ctx["result_rows"])
        ctx["tax_basis"] = stored.get("tax_basis")  # None: a run from before VAT
        ctx["overlap"] = stored.get("overlap", 0.5)
    named = every if every is not None else _decision_rows(run, rows)
    ctx["decision"] = ranking_decision(run, named)
    return render_to_string("rankings/_finished.html", ctx, request=request)


def _lesson(run: RankingRun, rows: list, every: list | None) -> dict:  # type: ignore[type-arg]
    """The table rows of this page, and the cheapest-rent and recommended offers of the whole
    run (`every` result of a scenario; a saved run's two read by two small queries)."""
    if every is not None:
        lesson = ranking_lesson(every)
        lesson["result_rows"] = lesson["result_rows"][: len(rows)]
        return lesson
    light = run.results.defer("model_detail", "warnings")
    ends = [
        r
        for r in (
            light.filter(recommended=True).first(),
            light.order_by("hourly_cost", "rank").first(),
        )
        if r is not None
    ]
    lesson = ranking_lesson(ends)
    lesson["result_rows"] = ranking_lesson(rows)["result_rows"]
    return lesson


def _decision_rows(run: RankingRun, rows: list) -> list:  # type: ignore[type-arg]
    """The rows the decision names (recommended, tied, excluded) and this page's rows."""
    named = run.results.filter(
        Q(recommended=True) | Q(tie_with_winner=True) | Q(eligible=False)
    ).defer("model_detail", "warnings")
    seen = {r.pk for r in rows}
    return [*rows, *(r for r in named if r.pk not in seen)]


def _page_number(request) -> int:  # type: ignore[no-untyped-def]
    """The table page asked for (1 when unreadable; past the end: the Paginator's last)."""
    try:
        return max(1, int(request.GET.get("page") or 1))
    except (TypeError, ValueError):
        return 1


def _stored(run: RankingRun) -> dict:  # type: ignore[type-arg]
    """What the job stored for the page; for a run from before it did, the snapshot values the
    page shows (no sweep, no charts: the page offers to compute the run again)."""
    data = RankingRun.objects.filter(pk=run.pk).values_list("page_data", flat=True).first() or {}
    if is_current(data):
        return data
    snapshot = RankingRun.objects.filter(pk=run.pk).values_list("snapshot", flat=True).first()
    return page_inputs(snapshot or {})


def _risk_lines(row: dict) -> None:  # type: ignore[type-arg]
    """An offer's risk marks and exclusion reasons that its warnings row does not already show
    (each finding once on the page); `risk_in_warnings` counts those left to the warnings."""
    r, ws = row["result"], row["warnings"]
    shown = [w.get("en", "") for w in (*ws["shown"], *ws["more"])]

    def repeated(m: dict) -> bool:  # type: ignore[type-arg]
        return any(text and m.get("en", "").endswith(text) for text in shown)

    reasons = list(r.eligibility_reasons or ())
    marks = [m for m in r.risk_marks or () if not repeated(m)]
    row["risk_marks"] = marks
    row["risk_reasons"] = [m for m in reasons if not repeated(m)]
    row["risk_in_warnings"] = len(reasons) - len(row["risk_reasons"])


def _finished_section(request, run: RankingRun) -> str:  # type: ignore[no-untyped-def]
    """The run page's results (decision, problems, a page of the table, figures, sensitivity)
    as HTML, rendered once per finished run, table page and language from what the job stored.

    A finished run's snapshot, problems and results no longer change (computing it again gives
    it a new finished_at, hence a new key)."""
    number = _page_number(request)
    stamp = run.finished_at.timestamp() if run.finished_at else 0
    key = (
        f"ranking-section:v11:{run.team_id}:{run.pk}:{run.status}:{stamp}:{number}:{get_language()}"
    )
    html = cache.get(key)
    if html is not None:
        return html  # type: ignore[no-any-return]
    # the decision's order: eligible offers by their rank, excluded ones after them, unranked
    ordered = run.results.order_by(F("decision_rank").asc(nulls_last=True), "rank")
    page = Paginator(ordered, RESULTS_PER_PAGE).get_page(number)
    stored = _stored(run)
    rows = list(page.object_list)
    whatif = stored.get("whatif") or {}
    html = render_to_string("rankings/_whatif.html", {
        "run": run,
        "section": mark_safe(_render_section(request, run, rows, page=page, stored=stored)),  # noqa: S308 - our own rendered template
        "controls": control_rows(whatif) if rows and whatif else [],
        "saved_scenario": scenario_text(whatif, saved_scenario(whatif)),
    }, request=request)  # fmt: skip
    cache.set(key, html, timeout=6 * 3600)
    return html


class RankingDetailView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = _run_or_404(self.team, pk)
        ctx: dict = {"run": run}  # type: ignore[type-arg]
        if run.is_finished:
            ctx["finished_section"] = mark_safe(_finished_section(request, run))  # noqa: S308 - our own rendered template
            stored = str(getattr(run, "page_version", "") or "")  # ranking_detail's annotation
            old = stored != str(PAGE_DATA_VERSION)
            ctx["needs_recompute"] = run.status == JobStatus.DONE and old
        if run.status == JobStatus.DONE:
            ctx["stale"] = stale_quotes(run=run)  # read live: a quote may change any time
        ctx["can_write"] = self.membership.can_write
        ctx["status_url"] = reverse("rankings:status", args=[run.pk])
        ctx["whatif_url"] = reverse("rankings:whatif", args=[run.pk])
        return render(request, "rankings/ranking_detail.html", ctx)


class RankingRecomputeView(TeamWriteMixin, View):
    """Compute a finished run again by its job (same snapshot): a run stored before its page's
    sensitivity and charts were gets them; the page never computes them itself."""

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = RankingRun.objects.for_team(self.team).filter(pk=pk).only("pk", "status").first()
        if run is None:
            raise Http404
        if run.is_finished:
            run = ranking_recompute(run=run)
            if was_unqueued(run):
                messages.warning(request, unavailable_text(get_language()))
        return redirect("rankings:detail", pk=run.pk)


class RankingRerankView(TeamWriteMixin, View):
    """Rank again with the quotes' current versions: a new run of the same workload and the
    same quotes (all current ones when the run took all), keeping its RFQ standings."""

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = RankingRun.objects.for_team(self.team).filter(pk=pk).first()
        if run is None:
            raise Http404
        if run.workload is None:
            messages.error(request, _("The run's workload was deleted: start a new ranking."))
            return redirect("rankings:detail", pk=run.pk)
        quotes = None if run.all_current else list(run.quotes.filter(team=self.team))
        try:
            fresh = ranking_rerun(run=run, user=request.user, quotes=quotes)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return redirect("rankings:detail", pk=run.pk)
        return redirect("rankings:detail", pk=fresh.pk)


class RankingStatusView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = RankingRun.objects.for_team(self.team).filter(pk=pk).first()
        if run is None:
            raise Http404
        return JsonResponse({
            "id": run.pk, "status": run.status, "progress": run.progress, "error": run.error,
            "finished": run.is_finished,
        })  # fmt: skip


class RankingWhatIfView(TeamRequiredMixin, View):
    """The run's snapshot with the controls' values, computed exactly as a saved run is
    (`compute_snapshot`: cost model, eligibility, ranges, ties, headline) and rendered with the
    run page's own section template: the page swaps `html` in. `results` keeps the JSON rows."""

    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = RankingRun.objects.for_team(self.team).filter(pk=pk).first()
        if run is None:
            raise Http404
        if not run.snapshot:
            return JsonResponse({"results": [], "problems": [], "html": "", "scenario": {}})
        scenario = scenario_from(request.GET, run.snapshot)
        offers = len(run.snapshot.get("offers") or ())
        if offers > WHATIF_LIVE_OFFERS:
            # a live preview would run the model in the request for every offer: the scenario
            # is computed by the job instead, once saved as a run (the saved one is the page's)
            if scenario == saved_scenario(run.snapshot):
                return JsonResponse({"results": [], "problems": [], "html": "",
                                     "scenario": scenario, "is_saved": True})  # fmt: skip
            text = _(
                "This ranking has %(n)s offers, too many to compute a scenario while you wait: "
                "save it as a new ranking run and it is computed in the background."
            ) % {"n": offers}
            return JsonResponse({
                "results": [], "problems": [text], "html": "", "refused": True,
                "scenario": scenario, "scenario_text": scenario_text(run.snapshot, scenario),
            }, status=400)  # fmt: skip
        shown = RankingRun(
            pk=run.pk, team_id=run.team_id, status=run.status, label=run.label,
            finished_at=run.finished_at, snapshot=scenario_snapshot(run.snapshot, scenario),
        )  # fmt: skip
        try:
            outcome, shown.problems, decisions, shown.decision = compute_snapshot(shown.snapshot)
        except InputFileError as exc:
            return JsonResponse({"results": [], "problems": [str(exc)]}, status=400)
        results = result_rows(shown, outcome, decisions)
        page = Paginator(results, RESULTS_PER_PAGE).get_page(1)
        # the scenario's own figures, drawn like the job draws a run's (no sweep: saved run only)
        stored = {**page_inputs(shown.snapshot), "charts": {get_language(): chart_figures(results)}}
        text = scenario_text(run.snapshot, scenario)
        labels = {
            o["id"]: f"{offer_vendor(o)} · {shown_label(o.get('label', ''), get_language())}"
            for o in run.snapshot["offers"]
        }
        data = outcome_dict(outcome)
        for r in data["results"]:
            r["label"] = labels.get(r["id"], r["id"])
        return JsonResponse({
            **data,
            "scenario": scenario,
            "scenario_text": text,
            "is_saved": scenario == saved_scenario(run.snapshot),
            "recommended": shown.decision.get("recommended"),
            "html": _render_section(
                request, shown, list(page.object_list), page=page, stored=stored,
                scenario=text or "-", every=results,
            ),
        })  # fmt: skip


class RankingScenarioSaveView(TeamWriteMixin, View):
    """Save the what-if's settings as a new ranking run, computed by the normal job path."""

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = RankingRun.objects.for_team(self.team).filter(pk=pk).first()
        if run is None:
            raise Http404
        if not run.snapshot:
            messages.error(request, _("This run has no inputs to start a scenario from."))
            return redirect("rankings:detail", pk=run.pk)
        scenario = scenario_from(request.POST, run.snapshot)
        new = ranking_start_scenario(run=run, user=request.user, scenario=scenario)
        if was_unqueued(new):
            messages.warning(request, unavailable_text(get_language()))
        return redirect("rankings:detail", pk=new.pk)


class RiskPolicyView(TeamRequiredMixin, View):
    """The team's risk policy: every member reads it, a team admin changes it (logged in the
    admin's change history with the fields changed)."""

    template = "rankings/risk_policy.html"

    def _page(self, request, form, status: int = 200):  # type: ignore[no-untyped-def]
        return render(request, self.template, {
            "form": form, "is_admin": self.membership.is_admin,
            "current": policy_note(team_risk_policy(team=self.team)),
            "default": policy_note(DEFAULT_POLICY),
        }, status=status)  # fmt: skip

    def get(self, request):  # type: ignore[no-untyped-def]
        row = TeamRiskPolicy.objects.filter(team=self.team).first()
        return self._page(request, RiskPolicyForm(instance=row or TeamRiskPolicy(team=self.team)))

    def post(self, request):  # type: ignore[no-untyped-def]
        if not self.membership.is_admin:
            raise PermissionDenied(_("Only a team admin can change the team's risk policy."))
        row = TeamRiskPolicy.objects.filter(team=self.team).first()
        form = RiskPolicyForm(request.POST, instance=row or TeamRiskPolicy(team=self.team))
        if not form.is_valid():
            return self._page(request, form, status=400)
        policy_save(form=form, user=request.user)
        messages.success(request, _("The team's risk policy is saved; new rankings use it."))
        return redirect("rankings:policy")


class RiskPolicyHistoryView(TeamRequiredMixin, View):
    """Every saved version of the team's risk policy, newest first: who, when, and each
    changed field before and after. Every member of the team reads it."""

    def get(self, request):  # type: ignore[no-untyped-def]
        page = policy_history(team=self.team, page_number=request.GET.get("page"))
        return render(request, "rankings/risk_policy_history.html", {"page": page})


class QuoteCompareView(TeamRequiredMixin, View):
    """One column per offer: costs for a workload on top, red flags and evidence, every term."""

    def get(self, request):  # type: ignore[no-untyped-def]
        ids = [int(x) for x in request.GET.getlist("q") if x.isdigit()]
        quotes = compare_quotes(self.team, ids)
        workloads = list(workload_list(team=self.team))
        wanted = request.GET.get("workload", "")
        workload = next((w for w in workloads if str(w.pk) == wanted), None)
        if workload is None and workloads:  # the seed pre-training workload, else the first
            workload = next((w for w in workloads if w.preset == "pretrain-7b"), workloads[0])
        if workload is not None:
            workload.team = self.team  # the snapshot reads its tax basis: no query for it
        basis = self.team.tax_basis
        # The table is a fragment kept in the cache under `table_key` (every value it is written
        # from); its rows are callables the template calls only when it writes the fragment.
        return render(request, "quotes/quote_compare.html", {
            "quotes": quotes, "workloads": workloads, "workload": workload, "ids": ids,
            "tax_basis": basis, "cache_timeout": settings.CACHE_TIMEOUT_S,
            "table_key": table_key(quotes, workload, basis) if quotes else "",
            "top": lambda: cost_rows(quotes, workload, basis),
            "risk": lambda: risk_rows(quotes),
            "rows": lambda: term_rows(quotes, COMPARE_ROWS, _display),
        })  # fmt: skip


def _display(version, name: str) -> str:  # type: ignore[no-untyped-def]
    if version is None:
        return "—"
    getter = getattr(version, f"get_{name}_display", None)
    value = getter() if getter else getattr(version, name)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return (
        _shown_number(name, value)
        if _is_number(value)
        else ("—" if value is None or value == "" else str(value))
    )


# Prices are printed with two places; other numbers with the places they need (91.07, not
# 91.07100000000001); the availability as a percentage (99.9%).
_MONEY_ROWS = {"price_per_node_month", "monthly_fees", "setup_fee", "storage_price_tb_month",
               "bandwidth_price"}  # fmt: skip


def _is_number(value) -> bool:  # type: ignore[no-untyped-def]
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def _shown_number(name: str, value) -> str:  # type: ignore[no-untyped-def]
    if name == "availability":
        return formatting.availability(value)
    if name in _MONEY_ROWS:
        return formatting.number(value, 2)
    return formatting.significant(value)
