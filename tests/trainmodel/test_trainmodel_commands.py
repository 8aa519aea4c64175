"""predict_runs and validate_model as TRAINING-MODEL.md fixes them (input, output, exit codes)."""

from __future__ import annotations

import contextlib
import json

import pytest
from django.core.management import call_command

CASE = {
    "id": "gpt175-256",
    "gpu": "A100-SXM4-80GB",
    "gpus": 256,
    "gpus_per_node": 8,
    "nic_gbps": 200,
    "nics_per_node": 8,
    "fabric": "roce",
    "measured_busbw_gbps": None,
    "model": {
        "params_b": 175,
        "layers": 96,
        "hidden": 12288,
        "heads": 96,
        "seq_len": 2048,
        "vocab": 51200,
        "ffn": None,
        "kv_heads": None,
        "moe": None,
    },
    "parallel": {
        "tp": 8,
        "pp": 8,
        "dp": 4,
        "cp": 1,
        "ep": 1,
        "zero_stage": 1,
        "sequence_parallel": True,
        "interleave": 1,
        "microbatch": 1,
        "global_batch_tokens": 1572864,
        "recompute": "selective",
    },
    "failures": None,
}
OUTPUT_KEYS = {
    "id",
    "step_time_s",
    "tokens_per_s",
    "mfu",
    "hfu",
    "memory_gb_per_gpu",
    "fits",
    "layout",
    "breakdown_s",
}
LAYOUT_KEYS = {"tp", "pp", "dp", "cp", "ep", "zero_stage", "microbatch", "recompute"}
BREAKDOWN_KEYS = {"compute", "tp_comm", "pp_comm", "bubble", "dp_exposed", "ep_comm", "optimizer"}


def _run(tmp_path, capsys, cases):  # type: ignore[no-untyped-def]
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(cases), encoding="utf-8")
    code = 0
    try:
        call_command("predict_runs", str(path))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_it_prints_one_object_per_case_in_input_order_with_the_contract_fields(tmp_path, capsys):
    searched = dict(
        CASE,
        id="searched",
        parallel=None,
        failures={"interruptions_per_gpu_hour": 2e-5, "checkpoint_write_s": 60, "restart_s": 600},
    )
    small = dict(CASE, id="on-4090", gpu="RTX4090", gpus=8, parallel={"global_batch_tokens": 2**20})
    code, out, _ = _run(tmp_path, capsys, [CASE, searched, small])
    assert code == 0
    rows = json.loads(out)
    assert [r["id"] for r in rows] == ["gpt175-256", "searched", "on-4090"]
    first = rows[0]
    assert set(first) >= OUTPUT_KEYS
    assert set(first["layout"]) == LAYOUT_KEYS
    assert set(first["breakdown_s"]) == BREAKDOWN_KEYS
    assert first["fits"] is True and first["layout"]["tp"] == 8 and first["layout"]["pp"] == 8
    assert 0.3 < first["mfu"] < first["hfu"] < 0.7
    assert first["tokens_per_s"] == pytest.approx(1572864 / first["step_time_s"], rel=1e-4)
    assert "ettr" not in first and "checkpoint_interval_s" not in first
    assert 0 < rows[1]["ettr"] < 1 and rows[1]["checkpoint_interval_s"] > 0
    assert rows[2]["fits"] is False and "has 24 GB" in rows[2]["reason"]


def test_a_bad_case_gets_its_message_and_exit_code_1_while_the_others_are_printed(tmp_path, capsys):
    bad = dict(CASE, id="bad", parallel=dict(CASE["parallel"], tp=5))
    code, out, err = _run(tmp_path, capsys, [bad, CASE])
    assert code == 1
    rows = json.loads(out)
    assert rows[0]["fits"] is False and rows[0]["error"][0]["code"] == "tp_heads"
    assert "does not divide the 96 attention heads" in rows[0]["reason"]
    assert "注意力头数" in rows[0]["reason_zh"]
    assert rows[1]["fits"] is True
    assert "bad" in err and "Traceback" not in err


@pytest.mark.parametrize("content", ["{not json", json.dumps({"cases": []}), ""])
def test_an_unreadable_file_exits_2_with_nothing_on_stdout(tmp_path, capsys, content):
    path = tmp_path / "runs.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        call_command("predict_runs", str(path))
    assert exc.value.code == 2
    out = capsys.readouterr()
    assert out.out == "" and "predict_runs:" in out.err


def test_a_missing_file_exits_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        call_command("predict_runs", str(tmp_path / "absent.json"))
    assert exc.value.code == 2
    assert "cannot read" in capsys.readouterr().err


def test_validate_model_prints_every_case_and_counts_misses_honestly(capsys):
    with contextlib.suppress(SystemExit):  # exits 1 while a case is beyond its goal
        call_command("validate_model")
    out = capsys.readouterr().out
    assert "megatron21_t2_zero3_174.6B_1536gpu" in out and "daly2006_case1" in out
    assert "deepseek_v3_report_2048_h800_fp8" in out and "refused with a reason" in out
    assert "Megatron Table 2 ZeRO-3 174.6B, 384/768/1536 GPUs: TFLOP/s per GPU published " in out
    with contextlib.suppress(SystemExit):
        call_command("validate_model", "--json")
    payload = json.loads(capsys.readouterr().out)
    summary = payload["summary"]
    computed = [c for c in payload["cases"] if c["kind"] == "compute"]
    beyond = [c for c in computed if c["error"] > 0.35]
    # a case beyond the per-case goal is a miss, with or without a known-gap note
    assert all(not c["ok"] for c in beyond) and all(c["ok"] for c in computed if c not in beyond)
    assert summary["beyond_goal"] == len(beyond) == len(computed) - summary["compute_correct"]
    assert summary["goals_met"] is (not beyond)
    assert ("All goals met." in out) is (not beyond)
    assert f"within goal {len(computed) - len(beyond)}/{len(computed)}" in out
    assert f"beyond the goal {len(beyond)}" in out
    for c in beyond:
        row = next(line for line in out.splitlines() if line.startswith(c["id"] + " "))
        assert " MISS " in row and f"{c['error']:.1%}" in row
    assert payload["summary"]["mfu_median_error"] <= 0.10
    assert len([c for c in payload["cases"] if c["kind"] == "compute"]) == 52
    assert payload["leave_one_source_out"]["loso_median"] <= 0.10
    families = payload["leave_one_source_out"]["families"]
    assert len(families) == 6 and all(f["loso_median"] <= 0.25 for f in families)
    zero3 = payload["table2_tflops"][0]
    assert zero3["published"] == [144, 88, 44]
    assert zero3["predicted"][0] > 2.5 * zero3["predicted"][2]


def test_the_example_file_runs_dense_moe_and_no_fit_cases(capsys):
    from pathlib import Path

    call_command("predict_runs", str(Path(__file__).parent / "data" / "example_runs.json"))
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["spec-example-175b"]["fits"] is True
    assert rows["llama3-70b-searched-with-failures"]["ettr"] > 0.9
    moe = rows["deepseek-v3-style-moe"]
    # the search may keep experts unsharded (ep 1) when the all-to-alls cost more than they
    # save; expert parallelism, when chosen, pays its all-to-alls
    assert moe["fits"] is True
    assert (moe["layout"]["ep"] > 1) == (moe["breakdown_s"]["ep_comm"] > 0)
    assert rows["70b-on-one-4090-server"]["fits"] is False


def test_validate_model_lists_the_modern_runs_and_the_refused_ones(capsys):
    with contextlib.suppress(SystemExit):  # exit 1 while the tp-2 GPT3-20B run waits (above)
        call_command("validate_model", "--json")
    payload = json.loads(capsys.readouterr().out)
    by_id = {c["id"]: c for c in payload["cases"]}
    assert by_id["deepseek_v3_report_2048_h800_fp8"]["published"] == pytest.approx(1543.2, 1e-3)
    refused = [c for c in payload["cases"] if c["kind"] == "refused"]
    assert len(refused) == payload["summary"]["refused_cases"] == 0
    # v4 answers the MoE runs of hidden 2048 / 2880 (printed as known misses, not refused)
    small = [by_id[i] for i in by_id if "qwen3_30b" in i or "gpt_oss" in i]
    assert len(small) == 4 and all(c["kind"] == "compute" for c in small)
    assert all("known gap" in c["note"] for c in small)
    # explained or not, a case beyond the per-case goal is not counted within it
    assert all(c["ok"] is (c["error"] <= 0.35) for c in small)
    assert payload["summary"]["mfu_median_error"] <= 0.10
