"""Old perftest latency tables (OFED 1.x / perftest before 4.x) print only t_min, t_max and
t_typical. The header text below is what those versions' ``printf`` writes (" #bytes
#iterations    t_min[usec]    t_max[usec]  t_typical[usec]" under a 66-dash rule); the figures
are made up for the test."""

from __future__ import annotations

import io

import pytest

from domain.benchlogs import BenchLogError, parse_stream, result_to_json

RULE = "-" * 66
OLD_LAT = f"""{RULE}
                    RDMA_Write Latency Test
 Dual-port       : OFF\t\tDevice         : mlx4_0
 Number of qps   : 1\t\tTransport type : IB
 Connection type : RC\t\tUsing SRQ      : OFF
 TX depth        : 1
 Mtu             : 2048[B]
 Link type       : IB
 Max inline data : 400[B]
 rdma_cm QPs\t : OFF
 Data ex. method : Ethernet
{RULE}
 local address: LID 0x03 QPN 0x020f PSN 0x5e1b5a RKey 0xa0012400 VAddr 0x00000000a5d000
 remote address: LID 0x02 QPN 0x020e PSN 0xe8ba04 RKey 0x58012100 VAddr 0x000000020b6000
{RULE}
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]
{{rows}}{RULE}
"""


def _parse(rows: str, newline: str = "\n"):  # type: ignore[no-untyped-def]
    text = OLD_LAT.replace("{rows}", rows).replace("\n", newline)
    return parse_stream(io.BytesIO(text.encode()), "old_lat.txt")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_an_old_latency_table_is_read_with_its_typical_latency(newline: str) -> None:
    result = _parse(" 2       1000          0.89           4.53         0.92   \n", newline)
    assert result.tool == "ib_write_lat" and result.fabric == "ib"
    latency = result.latency
    assert latency is not None
    assert (latency.min_us, latency.max_us, latency.typical_us) == (0.89, 4.53, 0.92)
    # No average and no percentiles are made up from the median.
    assert latency.avg_us is None and latency.p99_us is None
    assert [w.code for w in result.warnings] == ["latency_typical_only"]
    assert result.warnings[0].zh and "t_typical" in result.warnings[0].en
    assert result_to_json(result, "x")["latency_us"] == {
        "min": 0.89,
        "typical": 0.92,
        "avg": None,
        "p99": None,
        "p999": None,
    }


def test_an_old_sweep_keeps_every_size() -> None:
    rows = "".join(
        f" {size:<7} 1000          {0.8 + i / 10:.2f}           4.53         {0.9 + i / 10:.2f}\n"
        for i, size in enumerate((2, 4, 8, 16))
    )
    result = _parse(rows)
    assert [row.bytes for row in result.sizes] == [2, 4, 8, 16]
    assert [row.latency.typical_us for row in result.sizes] == pytest.approx([0.9, 1.0, 1.1, 1.2])
    assert result.latency is not None and result.latency.typical_us == pytest.approx(0.9)


def test_a_latency_table_with_neither_average_nor_typical_is_still_refused() -> None:
    text = OLD_LAT.replace("  t_typical[usec]", "").replace(
        "{rows}", " 2       1000          0.89           4.53\n"
    )
    with pytest.raises(BenchLogError) as caught:
        parse_stream(io.BytesIO(text.encode()), "odd.txt")
    assert caught.value.message.zh
