"""Architecture facts derived from the model description (docs/MODEL.md §Architecture)."""

from __future__ import annotations

from functools import lru_cache

from domain.trainmodel.inputs import ModelSpec


@lru_cache(maxsize=1024)
def mlp_matrices(model: ModelSpec) -> int:
    """2 for a classic MLP (GPT), 3 for a gated one (SwiGLU: Llama, Qwen), read off the
    parameter count: per-layer parameters minus attention, divided by hidden x ffn."""
    if model.ffn is None or model.moe is not None:
        return 2
    h = model.hidden
    embeddings = model.vocab * h * (2 if model.kv_heads else 1)  # modern models untie the head
    per_layer = (model.params - embeddings) / model.layers
    attention = 2 * h * (model.attention_width + model.kv_width)  # Q, O; K, V
    ratio = (per_layer - attention) / (h * model.ffn)
    return 3 if ratio > 2.5 else 2


def pipeline_splits(layers: int, stages: int) -> bool:
    """Layers split over `stages` pipeline chunks: evenly, or Llama 3 style with the first and
    last chunk one layer short (the embedding and the output layer take their place)."""
    if stages <= 1:
        return True
    return layers % stages == 0 or (layers + 2) % stages == 0


def uneven_pipeline_splits(layers: int, stages: int) -> bool:
    """Megatron's uneven split (--decoder-first/last-pipeline-num-layers): the middle stages
    hold ceil(layers / stages) layers and the first and last stage share the rest (DeepSeek-V3:
    61 layers on 16 stages, 4 per middle stage, 5 on the two ends). One end may hold only the
    embedding or the output layer (Megatron's pipeline layout), so the ends share at least one."""
    if pipeline_splits(layers, stages):
        return True
    if stages < 3:
        return False
    full = -(-layers // stages)
    ends = layers - (stages - 2) * full
    return 1 <= ends <= 2 * full


def stage_layers(layers: int, stages: int) -> int:
    """Layers on the fullest pipeline stage."""
    return -(-layers // max(stages, 1))


def stage_imbalance(layers: int, stages: int) -> float:
    """Fullest stage over the average stage (1 when the layers split evenly)."""
    if stages <= 1:
        return 1.0
    return stage_layers(layers, stages) * stages / layers


def first_stage_layers(layers: int, pp: int) -> float:
    """Transformer layers on the first pipeline stage (the one holding most activations)."""
    if pp <= 1 or layers % pp == 0:
        return layers / pp
    if (layers + 2) % pp == 0:
        return (layers + 2) / pp - 1
    return float(stage_layers(layers, pp))  # Megatron's uneven split: at most a middle stage
