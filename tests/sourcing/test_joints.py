"""The joints (issue 34, item 5): one decision, read off every surface.

Each scenario builds a finished ranking the way a team gets one: a tie, an excluded cheapest
offer, the demo (a risk premium decides), an RFQ whose cheapest bid is knocked out, a serving
workload whose vendor has a training-only finding, and a ranking whose quote got new terms.
`read_surfaces` reads the ranking page's HTML, the dashboard, the API, page 1 and the ranking
table of the PDF (text through `pdftotext`), the workbook's cells and the CSV, and for an RFQ its
evaluation; the tests then ask the same questions of every surface:

- does it name the same recommended offer, with the same deciding figure;
- does it give an excluded offer a rank;
- does it claim a saving in a tie?

They run on PostgreSQL and on SQLite (`make test-sqlite` includes tests/sourcing)."""

from __future__ import annotations

import csv
import io
import re
import subprocess
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse
from django.utils import translation
from openpyxl import load_workbook

from core.models import JobStatus
from domain.eligibility import TRAINING_ONLY_CODES
from quotes.models import GpuModel
from quotes.services import quote_update
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.models import RankingRun
from rankings.tasks import run_job
from reports.selectors import report_data
from reports.services import report_build_sync
from reports.templatetags.fmt import money
from serving.services import serving_workload_create
from sourcing.selectors import rfq_evaluation
from vendors.models import DataCentre, NetworkProfile, Vendor
from vendors.selectors import vendor_findings
from vendors.services import vendor_refresh_findings

from .test_team_rules import FULL, NEED_1600, SHORT, _event

pytestmark = pytest.mark.django_db


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text.replace("&amp;", "&").replace("&#x27;", "'"))


def _pdftotext(path: str) -> str:
    return subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True, text=True,
                          check=True).stdout  # fmt: skip


@dataclass
class Reading:
    """What one surface says: the recommended offer (its offer id), the deciding figure printed
    for it, the offers it gives a rank to (offer ids), and whether it claims a saving."""

    recommended: str | None
    figure: float | str | None
    ranked: set[str] = field(default_factory=set)
    savings: bool = False


def _rows(ws: Any) -> list[dict[str, Any]]:
    header = [c.value for c in ws[1]]
    return [dict(zip(header, (c.value for c in row), strict=True)) for row in ws.iter_rows(2)]


def _numbered(text: str, name: str, vendor: str) -> bool:
    """Whether a line of the PDF's text prints a rank number just before this offer's name, or
    a "#rank" right after its vendor's name (appendix B, the red-flag table)."""
    head = name[:18]
    for line in text.splitlines():
        at = line.find(head)
        if at >= 0 and re.search(r"(^|\s)#?\d+\s*$", line[:at]):
            return True
        at = line.find(vendor)
        if at >= 0 and re.match(r"\s*\(?#\d+", line[at + len(vendor) :]):
            return True
    return False


def read_surfaces(run: RankingRun, team, user, client) -> dict[str, Reading]:  # type: ignore[no-untyped-def]
    """Every surface's reading of one finished run, in English."""
    with translation.override("en"):
        named = report_data(run=run).results  # display names, as the exports print them
    by_row = {(r.display_vendor, r.label): r.offer_id for r in named}
    assert len(by_row) == len(named), "two offers print the same vendor and label"
    out: dict[str, Reading] = {}

    # the ranking page: the row marked recommended, its bold cost, the rank cells
    page = client.get(reverse("rankings:detail", args=[run.pk]),
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()  # fmt: skip
    rows = re.findall(r'<tr data-offer="([^"]+)" class="([^"]*)">\s*<td class="rank">(.*?)</td>'
                      r'(.*?)</tr>', page, re.S)  # fmt: skip
    assert rows, "the ranking page lists no offer"
    marked = [oid for oid, cls, _rank, _rest in rows if "recommended" in cls.split()]
    figure = None
    if marked:
        rest = next(rest for oid, _c, _r, rest in rows if oid == marked[0])
        figure = _flat(re.search(r'<td class="cost num"[^>]*><strong>(.*?)</strong>', rest,
                                 re.S).group(1))  # fmt: skip
    out["page"] = Reading(
        recommended=marked[0] if len(marked) == 1 else None, figure=figure,
        ranked={oid for oid, _c, rank, _r in rows if re.search(r"\d", rank)},
        savings=bool(re.search(r'<p class="runner-up">[^<]*whole job [^<]*dearer', page)),
    )  # fmt: skip

    # the dashboard's leader line of this run
    board = client.get(reverse("dashboard"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    line = re.search(rf'<li class="leader" data-run="{run.pk}"(?: data-offer="([^"]+)")?>(.*?)'
                     r"</li>", board, re.S)  # fmt: skip
    assert line is not None, "the dashboard has no line for the run"
    cost = re.search(r'<span class="leader-cost">(.*?)</span>', line.group(2))
    out["dashboard"] = Reading(recommended=line.group(1), figure=cost and _flat(cost.group(1)))

    # the API
    api = client.get(f"/api/v1/rankings/{run.pk}/", HTTP_ACCEPT_LANGUAGE="en").json()
    api_rows = {r["offer_id"]: r for r in api["results"]}
    rec = api["recommended"]
    assert all(r["rank"] == r["shown_rank"] for r in api_rows.values())  # one rank, the decision's
    assert all(r["vendor_shown"] == (r["vendor_name_en"] or r["vendor_name"])
               for r in api_rows.values())  # English names for an English reader  # fmt: skip
    out["api"] = Reading(
        recommended=rec, figure=api_rows[rec]["deciding_cost_per_eth"] if rec else None,
        ranked={o for o, r in api_rows.items() if r["shown_rank"] is not None},
        savings=bool(api["decision"].get("savings")),
    )  # fmt: skip

    with translation.override("en"):
        # the PDF: page 1's recommendation and its figure; the ranking table's numbered rows
        pdf = report_build_sync(team=team, user=user, run=run, kind="pdf", language="en")
        assert pdf.status == JobStatus.DONE, pdf.error
        text = _pdftotext(pdf.file.path)
        page_one = text.split("\f")[0]
        label = "No clear winner" if run.decision.get("tie") else "Recommendation"
        box = page_one.split(label, 1)[1] if label in page_one else ""
        box = box.split("Runner-up")[0]
        inside = [r for r in named if _flat(r.display_name) in _flat(box)]
        winner = inside[0] if len(inside) == 1 else None
        shown = None
        if winner is not None:
            shown = _flat(money(winner.deciding_cost_per_eth, winner.currency))
            shown = shown if shown in _flat(box) else None
        out["pdf"] = Reading(
            recommended=winner.offer_id if winner else None, figure=shown,
            ranked={r.offer_id for r in named
                    if _numbered(text, r.display_name, r.display_vendor)},  # fmt: skip
            savings="Whole-job cost" in page_one and "Runner-up" in page_one.split("Saving")[-1],
        )  # fmt: skip

        # the workbook and the CSV: the Recommended and Rank columns, the deciding figure
        xlsx = report_build_sync(team=team, user=user, run=run, kind="xlsx", language="en")
        sheet = _rows(load_workbook(xlsx.file.path)["Ranking"])
        cost_key = next(
            k for k in sheet[0] if k == "Cost per ETH" or k.startswith("Cost per ETH (")
        )
        chosen = [r for r in sheet if r["Recommended"] == "yes"]
        out["xlsx"] = Reading(
            recommended=by_row[(chosen[0]["Vendor"], chosen[0]["Offer"])] if len(chosen) == 1
            else None,
            figure=chosen[0][cost_key] if len(chosen) == 1 else None,
            ranked={by_row[(r["Vendor"], r["Offer"])] for r in sheet if r["Rank"] is not None},
        )  # fmt: skip
        raw = report_build_sync(team=team, user=user, run=run, kind="csv", language="en")
        lines = list(csv.reader(io.StringIO(raw.file.read().decode("utf-8-sig"))))
        table = [dict(zip(lines[0], line, strict=True)) for line in lines[1:]]
        chosen_csv = [r for r in table if r["Recommended"] == "yes"]
        out["csv"] = Reading(
            recommended=by_row[(chosen_csv[0]["Vendor"], chosen_csv[0]["Offer"])]
            if len(chosen_csv) == 1 else None,
            figure=float(chosen_csv[0]["Cost per ETH"]) if len(chosen_csv) == 1 else None,
            ranked={by_row[(r["Vendor"], r["Offer"])] for r in table if r["Rank"]},
        )  # fmt: skip
    return out


def assert_one_decision(run: RankingRun, readings: dict[str, Reading]) -> None:
    """Every surface names the stored recommendation with its deciding figure, ranks only
    eligible offers, and claims no saving in a tie."""
    run.refresh_from_db()
    winner = run.results.filter(recommended=True).first()
    eligible = set(run.results.filter(eligible=True).values_list("offer_id", flat=True))
    expected = winner.offer_id if winner else None
    assert expected == run.decision.get("recommended")
    for surface, reading in readings.items():
        assert reading.recommended == expected, (surface, reading.recommended, expected)
        assert reading.ranked <= eligible, (surface, reading.ranked - eligible)
        if run.decision.get("tie"):
            assert not reading.savings, surface
    if winner is None:
        return
    decide = winner.deciding_cost_per_eth
    for surface in ("page", "pdf", "dashboard"):
        assert readings[surface].figure == _flat(money(decide, winner.currency)), surface
    assert readings["api"].figure == pytest.approx(decide)
    for surface in ("xlsx", "csv"):
        assert readings[surface].figure == pytest.approx(decide, abs=0.005), surface


def _unlicensed(team, user, price: str):  # type: ignore[no-untyped-def]
    """The cheapest offer, of a vendor with no licence: the policy excludes it."""
    bad = Vendor.objects.create(team=team, name_en="No Licence Co", name_zh="无证公司",
                                services=["gpu_rental", "idc"])  # fmt: skip
    dc = DataCentre.objects.create(vendor=bad, name="无证机房", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="roce", nic_gbps=Decimal("100"))
    bad = vendor_refresh_findings(vendor=bad)
    assert bad.findings_critical >= 1
    return make_quote(team, user, bad, label="unlicensed 8×A100",
                      price_per_node_month=Decimal(price), term_months=36)  # fmt: skip


def _ranked(team, user, **workload) -> RankingRun:  # type: ignore[no-untyped-def]
    run = RankingRun.objects.create(team=team, created_by=user,
                                    workload=make_workload(team, **workload))  # fmt: skip
    run_job(run.pk)
    run.refresh_from_db()
    assert run.status == JobStatus.DONE, run.error
    return run


@pytest.fixture
def reader(team_a, analyst_a, client_as):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    return lambda run: read_surfaces(run, team_a, analyst_a, client)


def test_a_tie_is_one_recommendation_everywhere_with_no_saving_and_no_rank_for_the_excluded(
    team_a, analyst_a, reader
):
    for name, price in (("Alpha", 40000), ("Beta", 40300), ("Gamma", 40600)):
        make_quote(team_a, analyst_a, make_vendor(team_a, f"{name} Compute Ltd"),
                   label=f"{name} 8×A100", price_per_node_month=Decimal(price))  # fmt: skip
    _unlicensed(team_a, analyst_a, "9000")
    run = _ranked(team_a, analyst_a, train_tokens=2e12)
    assert run.decision["tie"] and run.decision["savings"] == []
    excluded = run.results.get(label="unlicensed 8×A100")
    assert excluded.rank == 1 and not excluded.eligible  # cheapest before the policy
    readings = reader(run)
    assert_one_decision(run, readings)
    assert all(excluded.offer_id not in r.ranked for r in readings.values())


def test_an_excluded_cheapest_offer_is_never_recommended_and_savings_compare_eligible_offers(
    team_a, analyst_a, reader
):
    make_quote(team_a, analyst_a, make_vendor(team_a, "Alpha Compute Ltd"), label="Alpha 8×A100",
               price_per_node_month=Decimal("40000"))  # fmt: skip
    make_quote(team_a, analyst_a, make_vendor(team_a, "Delta Compute Ltd"), label="Delta 8×A100",
               price_per_node_month=Decimal("60000"))  # fmt: skip
    _unlicensed(team_a, analyst_a, "9000")
    run = _ranked(team_a, analyst_a)
    assert not run.decision["tie"]
    readings = reader(run)
    assert_one_decision(run, readings)
    assert readings["page"].recommended == run.results.get(label="Alpha 8×A100").offer_id
    savings = run.decision["savings"]
    delta = run.results.get(label="Delta 8×A100").offer_id
    assert savings and {s["offer_id"] for s in savings} == {delta}
    assert readings["pdf"].savings and readings["page"].savings  # a clear winner: a saving


def test_where_a_risk_premium_decides_every_surface_shows_the_risk_adjusted_figure(
    team_a, analyst_a, reader, client_as
):
    import benchmarks.demo
    import quotes.demo
    import rankings.demo
    import vendors.demo

    for module in (vendors.demo, quotes.demo, benchmarks.demo, rankings.demo):
        module.load(team=team_a, user=analyst_a)
    run = RankingRun.objects.get(team=team_a)
    winner = run.results.get(recommended=True)
    assert winner.premium_decides  # the demo's recommended offer carries a premium
    assert winner.deciding_cost_per_eth > winner.cost_per_eth
    assert_one_decision(run, reader(run))
    # the list of runs prints the same deciding figure
    listing = client_as(analyst_a).get(reverse("rankings:list"),
                                       HTTP_ACCEPT_LANGUAGE="en").content.decode()  # fmt: skip
    row = listing.split(f'href="/rankings/{run.pk}/"', 1)[1].split("</tr>")[0]
    assert money(winner.deciding_cost_per_eth, winner.currency) in row


def test_an_rfqs_knocked_out_bid_is_recommended_nowhere_and_scored_nowhere(
    make_rfq, vendors_a, invite, django_capture_on_commit_callbacks, reader
):
    rfq, answers = _event(make_rfq, vendors_a, invite, django_capture_on_commit_callbacks,
                          rfq_over=NEED_1600, terms=[SHORT, FULL])  # fmt: skip
    short, full = answers
    for answer in answers:
        answer.refresh_from_db()
    run = rfq.ranking_run
    knocked = run.results.get(quote_version__quote=short.quote)
    assert knocked.rank == 1 and not knocked.eligible  # the cheapest per ETH before the rule
    readings = reader(run)
    assert_one_decision(run, readings)
    kept = run.results.get(recommended=True)
    assert kept.quote_version.quote_id == full.quote.pk
    evaluation = rfq_evaluation(rfq)
    first = next(r for r in evaluation["rows"] if r["position"] == 1)
    assert first["answer_id"] == full.pk
    knocked_row = next(r for r in evaluation["rows"] if r["answer_id"] == short.pk)
    assert knocked_row["total"] is None and knocked_row["position"] is None
    assert knocked_row["cost_rank"] is None  # no rank, though the cheapest before the rule
    assert all(0.0 <= (r["total"] or 0.0) <= 1.0 for r in evaluation["rows"])


def test_a_serving_ranking_ignores_a_training_only_finding_and_never_ranks_an_excluded_offer(
    team_a, analyst_a, client_as, api_as
):
    l40s = GpuModel.objects.get(key="L40S")
    serving = {"nodes": 6, "gpu": l40s, "public_bandwidth_mbps": 2000, "bandwidth_billing": "p95",
               "bandwidth_price": Decimal("25")}  # fmt: skip
    # plain TCP: a finding about the training fabric only ("gradient sync will be slow")
    tcp = vendor_refresh_findings(vendor=make_vendor(team_a, "TCP Inference Co", fabric="tcp",
                                                     gbps=10, pfc=None, ecn=None))  # fmt: skip
    found = {getattr(f, "code", None) for f in vendor_findings(tcp)}
    assert "network_tcp_only" in found  # what a training ranking marks
    slow = make_quote(team_a, analyst_a, tcp, label="L40S over 10G",
                      price_per_node_month=Decimal("15000"), **serving)  # fmt: skip
    fast = make_quote(team_a, analyst_a, make_vendor(team_a, "Serve Co"), label="L40S serving",
                      price_per_node_month=Decimal("16000"), **serving)  # fmt: skip
    bad = Vendor.objects.create(team=team_a, name_en="No Licence Co", name_zh="无证公司",
                                services=["gpu_rental", "idc"])  # fmt: skip
    dc = DataCentre.objects.create(vendor=bad, name="无证机房", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="roce", nic_gbps=Decimal("100"))
    cheap = make_quote(team_a, analyst_a, vendor_refresh_findings(vendor=bad),
                       label="cheap but unlicensed", price_per_node_month=Decimal("4000"),
                       **serving)  # fmt: skip
    workload = serving_workload_create(team=team_a, data={
        "name": "chat", "params_b": 7.0, "precision": "bf16", "mean_rps": 20.0, "peak_rps": 60.0,
        "tokens_in": 800.0, "tokens_out": 300.0, "response_kb": 150.0,
        "latency_target_s": 10.0, "gpus_per_replica": 1, "bandwidth_headroom": 0.3,
        "peak_hours_per_day": 4.0})  # fmt: skip
    body = api_as(analyst_a).get(f"/api/v1/serving-workloads/{workload.pk}/ranking/").json()
    rows = {r["quote"]: r for r in body["results"]}
    # the training-only finding neither excludes, nor marks, nor prices the serving offer
    marks = {m["code"] for m in rows[slow.pk]["risk_marks"]}
    assert rows[slow.pk]["eligible"] and "network_tcp_only" not in marks
    assert not marks & TRAINING_ONLY_CODES and rows[fast.pk]["eligible"]
    # the excluded offer is listed last with its reason and no rank
    assert not rows[cheap.pk]["eligible"] and rows[cheap.pk]["rank"] == 0
    assert body["results"][-1]["quote"] == cheap.pk
    page = client_as(analyst_a).get(reverse("serving:workload", args=[workload.pk]),
                                    HTTP_ACCEPT_LANGUAGE="en").content.decode()  # fmt: skip
    assert "gradient sync will be slow" not in page
    first = page.split('<tr data-offer="')[1]
    best = body["results"][0]
    assert best["rank"] == 1 and best["eligible"]
    assert first.startswith(f'{best["quote"]}"') and "Recommended" in first.split("</tr>")[0]
    # the shown cost is the deciding one: risk-adjusted where a premium counts
    shown = first.split('<td class="cost">')[1].split("</strong>")[0]
    deciding = best["risk_adjusted_cost_per_million_tokens_cny"] or best[
        "cost_per_million_tokens_cny"]  # fmt: skip
    assert _flat(money(deciding, "CNY")) in _flat(shown)
    excluded = page.split(f'data-offer="{cheap.pk}"')[1].split("</tr>")[0]
    rank_cell = excluded.split('<td class="rank">')[1].split("</td>")[0]
    assert not re.search(r"\d", rank_cell) and "Excluded" in excluded


def test_a_superseded_quote_is_said_on_the_run_the_dashboard_and_every_export(
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    alpha = make_quote(team_a, analyst_a, make_vendor(team_a, "Alpha Compute Ltd"),
                       label="Alpha 8×A100", price_per_node_month=Decimal("150000"))  # fmt: skip
    make_quote(team_a, analyst_a, make_vendor(team_a, "Delta Compute Ltd"), label="Delta 8×A100",
               price_per_node_month=Decimal("120000"))  # fmt: skip
    run = _ranked(team_a, analyst_a)
    client = client_as(analyst_a)
    with translation.override("en"):
        before = report_build_sync(team=team_a, user=analyst_a, run=run, kind="pdf")
    assert "out of date" not in _pdftotext(before.file.path)
    quote_update(quote=alpha, user=analyst_a, data={"price_per_node_month": Decimal("90000")})

    page = client.get(reverse("rankings:detail", args=[run.pk]),
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()  # fmt: skip
    assert "Alpha 8×A100" in page.split('id="stale"')[1].split("</div>")[0]
    board = client.get(reverse("dashboard"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "out of date" in board.split('id="leaders"')[1].split("</section>")[0]
    exports = client.get(reverse("reports:ranking", args=[run.pk]),
                         HTTP_ACCEPT_LANGUAGE="en").content.decode()  # fmt: skip
    notice = exports.split('id="stale"')[1].split("</div>")[0]
    assert "Alpha 8×A100" in notice and "Rank again" in notice

    with translation.override("en"):
        # a new file is built (the old one priced the old terms) and names the changed offer
        pdf = report_build_sync(team=team_a, user=analyst_a, run=run, kind="pdf")
        assert pdf.pk != before.pk
        page_one = _flat(_pdftotext(pdf.file.path).split("\f")[0])
        assert (
            _flat("This ranking is out of date.") in page_one and _flat("Alpha 8×A100") in page_one
        )
        xlsx = load_workbook(report_build_sync(team=team_a, user=analyst_a, run=run,
                                               kind="xlsx").file.path)  # fmt: skip
        changed = {
            r["Offer"]: r["Quote changed since this ranking"] for r in _rows(xlsx["Ranking"])
        }
        assert changed == {"Alpha 8×A100": "yes", "Delta 8×A100": "no"}
        status = {r[1]: r[2] for r in xlsx["Inputs"].iter_rows(min_row=2, values_only=True)}
        assert "Alpha 8×A100" in status["Out of date"]
        raw = report_build_sync(team=team_a, user=analyst_a, run=run, kind="csv")
        lines = list(csv.reader(io.StringIO(raw.file.read().decode("utf-8-sig"))))
        column = lines[0].index("Quote changed since this ranking")
        assert {line[2]: line[column] for line in lines[1:]} == changed

    api = client.get(f"/api/v1/rankings/{run.pk}/").json()
    assert api["stale"] and api["changed_quotes"] == [alpha.pk]
    listed = client.get("/api/v1/rankings/").json()["results"]
    assert [r["stale"] for r in listed if r["id"] == run.pk] == [True]
    runs_page = client.get(reverse("rankings:list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "out of date: a quote changed" in runs_page

    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(reverse("rankings:rerank", args=[run.pk]))
    fresh = RankingRun.objects.exclude(pk=run.pk).get()
    assert answer.status_code == 302
    fresh.refresh_from_db()
    assert fresh.status == JobStatus.DONE
    assert fresh.results.get(label="Alpha 8×A100").monthly_rent < run.results.get(
        label="Alpha 8×A100").monthly_rent  # fmt: skip
