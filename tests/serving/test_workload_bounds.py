"""A serving workload's figures have physical upper bounds (domain.serving.WORKLOAD_LIMITS), in the
form and the API alike, with a message in the reader's language; a value stored beyond them
(older data) is shown as a problem on the page and in the API, never a 500."""

import pytest
from django.urls import reverse

from domain import serving as sv
from serving.models import ServingWorkload
from serving.selectors import domain_workload

from .conftest import SERVING_WORKLOAD

pytestmark = pytest.mark.django_db

HUGE = {
    "peak_rps": 1e308, "mean_rps": 1e23, "params_b": 1e300, "tokens_in": 1e300,
    "tokens_out": 1e23, "response_kb": 1e23, "latency_target_s": 1e308,
    "tokens_per_s_per_replica": 1e308, "gpus_per_replica": 30000,
}  # fmt: skip


@pytest.mark.parametrize(("field", "value"), sorted(HUGE.items()))
def test_the_api_refuses_each_figure_beyond_its_bound(team_a, analyst_a, api_as, field, value):
    api = api_as(analyst_a)
    api.credentials(HTTP_ACCEPT_LANGUAGE="en")
    r = api.post("/api/v1/serving-workloads/", {**SERVING_WORKLOAD, field: value}, format="json")
    assert r.status_code == 400, r.content
    assert "must be at most" in str(r.json()[field])
    api.credentials(HTTP_ACCEPT_LANGUAGE="zh-hans")
    r = api.post("/api/v1/serving-workloads/", {**SERVING_WORKLOAD, field: value}, format="json")
    assert r.status_code == 400 and "不能超过" in str(r.json()[field])
    assert not ServingWorkload.objects.exists()


def test_the_api_accepts_figures_at_the_bounds(team_a, analyst_a, api_as):
    data = {**SERVING_WORKLOAD, "peak_rps": 1_000_000, "response_kb": 100_000, "mean_rps": 1}
    r = api_as(analyst_a).post("/api/v1/serving-workloads/", data, format="json")
    assert r.status_code == 201, r.content


def test_the_form_refuses_1e308_requests_per_second_in_both_languages(
    serving_setup, analyst_a, client_as
):  # fmt: skip
    client = client_as(analyst_a)
    w = serving_setup["workload"]
    url = reverse("serving:workload_edit", args=[w.pk])
    data = {**SERVING_WORKLOAD, "peak_rps": "1e308", "tokens_per_s_per_replica": "1e308"}
    r = client.post(url, data, HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 400
    html = r.content.decode()
    assert "Peak requests per second must be at most 1,000,000." in html
    assert "Tokens per second per replica must be at most 10,000,000." in html
    r = client.post(url, data, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400 and "峰值每秒请求数不能超过 1,000,000。" in r.content.decode()
    w.refresh_from_db()
    assert w.peak_rps == 60.0
    # the form tells the browser the bound too
    page = client.get(url).content.decode()
    assert 'name="peak_rps"' in page and 'max="1000000"' in page and 'max="100000"' in page


@pytest.mark.parametrize(
    "stored",
    [{"peak_rps": 1e308}, {"response_kb": 1e300, "peak_rps": 1e300}, {"mean_rps": 1e308,
     "peak_rps": 1e308}, {"tokens_per_s_per_replica": 1e308}, {"latency_target_s": 1e308}],
)  # fmt: skip
def test_stored_out_of_range_figures_are_a_problem_not_a_500(
    serving_setup, analyst_a, client_as, api_as, stored
):  # fmt: skip
    w = serving_setup["workload"]
    ServingWorkload.objects.filter(pk=w.pk).update(**stored)  # as older data may hold them
    page = client_as(analyst_a).get(reverse("serving:workload", args=[w.pk]),
                                    HTTP_ACCEPT_LANGUAGE="en")  # fmt: skip
    assert page.status_code == 200
    html = page.content.decode()
    assert "What to fix in the workload" in html and "must be at most" in html
    assert "e+" not in html.split("<main", 1)[-1]  # numbers are printed, not 1e+308
    api = api_as(analyst_a)
    body = api.get(f"/api/v1/serving-workloads/{w.pk}/ranking/").json()
    assert body["results"] == []
    assert any(m["code"].endswith("_too_large") for m in body["errors"])
    plan = api.get(f"/api/v1/mixed-plans/{serving_setup['plan'].pk}/evaluation/")
    assert plan.status_code == 200
    home = client_as(analyst_a).get(reverse("serving:home"))
    assert home.status_code == 200 and "e+" not in home.content.decode().split("<main", 1)[-1]


def test_the_domain_raises_a_typed_error_on_overflowing_figures(serving_setup):
    w = serving_setup["workload"]
    w.peak_rps = 1e308
    with pytest.raises(sv.ServingInputError) as err:
        sv.serving_traffic(domain_workload(w))
    assert "peak_rps_too_large" in {m.code for m in err.value.messages}
