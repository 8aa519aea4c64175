"""Ranking input messages name fields as a buyer does and print values as people write them."""

from domain import ranking
from domain.ranking.checks import field_message
from domain.trainmodel import gpu_table


def test_an_offer_too_small_for_the_workload_is_said_in_a_buyers_words():
    workload = ranking.workload_of({"params_b": 7, "tokens_per_step": 4_000_000, "nodes": 8})
    offer = ranking.Offer(id="a", gpu="H100-SXM", gpus_per_node=8, nodes=4,
                          price_per_node_month=1.0, nic_gbps=100, fabric="roce")  # fmt: skip
    (problem,) = ranking.rank(workload, [offer], gpu_table()).problems
    (message,) = problem.messages
    assert message.code == "workload_nodes_exceeds_offer"
    assert message.en == (
        "The number of servers the workload uses must not exceed the offer's 4 servers; it is 8."
    )
    assert "workload." not in message.en and "workload." not in message.zh
    assert "工作负载使用的服务器数量" in message.zh


def test_a_huge_value_is_grouped_or_cut_never_echoed_digit_by_digit():
    big = field_message("workload", "train_tokens", "not_positive", 1.5e13)
    assert "15,000,000,000,000" in big.en
    absurd = field_message("workload", "train_tokens", "not_positive", 1e40)
    assert "0000000000" not in absurd.en and "it is —." in absurd.en
