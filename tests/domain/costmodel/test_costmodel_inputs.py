"""Input validation messages, problems in a ranking, and the dict adapters of the CLI."""

from __future__ import annotations

import dataclasses
import json
import math
from decimal import Decimal

import pytest

from domain.costmodel import (
    GpuSpec,
    ModelInputError,
    Offer,
    Scenario,
    Workload,
    default_gpus,
    evaluate,
    offer_from_dict,
    outcome_to_dict,
    rank,
    request_from_dict,
    result_to_dict,
    workload_from_dict,
)

GPUS = default_gpus()
WORKLOAD = Workload(params_b=7, tokens_per_step=4e6)
OFFER = Offer(id="ok", gpu="H100-SXM", gpus_per_node=8, nodes=4, price_per_node_month=90_000.0,
              nic_gbps=400.0, fabric="ib", measured_gbps=360.0)  # fmt: skip

OFFER_CASES = [
    ({"gpus_per_node": 0}, "offer_gpus_per_node_not_whole"),
    ({"gpus_per_node": -8}, "offer_gpus_per_node_not_whole"),
    ({"gpus_per_node": 2.5}, "offer_gpus_per_node_not_whole"),
    ({"nodes": 0}, "offer_nodes_not_whole"),
    ({"nodes": True}, "offer_nodes_not_whole"),
    ({"nodes": None}, "offer_nodes_not_whole"),
    ({"nic_gbps": None}, "offer_nic_gbps_not_positive"),
    ({"availability": None}, "offer_availability_out_of_range"),
    ({"nics_per_node": 0}, "offer_nics_per_node_not_whole"),
    ({"servers_per_rack": 0}, "offer_servers_per_rack_not_whole"),
    ({"price_per_node_month": -1.0}, "offer_price_per_node_month_negative"),
    ({"price_per_node_month": math.nan}, "offer_price_per_node_month_negative"),
    ({"price_per_node_month": Decimal("9")}, "offer_price_per_node_month_negative"),
    ({"monthly_fees": -0.01}, "offer_monthly_fees_negative"),
    ({"nic_gbps": 0.0}, "offer_nic_gbps_not_positive"),
    ({"nic_gbps": math.inf}, "offer_nic_gbps_not_positive"),
    ({"rack_uplink_gbps": -100.0}, "offer_rack_uplink_gbps_not_positive"),
    ({"measured_gbps": 0.0}, "offer_measured_gbps_not_positive"),
    ({"measured_p50_gbps": -1.0}, "offer_measured_p50_gbps_not_positive"),
    ({"measured_p50_gbps": 300.0}, "offer_measured_p50_gbps_below_p5"),
    ({"measured_gbps": None, "measured_p50_gbps": 300.0}, "offer_measured_p50_gbps_below_p5"),
    ({"availability": 0.0}, "offer_availability_out_of_range"),
    ({"availability": 1.01}, "offer_availability_out_of_range"),
    ({"gpu": "B200"}, "offer_gpu_unknown"),
    ({"fabric": "ethernet"}, "offer_fabric_unknown"),
    ({"measured_kind": "iperf"}, "offer_measured_kind_unknown"),
    ({"currency": "rmb"}, "offer_currency_bad_code"),
    ({"id": ""}, "offer_id_empty"),
]


@pytest.mark.parametrize(("changes", "code"), OFFER_CASES)
def test_each_impossible_offer_value_has_its_message(changes: dict[str, object], code: str) -> None:
    bad = dataclasses.replace(OFFER, **changes)  # type: ignore[arg-type]
    with pytest.raises(ModelInputError) as err:
        evaluate(WORKLOAD, bad, GPUS)
    codes = [m.code for m in err.value.messages]
    assert code in codes
    message = next(m for m in err.value.messages if m.code == code)
    field = code.split("_", 1)[1].rsplit("_", 2)[0]
    assert field.split("_")[0] in message.en and message.zh and message.zh != message.en
    # In a ranking the same offer is a problem with the same message, and the rest still ranks.
    outcome = rank(WORKLOAD, [bad, dataclasses.replace(OFFER, id="good")], GPUS)
    assert [r.offer_id for r in outcome.results] == ["good"]
    assert code in [m.code for m in outcome.problems[0].messages]


WORKLOAD_CASES = [
    ({"params_b": 0}, "workload_params_b_not_positive"),
    ({"params_b": -7}, "workload_params_b_not_positive"),
    ({"tokens_per_step": 0}, "workload_tokens_per_step_not_positive"),
    ({"flops_per_token_factor": 0}, "workload_flops_per_token_factor_not_positive"),
    ({"grad_bytes": -2}, "workload_grad_bytes_not_positive"),
    ({"strategy": "pipeline"}, "workload_strategy_unknown"),
    ({"overlap": -0.1}, "workload_overlap_out_of_range"),
    ({"overlap": 1.5}, "workload_overlap_out_of_range"),
    ({"mfu": 0.0}, "workload_mfu_out_of_range"),
    ({"mfu": 1.2}, "workload_mfu_out_of_range"),
    ({"nodes": 0}, "workload_nodes_not_whole"),
    ({"train_tokens": 0}, "workload_train_tokens_not_positive"),
]


@pytest.mark.parametrize(("changes", "code"), WORKLOAD_CASES)
def test_each_impossible_workload_value_fails_the_whole_ranking(
    changes: dict[str, object], code: str
) -> None:
    bad = dataclasses.replace(WORKLOAD, **changes)  # type: ignore[arg-type]
    with pytest.raises(ModelInputError) as err:
        rank(bad, [OFFER], GPUS)
    assert code in [m.code for m in err.value.messages]
    assert code.split("_")[0] + "." in str(err.value)


def test_workload_nodes_beyond_the_offer_is_that_offers_problem() -> None:
    outcome = rank(dataclasses.replace(WORKLOAD, nodes=6), [OFFER, dataclasses.replace(OFFER,
                   id="big", nodes=8)], GPUS)  # fmt: skip
    assert [r.offer_id for r in outcome.results] == ["big"]
    assert [m.code for m in outcome.problems[0].messages] == ["workload_nodes_exceeds_offer"]


def test_duplicate_ids_reference_gpu_and_scenario() -> None:
    outcome = rank(WORKLOAD, [OFFER, OFFER], GPUS)
    assert len(outcome.results) == 1
    assert [m.code for m in outcome.problems[0].messages] == ["offer_id_duplicate"]
    no_ref = {k: v for k, v in GPUS.items() if k != "H100-SXM"}
    with pytest.raises(ModelInputError) as err:
        rank(WORKLOAD, [OFFER], no_ref)
    assert [m.code for m in err.value.messages] == ["gpus_reference_missing_row"]
    broken = {**GPUS, "A100-SXM4-80GB": GpuSpec("A100-SXM4-80GB", 0.0, 80.0, 300.0, 0.5)}
    bad_row = rank(WORKLOAD, [dataclasses.replace(OFFER, gpu="A100-SXM4-80GB")], broken)
    assert [m.code for m in bad_row.problems[0].messages] == ["gpus_spec_bad_row"]
    with pytest.raises(ModelInputError) as err:
        rank(WORKLOAD, [OFFER], GPUS, scenario=Scenario(bandwidth_scale=0.0))
    assert [m.code for m in err.value.messages] == ["scenario_bandwidth_scale_not_positive"]


def test_odd_objects_fall_back_to_the_per_offer_checks() -> None:
    weird = dataclasses.replace(OFFER, id="weird", gpu=["H100-SXM"], nodes="4")  # type: ignore[arg-type]
    outcome = rank(WORKLOAD, [weird, OFFER], GPUS)
    assert [r.offer_id for r in outcome.results] == ["ok"]
    assert {m.code for m in outcome.problems[0].messages} == {"offer_gpu_unknown",
                                                             "offer_nodes_not_whole"}  # fmt: skip


OFFER_DICT = {"id": 7, "gpu": "H100-SXM", "gpus_per_node": 8, "nodes": 4.0,
              "price_per_node_month": 90000, "nic_gbps": 400, "fabric": "ib", "currency": "usd",
              "vendor_flags": [{"code": "c", "en": "e", "zh": "z"}], "pfc": None}  # fmt: skip


def test_dict_adapters_build_the_dataclasses() -> None:
    workload = workload_from_dict({"params_b": 7, "tokens_per_step": 4e6, "mfu": 0.4, "nodes": 2.0})
    assert workload == Workload(params_b=7.0, tokens_per_step=4e6, mfu=0.4, nodes=2)
    assert isinstance(workload.nodes, int)
    offer = offer_from_dict(OFFER_DICT)
    assert (offer.id, offer.nodes, offer.currency) == ("7", 4, "USD")
    assert offer.vendor_flags[0].zh == "z"


@pytest.mark.parametrize(
    ("data", "codes"),
    [
        ({"params_b": 7}, {"workload_tokens_per_step_missing"}),
        ({"params_b": 7, "tokens_per_step": 1, "batch": 3}, {"workload_unknown_field"}),
        ({"params_b": "7", "tokens_per_step": 1}, {"workload_params_b_wrong_type"}),
        ({"params_b": 7, "tokens_per_step": 1, "nodes": 1.5}, {"workload_nodes_wrong_type"}),
        ({"params_b": True, "tokens_per_step": 1}, {"workload_params_b_wrong_type"}),
        ([1, 2], {"workload_data_not_object"}),
    ],
)
def test_workload_from_dict_reports_missing_unknown_and_ill_typed(
    data: object, codes: set[str]
) -> None:
    with pytest.raises(ModelInputError) as err:
        workload_from_dict(data)
    assert {m.code for m in err.value.messages} == codes


def test_offer_from_dict_reports_every_problem_at_once() -> None:
    bad = {**OFFER_DICT, "fabric": 3, "vendor_flags": ["red"], "colour": "blue"}
    del bad["nic_gbps"]
    with pytest.raises(ModelInputError) as err:
        offer_from_dict(bad)
    assert {m.code for m in err.value.messages} == {
        "offer_fabric_wrong_type",
        "offer_vendor_flags_wrong_type",
        "offer_unknown_field",
        "offer_nic_gbps_missing",
    }
    assert all(m.zh for m in err.value.messages)


def test_request_and_result_dicts_round_trip_through_json() -> None:
    request = {"workload": {"params_b": 7, "tokens_per_step": 4e6, "overlap": 0.0},
               "offers": [OFFER_DICT, {"id": "broken", "gpu": "H100-SXM"}]}  # fmt: skip
    workload, offers, problems = request_from_dict(request)
    assert [o.id for o in offers] == ["7"]
    assert problems[0].offer_id == "broken"
    outcome = rank(workload, offers, GPUS)
    result = result_to_dict(outcome.results[0])
    assert result["tokens_per_gpu_to_hide_comm"] is None  # overlap 0: infinite, not JSON
    assert result["warnings"] == [m.as_dict() for m in outcome.results[0].warnings]
    assert set(result) >= {"rank", "cost_per_eth", "currency", "step_time_s", "compute_time_s",
                           "comm_time_s", "exposed_comm_s", "utilisation", "eth_per_hour",
                           "hourly_cost", "job_hours", "job_cost", "bandwidth_gbps",
                           "bandwidth_basis", "warnings"}  # fmt: skip
    text = json.dumps(outcome_to_dict(outcome), allow_nan=False, ensure_ascii=False)
    assert json.loads(text)["results"][0]["offer_id"] == "7"
    with pytest.raises(ModelInputError) as err:
        request_from_dict({"workload": {}})
    assert [m.code for m in err.value.messages] == ["request_offers_not_list"]
