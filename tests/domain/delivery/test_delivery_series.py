"""Ingest of monitoring exports: Prometheus query_range answers and CSV time series."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from domain.delivery import _promscan
from domain.delivery.series import (
    Ingest,
    IngestError,
    parse_prometheus_range,
    parse_series_csv,
)

NOW = datetime(2026, 12, 1, tzinfo=UTC)
T0 = 1_795_000_000  # 2026-11-18 UTC
TX = "node_network_transmit_bytes_total"


def result(
    instance: str, device: str, metric: str, points: list[tuple[float, float]]
) -> dict[str, Any]:
    labels = {"__name__": metric, "instance": instance, "job": "node"}
    if device:
        labels["device"] = device
    return {"metric": labels, "values": [[t, repr(float(v))] for t, v in points]}


def answer(*results: dict[str, Any]) -> dict[str, Any]:
    return {"status": "success", "data": {"resultType": "matrix", "result": list(results)}}


def counter(start: int, n: int, step: int = 60, rate: float = 1e9) -> list[tuple[float, float]]:
    return [(start + i * step, i * step * rate) for i in range(n)]


def parse(data: bytes | str, hosts: Any = ("gpu01", "gpu02")) -> Ingest:
    raw = data.encode() if isinstance(data, str) else data
    return parse_prometheus_range(io.BytesIO(raw), hosts=hosts, now=NOW)


def as_plain(ingest: Ingest) -> dict[Any, Any]:
    return {k: (list(s.ts), list(s.values)) for k, s in ingest.series.items()}


def sample_answer() -> dict[str, Any]:
    return answer(
        result("gpu01:9100", "eth0", TX, counter(T0, 50)),
        result("gpu02:9100", "ib0", TX, counter(T0, 50, rate=3e9)),
        result("gpu01:9100", "", "up", [(T0 + 60 * i, 1) for i in range(50)]),
    )


def test_pretty_minified_and_crlf_files_read_the_same() -> None:
    doc = sample_answer()
    minified = json.dumps(doc, separators=(",", ":"))
    pretty = json.dumps(doc, indent=2)
    crlf = json.dumps(doc, indent=4).replace("\n", "\r\n")
    tabs = json.dumps(doc, indent="\t", sort_keys=True)
    results = [as_plain(parse(text)) for text in (minified, pretty, crlf, tabs)]
    assert results[0] == results[1] == results[2] == results[3]
    assert len(results[0]) == 3
    ts, values = results[0][("gpu01", "eth0", TX)]
    assert ts[:2] == [T0, T0 + 60] and values[1] == 60e9


@pytest.mark.parametrize("chunk", [7, 64, 1000])
def test_chunk_boundaries_anywhere_do_not_change_the_result(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    text = json.dumps(sample_answer(), indent=1)
    expected = as_plain(parse(text))
    monkeypatch.setattr(_promscan, "CHUNK", chunk)
    assert as_plain(parse(text)) == expected


def test_values_before_labels_are_paired_with_their_own_labels() -> None:
    doc = sample_answer()
    flipped = {
        "data": {
            "result": [
                {"values": r["values"], "metric": r["metric"]} for r in doc["data"]["result"]
            ],
            "resultType": "matrix",
        },
        "status": "success",
    }
    assert as_plain(parse(json.dumps(flipped))) == as_plain(parse(json.dumps(doc)))


def test_duplicates_where_pages_meet_are_dropped_and_said() -> None:
    points = counter(T0, 120)
    page1 = answer(result("gpu01:9100", "eth0", TX, points[:61]))
    page2 = answer(result("gpu01:9100", "eth0", TX, points[60:]))  # repeats the boundary sample
    for text in (
        json.dumps([page1, page2]),
        json.dumps(page1) + "\n" + json.dumps(page2),
    ):
        ingest = parse(text)
        s = ingest.series[("gpu01", "eth0", TX)]
        assert len(s) == 120
        assert ingest.counts.duplicates == 1 and ingest.counts.pages == 2
        assert ingest.counts.out_of_order == 0
        assert any(n.code == "duplicates_dropped" for n in ingest.notes)


def test_out_of_order_samples_are_sorted() -> None:
    points = counter(T0, 10)
    shuffled = points[5:] + points[:5]
    ingest = parse(json.dumps(answer(result("gpu01", "eth0", TX, shuffled))))
    s = ingest.series[("gpu01", "eth0", TX)]
    assert list(s.ts) == [p[0] for p in points]
    assert list(s.values) == [p[1] for p in points]
    assert ingest.counts.out_of_order == 1
    assert any(n.code == "out_of_order_sorted" for n in ingest.notes)


def test_future_samples_are_dropped() -> None:
    now_s = NOW.timestamp()
    points = [(now_s - 120, 1.0), (now_s - 60, 2.0), (now_s + 30, 3.0), (now_s + 3600, 4.0)]
    ingest = parse(json.dumps(answer(result("gpu01", "eth0", TX, points))))
    assert len(ingest.series[("gpu01", "eth0", TX)]) == 3  # 30 s ahead is clock skew
    assert ingest.counts.future == 1
    assert any(n.code == "future_dropped" for n in ingest.notes)


def test_hosts_not_in_the_contract_are_set_aside() -> None:
    doc = answer(
        result("gpu01.dc1.example:9100", "eth0", TX, counter(T0, 5)),
        result("10.0.0.9:9100", "eth0", TX, counter(T0, 7)),
        result("GPU02", "eth0", TX, counter(T0, 5)),
    )
    ingest = parse(json.dumps(doc))
    assert ingest.hosts() == ["gpu01", "gpu02"]
    assert ingest.unknown_hosts == {"10.0.0.9": 7}
    assert ingest.counts.unknown_host_samples == 7
    note = next(n for n in ingest.notes if n.code == "unknown_hosts_set_aside")
    assert "10.0.0.9" in note.en and "10.0.0.9" in note.zh
    assert parse(json.dumps(doc), hosts=None).hosts() == ["10.0.0.9", "GPU02", "gpu01.dc1.example"]


def test_an_error_answer_is_refused_with_its_reason() -> None:
    error = {
        "status": "error",
        "errorType": "bad_data",
        "error": "exceeded maximum resolution of 11,000 points per timeseries",
    }
    with pytest.raises(IngestError) as caught:
        parse(json.dumps(error))
    (msg,) = caught.value.messages
    assert (
        msg.code == "prometheus_error" and "11,000 points" in msg.en and "11,000 points" in msg.zh
    )
    # An error page after a good one refuses the whole file: nothing half-imported.
    with pytest.raises(IngestError, match="page 2"):
        parse(json.dumps([sample_answer(), error]))


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('{"status":"success","data":{"resultType":"vector","result":[]}}', "prometheus_not_range"),
        (
            '{"status":"success","data":{"result":[{"metric":{},"value":[1,"1"]}]}}',
            "prometheus_not_range",
        ),
        ('{"hello": "world"}', "prometheus_not_answer"),
        ("", "prometheus_not_answer"),
        (
            '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"instance":"gpu01"},'
            '"values":[[1,"1"],[2,',
            "prometheus_truncated",
        ),
    ],
)
def test_files_that_are_not_range_answers_are_refused(text: str, code: str) -> None:
    with pytest.raises(IngestError) as caught:
        parse(text)
    assert caught.value.messages[0].code == code


def test_an_empty_result_is_a_note_not_an_error() -> None:
    ingest = parse(json.dumps(answer()))
    assert ingest.series == {} and ingest.notes[0].code == "prometheus_empty"


def test_special_values_and_bad_samples() -> None:
    doc = answer(result("gpu01", "eth0", TX, [(T0, 1.0)]))
    doc["data"]["result"][0]["values"] += [[T0 + 60, "NaN"], [T0 + 120, "+Inf"], [T0 + 180, "x"]]
    ingest = parse(json.dumps(doc))
    s = ingest.series[("gpu01", "eth0", TX)]
    # NaN and +Inf are numbers to Prometheus but say nothing about bytes sent: set aside, said
    assert list(s.ts) == [T0] and list(s.values) == [1.0]
    assert ingest.counts.unparseable == 1 and ingest.counts.non_finite == 2
    note = next(n for n in ingest.notes if n.code == "non_finite_set_aside")
    assert note.en.startswith("2 sample(s)") and "2 个样本" in note.zh


def test_a_rate_query_without_metric_name_takes_the_given_name() -> None:
    doc = answer({"metric": {"instance": "gpu01:9100", "device": "eth0"}, "values": [[T0, "5"]]})
    ingest = parse_prometheus_range(
        io.BytesIO(json.dumps(doc).encode()), hosts=None, now=NOW, metric="rate_tx"
    )
    assert list(ingest.series) == [("gpu01", "eth0", "rate_tx")]


# --- CSV ---


def csv_text(offset: timedelta | None, rows: list[tuple[datetime, str, str, str, float]]) -> str:
    lines = ["timestamp,host,device,metric,value"]
    for moment, host, device, metric, value in rows:
        if offset is None:
            stamp = moment.astimezone(timezone(timedelta(hours=8))).replace(tzinfo=None).isoformat()
        else:
            stamp = moment.astimezone(timezone(offset)).isoformat()
        lines.append(f"{stamp},{host},{device},{metric},{value}")
    return "\r\n".join(lines) + "\r\n"


def parse_csv(text: str, default_tz: str = "Asia/Shanghai") -> Ingest:
    return parse_series_csv(
        io.BytesIO(text.encode()), hosts=("gpu01", "gpu02"), default_tz=default_tz, now=NOW
    )


ROWS = [
    (
        datetime(2026, 11, 30, 15, 59, tzinfo=UTC) + timedelta(minutes=i),
        "gpu01",
        "eth0",
        TX,
        i * 6e10,
    )
    for i in range(5)
]


def test_a_csv_in_utc_and_the_same_in_plus_eight_read_the_same() -> None:
    utc = as_plain(parse_csv(csv_text(timedelta(0), ROWS)))
    plus8 = as_plain(parse_csv(csv_text(timedelta(hours=8), ROWS)))
    naive = parse_csv(csv_text(None, ROWS))  # local Shanghai time without offset
    assert utc == plus8 == as_plain(naive)
    assert utc[("gpu01", "eth0", TX)][0][0] == ROWS[0][0].timestamp()
    assert naive.counts.naive_timestamps == 5
    note = next(n for n in naive.notes if n.code == "naive_timestamps_local")
    assert "Asia/Shanghai" in note.en and "Asia/Shanghai" in note.zh
    # The same naive file read as UTC is eight hours off: the default zone matters.
    shifted = as_plain(parse_csv(csv_text(None, ROWS), default_tz="UTC"))
    assert shifted[("gpu01", "eth0", TX)][0][0] == ROWS[0][0].timestamp() + 8 * 3600


def test_csv_bad_rows_are_counted_and_epoch_stamps_read() -> None:
    text = (
        "time,instance,interface,metric,value\n"
        f"{T0},gpu01:9100,eth0,{TX},1\n"
        f"{T0 + 60}000,gpu01:9100,eth0,{TX},2\n"  # milliseconds
        f"not-a-time,gpu01,eth0,{TX},3\n"
        f"{T0 + 120},gpu01,eth0,{TX},three\n"
        f"{T0 + 180},gpu01\n"
        f"{T0 + 240},stranger,eth0,{TX},5\n"
    )
    ingest = parse_csv(text)
    s = ingest.series[("gpu01", "eth0", TX)]
    assert list(s.ts) == [T0, T0 + 60] and list(s.values) == [1.0, 2.0]
    assert ingest.counts.unparseable == 3
    assert ingest.unknown_hosts == {"stranger": 1}


def test_a_csv_without_the_needed_columns_is_refused() -> None:
    with pytest.raises(IngestError) as caught:
        parse_csv("when,where,what\n1,2,3\n")
    assert caught.value.messages[0].code == "csv_columns_missing"
    with pytest.raises(IngestError):
        parse_csv("")


@pytest.mark.parametrize(
    "text",
    [
        '{"status":"success","error":"' + "a" * 3_000_000,
        '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"instance":"'
        + "x" * 3_000_000,
        '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":['
        + "1," * 1_500_000,
    ],
)
def test_hostile_runs_are_refused_without_holding_the_file(text: str) -> None:
    with pytest.raises(IngestError) as caught:
        parse(text)
    assert caught.value.messages[0].code == "prometheus_oversized_item"


def test_gzip_and_utf16_saves_read_the_same() -> None:
    import gzip

    text = json.dumps(sample_answer(), indent=2).replace("\n", "\r\n")
    expected = as_plain(parse(text))
    assert as_plain(parse(gzip.compress(text.encode()))) == expected
    assert as_plain(parse(text.encode("utf-16"))) == expected  # Windows PowerShell's `>`
    csv_plain = csv_text(timedelta(0), ROWS)
    assert as_plain(parse_csv_bytes(gzip.compress(csv_plain.encode()))) == as_plain(
        parse_csv(csv_plain)
    )
    assert as_plain(parse_csv_bytes(csv_plain.encode("utf-16"))) == as_plain(parse_csv(csv_plain))


def parse_csv_bytes(raw: bytes) -> Ingest:
    return parse_series_csv(
        io.BytesIO(raw), hosts=("gpu01", "gpu02"), default_tz="Asia/Shanghai", now=NOW
    )
