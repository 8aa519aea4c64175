"""Write the FP8 / MoE published runs into domain/trainmodel/data/validation_cases_modern.json.

Each run keeps its source (document, table, row) and the published tokens/s per GPU; the
validation compares the model's tokens/s per GPU with it (the same error as MFU's, without
depending on a FLOP convention). Re-running replaces the entries with the same ids.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = (
    Path(__file__).resolve().parent.parent / "domain/trainmodel/data/validation_cases_modern.json"
)

NEMO_2407 = (
    "github.com/NVIDIA/NeMo docs/source/performance/performance_summary.md "
    "@070a0bb168d405d653b9734c0017cf5078e77c0d (NeMo 24.07 container, "
    "DGX-H100, FP8 pretraining table), row {row}"
)
BRIDGE = (
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary{page}.md @{commit} "
    "({release} NeMo "
    "container, DGX-H100 pretraining table), row {row}"
)
DSV3 = (
    "arXiv:2412.19437 (DeepSeek-V3 Technical Report) Table 1 and §3.1-3.3, §4.2: 2,048 H800, "
    "180K H800 GPU-hours per trillion tokens, 2.664M GPU-hours for 14.8T pre-training tokens "
    "(2.788M with context extension and post-training), FP8 mixed precision, PP16 with DualPipe, "
    "EP64 over 8 nodes, ZeRO-1 data parallel, no TP; batch ramped to 15,360 sequences of 4K"
)

DGX_H100 = {
    "gpu": "H100-SXM",
    "gpus_per_node": 8,
    "nic_gbps": 400,
    "nics_per_node": 8,
    "fabric": "ib",
}

GPT3_175B = {
    "params_b": 175.0,
    "layers": 96,
    "hidden": 12288,
    "heads": 96,
    "seq_len": 2048,
    "vocab": 51200,
}
GPT3_20B = {
    "params_b": 20.0,
    "layers": 44,
    "hidden": 6144,
    "heads": 48,
    "seq_len": 2048,
    "vocab": 51200,
}
GPT3_5B = {
    "params_b": 5.0,
    "layers": 24,
    "hidden": 4096,
    "heads": 32,
    "seq_len": 2048,
    "vocab": 51200,
}
LLAMA2_7B = {
    "params_b": 6.74,
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "ffn": 11008,
    "vocab": 32000,
    "seq_len": 4096,
}
LLAMA2_70B = {
    "params_b": 69.0,
    "layers": 80,
    "hidden": 8192,
    "heads": 64,
    "kv_heads": 8,
    "ffn": 28672,
    "vocab": 32000,
    "seq_len": 4096,
}
LLAMA3_8B = {
    "params_b": 8.03,
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "kv_heads": 8,
    "ffn": 14336,
    "vocab": 128256,
    "seq_len": 8192,
}
LLAMA3_70B = {
    "params_b": 70.6,
    "layers": 80,
    "hidden": 8192,
    "heads": 64,
    "kv_heads": 8,
    "ffn": 28672,
    "vocab": 128256,
    "seq_len": 8192,
}
LLAMA31_405B = {
    "params_b": 405.0,
    "layers": 126,
    "hidden": 16384,
    "heads": 128,
    "kv_heads": 8,
    "ffn": 53248,
    "vocab": 128256,
    "seq_len": 8192,
}
NEMOTRON4_340B = {
    "params_b": 341.0,
    "layers": 96,
    "hidden": 18432,
    "heads": 96,
    "kv_heads": 8,
    "ffn": 73728,
    "vocab": 256000,
    "seq_len": 4096,
}
QWEN3_30B_A3B = {
    "params_b": 30.5,
    "layers": 48,
    "hidden": 2048,
    "heads": 32,
    "kv_heads": 4,
    "vocab": 151936,
    "seq_len": 4096,
    "moe": {"experts": 128, "top_k": 8, "active_params_b": 3.3, "expert_ffn": 768},
}
QWEN3_235B_A22B = {
    "params_b": 235.0,
    "layers": 94,
    "hidden": 4096,
    "heads": 64,
    "kv_heads": 4,
    "vocab": 151936,
    "seq_len": 4096,
    "moe": {"experts": 128, "top_k": 8, "active_params_b": 22.0, "expert_ffn": 1536},
}
GPT_OSS_120B = {
    "params_b": 116.8,
    "layers": 36,
    "hidden": 2880,
    "heads": 64,
    "kv_heads": 8,
    "vocab": 201088,
    "seq_len": 4096,
    "moe": {"experts": 128, "top_k": 4, "active_params_b": 5.1, "expert_ffn": 2880},
}
DEEPSEEK_V3 = {
    "params_b": 671.0,
    "layers": 61,
    "hidden": 7168,
    "heads": 128,
    "ffn": 18432,
    "vocab": 129280,
    "seq_len": 4096,
    "moe": {
        "experts": 256,
        "top_k": 8,
        "active_params_b": 37.0,
        "shared_experts": 1,
        "dense_layers": 3,
        "expert_ffn": 2048,
    },
}

ARCH = {
    "gpt3": "GPT-3 shapes of Brown et al. arXiv:2005.14165 Table 2.1 (175B); NeMo's 5B/20B "
    "configs (24x4096x32 heads, 44x6144x48 heads)",
    "llama2": "Llama 2 shapes: arXiv:2307.09288 and the meta-llama configs",
    "llama3": "Llama 3 shapes: arXiv:2407.21783 Table 3 and the meta-llama configs",
    "nemotron": "Nemotron-4 340B shape: arXiv:2406.11704 Table 1 (96 layers, 18432 hidden, 96 "
    "heads, 8 KV heads, squared-ReLU MLP 73728, 256K vocabulary)",
    "qwen3": "Qwen3 MoE shapes: arXiv:2505.09388 Table 2 and the Qwen3 configs (128 experts, "
    "8 routed, no shared expert; expert FFN 768 / 1536)",
    "gptoss": "gpt-oss-120b model card (arXiv:2508.10925): 36 layers, 128 experts top-4, "
    "hidden 2880, 116.8B total / 5.1B active",
    "dsv3": "DeepSeek-V3 config (arXiv:2412.19437 §4.2): 61 layers, first 3 dense (FFN 18432), "
    "1 shared + 256 routed experts (FFN 2048), top-8, hidden 7168, 128 heads (MLA)",
}


def entry(
    cid: str,
    source: str,
    tps: float,
    tflops: float | None,
    model: dict[str, Any],
    parallel: dict[str, Any],
    gpus: int,
    precision: str,
    arch: str,
    note: str,
    verified: bool = True,
    cluster: dict[str, Any] | None = None,
) -> dict[str, Any]:
    published: dict[str, Any] = {"tokens_per_s_per_gpu": tps}
    if tflops is not None:
        published["model_tflops_per_gpu"] = tflops
    case = {
        "id": cid,
        "gpus": gpus,
        **(cluster or DGX_H100),
        "precision": precision,
        "model": model,
        "parallel": parallel,
    }
    return {
        "id": cid,
        "kind": "compute",
        "source": source,
        "verified": verified,
        "published": published,
        "normalisation": f"{note} Architecture: {ARCH[arch]}. Precision {precision}.",
        "case": case,
    }


def par(tp: int, pp: int, dp: int, mbs: int, gbs: int, seq: int, **extra: Any) -> dict[str, Any]:
    out = {
        "tp": tp,
        "pp": pp,
        "dp": dp,
        "cp": extra.pop("cp", 1),
        "microbatch": mbs,
        "global_batch_tokens": gbs * seq,
        "zero_stage": extra.pop("zero_stage", 1),
        "sequence_parallel": tp > 1,
    }
    out.update(extra)
    return out


MEGATRON = (
    "Megatron distributed optimizer (ZeRO-1); sequence parallel when tp > 1; recompute "
    "searched (the fastest that fits, as the recipes are tuned)."
)


def cases() -> list[dict[str, Any]]:
    n = NEMO_2407
    main = "00b7660be0254ac6f95f44164ddd0c3e9cc798ed"  # performance-summary.md as read
    archive = "0a25f911b2ed6c6905a539504fdb8e5b40e3438b"  # performance-summary-archive.md
    b11 = {"page": "", "release": "25.11", "commit": main}
    b09 = {"page": "-archive", "release": "25.09", "commit": archive}
    b02 = {"page": "-archive", "release": "26.02", "commit": archive}
    return [
        entry(
            "nemo2407_gpt3_5b_64gpu_fp8",
            n.format(row="GPT3-5B"),
            22521,
            736,
            GPT3_5B,
            par(1, 1, 64, 4, 2048, 2048),
            64,
            "fp8",
            "gpt3",
            MEGATRON,
        ),
        entry(
            "nemo2407_gpt3_20b_64gpu_fp8",
            n.format(row="GPT3-20B"),
            5851,
            750,
            GPT3_20B,
            par(2, 1, 32, 2, 256, 2048),
            64,
            "fp8",
            "gpt3",
            MEGATRON,
        ),
        entry(
            "nemo2407_gpt3_175b_128gpu_fp8",
            n.format(row="GPT3-175B 128 GPUs"),
            726,
            782,
            GPT3_175B,
            par(4, 8, 4, 1, 256, 2048, interleave=6),
            128,
            "fp8",
            "gpt3",
            MEGATRON,
        ),
        entry(
            "nemo2407_gpt3_175b_512gpu_fp8",
            n.format(row="GPT3-175B 512 GPUs"),
            782,
            842,
            GPT3_175B,
            par(4, 8, 16, 2, 2048, 2048, interleave=6),
            512,
            "fp8",
            "gpt3",
            MEGATRON,
        ),
        entry(
            "nemo2407_llama2_7b_8gpu_fp8",
            n.format(row="LLAMA2-7B"),
            16847,
            776,
            LLAMA2_7B,
            par(1, 1, 8, 1, 128, 4096),
            8,
            "fp8",
            "llama2",
            MEGATRON,
        ),
        entry(
            "nemo2407_llama2_70b_64gpu_fp8",
            n.format(row="LLAMA2-70B"),
            1707,
            759,
            LLAMA2_70B,
            par(4, 4, 4, 1, 128, 4096, interleave=20),
            64,
            "fp8",
            "llama2",
            MEGATRON,
        ),
        entry(
            "nemo2407_nemotron4_340b_128gpu_fp8",
            n.format(row="Nemotron-340B"),
            322,
            678,
            NEMOTRON4_340B,
            par(8, 8, 2, 1, 32, 4096, interleave=12),
            128,
            "fp8",
            "nemotron",
            MEGATRON + " Squared-ReLU MLP (two matrices) read off the parameter count.",
        ),
        entry(
            "nemo2407_llama3_8b_8gpu_fp8",
            n.format(row="LLAMA3-8B"),
            12036,
            697,
            LLAMA3_8B,
            par(1, 1, 4, 1, 128, 8192, cp=2),
            8,
            "fp8",
            "llama3",
            MEGATRON,
        ),
        entry(
            "nemo2407_llama3_70b_64gpu_fp8",
            n.format(row="LLAMA3-70B"),
            1533,
            738,
            LLAMA3_70B,
            par(4, 4, 2, 1, 128, 8192, cp=2, interleave=5),
            64,
            "fp8",
            "llama3",
            MEGATRON,
        ),
        entry(
            "bridge2511_llama3_8b_8gpu_fp8",
            BRIDGE.format(**b11, row="LLAMA3_8B FP8-CS"),
            14451,
            744,
            LLAMA3_8B,
            par(1, 1, 8, 1, 128, 8192, zero_stage=3),
            8,
            "fp8",
            "llama3",
            "FSDP over the 8 GPUs taken as ZeRO-3; recompute searched.",
        ),
        entry(
            "bridge2511_llama3_70b_64gpu_fp8",
            BRIDGE.format(**b11, row="LLAMA3_70B FP8-CS"),
            1602,
            719,
            LLAMA3_70B,
            par(4, 8, 2, 1, 128, 8192, interleave=5),
            64,
            "fp8",
            "llama3",
            MEGATRON,
        ),
        entry(
            "bridge2511_llama31_405b_1024gpu_fp8",
            BRIDGE.format(**b11, row="LLAMA3.1_405B FP8-CS"),
            292,
            737,
            LLAMA31_405B,
            par(8, 8, 8, 1, 512, 8192, cp=2, interleave=8),
            1024,
            "fp8",
            "llama3",
            MEGATRON + " 126 layers on 8 x 8 chunks: uneven (full middle chunks).",
        ),
        entry(
            "bridge2602_llama3_70b_64gpu_fp8_gbs256",
            BRIDGE.format(**b02, row="LLAMA3_70B DGX-H100 FP8"),
            1621,
            728,
            LLAMA3_70B,
            par(4, 8, 2, 1, 256, 8192, interleave=5),
            64,
            "fp8",
            "llama3",
            MEGATRON,
        ),
        entry(
            "bridge2602_llama31_405b_1024gpu_fp8_gbs1536",
            BRIDGE.format(**b02, row="LLAMA3.1_405B DGX-H100 FP8"),
            311,
            784,
            LLAMA31_405B,
            par(8, 8, 8, 1, 1536, 8192, cp=2, interleave=8),
            1024,
            "fp8",
            "llama3",
            MEGATRON + " 126 layers on 8 x 8 chunks: uneven (full middle chunks).",
        ),
        # MoE
        entry(
            "bridge2511_qwen3_30b_a3b_16gpu_fp8",
            BRIDGE.format(**b11, row="Qwen3_30B_a3B FP8-CS"),
            5275,
            121,
            QWEN3_30B_A3B,
            par(1, 2, 8, 2, 512, 4096, ep=8, interleave=24),
            16,
            "fp8",
            "qwen3",
            MEGATRON + " Experts folded over dp (EP 8, expert TP 1); token-dropless with "
            "balanced routing (stated).",
        ),
        entry(
            "bridge2602_qwen3_30b_a3b_16gpu_fp8_gbs1024",
            BRIDGE.format(**b02, row="Qwen3_30B_a3B DGX-H100 FP8"),
            5113,
            118,
            QWEN3_30B_A3B,
            par(1, 2, 8, 1, 1024, 4096, ep=8, interleave=12),
            16,
            "fp8",
            "qwen3",
            MEGATRON + " Experts folded over dp (EP 8, expert TP 1).",
        ),
        entry(
            "bridge2511_qwen3_235b_a22b_256gpu_fp8",
            BRIDGE.format(**b11, row="Qwen3_235B_a22B FP8-CS"),
            1575,
            233,
            QWEN3_235B_A22B,
            par(2, 8, 16, 1, 2048, 4096, ep=32, interleave=4),
            256,
            "fp8",
            "qwen3",
            MEGATRON + " EP 32 folded over tp x dp = 32; 94 layers on 8 x 4 chunks: uneven.",
        ),
        entry(
            "bridge2602_qwen3_235b_a22b_256gpu_fp8_gbs8192",
            BRIDGE.format(**b02, row="Qwen3_235B_a22B DGX-H100 FP8"),
            1633,
            242,
            QWEN3_235B_A22B,
            par(2, 8, 16, 1, 8192, 4096, ep=32, interleave=4),
            256,
            "fp8",
            "qwen3",
            MEGATRON + " EP 32 folded over tp x dp = 32; 94 layers on 8 x 4 chunks: uneven.",
        ),
        entry(
            "bridge2511_gpt_oss_120b_64gpu_bf16",
            BRIDGE.format(**b11, row="GPT OSS 120B BF16"),
            5630,
            153,
            GPT_OSS_120B,
            par(1, 4, 16, 4, 512, 4096, ep=8),
            64,
            "bf16",
            "gptoss",
            MEGATRON + " Attention width 64 x 64 = 4096 and alternate 128-token sliding "
            "windows are not modelled (hidden 2880 used).",
        ),
        entry(
            "bridge2602_gpt_oss_120b_64gpu_bf16_gbs1280",
            BRIDGE.format(**b02, row="GPT OSS 120B DGX-H100 BF16"),
            5993,
            163,
            GPT_OSS_120B,
            par(1, 4, 16, 1, 1280, 4096, ep=8),
            64,
            "bf16",
            "gptoss",
            MEGATRON + " Attention width and sliding windows not modelled.",
        ),
        entry(
            "bridge2509_deepseek_v3_1024gpu_fp8",
            BRIDGE.format(**b09, row="DeepSeekV3 (dropless) DGX-H100"),
            1297,
            338,
            DEEPSEEK_V3,
            par(2, 8, 64, 1, 8192, 4096, ep=64, interleave=4),
            1024,
            "fp8",
            "dsv3",
            MEGATRON + " The 25.09 table names no precision; its note gives the H100 FP8 "
            "block-scaling figure in parentheses, so the row is read as FP8 (not verified). "
            "MLA attention taken at hidden width; the MTP module not modelled.",
            verified=False,
        ),
        entry(
            "deepseek_v3_report_2048_h800_fp8",
            DSV3,
            1e12 / (180e3 * 3600),
            None,
            DEEPSEEK_V3 | {"moe": DEEPSEEK_V3["moe"] | {"a2a_overlap": True}},
            par(1, 16, 128, 1, 15360, 4096, ep=64, interleave=2),
            2048,
            "fp8",
            "dsv3",
            "180K GPU-hours per trillion tokens = 1,543 tokens/s per GPU. DualPipe taken as "
            "an interleave-2 schedule (its bubble is about half of 1F1B's) with all-to-all "
            "overlapped; 61 layers on 16 stages uneven; expert all-to-all at the 400G IB "
            "per GPU (8 x 400G CX7 per node, arXiv:2505.09343 §4); batch at its final 15,360 "
            "sequences; MLA attention at hidden width; the MTP module not modelled.",
            cluster={
                "gpu": "H800-SXM",
                "gpus_per_node": 8,
                "nic_gbps": 400,
                "nics_per_node": 8,
                "fabric": "ib",
            },
        ),
    ]


DOC = (
    "Modern published runs (FP8 and BF16 on H100/H800, dense and MoE) as predict_runs cases "
    "(docs/MODEL.md §12). published.tokens_per_s_per_gpu is the published throughput the model's "
    "tokens/s per GPU is judged against; model_tflops_per_gpu the source's own figure (its FLOP "
    "convention, kept for reference). Generated by scripts/add_modern_validation_cases.py."
)


def main() -> None:
    raw = {"_doc": DOC, "cases": cases()}
    DATA.write_text(json.dumps(raw, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
