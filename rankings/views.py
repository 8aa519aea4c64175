"""Pages of the rankings app: list, start form, run page (progress, table, charts, what-if)."""

from __future__ import annotations

from django.contrib import messages
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.views import View

from accounts.mixins import TeamRequiredMixin, TeamWriteMixin
from core.queue import unavailable_text, was_unqueued
from domain import costmodel as cm

from . import figures
from .chart_labels import chart_labels
from .forms import RankingStartForm
from .inputs import InputFileError
from .models import RankingRun
from .selectors import money_marks, ranking_detail, ranking_lesson, ranking_overview
from .services import ranking_start
from .whatif import sensitivity_rows, whatif


def _run_or_404(team, pk: int) -> RankingRun:  # type: ignore[no-untyped-def]
    try:
        return ranking_detail(team=team, pk=pk)
    except RankingRun.DoesNotExist as exc:
        raise Http404 from exc


class RankingListView(TeamRequiredMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        page = Paginator(ranking_overview(team=self.team), 25).get_page(request.GET.get("page"))
        return render(request, "rankings/ranking_list.html", {
            "page": page, "can_write": self.membership.can_write,
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


def _charts(run: RankingRun, results: list) -> dict:  # type: ignore[type-arg]
    """The run page's figures and sensitivity rows."""
    labels = chart_labels()
    try:
        tornado = sensitivity_rows(run.snapshot)
    except (cm.ModelInputError, InputFileError):
        tornado = []
    return {
        "charts": {
            "breakdown": figures.to_div(
                figures.cost_breakdown_figure(results, labels=labels["breakdown"])
            ),
            "bandwidth": figures.to_div(
                figures.cost_vs_bandwidth_figure(results, labels=labels["bandwidth"])
            ),
            "tornado": figures.to_div(figures.tornado_figure(tornado, labels=labels["tornado"]))
            if tornado
            else "",
        },
        "tornado": tornado,
    }


def _finished_section(request, run: RankingRun) -> str:  # type: ignore[no-untyped-def]
    """The run page's results (problems, table, what-if controls, figures, sensitivity) as
    HTML, rendered once per finished run and language.

    A finished run's snapshot, problems and results no longer change (computing it again gives
    it a new finished_at, hence a new key), and the sensitivity sweep, three Plotly figures and
    the table of every offer are nearly all of the page's time.
    """
    stamp = run.finished_at.timestamp() if run.finished_at else 0
    key = f"ranking-section:v3:{run.team_id}:{run.pk}:{run.status}:{stamp}:{get_language()}"
    html = cache.get(key)
    if html is not None:
        return html  # type: ignore[no-any-return]
    results = list(run.results.order_by("rank"))
    ctx: dict = {"run": run, "results": results, "charts": {}}  # type: ignore[type-arg]
    if results:
        ctx.update(_charts(run, results))
        ctx.update(ranking_lesson(results))
        money_marks(run.snapshot, ctx["result_rows"])
        ctx["tax_basis"] = run.snapshot.get("tax_basis")  # None: a run from before VAT terms
        ctx["overlap"] = run.snapshot.get("workload", {}).get("overlap", 0.5)
    html = render_to_string("rankings/_finished.html", ctx, request=request)
    cache.set(key, html, timeout=6 * 3600)
    return html


class RankingDetailView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = _run_or_404(self.team, pk)
        ctx: dict = {"run": run}  # type: ignore[type-arg]
        if run.is_finished:
            ctx["finished_section"] = mark_safe(_finished_section(request, run))  # noqa: S308 - our own rendered template
        ctx["status_url"] = reverse("rankings:status", args=[run.pk])
        ctx["whatif_url"] = reverse("rankings:whatif", args=[run.pk])
        return render(request, "rankings/ranking_detail.html", ctx)


class RankingStatusView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = RankingRun.objects.for_team(self.team).filter(pk=pk).first()
        if run is None:
            raise Http404
        return JsonResponse({
            "id": run.pk, "status": run.status, "progress": run.progress, "error": run.error,
            "finished": run.is_finished,
        })  # fmt: skip


def _float(value: str | None, default: float | None, low: float, high: float) -> float | None:
    try:
        x = float(value) if value not in (None, "") else default
    except ValueError:
        return default
    return None if x is None else min(high, max(low, x))


class RankingWhatIfView(TeamRequiredMixin, View):
    """The same domain ranking over the run's snapshot, with what-if adjustments."""

    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = RankingRun.objects.for_team(self.team).filter(pk=pk).first()
        if run is None:
            raise Http404
        if not run.snapshot:
            return JsonResponse({"results": [], "problems": []})
        try:
            data = whatif(
                run.snapshot,
                overlap=_float(request.GET.get("overlap"), None, 0.0, 1.0),
                mfu_scale=_float(request.GET.get("mfu_scale"), 1.0, 0.1, 3.0) or 1.0,
                bandwidth_scale=_float(request.GET.get("bandwidth_scale"), 1.0, 0.01, 100) or 1.0,
            )
        except (cm.ModelInputError, InputFileError) as exc:
            return JsonResponse({"results": [], "problems": [str(exc)]}, status=400)
        labels = {
            o["id"]: f"{o.get('vendor', '')} · {o.get('label', '')}" for o in run.snapshot["offers"]
        }
        for r in data["results"]:
            r["label"] = labels.get(r["id"], r["id"])
        return JsonResponse(data)
