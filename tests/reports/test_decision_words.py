"""Words: short msgids that meant two things get a context each (PFC/ECN "on" is not the
"on" of "a workload on an offer", a mail status "Sent" is not the "Sent" time column), the award
review's "decision" field is translated, and report files are named by what they hold."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest
from django.utils import translation
from django.utils.translation import gettext, pgettext

from rankings.compare import _lossless
from sourcing.choices import MailStatus
from sourcing.forms import DecisionForm


def test_a_mail_status_sent_is_not_the_sent_time_column():
    with translation.override("zh-hans"):
        assert str(MailStatus.SENT.label) == "已发送"
        assert gettext("Sent") == "发送时间"  # the column header keeps its own words
        assert str(MailStatus.FAILED.label) == "发送失败"


def test_pfc_and_ecn_on_is_not_deployed_on():
    network = SimpleNamespace(pfc=True, ecn=None)
    quote = SimpleNamespace(data_centre_id=1, data_centre=SimpleNamespace(network=network))
    with translation.override("zh-hans"):
        assert _lossless(quote) == "PFC 开启 · ECN 未知"
        assert pgettext("a serving workload runs on an offer", "on") == "部署于"
    with translation.override("en"):
        assert _lossless(quote) == "PFC on · ECN unknown"


def test_the_award_decision_field_is_labelled_in_chinese():
    with translation.override("zh-hans"):
        form = DecisionForm()
        assert "决定" in str(form["decision"].label_tag())
        assert "Decision" not in str(form["decision"].label_tag())


@pytest.mark.django_db
def test_report_file_names_say_ranking_workload_language_and_date(team_a, analyst_a):
    from quotes.testing import make_workload
    from rankings.models import RankingRun
    from reports.models import Report

    workload = make_workload(team_a, name="7B pre-training")
    run = RankingRun.objects.create(team=team_a, created_by=analyst_a, workload=workload)
    report = Report.objects.create(team=team_a, run=run, kind="pdf", language="en",
                                   created_by=analyst_a)  # fmt: skip
    day = report.created_at.astimezone().date() if report.created_at else date.today()
    assert report.filename.startswith(f"ranking-{run.pk}-7b-pre-training-en-")
    assert report.filename.endswith(".pdf")
    assert report.filename[-14:-4].count("-") == 2 and str(day.year) in report.filename
