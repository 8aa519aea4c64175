"""Evidence a reviewer found accepted silently or refused with a raw exception: far-past and
absurd time stamps, samples outside the term, NaN/Inf values, counter resets without a word and a
cut-off JSON answer read as "no series"."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from domain.delivery.series import IngestError, parse_prometheus_range, parse_series_csv
from domain.delivery.windows import aggregate

NOW = datetime(2026, 12, 6, tzinfo=UTC)
T0 = 1_795_000_000 - 1_795_000_000 % 3600  # 2026-11-18, on the hour
TX = "node_network_transmit_bytes_total"
TERM = (datetime(2026, 10, 31, 16, tzinfo=UTC), datetime(2027, 11, 1, tzinfo=UTC))


def csv_bytes(rows: list[tuple[str, str]]) -> bytes:
    lines = ["timestamp,host,device,metric,value"]
    lines += [f"{t},gpu-01,eth0,{TX},{v}" for t, v in rows]
    return ("\n".join(lines) + "\n").encode()


def good_rows() -> list[tuple[str, str]]:
    return [(str(T0 + i * 60), str(i * 60 * 1e9)) for i in range(61)]


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00", "-94608000000", "-1e300", "-5", "55"])
def test_far_past_stamps_are_set_aside_and_the_rest_aggregates(stamp: str) -> None:
    ingest = parse_series_csv(io.BytesIO(csv_bytes([(stamp, "0"), *good_rows()])),
                              hosts=["gpu-01"], default_tz="Asia/Shanghai", now=NOW,
                              not_before=TERM[0], not_after=TERM[1])  # fmt: skip
    assert ingest.counts.outside_term == 1 and ingest.counts.samples == 61
    note = next(n for n in ingest.notes if n.code == "outside_term_set_aside")
    assert "outside the contract's term" in note.en and "不在合同期内" in note.zh
    windows = aggregate(ingest, committed_hosts=["gpu-01"])  # used to raise "year 0 ..."
    assert len(windows) == 1 and windows[0].start == datetime.fromtimestamp(T0, UTC)


def test_without_a_term_stamps_before_1970_are_set_aside() -> None:
    ingest = parse_series_csv(io.BytesIO(csv_bytes([("-5", "0"), *good_rows()])),
                              hosts=["gpu-01"], default_tz="UTC", now=NOW)  # fmt: skip
    assert ingest.counts.outside_term == 1
    # one hour of windows, not half a million from 1969 onwards
    assert len(aggregate(ingest, committed_hosts=["gpu-01"])) == 1


def test_samples_after_the_term_are_set_aside() -> None:
    end = datetime.fromtimestamp(T0 + 1800, UTC)
    ingest = parse_series_csv(io.BytesIO(csv_bytes(good_rows())), hosts=["gpu-01"],
                              default_tz="UTC", now=NOW, not_after=end)  # fmt: skip
    assert ingest.counts.outside_term == 30 and ingest.counts.samples == 31


def test_inf_and_nan_values_in_a_csv_are_set_aside_and_counted() -> None:
    rows = good_rows()
    rows[5] = (rows[5][0], "inf")
    rows[6] = (rows[6][0], "nan")
    rows[7] = (rows[7][0], "-Infinity")
    ingest = parse_series_csv(io.BytesIO(csv_bytes(rows)), hosts=["gpu-01"], default_tz="UTC",
                              now=NOW)  # fmt: skip
    assert ingest.counts.non_finite == 3 and ingest.counts.samples == 58
    note = next(n for n in ingest.notes if n.code == "non_finite_set_aside")
    assert note.en.startswith("3 sample(s)")


def prom(values_by_host: dict[str, list[tuple[float, float]]]) -> bytes:
    result = [{"metric": {"__name__": TX, "instance": f"{h}:9100", "device": "eth0"},
               "values": [[t, repr(v)] for t, v in vs]}
              for h, vs in values_by_host.items()]  # fmt: skip
    return json.dumps({"status": "success",
                       "data": {"resultType": "matrix", "result": result}}).encode()  # fmt: skip


def test_counter_resets_are_said_per_host_and_device() -> None:
    climbing = [(T0 + i * 60, i * 1e9) for i in range(30)]
    reset_twice = [(T0 + i * 60, (i % 10) * 1e9) for i in range(30)]  # drops at 10 and 20
    ingest = parse_prometheus_range(io.BytesIO(prom({"gpu-01": reset_twice, "gpu-02": climbing})),
                                    hosts=["gpu-01", "gpu-02"], now=NOW)  # fmt: skip
    assert ingest.resets == {("gpu-01", "eth0"): 2} and ingest.counts.counter_resets == 2
    note = next(n for n in ingest.notes if n.code == "counter_resets_handled")
    assert "gpu-01 eth0: 2" in note.en and "gpu-01 eth0: 2" in note.zh and "increase()" in note.en
    assert "gpu-02" not in note.en


def test_no_reset_no_note() -> None:
    climbing = [(T0 + i * 60, i * 1e9) for i in range(30)]
    ingest = parse_prometheus_range(io.BytesIO(prom({"gpu-01": climbing})), hosts=["gpu-01"],
                                    now=NOW)  # fmt: skip
    assert not any(n.code == "counter_resets_handled" for n in ingest.notes)


@pytest.mark.parametrize("cut", [40, 60, 75, 90])
def test_a_cut_off_answer_is_not_valid_json_not_an_empty_answer(cut: int) -> None:
    whole = prom({"gpu-01": [(T0 + i * 60, i * 1e9) for i in range(3)]})
    head = whole[:cut]
    with pytest.raises(IngestError) as caught:
        parse_prometheus_range(io.BytesIO(head), hosts=["gpu-01"], now=NOW)
    message = caught.value.messages[0]
    assert message.code == "prometheus_truncated", message.en
    assert f"cut off at byte {cut}?" in message.en and f"第 {cut} 字节" in message.zh


def test_a_whole_empty_answer_still_says_no_series() -> None:
    text = b'{"status":"success","data":{"resultType":"matrix","result":[]}}\n'
    ingest = parse_prometheus_range(io.BytesIO(text), hosts=["gpu-01"], now=NOW)
    assert ingest.notes[0].code == "prometheus_empty"


def test_future_samples_are_still_future_with_a_term() -> None:
    late = NOW + timedelta(days=2)
    rows = [*good_rows(), (str(late.timestamp()), "1")]
    ingest = parse_series_csv(io.BytesIO(csv_bytes(rows)), hosts=["gpu-01"], default_tz="UTC",
                              now=NOW, not_before=TERM[0], not_after=TERM[1])  # fmt: skip
    assert ingest.counts.future == 1 and ingest.counts.outside_term == 0


def test_an_idle_window_is_not_drawn_as_a_dip_nor_merged_into_one():

    from domain.delivery.report import TimelinePoint, downsample_timeline

    t0 = datetime(2026, 11, 1, tzinfo=UTC)

    def point(i: int, gbps: float, idle: bool) -> TimelinePoint:
        return TimelinePoint(start=t0 + timedelta(hours=i), end=t0 + timedelta(hours=i + 1),
                             delivered_gbps_min=gbps, delivered_gbps_mean=gbps,
                             p99_latency_us_max=None, hosts_measured=4, hosts_below=0,
                             hosts_no_data=0, hosts_inconclusive=4 if idle else 0)  # fmt: skip

    busy, quiet = point(0, 95.0, False), point(1, 0.2, True)
    assert quiet.idle_only and not busy.idle_only
    (merged,) = downsample_timeline([busy, quiet], 1)
    assert merged.delivered_gbps_min == 95.0 and not merged.idle_only  # the test's figure
    (alone,) = downsample_timeline([quiet, point(2, 0.3, True)], 1)
    assert alone.idle_only and alone.delivered_gbps_min == 0.2  # idle only: said as idle
