"""The what-if in a real browser: a scenario that changes the recommended offer moves the badge,
the headline and the chart; Reset puts the saved run back exactly."""

from __future__ import annotations

import itertools

import pytest

pytestmark = pytest.mark.e2e

CHART = "#finished-section .plotly-graph-div"


def _flip(run):  # type: ignore[no-untyped-def]
    """Slider settings under which another offer is recommended, and that offer's id."""
    from rankings.services import compute_snapshot
    from rankings.whatif import scenario_snapshot

    saved = run.decision["recommended"]
    for overlap, mfu, bw in itertools.product((1.0, 0.0, 0.5), (1.0, 0.5, 1.5), (1.0, 4.0, 0.25)):
        scenario = {"overlap": overlap, "mfu_scale": mfu, "bandwidth_scale": bw}
        outcome, _p, _d, decision = compute_snapshot(scenario_snapshot(run.snapshot, scenario))
        if decision["recommended"] not in (None, saved):
            order = [r.offer_id for r in outcome.results]
            return scenario, decision["recommended"], order
    raise AssertionError("no slider setting changes the demo's recommendation")


def _state(page):  # type: ignore[no-untyped-def]
    return {
        "recommended": page.get_attribute("#finished-section tr.recommended", "data-offer"),
        "headline": page.inner_text("#decision .headline"),
        "chart": page.evaluate(f"() => document.querySelector('{CHART}').data[0].y"),
        # the bars' values: a scenario may keep the order of the offers yet move every cost
        "bars": page.evaluate(f"() => Array.from(document.querySelector('{CHART}').data[0].x)"),
        "banner_hidden": not page.is_visible("#scenario-banner"),
    }


def _move(page, scenario):  # type: ignore[no-untyped-def]
    for name, value in scenario.items():
        page.eval_on_selector(
            f"#whatif input[name={name}]",
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }",
            str(value),
        )


def test_a_what_if_that_changes_the_winner_moves_badge_headline_and_chart_and_reset_restores(
    page, live_server, demo_team, shot, login
):
    from rankings.models import RankingRun

    run = RankingRun.objects.filter(team=demo_team).order_by("pk").first()
    scenario, winner, order = _flip(run)
    labels = {o["id"]: f"{o['vendor']} · {o['label']}" for o in run.snapshot["offers"]}
    saved_winner = run.decision["recommended"]

    login(page, live_server)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/rankings/{run.pk}/")
    before = _state(page)
    assert before["recommended"] == saved_winner and before["banner_hidden"]
    assert labels[saved_winner] in before["headline"]
    shot(page, "ranking-detail-zh-1440")

    _move(page, scenario)
    page.wait_for_function(
        "(id) => { const r = document.querySelector('#finished-section tr.recommended');"
        " return r && r.dataset.offer === id; }",
        arg=winner,
    )
    page.wait_for_function("() => !document.getElementById('scenario-banner').hidden")
    after = _state(page)
    assert after["recommended"] == winner
    assert (
        page.locator(f"#finished-section tr[data-offer='{winner}'] .recommended-badge").count() == 1
    )
    assert (
        page.locator(
            f"#finished-section tr[data-offer='{saved_winner}'] .recommended-badge"
        ).count()
        == 0
    )
    assert labels[winner] in after["headline"] and after["headline"] != before["headline"]
    assert after["bars"] != before["bars"]
    assert [labels[i] in name for i, name in zip(order, after["chart"], strict=True)] == [
        True
    ] * len(order)
    assert "overlap" in page.inner_text("#scenario-text") or "重叠" in page.inner_text(
        "#scenario-text"
    )
    shot(page, "ranking-scenario-zh-1440")

    page.click("#scenario-reset")
    page.wait_for_function("() => document.getElementById('scenario-banner').hidden")
    restored = _state(page)
    assert restored == before
    for name in scenario:
        saved_value = page.get_attribute(f"#whatif input[name={name}]", "data-saved")
        assert page.input_value(f"#whatif input[name={name}]") == saved_value

    page.select_option("select[name=language]", "en")
    page.wait_for_load_state("networkidle")
    shot(page, "ranking-detail-en-1440")
    _move(page, scenario)
    page.wait_for_function("() => !document.getElementById('scenario-banner').hidden")
    page.wait_for_function(
        "(id) => { const r = document.querySelector('#finished-section tr.recommended');"
        " return r && r.dataset.offer === id; }",
        arg=winner,
    )
    shot(page, "ranking-scenario-en-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "ranking-scenario-en-390")
    page.click("#scenario-reset")
    page.select_option("select[name=language]", "zh-hans")
    page.wait_for_load_state("networkidle")
    shot(page, "ranking-detail-zh-390")
