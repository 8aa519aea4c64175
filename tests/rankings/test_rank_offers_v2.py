"""rank_offers with a workload preset name and bilingual refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db
DATA = Path(__file__).parent / "data"


def _rank(capsys, *args: str) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    call_command("rank_offers", *args)
    return json.loads(capsys.readouterr().out)


def test_a_preset_name_brings_its_architecture_and_tokens(capsys):  # type: ignore[no-untyped-def]
    out = _rank(capsys, str(DATA / "llama3_70b_offers.json"))
    assert [r["id"] for r in out] == ["h100-ib", "a100-roce", "4090"]
    for r in out:
        d = r["model_detail"]
        assert d["architecture"] == "llama3-70b" and "architecture" not in d["assumed"]
        assert d["memory"]["total_gb"] <= d["memory"]["card_gb"]
        assert r["job_hours"] > 0  # the preset's 15T tokens
    assert out[2]["model_detail"]["layout"]["pp"] > 1  # 70B on 24 GB cards needs deep pipelines


def test_the_workload_option_and_overrides(capsys, tmp_path):  # type: ignore[no-untyped-def]
    data = json.loads((DATA / "llama3_70b_offers.json").read_text())
    data["workload"] = {"name": "llama3-70b", "nodes": 4}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    out = _rank(capsys, str(path))
    assert {r["model_detail"]["gpus_offered"] for r in out} == {32}
    data["workload"] = {"params_b": 7, "tokens_per_step": 4e6}
    path.write_text(json.dumps(data))
    out = _rank(capsys, str(path), "--workload", "qwen2.5-14b")
    assert {r["model_detail"]["architecture"] for r in out} == {"qwen2.5-14b"}


@pytest.mark.parametrize(
    ("workload", "expected"),
    [("llama-99t", "Unknown workload preset"), ({"name": 3}, "preset name")],
)
def test_a_bad_workload_name_exits_2_with_a_message(capsys, tmp_path, workload, expected):  # type: ignore[no-untyped-def]
    data = json.loads((DATA / "llama3_70b_offers.json").read_text())
    data["workload"] = workload
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SystemExit) as exc:
        call_command("rank_offers", str(path))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert expected in err
    if workload == "llama-99t":
        assert "未知的工作负载预设" in err  # both languages on the command line


def test_an_offer_where_nothing_fits_is_reported_in_both_languages(capsys, tmp_path):  # type: ignore[no-untyped-def]
    data = json.loads((DATA / "llama3_70b_offers.json").read_text())
    data["workload"] = {"name": "llama3-405b", "nodes": 1}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    call_command("rank_offers", str(path))
    captured = capsys.readouterr()
    assert json.loads(captured.out) == []
    err = captured.err
    assert err.count("not ranked") == 3 and "GB" in err and "显存不足" in err


MODEL_7B = {"params_b": 7, "layers": 32, "hidden": 4096, "heads": 32, "seq_len": 4096,
            "vocab": 32000}  # fmt: skip


def _with(tmp_path, workload):  # type: ignore[no-untyped-def]
    data = json.loads((DATA / "llama3_70b_offers.json").read_text())
    data["workload"] = workload
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize(
    ("parallel", "en", "zh"),
    [
        ({"tp": 3}, "does not divide the 32 attention heads", "不能整除注意力头数"),
        ({"tp": 8, "pp": 4, "dp": 64}, "GPU", "GPU"),
    ],
)
def test_a_layout_that_does_not_suit_the_offers_is_each_offers_problem(  # type: ignore[no-untyped-def]
    capsys, tmp_path, parallel, en, zh
):
    call_command("rank_offers", _with(tmp_path, {"model": MODEL_7B, "parallel": parallel}))
    captured = capsys.readouterr()
    assert json.loads(captured.out) == []
    lines = [x for x in captured.err.splitlines() if "not ranked" in x]
    assert len(lines) == 3 and all(en in x and zh in x for x in lines)


@pytest.mark.parametrize(
    ("model", "en", "zh"),
    [
        ({**MODEL_7B, "layers": 0}, "model.layers must be between", "model.layers 必须在"),
        ({**MODEL_7B, "hidden": 4100}, "not divisible by 32 heads", "不能被注意力头数"),
        (
            {**MODEL_7B, "moe": {"experts": 0, "top_k": 1, "active_params_b": 1}},
            "at least 2 experts",
            "至少需要 2 个专家",
        ),
        ({**MODEL_7B, "params_b": 1e9}, "params_b", "params_b"),
    ],
)
def test_an_impossible_architecture_stops_with_both_languages(capsys, tmp_path, model, en, zh):  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exc:
        call_command("rank_offers", _with(tmp_path, {"model": model}))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert en in err and zh in err and "Traceback" not in err


def test_one_bad_offer_never_aborts_the_batch(capsys, tmp_path):  # type: ignore[no-untyped-def]
    data = json.loads((DATA / "llama3_70b_offers.json").read_text())
    good = data["offers"][0]
    no_gpu = {k: v for k, v in good.items() if k != "gpu"} | {"id": "no-gpu"}
    unknown = good | {"id": "unknown-key", "measured_busbw_gbps": 50}
    huge = good | {"id": "huge-rent", "price_per_node_month": 1e308}
    data["offers"] = [no_gpu, unknown, huge, good]
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(data))
    out = _rank(capsys, str(path))  # exit 0: an answer for the batch
    assert [r["id"] for r in out] == [good["id"]]  # only the good offer is ranked
    call_command("rank_offers", str(path))
    err = capsys.readouterr().err
    for offer_id, words in (("no-gpu", "gpu is required"), ("unknown-key", "unknown input"),
                            ("huge-rent", "at most 1,000,000,000,000")):  # fmt: skip
        line = next(x for x in err.splitlines() if x.startswith(f"offer {offer_id} not ranked"))
        assert words in line, line
    assert "为必填项" in err and "未知输入" in err and "不能超过" in err  # both languages
