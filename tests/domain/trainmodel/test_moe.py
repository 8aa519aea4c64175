"""Mixture-of-experts (domain/trainmodel/moe.py): weights, FLOPs and memory computed by hand,
folded expert parallelism, uneven pipeline stages and the overlapped all-to-all."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.trainmodel import gpu_spec
from domain.trainmodel.arch import stage_imbalance, stage_layers, uneven_pipeline_splits
from domain.trainmodel.cases import predict_case
from domain.trainmodel.inputs import Cluster, Layout, ModelSpec, MoeSpec, ParallelRequest
from domain.trainmodel.memory import (
    OPTIMIZER_BYTES,
    WEIGHT_BYTES,
    layer_activation_bytes,
    states_bytes,
)
from domain.trainmodel.moe import (
    A2A_SM_SHARE,
    EXPERT_KERNELS,
    KERNEL_S,
    MOE_LAYER_KERNELS,
    ROUTE_BYTES,
    SYNC_KERNELS,
    edp,
    expert_cast_bytes_per_token,
    expert_degrees,
    exposed_a2a_s,
    moe_fixed_s,
    param_groups,
    routed_expert_params,
    routing_imbalance,
    sort_bytes_per_token,
    tokens_per_expert,
)
from domain.trainmodel.precision import flop_split, matmul_s
from domain.trainmodel.search import check_request
from domain.trainmodel.steptime import microbatch_compute_floor_s, microbatch_compute_s

H, FFE, LAYERS, EXPERTS, TOP_K = 4096, 1024, 12, 16, 2
ROUTED_PER_LAYER = EXPERTS * 3 * H * FFE


def _moe(dense_layers: int = 0, shared: int = 0, overlap: bool = False) -> ModelSpec:
    return ModelSpec(
        params_b=14.0,
        layers=LAYERS,
        hidden=H,
        heads=32,
        seq_len=4096,
        vocab=32000,
        ffn=4 * H,
        moe=MoeSpec(
            experts=EXPERTS,
            top_k=TOP_K,
            active_params_b=3.0,
            shared_experts=shared,
            dense_layers=dense_layers,
            expert_ffn=FFE,
            a2a_overlap=overlap,
        ),
    )


def _layout(**kw):  # type: ignore[no-untyped-def]
    base = {
        "tp": 2,
        "pp": 1,
        "dp": 4,
        "cp": 1,
        "ep": 4,
        "zero_stage": 1,
        "microbatch": 1,
        "recompute": "none",
        "interleave": 1,
        "sequence_parallel": True,
        "flash_attention": True,
    }
    base.update(kw)
    return Layout(**base)


def test_routed_expert_weights_count_only_the_moe_layers():
    assert routed_expert_params(_moe()) == LAYERS * ROUTED_PER_LAYER
    assert routed_expert_params(_moe(dense_layers=3)) == (LAYERS - 3) * ROUTED_PER_LAYER


def test_dense_layers_move_weights_from_the_experts_to_the_replicated_part():
    layout = _layout()
    experts = (LAYERS - 3) * ROUTED_PER_LAYER
    dense = 14e9 - experts
    # non-expert weights split by tp x pp and sharded over dp; experts by pp x ep, over EDP
    assert param_groups(_moe(dense_layers=3), layout) == [
        (pytest.approx(dense / 2), 4),
        (pytest.approx(experts / 4), 2),
    ]
    assert edp(layout) == 2 * 1 * 4 // 4


def test_expert_optimizer_states_are_sharded_over_the_expert_data_parallel_group():
    model = _moe(dense_layers=3)
    experts = (LAYERS - 3) * ROUTED_PER_LAYER
    dense = (14e9 - experts) / 2
    local = experts / 4
    grad = 4.0  # ZeRO-1 keeps fp32 main gradients (the bytes they are reduced in)
    per_dense = WEIGHT_BYTES + grad + OPTIMIZER_BYTES / 4  # ZeRO-1 over dp = 4
    per_expert = WEIGHT_BYTES + grad + OPTIMIZER_BYTES / 2  # over EDP = 2, not 4
    assert states_bytes(model, _layout()) == pytest.approx(dense * per_dense + local * per_expert)
    more = states_bytes(_moe(dense_layers=6), _layout())
    assert more > states_bytes(model, _layout())  # fewer experts: more replicated weights


def test_routed_expert_flops_by_hand_and_shared_experts_count_as_dense():
    model = _moe(dense_layers=3, shared=1)
    total = 6 * 3e9 + 12 * LAYERS * H * 4096
    split = flop_split(model, total, 6.0)
    assert split.expert_linear == pytest.approx(6 * (LAYERS - 3) * TOP_K * 3 * H * FFE)
    assert split.head == pytest.approx(6 * 32000 * H)
    assert split.dense_linear == pytest.approx(6 * 3e9 - split.expert_linear - split.head)


def test_shared_experts_add_their_activations_by_hand():
    layout = _layout()
    s, t = 4096, 2
    without = layer_activation_bytes(_moe(), layout, "none")
    with_shared = layer_activation_bytes(_moe(shared=1), layout, "none")
    one_copy = s * H * (2 + 2 * 3 * FFE / H) / t  # its input and three ffn-wide tensors
    assert with_shared - without == pytest.approx(one_copy)


def test_narrow_experts_compute_slower_than_wide_ones_for_the_same_flops():
    gpu = gpu_spec("H100-SXM")
    narrow = _moe()
    wide = replace(narrow, moe=replace(narrow.moe, expert_ffn=4 * FFE))  # type: ignore[arg-type]
    # the same FLOPs shared out the same way: only the grouped GEMMs' width differs
    split = flop_split(narrow, 6 * 3e9, 6.0)
    slow = matmul_s(narrow, gpu, 1e15, split, 0.6, 160, 2048)
    fast = matmul_s(wide, gpu, 1e15, split, 0.6, 160, 2048)
    assert slow > fast


def test_short_expert_gemms_compute_slower_per_flop_by_the_dense_saturation():
    """The rows routed to one expert saturate the GEMM as its width does: w / (w + half)."""
    gpu = gpu_spec("H100-SXM")
    model = _moe()
    split = flop_split(model, 6 * 3e9, 6.0)
    expert_only = replace(split, attention_core=0.0, head=0.0, dense_linear=0.0)
    tall = matmul_s(model, gpu, 1e15, expert_only, 0.6, 160, 1e12)
    short = matmul_s(model, gpu, 1e15, expert_only, 0.6, 160, 160)
    assert short == pytest.approx(2 * tall, rel=1e-6)  # 160 rows: half the efficiency


def test_tokens_per_expert_by_hand():
    model = _moe()  # top-k TOP_K of EXPERTS experts
    rows = tokens_per_expert(model, 2, 2, 1, 4)
    assert rows == pytest.approx(2 * 4096 / 2 * TOP_K * 4 / EXPERTS)
    assert tokens_per_expert(model, 2, 2, 1, 8) == pytest.approx(2 * rows)


def test_moe_launch_floor_follows_the_local_experts_and_the_precision():
    model = _moe(dense_layers=2)
    moe_layers = LAYERS - 2
    one = moe_fixed_s(model, 1, EXPERTS, "none")  # one expert per GPU
    kernels = MOE_LAYER_KERNELS + EXPERT_KERNELS + SYNC_KERNELS  # + the dispatcher's host sync
    assert one == pytest.approx(moe_layers * kernels * KERNEL_S)
    all_local = moe_fixed_s(model, 1, 1, "none")
    assert all_local - one == pytest.approx(moe_layers * EXPERT_KERNELS * (EXPERTS - 1) * KERNEL_S)
    fp8 = replace(model, precision="fp8")
    assert moe_fixed_s(fp8, 1, 1, "none") > all_local
    # full recomputation: the launches of the forward again, and a second host sync per layer
    launches = (MOE_LAYER_KERNELS + EXPERT_KERNELS * EXPERTS) * 4 / 3 + 2 * SYNC_KERNELS
    assert moe_fixed_s(model, 1, 1, "full") == pytest.approx(moe_layers * launches * KERNEL_S)
    assert moe_fixed_s(replace(model, moe=None), 1, 1, "none") == 0.0


def test_moe_microbatch_compute_never_grows_with_expert_parallelism_when_balanced():
    """The search's compute floor takes one expert per GPU, balanced, as the least any ep
    computes; the routing imbalance only adds to it."""
    gpu = gpu_spec("H100-SXM")
    for model in (_moe(), replace(_moe(), precision="fp8")):
        eps = (1, 2, 4, 8)
        times = [microbatch_compute_floor_s(model, gpu, _layout(ep=e, dp=4)) for e in eps]
        assert times == sorted(times, reverse=True) and times[0] > times[-1]
        for e, floor in zip(eps, times, strict=True):
            assert microbatch_compute_s(model, gpu, _layout(ep=e, dp=4)) >= floor


def test_routing_imbalance_is_the_expected_fullest_rank_of_a_uniform_routing():
    model = _moe()  # 16 experts, top-2, 4096 tokens
    assert routing_imbalance(model, 1, 1, 1, 1) == 1.0  # one rank: nobody to wait for
    # by hand: each of 4 ranks receives mu = 4096 x 2 copies on average, variance
    # mu (1 - 1/4) (16 - 2) / 15; Blom: z(4) = Phi^-1(3.625 / 4.25) = 1.0491 (exact 1.0294)
    mu = 4096 * TOP_K
    sigma = (mu * 0.75 * 14 / 15) ** 0.5
    assert routing_imbalance(model, 1, 1, 1, 4) == pytest.approx(1 + 1.0491 * sigma / mu, rel=1e-3)
    # more ranks wait for a fuller one; more tokens per rank even the loads out (1/sqrt(mu))
    assert routing_imbalance(model, 1, 1, 1, 8) > routing_imbalance(model, 1, 1, 1, 4)
    small, big = routing_imbalance(model, 1, 1, 1, 8), routing_imbalance(model, 4, 1, 1, 8)
    assert big - 1 == pytest.approx((small - 1) / 2)
    assert routing_imbalance(replace(model, moe=None), 1, 1, 1, 8) == 1.0


def test_chunk_sort_only_with_several_local_experts_under_expert_parallelism():
    model = _moe()
    assert sort_bytes_per_token(model, 1) == 0.0  # no all-to-all: tokens are permuted once
    assert sort_bytes_per_token(model, EXPERTS) == 0.0  # one expert per GPU: nothing to sort
    assert sort_bytes_per_token(model, 4) == pytest.approx(ROUTE_BYTES * TOP_K * H)


def test_fp8_expert_casts_scale_with_top_k_and_the_expert_width():
    bf16, fp8 = _moe(), replace(_moe(), precision="fp8")
    assert expert_cast_bytes_per_token(bf16) == 0.0
    assert expert_cast_bytes_per_token(fp8) == pytest.approx(TOP_K * (8 * H + 4 * FFE) / 3)


def test_expert_parallel_folds_over_tp_cp_and_dp():
    model = _moe()
    assert 8 in expert_degrees(model, None, 2 * 4)  # tp 2 x dp 4: ep 8 though dp is 4
    assert expert_degrees(model, 8, 2 * 4) == [8]
    assert expert_degrees(model, 8, 2 * 3) == []
    check_request(model, ParallelRequest(global_batch_tokens=1e6, tp=2, dp=4, ep=8))
    with pytest.raises(Exception) as exc:
        check_request(model, ParallelRequest(global_batch_tokens=1e6, tp=2, dp=3, ep=4))
    assert "tp x cp x dp" in str(exc.value.messages[0].en)  # type: ignore[attr-defined]


def test_61_layers_split_on_16_stages_with_short_first_and_last_stages():
    assert uneven_pipeline_splits(61, 16)  # 14 x 4 in the middle, 5 on the two ends
    assert stage_layers(61, 16) == 4
    assert stage_imbalance(61, 16) == pytest.approx(64 / 61)
    assert stage_imbalance(64, 16) == 1.0
    assert not uneven_pipeline_splits(11, 2)  # two stages: no middle to fill


def test_the_fullest_stage_sets_the_microbatch_compute():
    gpu = gpu_spec("H100-SXM")
    model = ModelSpec(params_b=30, layers=61, hidden=7168, heads=56, seq_len=4096, vocab=32000)
    one = microbatch_compute_s(model, gpu, _layout(tp=1, ep=1, sequence_parallel=False))
    sixteen = microbatch_compute_s(model, gpu, _layout(tp=1, ep=1, pp=16))
    assert sixteen * 16 / one == pytest.approx(64 / 61)


def test_overlapped_all_to_all_leaves_only_the_excess_and_the_lent_sms():
    model = _moe(overlap=True)
    assert exposed_a2a_s(model, 1.0, 3.0) == pytest.approx(A2A_SM_SHARE * 1.0)
    assert exposed_a2a_s(model, 5.0, 3.0) == pytest.approx(2.0 + A2A_SM_SHARE * 3.0)
    assert exposed_a2a_s(_moe(), 5.0, 3.0) == 5.0  # no overlap: all of it


def _moe_case(overlap: bool) -> dict[str, object]:
    return {
        "id": "moe",
        "gpu": "H100-SXM",
        "gpus": 64,
        "gpus_per_node": 8,
        "nic_gbps": 400,
        "nics_per_node": 8,
        "fabric": "ib",
        "model": {
            "params_b": 14.0,
            "layers": LAYERS,
            "hidden": H,
            "heads": 32,
            "seq_len": 4096,
            "vocab": 32000,
            "moe": {
                "experts": EXPERTS,
                "top_k": TOP_K,
                "active_params_b": 3.0,
                "expert_ffn": FFE,
                "shared_experts": 1,
                "dense_layers": 1,
                "a2a_overlap": overlap,
            },
        },
        "parallel": {
            "tp": 2,
            "pp": 1,
            "dp": 32,
            "ep": 16,
            "microbatch": 1,
            "zero_stage": 1,
            "global_batch_tokens": 256 * 4096,
        },
    }


def test_a_moe_case_with_the_new_fields_runs_and_overlap_shrinks_the_all_to_all():
    plain = predict_case(_moe_case(False))
    hidden = predict_case(_moe_case(True))
    assert plain["fits"] and hidden["fits"], (plain.get("reason"), hidden.get("reason"))
    assert plain["breakdown_s"]["ep_comm"] > 0
    assert hidden["breakdown_s"]["ep_comm"] < plain["breakdown_s"]["ep_comm"]
    assert hidden["tokens_per_s"] > plain["tokens_per_s"]


@pytest.mark.parametrize(("hidden", "heads"), [(2048, 16), (2880, 32)])
def test_a_moe_of_small_hidden_size_is_predicted_with_its_layout_and_breakdown(hidden, heads):
    """v4: no MoE width is refused; narrow experts and routing cost what their physics says."""
    case = _moe_case(False)
    model = dict(case["model"])  # type: ignore[call-overload]
    model |= {"hidden": hidden, "heads": heads}
    out = predict_case(case | {"model": model})
    assert out["fits"] is True, out.get("reason")
    assert out["layout"]["ep"] == 16 and out["breakdown_s"]["ep_comm"] > 0
    assert 0 < out["mfu"] < 1
    wide = predict_case(case)
    # the same experts on a narrower hidden size do fewer FLOPs per token: less time per step
    assert out["step_time_s"] < wide["step_time_s"]


def test_61_layers_on_16_stages_are_predicted_when_given():
    """DeepSeek-V3's published layout: 61 layers on 16 stages (4 per middle stage)."""
    base = {
        "gpu": "H100-SXM", "gpus": 256, "gpus_per_node": 8, "nic_gbps": 400, "nics_per_node": 8,
        "fabric": "ib",
        "model": {"params_b": 120.0, "layers": 61, "hidden": 8192, "heads": 64, "seq_len": 4096,
                  "vocab": 128000},
    }  # fmt: skip
    given = predict_case(
        base | {"parallel": {"tp": 8, "pp": 16, "global_batch_tokens": 1024 * 4096}}
    )
    assert given["fits"] is True, given.get("reason")
    assert given["layout"]["pp"] == 16
    assert uneven_pipeline_splits(61, 16) and stage_layers(61, 16) == 4


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("shared_experts", -1, "moe_shared_experts"),
        ("dense_layers", LAYERS, "moe_dense_layers"),
        ("expert_ffn", 0, "moe_expert_ffn"),
    ],
)
def test_bad_moe_fields_are_refused_by_name(field, value, code):
    case = _moe_case(False)
    model = dict(case["model"])  # type: ignore[call-overload]
    model["moe"] = dict(model["moe"]) | {field: value}
    out = predict_case(case | {"model": model})
    assert out["fits"] is False
    assert code in [e["code"] for e in out["error"]]


def test_node_limited_routing_sends_fewer_copies_over_the_network():
    from domain.trainmodel.links import collective_s, links_for
    from domain.trainmodel.moe import a2a_s

    links = links_for(Cluster(gpu_spec("H800-SXM"), 512, 8, 400, 8, "ib"))
    size = 4096 * 8 * 7168 * 2.0  # 4K tokens, 8 routed copies, bf16
    model = replace(_moe(), moe=replace(_moe().moe, top_k=8, experts=256))  # type: ignore[arg-type]
    limited = replace(model, moe=replace(model.moe, node_limit=4))  # type: ignore[arg-type]
    plain = a2a_s(model, size, 64, links)
    assert plain == collective_s("a2a", size, 64, 1, links)  # no limit: every copy
    # 64 ranks on 8 servers: 7 of 8 copies leave the server; at most 4 x 7/8 = 3.5 do with
    # the limit, so the network part shrinks by 3.5 / 7
    assert a2a_s(limited, size, 64, links) == pytest.approx(
        collective_s("a2a", size * 3.5 / 7, 64, 1, links)
    )
    assert a2a_s(limited, size, 8, links) == a2a_s(model, size, 8, links)  # one server
