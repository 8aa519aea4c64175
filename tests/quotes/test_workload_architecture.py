"""The workload as the analyst knows it: a preset of a real model or
the architecture and an optional parallel layout, stored on the workload and used by the ranking;
impossible ones get bilingual field messages (form and API), never a 500, nothing saved."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation

from quotes.models import WorkloadProfile
from quotes.testing import make_quote, make_vendor, make_workload, seed_quotes
from rankings.selectors import ranking_quotes
from rankings.services import rank_snapshot, snapshot_build

pytestmark = pytest.mark.django_db
MISSING = (
    "Enter the layers, hidden size, heads and sequence length (or pick a preset of a real model) "
    "to fix a layout or MoE experts."
)

URL = reverse("quotes:workload_create")
LLAMA70 = {"layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn": 28672,
           "vocab": 128256, "seq_len": 8192}  # fmt: skip


def _post(**over):  # type: ignore[no-untyped-def]
    data = {
        "name": "70B job", "params_b": 70.6, "tokens_per_step": 8388608,
        "flops_per_token_factor": 6, "grad_bytes": 2, "strategy": "fsdp", "overlap": 0.5,
        "train_tokens": 1e12, **LLAMA70,
    }  # fmt: skip
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def test_a_preset_of_a_real_model_fills_the_architecture(
    client_as, analyst_a, django_assert_max_num_queries
):  # type: ignore[no-untyped-def]  # noqa: E501
    page = client_as(analyst_a)
    with django_assert_max_num_queries(8):
        html = page.get(URL + "?preset=llama3-70b").content.decode()
    assert 'name="layers" value="80"' in html and 'name="hidden" value="8192"' in html
    assert 'name="tokens_per_step" value="8,388,608"' in html
    assert "Parallel layout" in html and "qwen2.5-14b" in html and "pretrain-7b" in html
    zh = page.get(URL + "?preset=deepseek-v3-moe", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'name="moe_experts" value="256"' in zh and "DeepSeek-V3" in zh


def _zh(msgid: str) -> str:
    """The zh-Hans text once locale_pending/model.po is merged and compiled, else the msgid."""
    with translation.override("zh-hans"):
        return translation.gettext(msgid)


def test_every_new_form_string_has_a_chinese_translation():  # type: ignore[no-untyped-def]
    import polib

    from quotes.forms import WorkloadForm

    root = Path(__file__).resolve().parents[2]
    catalogue = polib.pofile(str(root / "locale/zh_Hans/LC_MESSAGES/django.po"))
    pending = {e.msgid: e.msgstr for e in catalogue if "fuzzy" not in e.flags}
    form = WorkloadForm()
    wanted = {str(form.fields[f].label) for f in (*form.ARCH_FIELDS, *form.MOE_FIELDS,
                                                  *form.PARALLEL_FIELDS)}  # fmt: skip
    wanted |= {str(legend) for legend, _fields in form.fieldsets()}
    wanted |= {MISSING, "architecture and parallel layout", "Search per offer"}
    assert not sorted(w for w in wanted if not pending.get(w) and _zh(w) == w)


def test_the_architecture_and_layout_are_stored_and_reach_the_snapshot(
    client_as, analyst_a, team_a
):  # type: ignore[no-untyped-def]  # noqa: E501
    r = client_as(analyst_a).post(URL, _post(preset="llama3-70b", tp=8, pp=4, zero_stage="1"))
    assert r.status_code == 302, r.content.decode()[:2000]
    w = WorkloadProfile.objects.get(name="70B job")
    assert w.architecture["model"]["layers"] == 80
    assert w.architecture["parallel"] == {"tp": 8, "pp": 4, "zero_stage": 1}
    snapshot = snapshot_build(workload=w, quotes=[], fx={})
    arch = snapshot["workload_architecture"]
    assert arch["model"]["params_b"] == 70.6 and arch["parallel"]["global_batch_tokens"] == 8388608


@pytest.mark.parametrize(
    ("over", "field", "en", "zh"),
    [
        ({"tp": 3, "pp": 60}, "tp", "does not divide the 64 attention heads", "不能整除注意力头数"),
        ({"tp": 3, "pp": 60}, "pp", "cannot split the 80 layers", "无法切分 80 层"),
        ({"moe_top_k": 2}, "moe_experts", "needs its number of experts", "需要填写专家数"),
        ({"heads": 60}, "heads", "not divisible by 60 heads", "不能被注意力头数 60 整除"),
        ({"layers": 0}, "layers", "", ""),
        ({"vocab": 10**9}, "vocab", "", ""),
        ({"layers": None, "hidden": None, "heads": None, "seq_len": None, "kv_heads": None,
          "ffn": None, "vocab": None, "tp": 2}, "layers", "Enter the layers", _zh(MISSING)),
    ],
)  # fmt: skip
def test_impossible_architectures_get_field_messages_in_both_languages(  # type: ignore[no-untyped-def]
    client_as, analyst_a, over, field, en, zh
):
    page = client_as(analyst_a)
    for lang, text in (("en", en), ("zh-hans", zh)):
        r = page.post(URL, _post(**over), HTTP_ACCEPT_LANGUAGE=lang)
        assert r.status_code == 400
        errors = r.context["form"].errors
        assert field in errors, errors
        assert text in " ".join(errors[field])
    assert not WorkloadProfile.objects.exists()


def test_the_api_checks_the_architecture(api_as, analyst_a):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    body = {"name": "api", "params_b": 70.6, "tokens_per_step": 8388608,
            "architecture": {"model": LLAMA70, "parallel": {"tp": 3}}}  # fmt: skip
    r = api.post("/api/v1/workloads/", body, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400 and "不能整除注意力头数" in r.json()["architecture"][0]
    body["architecture"] = {"model": {**LLAMA70, "moe": {"top_k": 2}}}
    r = api.post("/api/v1/workloads/", body, format="json")
    assert r.status_code == 400 and "number of experts" in r.json()["architecture"][0]
    body["architecture"] = {"model": {**LLAMA70, "layer": 80}, "parallel": {"tpp": 2}}
    r = api.post("/api/v1/workloads/", body, format="json")
    assert (
        r.status_code == 400
        and "Unknown architecture inputs: layer, tpp" in r.json()["architecture"][0]
    )
    body["architecture"] = {"model": LLAMA70, "parallel": [8]}
    assert api.post("/api/v1/workloads/", body, format="json").status_code == 400
    body["architecture"] = {"model": {**LLAMA70, "layers": "eighty"}}
    assert api.post("/api/v1/workloads/", body, format="json").status_code == 400
    body["architecture"] = "llama"
    assert api.post("/api/v1/workloads/", body, format="json").status_code == 400
    body["architecture"] = {"model": LLAMA70, "parallel": {"tp": 8}}
    r = api.post("/api/v1/workloads/", body, format="json")
    assert r.status_code == 201, r.json()
    assert WorkloadProfile.objects.get().architecture["parallel"] == {"tp": 8}


def _rank(team, workload):  # type: ignore[no-untyped-def]
    snapshot = snapshot_build(workload=workload, quotes=list(ranking_quotes(team=team)), fx={})
    return rank_snapshot(snapshot)


def test_a_stored_architecture_changes_the_ranking_and_a_too_large_layout_is_not_ranked(  # type: ignore[no-untyped-def]  # noqa: E501
    team_a, analyst_a
):
    seed_quotes(team_a, analyst_a)
    generic = _rank(team_a, make_workload(team_a, name="generic", params_b=70.6,
                                          tokens_per_step=8388608, strategy="fsdp"))  # fmt: skip
    given = _rank(team_a, make_workload(team_a, name="given", params_b=70.6,
                                        tokens_per_step=8388608, strategy="fsdp",
                                        architecture={"model": LLAMA70}))  # fmt: skip
    assert generic.results and given.results
    by_id = {r.offer_id: r for r in generic.results}
    for r in given.results:
        assert r.model_detail["architecture"] == "given"
        assert by_id[r.offer_id].model_detail["architecture"] == "gpt_shape"
        assert r.step_time_s != pytest.approx(by_id[r.offer_id].step_time_s, rel=1e-3)
    # a fixed layout of 8 x 8 x 4 = 256 GPUs fits none of the 8-node offers: not ranked, and why
    big = make_workload(
        team_a,
        name="big",
        params_b=70.6,
        tokens_per_step=8388608,
        architecture={"model": LLAMA70, "parallel": {"tp": 8, "pp": 8, "dp": 4}},
    )
    outcome = _rank(team_a, big)
    assert not outcome.results
    assert {p.messages[0].code for p in outcome.problems} == {"layout_too_large"}
    assert "256 GPUs" in outcome.problems[0].messages[0].en
    assert "256 块 GPU" in outcome.problems[0].messages[0].zh


def test_an_offer_too_small_for_the_layout_is_the_only_one_left_out(team_a, analyst_a):  # type: ignore[no-untyped-def]  # noqa: E501
    big_vendor = make_vendor(team_a, "Big", fabric="ib", gbps=400)
    make_quote(team_a, analyst_a, big_vendor, label="big", nodes=16)
    make_quote(team_a, analyst_a, big_vendor, label="small", nodes=2)
    w = make_workload(
        team_a,
        name="fixed",
        params_b=70.6,
        tokens_per_step=8388608,
        nodes=None,
        architecture={"model": LLAMA70, "parallel": {"tp": 8, "pp": 4}},
    )
    outcome = _rank(team_a, w)
    assert len(outcome.results) == 1 and len(outcome.problems) == 1
    assert outcome.results[0].model_detail["layout"]["tp"] == 8
    assert outcome.problems[0].messages[0].code == "layout_too_large"
