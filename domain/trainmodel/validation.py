"""The published runs as cases (data/validation_cases.json) and the figures they are judged by
(TRAINING-MODEL.md §How it is judged). Used by `manage.py validate_model` and the tests."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from domain.trainmodel.api import NoFit
from domain.trainmodel.cases import run_case
from domain.trainmodel.errors import TrainModelError
from domain.trainmodel.failures import (
    LLAMA3_INTERRUPTIONS_PER_GPU_HOUR,
    daly_interval_s,
    ettr,
)

DATA = Path(__file__).resolve().parent / "data"
MFU_MEDIAN_GOAL = 0.10
# v3 (docs/MODEL.md §12): no case silently off by more than 35%. v2 met 25% only because every
# rank of a cross-server ring was timed at one GPU's share of the NICs, which is not the physics.
MFU_MAX_GOAL = 0.35
# The FP8 / MoE runs (tokens/s per GPU): none silently off by more than 35% either.
MODERN_MAX_GOAL = 0.35
# Published runs whose error is explained by physics the model still lacks: their errors count
# in every median and in the leave-one-source-out score, and a case beyond the per-case goal is
# a miss whether it is listed here or not - the list only adds the explanation to its note
# (docs/MODEL.md §17.5).
KNOWN_GAPS = {
    "bridge2511_qwen3_30b_a3b_16gpu_fp8": "MoE of hidden 2048",
    "bridge2602_qwen3_30b_a3b_16gpu_fp8_gbs1024": "MoE of hidden 2048",
    "bridge2511_gpt_oss_120b_64gpu_bf16": "MoE of hidden 2880",
    "bridge2602_gpt_oss_120b_64gpu_bf16_gbs1280": "MoE of hidden 2880",
}
KNOWN_GAP_NOTE = (
    "known gap: dropless small-hidden MoE runs are 1.4-2.3x slower than modelled; the same "
    "Qwen3-30B-A3B layout with token-drop routing (Megatron-Bridge 25.09, 16 H100: 10,494 "
    "tokens/s/GPU) is within 15-20% of the model and B200 shows the same 2x between the two "
    "routings, so the missing ~2 us per token and MoE layer is GPU work of the dropless path "
    "of those releases; tile/wave quantisation (matched by the expert GEMMs' saturation), FP8 "
    "amax passes, router, SwiGLU, all-to-all latency and the host sync each come to under 3% "
    "of it (docs/MODEL.md §21.2)"
)
DALY_GOAL = 0.01
# Strong scaling (same global batch, more GPUs): the fall of MFU from the smallest to the largest
# run of a published series, predicted within 0.06 (the goal for model v3).
STRONG_SCALING_GOAL = 0.06


@dataclass(frozen=True, slots=True)
class CaseResult:
    id: str
    kind: str  # compute | memory | failure
    published: float | bool
    predicted: float | bool
    error: float | None  # relative error for numbers, None for yes/no cases
    ok: bool
    source: str
    note: str = ""


@cache
def validation_cases() -> tuple[dict[str, Any], ...]:
    cases: list[dict[str, Any]] = []
    for name in ("validation_cases.json", "validation_cases_modern.json"):
        cases.extend(json.loads((DATA / name).read_text(encoding="utf-8"))["cases"])
    return tuple(cases)


def _rel(pred: float, pub: float) -> float:
    return abs(pred - pub) / abs(pub)


def compute_and_memory_results() -> list[CaseResult]:
    out: list[CaseResult] = []
    for entry in validation_cases():
        try:
            result = run_case(entry["case"])
        except TrainModelError as exc:  # a case the model cannot express: refused, with why
            out.append(_refused(entry, exc))
            continue
        pub = entry["published"]
        if entry["kind"] == "memory":
            fits = not isinstance(result, NoFit)
            note = (
                result.reason.en
                if isinstance(result, NoFit)
                else (f"fits: {result.memory.total_gb:.1f} GB of {result.card_memory_gb:.0f}")
            )
            out.append(
                CaseResult(
                    entry["id"],
                    "memory",
                    pub["fits"],
                    fits,
                    None,
                    fits == pub["fits"],
                    entry["source"],
                    note,
                )
            )
            continue
        throughput = "tokens_per_s_per_gpu" in pub
        published = pub["tokens_per_s_per_gpu"] if throughput else pub["mfu"]
        if isinstance(result, NoFit):
            out.append(
                CaseResult(
                    entry["id"],
                    "compute",
                    published,
                    0.0,
                    1.0,
                    False,
                    entry["source"],
                    result.reason.en,
                )
            )
            continue
        # throughput cases: tokens/s over all the run's GPUs (the published per-GPU figure)
        predicted = result.tokens_per_s / entry["case"]["gpus"] if throughput else result.mfu
        err = _rel(predicted, published)
        gap = KNOWN_GAPS.get(entry["id"])
        note = _layout_note(result) + (f"; {KNOWN_GAP_NOTE}" if gap else "")
        out.append(
            CaseResult(
                entry["id"],
                "compute",
                published,
                predicted,
                err,
                err <= (MODERN_MAX_GOAL if throughput else MFU_MAX_GOAL),
                entry["source"],
                note,
            )
        )
    return out


def _refused(entry: dict[str, Any], exc: TrainModelError) -> CaseResult:
    pub = entry["published"]
    published = pub.get("tokens_per_s_per_gpu", pub.get("mfu", 0.0))
    reason = "; ".join(m.en for m in exc.messages)
    return CaseResult(entry["id"], "refused", published, 0.0, None, True, entry["source"], reason)


def _layout_note(result: Any) -> str:
    lay = result.layout
    return (
        f"tp{lay.tp} pp{lay.pp} dp{lay.dp} cp{lay.cp} ep{lay.ep} v{lay.interleave} "
        f"mb{lay.microbatch} z{lay.zero_stage} {lay.recompute}; {result.memory.total_gb:.0f} GB; "
        f"MFU {result.mfu:.3f}"
    )


DALY_SOURCE = (
    "J.T. Daly, FGCS 22(3) 2006, doi:10.1016/j.future.2004.11.016 (figure captions); "
    "published-runs.json daly2006_optimum_checkpoint"
)
LLAMA3_SOURCE = "arXiv:2407.21783 (Llama 3) §3.3.4, Table 5: 419 unexpected interruptions, 54 days"
KOKOLIS_SOURCE = "Kokolis et al. arXiv:2410.21680 (secondary summary; verified=false)"


def failure_results() -> list[CaseResult]:
    out: list[CaseResult] = []
    for i, (mtbf_min, tau_min) in enumerate(((24 * 60, 117.0), (6 * 60, 57.0), (15, 9.1))):
        tau = daly_interval_s(5 * 60, mtbf_min * 60) / 60
        err = _rel(tau, tau_min)
        out.append(
            CaseResult(
                f"daly2006_case{i + 1}",
                "failure",
                tau_min,
                round(tau, 2),
                err,
                err <= DALY_GOAL,
                DALY_SOURCE,
                "tau_opt minutes, delta 5 min",
            )
        )
    # Llama 3 405B on 16,384 GPUs: checkpoint = 14 B/param over 2 TB/s sustained storage,
    # restart 10 minutes (assumption, MegaScale <= 15 min).
    mtbf = 3600 / (LLAMA3_INTERRUPTIONS_PER_GPU_HOUR * 16384)
    write = 14 * 405e9 / 2e12
    tau = daly_interval_s(write, mtbf)
    e = ettr(tau, write, 600.0, mtbf)
    out.append(
        CaseResult(
            "llama3_405B_effective_training_time",
            "failure",
            0.90,
            round(e, 4),
            None,
            e > 0.90,
            LLAMA3_SOURCE,
            f"MTBF {mtbf / 3600:.2f} h, write {write:.1f} s, restart 600 s, "
            f"interval {tau:.0f} s; published '> 90%'",
        )
    )
    out.append(_llama31_gpu_hours(write))
    rate = 6.5e-3 / (8 * 24)  # 6.5 failures per 1000 node-days, 8 GPUs per node
    mtbf_k = 3600 / (rate * 16384)
    for minutes, pub in ((60, 0.70), (5, 0.93)):
        e = ettr(minutes * 60.0, 0.0, 300.0, mtbf_k)
        err = _rel(e, pub)
        out.append(
            CaseResult(
                f"kokolis24_ettr_16k_ckpt{minutes}min",
                "failure",
                pub,
                round(e, 4),
                err,
                err <= 0.05,
                KOKOLIS_SOURCE,
                "restart u0 = 5 min, write time not given (0)",
            )
        )
    return out


NCCL_SOURCE = (
    "NCCL maintainers, NVIDIA/nccl-tests#160, #290, #212, #196 (published-runs.json "
    "nccl_per_nic_busbw); TCP: NVIDIA/nccl#209, #450 (nccl_tcp_socket_100g)"
)
SEED_SOURCE = "COST-MODEL.md validation case 1 (the seeds' 10G TCP vs 100G RoCE lesson)"
FIG15_SOURCE = "arXiv:2104.04473 Fig. 15 (secondary reading, verified=false)"
KORTHIKANTI_DP8_SOURCE = "arXiv:2205.05198 §6.3 (published-runs.json korthikanti22_530B_dp8)"


def _cluster_case(gpu: str, gpus: int, nic: float, fabric: str) -> dict[str, Any]:
    return {
        "gpu": gpu,
        "gpus": gpus,
        "gpus_per_node": 8,
        "nic_gbps": nic,
        "nics_per_node": 8,
        "fabric": fabric,
    }


def bandwidth_results() -> list[CaseResult]:
    from domain.trainmodel.cases import cluster_from
    from domain.trainmodel.links import links_for

    out: list[CaseResult] = []
    checks = (
        ("hdr200_per_nic_busbw_GBps", _cluster_case("A100-SXM4-80GB", 16, 200, "ib"), 24.0),
        ("ndr400_per_nic_busbw_GBps", _cluster_case("H100-SXM", 16, 400, "ib"), 47.0),
        ("h100_nvlink_busbw_GBps", _cluster_case("H100-SXM", 8, 400, "ib"), 370.0),
    )
    for name, case, pub in checks:
        links = links_for(cluster_from(case))
        pred = (links.intra_bps if "nvlink" in name else links.inter_bps) / 1e9
        err = _rel(pred, pub)
        out.append(
            CaseResult(
                f"nccl_{name}",
                "bandwidth",
                pub,
                round(pred, 1),
                err,
                err <= 0.05,
                NCCL_SOURCE,
                "ring busbw per rank",
            )
        )
    tcp = links_for(
        cluster_from(_cluster_case("V100-SXM2-32GB", 16, 100, "tcp") | {"nics_per_node": 1})
    )
    pred = tcp.inter_bps * 8 / 1e9
    out.append(
        CaseResult(
            "nccl_tcp_100g_busbw_GBps_node",
            "bandwidth",
            5.21,
            round(pred, 2),
            None,
            1.1 <= pred <= 5.3,
            NCCL_SOURCE,
            "node busbw over one 100G TCP port; published 1.1-5.2 GB/s",
        )
    )
    out.extend([_seed_case(), _tp_across_nodes_case(), _dp8_exposed_case()])
    return out


def _seed_case() -> CaseResult:
    model = {
        "params_b": 7,
        "layers": 32,
        "hidden": 4096,
        "heads": 32,
        "seq_len": 4096,
        "vocab": 32000,
    }
    par = {
        "tp": 1,
        "pp": 1,
        "dp": 64,
        "global_batch_tokens": 4 * 1024 * 1024,
        "recompute": "full",
    }
    steps = []
    for nic, fabric in ((10, "tcp"), (100, "roce")):
        case = _cluster_case("A100-SXM4-80GB", 64, nic, fabric) | {"nics_per_node": 1}
        result = run_case(case | {"model": model, "parallel": par})
        steps.append(0.0 if isinstance(result, NoFit) else result.step.step_s)
    ratio = steps[0] / steps[1] if steps[1] else 0.0
    return CaseResult(
        "seed_8x8_a100_10g_tcp_vs_100g_roce",
        "bandwidth",
        1.5,
        round(ratio, 2),
        None,
        ratio > 1.5,
        SEED_SOURCE,
        f"step {steps[0]:.1f} s on 10G TCP vs {steps[1]:.1f} s on 100G RoCE ({ratio:.1f}x)",
    )


def _tp_across_nodes_case() -> CaseResult:
    model = {
        "params_b": 5.9,
        "layers": 32,
        "hidden": 3840,
        "heads": 32,
        "seq_len": 2048,
        "vocab": 51200,
    }
    flops = []
    for tp in (2, 32):
        par = {
            "tp": tp,
            "pp": 1,
            "dp": 64 // tp,
            "zero_stage": 0,
            "microbatch": 1,
            "global_batch_tokens": 512 * 2048,
            "recompute": "full",
            "flash_attention": False,
            "dp_overlap": False,
        }
        case = _cluster_case("A100-SXM4-80GB", 64, 200, "ib") | {"model": model, "parallel": par}
        result = run_case(case)
        flops.append(0.0 if isinstance(result, NoFit) else result.hfu * 312)
    ratio = flops[0] / flops[1] if flops[1] else 0.0
    return CaseResult(
        "megatron21_fig15_tp32_across_nodes",
        "bandwidth",
        round(127 / 21, 2),
        round(ratio, 2),
        _rel(ratio, 127 / 21),
        ratio >= 3.0,
        FIG15_SOURCE,
        f"TFLOP/s per GPU {flops[0]:.0f} at (tp 2, dp 32) vs {flops[1]:.0f} at "
        "(tp 32, dp 2); published ~127 -> ~21 (collapse >= 3x required)",
    )


def _dp8_exposed_case() -> CaseResult:
    entry = next(e for e in validation_cases() if e["id"] == "korthikanti22_530B_dp8")
    result = run_case(entry["case"])
    pred = 0.0 if isinstance(result, NoFit) else result.step.dp_exposed_s
    err = _rel(pred, 1.32)
    return CaseResult(
        "korthikanti22_530B_dp8_exposed_allreduce_s",
        "bandwidth",
        1.32,
        round(pred, 3),
        err,
        True,
        KORTHIKANTI_DP8_SOURCE,
        "informational: fp32 all-reduce at nominal 24 GB/s per NIC; the published "
        "run lost more, which the MFU case absorbs (1-3% of the step)",
    )


LLAMA31_SOURCE = (
    "github.com/meta-llama/llama-models MODEL_CARD.md (Llama 3.1 405B: 30.84M GPU-hours, "
    "15.6T tokens); COST-MODEL.md validation case 6 (within about 20%)"
)


def _llama31_gpu_hours(write_s: float) -> CaseResult:
    """Whole-run GPU-hours of Llama 3.1 405B: the 16K-GPU 8K-sequence layout of Table 4 with
    Llama 3's failure rate, for 15.6T tokens (long-context and annealing phases not modelled)."""
    entry = next(e for e in validation_cases() if e["id"] == "llama3_405B_t4_16384gpu_cp1")
    failures = {
        "interruptions_per_gpu_hour": LLAMA3_INTERRUPTIONS_PER_GPU_HOUR,
        "checkpoint_write_s": write_s,
        "restart_s": 600.0,
    }
    result = run_case(entry["case"] | {"failures": failures, "train_tokens": 15.6e12})
    hours = 0.0
    if not isinstance(result, NoFit) and result.wall_hours is not None:
        hours = result.wall_hours * result.gpus_used
    err = _rel(hours, 30.84e6)
    return CaseResult(
        "llama31_405B_gpu_hours",
        "failure",
        30.84e6,
        round(hours, -4),
        err,
        err <= 0.20,
        LLAMA31_SOURCE,
        "wall hours x 16,384 GPUs incl. ETTR; the card's figure also holds the "
        "long-context stage and restarts beyond the model",
    )


@dataclass(frozen=True, slots=True)
class Summary:
    compute_cases: int
    mfu_median_error: float
    mfu_max_error: float
    mfu_worst_case: str
    memory_cases: int
    memory_correct: int
    failure_cases: int
    failure_correct: int
    bandwidth_cases: int = 0
    bandwidth_correct: int = 0
    refused_cases: int = 0
    compute_correct: int = 0
    scaling_series: int = 0
    scaling_correct: int = 0

    @property
    def beyond_goal(self) -> int:
        """Compute cases answered beyond the per-case goal (or with no fitting layout where
        the run fitted), whether or not a known gap explains them."""
        return self.compute_cases - self.compute_correct

    @property
    def goals_met(self) -> bool:
        return (
            self.mfu_median_error <= MFU_MEDIAN_GOAL
            and self.compute_correct == self.compute_cases
            and self.memory_correct == self.memory_cases
            and self.failure_correct == self.failure_cases
            and self.bandwidth_correct == self.bandwidth_cases
            and self.scaling_correct == self.scaling_series
        )


def summarise(results: list[CaseResult]) -> Summary:
    compute = [r for r in results if r.kind == "compute"]
    errors = [r.error or 0.0 for r in compute]
    worst = max(compute, key=lambda r: r.error or 0.0)
    memory = [r for r in results if r.kind == "memory"]
    failures = [r for r in results if r.kind == "failure"]
    bandwidth = [r for r in results if r.kind == "bandwidth"]
    return Summary(
        compute_cases=len(compute),
        mfu_median_error=statistics.median(errors),
        mfu_max_error=max(errors),
        mfu_worst_case=worst.id,
        memory_cases=len(memory),
        memory_correct=sum(r.ok for r in memory),
        failure_cases=len(failures),
        failure_correct=sum(r.ok for r in failures),
        bandwidth_cases=len(bandwidth),
        bandwidth_correct=sum(r.ok for r in bandwidth),
        refused_cases=sum(r.kind == "refused" for r in results),
        compute_correct=sum(r.ok for r in compute),
        scaling_series=len(scaling := strong_scaling(results)),
        scaling_correct=sum(s.ok for s in scaling),
    )


SERIES = (
    ("ZeRO-3 174.6B, 384/768/1536 GPUs", "megatron21_t2_zero3_174.6B_", (384, 768, 1536)),
    ("PTD-P 174.6B, 384/768/1536 GPUs", "megatron21_t2_ptdp_174.6B_", (384, 768, 1536)),
    ("ZeRO-3 529.6B, 640/1120/2240 GPUs", "megatron21_t2_zero3_529.6B_", (640, 1120, 2240)),
    ("PTD-P 529.6B, 560/1120/2240 GPUs", "megatron21_t2_ptdp_529.6B_", (560, 1120, 2240)),
)


def table2_series(results: list[CaseResult]) -> list[tuple[str, list[int], list[int]]]:
    """Megatron SC'21 Table 2 as TFLOP/s per GPU (HFU x 312, the paper's unit): published and
    predicted, for the ZeRO-3 collapse and the near-flat PTD-P line."""
    by_id = {r.id: r for r in results}
    out = []
    for name, prefix, gpus in SERIES:
        rows = [by_id[f"{prefix}{n}gpu"] for n in gpus]
        pub = [round(float(r.published) / 0.75 * 312) for r in rows]
        pred = [round(float(r.predicted) / 0.75 * 312) for r in rows]
        out.append((name, pub, pred))
    return out


# Published series at one global batch on more and more GPUs: (name, case ids, smallest first).
STRONG_SERIES = (
    ("Megatron SC'21 Table 2 ZeRO-3 174.6B, 384 -> 1536 GPUs",
     tuple(f"megatron21_t2_zero3_174.6B_{n}gpu" for n in (384, 768, 1536))),
    ("Megatron SC'21 Table 2 PTD-P 174.6B, 384 -> 1536 GPUs",
     tuple(f"megatron21_t2_ptdp_174.6B_{n}gpu" for n in (384, 768, 1536))),
    ("Megatron SC'21 Table 2 ZeRO-3 529.6B, 1120 -> 2240 GPUs",
     tuple(f"megatron21_t2_zero3_529.6B_{n}gpu" for n in (1120, 2240))),
    ("Megatron SC'21 Table 2 PTD-P 529.6B, 560 -> 2240 GPUs",
     tuple(f"megatron21_t2_ptdp_529.6B_{n}gpu" for n in (560, 1120, 2240))),
    ("Llama 3 405B (arXiv:2407.21783 Table 4), 8192 -> 16384 GPUs",
     ("llama3_405B_t4_8192gpu_cp1", "llama3_405B_t4_16384gpu_cp1")),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ScalingResult:
    series: str
    gpus: tuple[int, ...]
    published_mfu: tuple[float, ...]
    predicted_mfu: tuple[float, ...]
    published_fall: float
    predicted_fall: float
    ok: bool


def strong_scaling(results: list[CaseResult]) -> list[ScalingResult]:
    """Per published strong-scaling series: MFU at each size and its fall from the smallest to
    the largest run, published and predicted (goal: the falls differ by <= 0.06)."""
    by_id = {r.id: r for r in results}
    cases = {c["id"]: c for c in validation_cases()}
    out = []
    for name, ids in STRONG_SERIES:
        rows = [by_id[i] for i in ids]
        if any(not isinstance(r.predicted, float) for r in rows):
            continue  # refused or not fitting: reported as such per case
        pub = tuple(float(r.published) for r in rows)
        pred = tuple(float(r.predicted) for r in rows)
        gpus = tuple(int(cases[i]["case"]["gpus"]) for i in ids)
        pub_fall, pred_fall = pub[0] - pub[-1], pred[0] - pred[-1]
        ok = abs(pred_fall - pub_fall) <= STRONG_SCALING_GOAL
        out.append(ScalingResult(name, gpus, pub, pred, pub_fall, pred_fall, ok))
    return out


def run_validation() -> tuple[list[CaseResult], Summary]:
    results = compute_and_memory_results() + failure_results() + bandwidth_results()
    return results, summarise(results)


# ---------------------------------------------------------------------------------------------
# Leave-one-source-out validation (docs/MODEL.md §17)

# Each published case belongs to the source (paper or performance table) it was read from.
SOURCE_FAMILIES = (
    ("megatron21_", "Megatron-LM SC'21 (arXiv:2104.04473)"),
    ("korthikanti22_", "Korthikanti et al. 2022 (arXiv:2205.05198)"),
    ("llama3_", "Llama 3 (arXiv:2407.21783)"),
    ("nemo2407_", "NeMo 24.07 performance summary"),
    ("bridge", "Megatron-Bridge performance summaries"),
    ("deepseek_v3_report", "DeepSeek-V3 report (arXiv:2412.19437)"),
)
# The values each fitted constant may take in a re-fit (calibration.Calibration's fields).
FIT_GRID: dict[str, tuple[float, ...]] = {
    "efficiency_scale": (0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2),
    "shard_half_width_scale": (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0),
    "elementwise_bytes": (0.0, 12.0, 24.0, 36.0, 48.0),
    "overlap_efficiency": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    "fp8_gemm_ratio": (0.6, 0.66, 0.7, 0.74, 0.78, 0.82, 0.88, 0.94),
}
FIT_ROUNDS = 3


def source_family(case_id: str) -> str:
    for prefix, name in SOURCE_FAMILIES:
        if case_id.startswith(prefix):
            return name
    return "other"


def compute_errors() -> dict[str, float]:
    """Relative error of every answered compute case under the calibration in use (a case
    with no fitting layout counts 1.0; refused cases are left out: nothing to compare)."""
    return {
        r.id: float(r.error if r.error is not None else 1.0)
        for r in compute_and_memory_results()
        if r.kind == "compute"
    }


# In a fit's mean, an error counts at most this much: a case whose physics the model lacks
# (MoE of small hidden size, 2-3x off) must not drag every constant towards itself.
FIT_ERROR_CAP = 0.5


def _objective(errors: dict[str, float], ids: list[str]) -> float:
    """What a fit minimises: the mean of the median and the mean relative error capped at
    FIT_ERROR_CAP (the median alone is flat over wide ranges of a constant; the plain mean is
    led by one outlier)."""
    values = [errors[i] for i in ids]
    capped = [min(v, FIT_ERROR_CAP) for v in values]
    return 0.5 * (statistics.median(values) + statistics.fmean(capped))


class _Evaluator:
    """Errors per calibration, kept: the folds of one validation share many points."""

    def __init__(self) -> None:
        self.seen: dict[Any, dict[str, float]] = {}

    def __call__(self, values: Any) -> dict[str, float]:
        from domain.trainmodel.calibration import calibrated

        found = self.seen.get(values)
        if found is None:
            with calibrated(values):
                found = self.seen[values] = compute_errors()
        return found


def fit_calibration(
    ids: list[str], evaluate: Any = None, grid: dict[str, tuple[float, ...]] | None = None
) -> Any:
    """Coordinate descent over FIT_GRID from the shipped values, minimising `_objective` over
    the cases `ids` only (ties keep the current value)."""
    from dataclasses import replace

    from domain.trainmodel.calibration import FITTED

    evaluate = evaluate or _Evaluator()
    grid = grid if grid is not None else FIT_GRID
    best = FITTED
    best_score = _objective(evaluate(best), ids)
    for _round in range(FIT_ROUNDS):
        moved = False
        for name, values in grid.items():
            for value in values:
                trial = replace(best, **{name: value})
                score = _objective(evaluate(trial), ids)
                if score < best_score - 1e-12:
                    best, best_score, moved = trial, score, True
        if not moved:
            break
    return best


@dataclass(frozen=True, slots=True)
class FamilyScore:
    family: str
    cases: int
    in_sample_median: float
    in_sample_worst: float
    loso_median: float
    loso_worst: float
    loso_worst_case: str
    refit: dict[str, float]


@dataclass(frozen=True, slots=True)
class LosoSummary:
    cases: int
    in_sample_median: float
    in_sample_worst: float
    loso_median: float
    loso_worst: float
    loso_worst_case: str
    families: tuple[FamilyScore, ...]

    @property
    def family_worst_median(self) -> float:
        return max((f.loso_median for f in self.families), default=0.0)


LOSO_MEDIAN_GOAL = 0.10
LOSO_FAMILY_MEDIAN_GOAL = 0.25


def leave_one_source_out(grid: dict[str, tuple[float, ...]] | None = None) -> LosoSummary:
    """For each source family: re-fit the fitted constants on every other family's compute
    cases, predict this family's cases with them. The pooled held-out errors are the figure
    that says how the model does on runs it has never seen."""
    from domain.trainmodel.calibration import FITTED

    evaluate = _Evaluator()
    base = evaluate(FITTED)
    ids = list(base)
    by_family: dict[str, list[str]] = {}
    for case_id in ids:
        by_family.setdefault(source_family(case_id), []).append(case_id)
    held_out: dict[str, float] = {}
    families = []
    for family, members in by_family.items():
        train = [i for i in ids if i not in members]
        values = fit_calibration(train, evaluate, grid) if train else FITTED
        errors = evaluate(values)
        for i in members:
            held_out[i] = errors[i]
        worst = max(members, key=lambda i: errors[i])
        families.append(
            FamilyScore(
                family,
                len(members),
                statistics.median(base[i] for i in members),
                max(base[i] for i in members),
                statistics.median(errors[i] for i in members),
                errors[worst],
                worst,
                values.as_dict(),
            )
        )
    worst_id = max(held_out, key=lambda i: held_out[i])
    return LosoSummary(
        len(ids),
        statistics.median(base.values()),
        max(base.values()),
        statistics.median(held_out.values()),
        held_out[worst_id],
        worst_id,
        tuple(families),
    )
