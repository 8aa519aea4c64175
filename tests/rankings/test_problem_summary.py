"""When no offer can run the workload, the run page says so once for all the offers (one line
and the offers' names folded), not one red error per offer."""

from __future__ import annotations

import pytest
from django.urls import reverse

from core.models import JobStatus
from quotes.testing import make_workload
from rankings.models import RankingRun

pytestmark = pytest.mark.django_db

SAME = {"code": "workload_too_big", "en": "The workload does not fit this offer.",
        "zh": "该训练任务无法在此报价上运行。"}  # fmt: skip


def test_the_same_problem_of_seventeen_offers_is_one_line(team_a, analyst_a, client_as):  # type: ignore[no-untyped-def]
    problems = [{"id": f"q{i}", "label": f"Offer {i}", "messages": [SAME]} for i in range(17)]
    other = {"code": "other", "en": "Another reason.", "zh": "另一个原因。"}
    problems.append({"id": "x", "label": "Odd offer", "messages": [other]})
    run = RankingRun.objects.create(
        team=team_a, workload=make_workload(team_a), status=JobStatus.DONE, problems=problems
    )
    for lang, text, count in (
        ("en", SAME["en"], "17 offers"),
        ("zh-hans", SAME["zh"], "17 个报价"),
    ):
        page = (
            client_as(analyst_a)
            .get(reverse("rankings:detail", args=[run.pk]), HTTP_ACCEPT_LANGUAGE=lang)
            .content.decode()
        )
        assert page.count(text) == 1 and count in page
        assert "Offer 16" in page and "Odd offer" in page
        assert page.count('class="finding warning"') == 2
