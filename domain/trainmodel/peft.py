"""Parameter-efficient fine-tuning: LoRA adapters (docs/MODEL.md §17.6).

LoRA (Hu et al., arXiv:2106.09685) freezes a linear layer W (in × out) and trains a low-rank
update B·A beside it, A of in × r and B of r × out. Per adapted linear and token:

- parameters `r·(in + out)`; FLOPs forward `2·r·(in + out)`, backward twice that (the input's
  gradient and the adapter's weight gradients): `6·r·(in + out)` in all;
- the frozen W still runs forward (`2·in·out`) and passes the gradient back to its input
  (`2·in·out`), but computes no weight gradient: `4·N` for the frozen weights;
- the adapter's GEMMs have r on their narrow side, so they run at the GEMM efficiency of a
  width-r GEMM (steptime's saturation law), far below the large-GEMM rate;
- the adapter is a second branch beside W (the PEFT library's layout): it reads the input
  again, writes and reads the r-wide intermediate and writes and adds its out-wide result,
  `2·(in + 2r + 3·out)` bytes per token and pass over HBM (three passes: forward, backward).

Targets (`lora_targets`): "qkv" (Q, K, V: in h, out h, kv, kv), "proj" (attention output, h → h),
"mlp" (a gated MLP's gate, up, down, or a classic MLP's two). Default: all of them, as the
common "all linear layers" recipes (QLoRA, Dettmers et al. arXiv:2305.14314) adapt. MoE experts
are not adapted (their MLP targets count the dense MLP shape only).
"""

from __future__ import annotations

from functools import lru_cache

from domain.trainmodel.arch import mlp_matrices
from domain.trainmodel.inputs import ModelSpec

LORA_TARGETS = ("qkv", "proj", "mlp")


def _linears(model: ModelSpec) -> list[tuple[float, float]]:
    """(in, out) of the adapted linear layers of one transformer layer."""
    h, q, kv = float(model.hidden), model.attention_width, model.kv_width
    ffn = float(model.ffn or 4 * model.hidden)
    targets = model.lora_targets or LORA_TARGETS
    out: list[tuple[float, float]] = []
    if "qkv" in targets:
        out += [(h, q), (h, kv), (h, kv)]
    if "proj" in targets:
        out.append((q, h))
    if "mlp" in targets:
        gated = mlp_matrices(model) == 3
        out += [(h, ffn)] * (2 if gated else 1) + [(ffn, h)]
    return out


def is_lora(model: ModelSpec) -> bool:
    return model.peft == "lora" and bool(model.lora_rank)


@lru_cache(maxsize=4096)
def lora_params(model: ModelSpec) -> float:
    """Adapter parameters of the whole model (0 without LoRA)."""
    if not is_lora(model):
        return 0.0
    r = float(model.lora_rank or 0)
    return model.layers * sum(r * (i + o) for i, o in _linears(model))


def trainable_params(model: ModelSpec) -> float | None:
    """Parameters that train (None: all of them)."""
    if model.trainable_params_b is not None:
        return model.trainable_params_b * 1e9
    if is_lora(model):
        return lora_params(model)
    return None


def trainable_share(model: ModelSpec) -> float:
    """Share of the parameters that train (1 for full training)."""
    trainable = trainable_params(model)
    return 1.0 if trainable is None else min(1.0, trainable / model.params)


@lru_cache(maxsize=4096)
def adapter_bytes_per_token(model: ModelSpec) -> float:
    """HBM bytes per token, layer and pass the adapter branches move (0 without LoRA)."""
    if not is_lora(model):
        return 0.0
    r = float(model.lora_rank or 0)
    return sum(2.0 * (i + 2.0 * r + 3.0 * o) for i, o in _linears(model))
