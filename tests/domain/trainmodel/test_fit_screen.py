"""The ranking's memory gate: a job that fits nowhere on an offer is not ranked."""

from __future__ import annotations

from domain.costmodel.inputs import Offer, Workload
from domain.trainmodel.fit import screen


def _workload(params_b: float, strategy: str = "ddp") -> Workload:
    return Workload(
        params_b=params_b, tokens_per_step=4_000_000, strategy=strategy, overlap=0.5,
        nodes=2, train_tokens=1e11,
    )  # fmt: skip


def _offer(oid: str, gpu: str, per_node: int = 8) -> Offer:
    return Offer(
        id=oid, gpu=gpu, gpus_per_node=per_node, nodes=2, price_per_node_month=50_000,
        nic_gbps=100, nics_per_node=1, fabric="roce",
    )  # fmt: skip


def test_a_model_too_big_for_any_layout_of_small_cards_is_refused_with_the_reason() -> None:
    # 70B fully sharded over 16 GPUs: ~78 GB per GPU; an 80 GB card holds it, a 24 GB one not.
    result = screen(_workload(70, "fsdp"), [_offer("4090", "RTX4090"), _offer("h100", "H100-SXM")])
    assert result.keep == (1,)
    (problem,) = result.problems
    assert problem.offer_id == "4090"
    (message,) = problem.messages
    assert "24 GB" in message.en
    assert message.code == "workload_does_not_fit"
    assert "GB" in message.en and "GB" in message.zh


def test_plain_data_parallelism_of_405b_fits_no_card() -> None:
    result = screen(_workload(405), [_offer("h100", "H100-SXM")])
    assert result.keep == () and result.problems[0].offer_id == "h100"


def test_the_cost_models_shape_of_7b_can_be_split_so_it_fits_large_cards() -> None:
    # Before the shape was rounded, 7B had 33 heads and 33 layers: no tensor or pipeline split
    # divided them and every card was refused.
    result = screen(_workload(7), [_offer("h100", "H100-SXM")])
    assert result.keep == (0,)


def test_a_small_model_fits_and_passes_through() -> None:
    result = screen(_workload(1), [_offer("a", "A100-SXM4-80GB"), _offer("b", "A100-SXM4-80GB")])
    assert result.keep == (0, 1) and result.problems == ()


def test_an_offer_v2_cannot_judge_is_left_to_the_cost_model() -> None:
    result = screen(_workload(7), [_offer("x", "NO-SUCH-GPU")])
    assert result.keep == (0,) and result.problems == ()
