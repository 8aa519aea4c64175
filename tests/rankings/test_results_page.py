"""Results page: warnings once each, the sensitivity of domain.sensitivity, short chart labels."""

import json
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation

from rankings import figures
from rankings.models import RankingRun
from rankings.selectors import offer_warnings, ranking_lesson
from rankings.whatif import sensitivity_rows

DATA = Path(__file__).parent / "data"
GPUS = {
    "H100-SXM": {
        "tflops_bf16": 989, "memory_gb": 80, "intra_node_gbyte_s": 450, "default_mfu": 0.45,
    },
    "A100-SXM4-80GB": {
        "tflops_bf16": 312, "memory_gb": 80, "intra_node_gbyte_s": 300, "default_mfu": 0.5,
    },
}  # fmt: skip


def _seed_snapshot() -> dict:  # type: ignore[type-arg]
    data = json.loads((DATA / "seed_example.json").read_text())
    labels = {"A-10G-TCP": "8×8 A100 · 10G TCP", "B-100G-RoCE": "8×8 A100 · 100G RoCE"}
    for offer in data["offers"]:
        offer.update(label=labels[offer["id"]], vendor=f"Vendor {offer['id'][0]}")
    return {**data, "gpus": GPUS, "fx_to_cny": {}}


def _w(code: str, en: str) -> dict[str, str]:
    return {"code": code, "en": en, "zh": en + "（中）"}


def test_warnings_are_shown_once_each_most_severe_first_and_the_rest_folded():
    ecn = _w("roce_without_ecn", "RoCE runs without ECN.")
    warnings = [
        _w("bandwidth_below_tier", "25 Gbit/s is below 50G."),
        _w("bandwidth_unverified", "Nominal bandwidth."),
        ecn,
        _w("data_centre_re_leased", "Room A is re-leased."),
        _w("data_centre_re_leased", "Room B is re-leased."),  # same code, other text: kept
        dict(ecn),  # the vendor's second data centre gives the same finding again
        _w("roce_without_lossless", "RoCE without PFC/ECN."),
        _w("bandwidth_unverified", "Nominal bandwidth."),
    ]
    out = offer_warnings(warnings, shown=3)
    codes = [w["code"] for w in out["shown"] + out["more"]]
    assert out["count"] == 6
    assert codes == [
        "roce_without_ecn", "data_centre_re_leased", "data_centre_re_leased",
        "roce_without_lossless", "bandwidth_below_tier", "bandwidth_unverified",
    ]  # fmt: skip
    assert [w["severity"] for w in out["shown"] + out["more"]] == ["critical"] * 4 + [
        "warning",
        "info",
    ]
    assert len(out["shown"]) == 3 and len(out["more"]) == 3
    assert out["more_label"].en == "+3 more" and out["more_label"].zh == "另有 3 条"
    assert offer_warnings([])["count"] == 0 and offer_warnings([])["more"] == []


def _swing(snapshot: dict, offer_id: str, **knobs: float) -> float:  # type: ignore[type-arg]
    """An offer's cost per ETH change (%) when the ranking itself is run with `knobs`."""
    from rankings.services import rank_snapshot

    def cost(**kw: float) -> float:
        return next(r.cost_per_eth for r in rank_snapshot(snapshot, **kw).results
                    if r.offer_id == offer_id)  # fmt: skip

    return round((cost(**knobs) / cost() - 1) * 100, 1)


SETTINGS = {  # the sensitivity's low and high settings as the ranking's own what-if knobs
    "overlap": ({"overlap": 0.0}, {"overlap": 1.0}),
    "mfu": ({"mfu_scale": 0.8}, {"mfu_scale": 1.2}),
    "bandwidth": ({"bandwidth_scale": 0.5}, {"bandwidth_scale": 1.5}),
}


def test_the_sensitivity_gives_each_offers_swing_as_the_ranking_computes_it():
    snapshot = _seed_snapshot()
    with translation.override("en"):
        rows = sensitivity_rows(snapshot)
    assert [r["key"] for r in rows] == ["overlap", "mfu", "bandwidth"]
    assert rows.winner == "#1 100G RoCE" and rows.robust
    assert rows.verdict.code == "winner_robust" and "#1 100G RoCE" in rows.verdict.en
    overlap, mfu, bandwidth = rows
    assert (overlap["low_value"], overlap["high_value"]) == (0.0, 1.0)
    assert (bandwidth["low_value"], bandwidth["high_value"]) == (0.5, 1.5)
    ids = {"#1 100G RoCE": "B-100G-RoCE", "#2 10G TCP": "A-10G-TCP"}
    # every bar is the ranking's own figure (model v2), so the chart never contradicts the table
    for row in rows:
        low, high = SETTINGS[row["key"]]
        for o in row["offers"]:
            assert o["low_pct"] == pytest.approx(_swing(snapshot, ids[o["name"]], **low))
            assert o["high_pct"] == pytest.approx(_swing(snapshot, ids[o["name"]], **high))
    assert not any(r["low_flips"] or r["high_flips"] for r in rows)
    # The 10G TCP offer waits on its network: half the bandwidth costs it far more than the
    # 100G RoCE offer, more bandwidth helps it; faster GPUs expose more of its traffic.
    tcp = {r["key"]: next(o for o in r["offers"] if o["name"] == "#2 10G TCP") for r in rows}
    roce = {r["key"]: next(o for o in r["offers"] if o["name"] == "#1 100G RoCE") for r in rows}
    assert tcp["bandwidth"]["low_pct"] > 3 * max(roce["bandwidth"]["low_pct"], 1.0)
    assert tcp["bandwidth"]["high_pct"] < 0
    assert tcp["mfu"]["low_pct"] < 0 < tcp["mfu"]["high_pct"]
    assert tcp["bandwidth"]["full_name"] == "Vendor A · 8×8 A100 · 10G TCP"


def test_the_tornado_draws_every_offers_bars_and_marks_the_winner():
    rows = sensitivity_rows(_seed_snapshot())
    labels = {"title": "t", "low": "low", "high": "high", "axis": "%"}
    fig = figures.tornado_figure(rows, labels=labels)
    low, high = fig.data
    assert len(low.x) == len(high.x) == 6  # 3 parameters x 2 offers
    assert list(low.y[1][:2]) == ["★ #1 100G RoCE", "#2 10G TCP"]
    lows = [o["low_pct"] for r in rows for o in r["offers"]]
    highs = [o["high_pct"] for r in rows for o in r["offers"]]
    assert max(low.x) == pytest.approx(max(lows)) and min(high.x) == pytest.approx(min(highs))
    assert f"+{max(lows):.1f}%" in low.text


def test_the_bandwidth_chart_has_short_labels_full_hover_text_and_plain_log_ticks():
    class R:  # the fields of a RankingResult the figure reads
        def __init__(self, rank, label, gbps, cost):  # type: ignore[no-untyped-def]
            self.rank, self.label, self.vendor_name, self.bandwidth_gbps = rank, label, "V Co", gbps
            self.cost_per_eth = self.cost_per_eth_low = self.cost_per_eth_high = cost
            self.bandwidth_basis, self.currency = "nominal", "CNY"

    results = [R(1, "8×8 A100 · 100G RoCE", 90.0, 20.2), R(2, "8×8 A100 · 10G TCP", 5.5, 52.1)]
    labels = {"title": "t", "x": "x", "y": "y", "measured": "m", "nominal": "n"}
    fig = figures.cost_vs_bandwidth_figure(results, labels=labels)
    assert list(fig.data[0].text) == ["#1 100G RoCE", "#2 10G TCP"]
    assert fig.data[0].hovertext[0].startswith("V Co · 8×8 A100 · 100G RoCE")
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.ticktext) == ["5", "10", "20", "50", "100", "200"]


@pytest.mark.django_db
def test_the_demo_page_lists_a_finding_once_and_its_robustness_verdict_matches_the_scenarios(
    team_a, analyst_a, client_as
):
    import quotes.demo
    import rankings.demo
    import vendors.demo

    vendors.demo.load(team=team_a, user=analyst_a)
    quotes.demo.load(team=team_a, user=analyst_a)
    rankings.demo.load(team=team_a, user=analyst_a)
    run = RankingRun.objects.get(team=team_a)
    results = list(run.results.all())
    rows = {r["result"].label: r["warnings"] for r in ranking_lesson(results)["result_rows"]}
    roce25 = rows["8×8 A100 · 25G RoCE"]
    stored = next(r for r in results if r.label == "8×8 A100 · 25G RoCE").warnings
    assert len(stored) >= roce25["count"]  # the page never adds warnings, only folds repeats
    seen = [(w["code"], w["en"]) for w in roce25["shown"] + roce25["more"]]
    assert len(seen) == len(set(seen))

    with translation.override("en"):
        sens = sensitivity_rows(run.snapshot)
    # The verdict says what the scenarios show. (Under model v2 the 100G RoCE and 4×200G IB
    # offers were within a few per cent and halving the bandwidth flipped the winner; since a
    # ring drives every NIC of the server the RoCE offer's lead survives it.)
    flips = any(r.get("low_flips") or r.get("high_flips") for r in sens)
    assert (sens.verdict.code == "winner_changes") == flips == (not sens.robust)
    tcp = next(o for o in next(r for r in sens if r["key"] == "bandwidth")["offers"]
               if o["name"].endswith("10G TCP"))  # fmt: skip
    # halving the bandwidth never helps; the 10G TCP offer may already keep its job inside
    # fewer servers (idle ones are hot spares), where the network does not matter
    assert tcp["low_pct"] >= 0

    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    html = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert html.count("RoCE runs without ECN") == 1
    assert "<details><summary>+" in html and sens.verdict.en in html
    assert "Cheapest rent is not the cheapest way to train." in html


def test_an_offer_carries_only_its_own_data_centres_red_flags(team_a, analyst_a):
    from quotes.testing import make_quote
    from rankings.services import _flags_for_quote, _vendor_flags
    from vendors.models import DataCentre, NetworkProfile, Vendor

    vendor = Vendor.objects.create(team=team_a, name_zh="两地厂商", services=["gpu_rental", "idc"])
    good = DataCentre.objects.create(
        vendor=vendor, name="自营", province="GD", ownership="self_operated"
    )
    NetworkProfile.objects.create(
        data_centre=good, fabric="roce", pfc=True, ecn=True, dcqcn=True, nic_gbps=100
    )
    bad = DataCentre.objects.create(
        vendor=vendor, name="转租", province="GD", ownership="re_leased"
    )
    from vendors.services import vendor_refresh_findings

    vendor_refresh_findings(vendor=vendor)
    quote = make_quote(team_a, analyst_a, vendor, label="good site")
    quote.data_centre = good
    quote.save()
    flags = _vendor_flags([quote])[vendor.pk]
    codes = {m["code"] for m in _flags_for_quote(quote, flags)}
    assert "licence_missing" in codes  # company-wide
    assert "data_centre_re_leased" not in codes  # the other site's problem
    quote.data_centre = bad
    assert "data_centre_re_leased" in {m["code"] for m in _flags_for_quote(quote, flags)}
