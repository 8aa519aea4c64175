"""The PDF's appendix A lists each distinct finding once with the offers it applies to, and the
risks page counts red flags by kind instead of a row per flagged vendor."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import escape

from core.templatetags.portal import msg
from reports.pdf import FLAGGED_TOP, pdf_context
from reports.selectors import report_data
from reports.summary import FindingGroup, _rank_runs, finding_groups, findings

pytestmark = pytest.mark.django_db


def test_consecutive_ranks_are_shortened() -> None:
    assert _rank_runs([8, 1, 2, 3, 5, 7]) == ["#1–#3", "#5", "#7, #8"]
    few = FindingGroup(ref="F1", severity="info", item={}, ranks=[2, 4], names=["A · x", "B · y"])
    assert few.offers_text == "#2 A · x; #4 B · y"
    many = FindingGroup(ref="F2", severity="info", item={}, ranks=[1, 2, 3, 4, 9])
    assert many.offers_text == "#1–#4, #9"


def test_each_finding_is_listed_once_with_every_offer_it_applies_to(demo_run, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PORTAL_REPORT_CHARTS", "off")
    with translation.override("en"):
        data = report_data(run=demo_run)
        found = findings(data)
        groups = finding_groups(found)
        html = render_to_string("reports/pdf/report.html", pdf_context(data))
        texts = {g.ref: msg(g.item) for g in groups}
    assert found and groups
    keys = [(g.severity, g.item.get("code"), g.item.get("en")) for g in groups]
    assert len(keys) == len(set(keys))  # no finding twice
    for offer in found:  # every warning of every offer is in a group that names the offer
        for item in offer.items:
            group = next(g for g in offer.groups if g.item.get("en") == item.get("en"))
            assert offer.shown in group.ranks  # the decision's rank (0: excluded, unranked)
        assert offer.ref == ", ".join(g.ref for g in offer.groups)
    appendix = html.split("Appendix A: findings per offer")[1].split("Appendix B: vendors")[0]
    for ref, text in texts.items():
        assert appendix.count(escape(text)) == 1, ref
        assert f"<strong>{ref}</strong>" in appendix


def test_the_risks_page_does_not_grow_with_the_flagged_vendors(demo_run, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PORTAL_REPORT_CHARTS", "off")
    with translation.override("en"):
        data = report_data(run=demo_run)
        ctx = pdf_context(data)
    flagged = [s for s in data.vendors if s.critical]
    assert len(ctx["flagged_vendors"]) == min(len(flagged), FLAGGED_TOP)
    assert ctx["flagged_total"] == len(flagged)
    every = {msg(f.message) for s in flagged for f in s.critical}
    assert {text for text, _n in ctx["red_flag_kinds"]} == every
    for text, n in ctx["red_flag_kinds"]:
        assert n == sum(1 for s in flagged if any(msg(f.message) == text for f in s.critical))
