"""nccl-tests forensics on real logs and copies doctored here: rows in ascending size, none
beyond maxBytes; the busbw factor checked for an established rank count, "unchecked" (never
"inconsistent") when the listing does not establish it; the headline is the out-of-place busbw;
a copy with its hosts renamed keeps its fingerprint."""

from __future__ import annotations

import io
import re
from pathlib import Path

from pytest import approx

from domain.benchlogs import parse_stream
from domain.evidence.integrity import CONSISTENT, INCONSISTENT, check_integrity
from domain.evidence.reuse import fingerprint
from domain.evidence.trust_facts import scan

NCCL = Path(__file__).resolve().parents[1] / "data" / "corpus" / "nccl-tests"
SKY = NCCL / "nccl_skypilot_ray_mpi_prefixed_h200_16rank.txt"  # 16 ranks, 16 processes
CUT = NCCL / "nccl_2.19.7_h200_step_bytes_cut_after_two_rows.txt"  # 4 ranks, one process


def _check(raw: bytes, name: str = "all_gather_perf.txt"):  # type: ignore[no-untyped-def]
    return check_integrity(parse_stream(io.BytesIO(raw), name), exact=False)


def _drop_rank_lines(raw: bytes, keep: set[int]) -> bytes:
    lines = raw.decode().splitlines(keepends=True)
    out = []
    for line in lines:
        m = re.search(r"#\s+Rank\s+(\d+)\s", line)
        if m and int(m.group(1)) not in keep:
            continue
        out.append(line)
    return "".join(out).encode()


def test_real_logs_hold() -> None:
    for path in (SKY, CUT):
        assert _check(path.read_bytes(), path.name).status == CONSISTENT


def test_a_listing_that_keeps_four_of_sixteen_ranks_is_unchecked_never_accused() -> None:
    four = _drop_rank_lines(SKY.read_bytes(), {0, 1, 2, 3})
    found = _check(four)
    assert found.status == CONSISTENT and not found.findings
    assert [m.code for m in found.unchecked] == ["integrity.nccl_ranks_unchecked"]
    assert "fit 16 ranks" in found.unchecked[0].en
    # Rank numbers with gaps: the count is not established either.
    gaps = _check(_drop_rank_lines(SKY.read_bytes(), {0, 1, 14, 15}))
    assert gaps.status == CONSISTENT and gaps.unchecked


def test_one_process_states_its_rank_count() -> None:
    # nThread 1 nGpus 4 in one process: 4 ranks, the factor is checked (and busbw edited fails).
    raw = CUT.read_bytes().decode()
    edited = raw.replace("237.36  356.04", "237.36  380.04", 1)
    assert edited != raw
    assert _check(edited.encode(), "nccl.txt").status == INCONSISTENT


def test_rows_reordered_or_beyond_max_bytes() -> None:
    raw = SKY.read_bytes().decode()
    lines = raw.splitlines(keepends=True)
    rows = [
        i for i, line in enumerate(lines) if re.search(r"stdout>:\s+\d{4,}\s+\d+\s+float", line)
    ]
    swapped = list(lines)
    swapped[rows[3]], swapped[rows[4]] = lines[rows[4]], lines[rows[3]]
    found = _check("".join(swapped).encode())
    assert found.status == INCONSISTENT
    assert "integrity.nccl_rows_order" in [m.code for m in found.findings]
    beyond = raw.replace("maxBytes 8589934592", "maxBytes 4294967296", 1)
    found = _check(beyond.encode())
    assert found.status == INCONSISTENT
    assert "integrity.nccl_beyond_max" in [m.code for m in found.findings]


def test_the_headline_is_the_out_of_place_busbw_at_the_largest_size() -> None:
    result = parse_stream(io.BytesIO(SKY.read_bytes()), "sky.txt")
    largest = result.sizes[-1].nccl
    assert largest is not None
    assert result.throughput_gbps == approx(largest.out_of_place.busbw_gbps)
    assert largest.in_place.busbw_gbps != largest.out_of_place.busbw_gbps  # shown beside it


def test_a_copy_with_its_hosts_renamed_keeps_its_fingerprint() -> None:
    raw = SKY.read_bytes()
    renamed = raw.replace(b"nc-d87e1263-head", b"gpu-a01").replace(
        b"nc-d87e1263-worker1", b"gpu-a02"
    )
    assert renamed != raw

    def print_of(data: bytes) -> str | None:
        return fingerprint(parse_stream(io.BytesIO(data), "x.txt"), scan(data.decode()))

    assert print_of(raw) is not None and print_of(raw) == print_of(renamed)
    # Another real run of the same shape does not share it.
    other = (NCCL / "nccl_2.18.3_h200_datatype_all_one_table.txt").read_bytes()
    assert print_of(other) != print_of(raw)
