"""A workload's compute precision (bf16 | fp8) and the new MoE shape fields: stored through the
form and the API, carried by the ranking snapshot, and used by the model per offer (an FP8 job
trains faster on H100, and is refused with the reason on a card without FP8)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotes.models import GpuModel, WorkloadProfile
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.selectors import ranking_quotes
from rankings.services import rank_snapshot, snapshot_build

pytestmark = pytest.mark.django_db
URL = reverse("quotes:workload_create")
LLAMA70 = {"layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn": 28672,
           "vocab": 128256, "seq_len": 8192}  # fmt: skip


def _post(**over):  # type: ignore[no-untyped-def]
    data = {
        "name": "70B job", "params_b": 70.6, "tokens_per_step": 8388608,
        "flops_per_token_factor": 6, "grad_bytes": 2, "strategy": "fsdp", "overlap": 0.5,
        "train_tokens": 1e12, "precision": "bf16", **LLAMA70,
    }  # fmt: skip
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def test_the_form_stores_fp8_and_the_deepseek_preset_starts_in_fp8_with_its_moe_shape(
    client_as, analyst_a
):  # type: ignore[no-untyped-def]
    page = client_as(analyst_a)
    html = page.get(URL + "?preset=deepseek-v3-moe").content.decode()
    assert '<option value="fp8" selected>' in html
    assert 'name="moe_shared_experts" value="1"' in html
    assert 'name="moe_dense_layers" value="3"' in html
    assert 'name="moe_expert_ffn" value="2048"' in html
    r = page.post(URL, _post(precision="fp8"))
    assert r.status_code == 302, r.content.decode()[:2000]
    assert WorkloadProfile.objects.get(name="70B job").precision == "fp8"


def test_the_form_packs_the_moe_shape_into_the_architecture(client_as, analyst_a):  # type: ignore[no-untyped-def]
    moe = {"moe_experts": 64, "moe_top_k": 4, "moe_active_params_b": 20, "moe_shared_experts": 2,
           "moe_dense_layers": 1, "moe_expert_ffn": 4096}  # fmt: skip
    r = client_as(analyst_a).post(URL, _post(params_b=300, **moe))
    assert r.status_code == 302, r.context["form"].errors if r.context else r
    stored = WorkloadProfile.objects.get().architecture["model"]["moe"]
    assert stored == {"experts": 64, "top_k": 4, "active_params_b": 20, "shared_experts": 2,
                      "dense_layers": 1, "expert_ffn": 4096}  # fmt: skip


def test_dense_layers_beyond_the_model_are_named_on_their_field(client_as, analyst_a):  # type: ignore[no-untyped-def]
    over = {"moe_experts": 64, "moe_top_k": 4, "moe_active_params_b": 20, "moe_dense_layers": 80}
    r = client_as(analyst_a).post(URL, _post(params_b=300, **over))
    assert r.status_code == 400
    assert "dense_layers" in " ".join(r.context["form"].errors["moe_dense_layers"])
    assert not WorkloadProfile.objects.exists()


def test_the_api_accepts_fp8_and_refuses_an_unknown_precision(api_as, analyst_a):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    body = {"name": "api", "params_b": 70.6, "tokens_per_step": 8388608, "precision": "fp4"}
    r = api.post("/api/v1/workloads/", body, format="json")
    assert r.status_code == 400 and "precision" in r.json()
    r = api.post("/api/v1/workloads/", body | {"precision": "fp8"}, format="json")
    assert r.status_code == 201, r.json()
    assert r.json()["precision"] == "fp8"
    assert WorkloadProfile.objects.get().precision == "fp8"


def _rank(team, workload):  # type: ignore[no-untyped-def]
    snapshot = snapshot_build(workload=workload, quotes=list(ranking_quotes(team=team)), fx={})
    assert snapshot["workload_precision"] == workload.precision
    return rank_snapshot(snapshot)


def test_an_fp8_workload_trains_faster_on_h100_and_is_refused_on_a100(team_a, analyst_a):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "IB", fabric="ib", gbps=400)
    h100 = GpuModel.objects.get(key="H100-SXM")
    on_h100 = str(make_quote(team_a, analyst_a, vendor, label="h100", gpu=h100).current_version_id)
    make_quote(team_a, analyst_a, vendor, label="a100")
    common = {"params_b": 70.6, "tokens_per_step": 8388608, "strategy": "fsdp",
              "architecture": {"model": LLAMA70}}  # fmt: skip
    bf16 = _rank(team_a, make_workload(team_a, name="bf16", **common))
    fp8 = _rank(team_a, make_workload(team_a, name="fp8", precision="fp8", **common))
    assert len(bf16.results) == 2
    (slow,) = [r for r in bf16.results if str(r.offer_id) == on_h100]
    (fast,) = fp8.results
    assert str(fast.offer_id) == on_h100
    assert 1.1 < slow.step_time_s / fast.step_time_s < 1.5
    assert [p.messages[0].code for p in fp8.problems] == ["precision_fp8_unsupported"]
    assert "FP8" in fp8.problems[0].messages[0].zh


def test_the_workload_list_shows_the_precision(client_as, analyst_a, team_a):  # type: ignore[no-untyped-def]
    make_workload(team_a, name="fp8 job", precision="fp8")
    html = client_as(analyst_a).get(reverse("quotes:workloads")).content.decode()
    assert "<th>Precision</th>" in html and "<td>FP8</td>" in html
