"""Which collective an nccl-tests log measured.

nccl-tests does not print its own name; the command line or file name usually does. Failing
those, the table's shape decides where it is unambiguous: the ratio of ``size`` to
``count × type size`` is 1 for all_reduce and equals the rank count for all_gather and
reduce_scatter (FORMATS.md §3.1), and ``redop``/``root`` tell the rest apart.
"""

from __future__ import annotations

import re

from domain.benchlogs import catalogue
from domain.benchlogs.errors import BenchLogError
from domain.benchlogs.result import NcclRow

_NAMES = re.compile(
    r"(all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|broadcast|sendrecv|hypercube"
    r"|gather|scatter|reduce)",
    re.IGNORECASE,
)
_CANONICAL = {
    "allreduce": "all_reduce",
    "allgather": "all_gather",
    "reducescatter": "reduce_scatter",
    "alltoall": "alltoall",
}
_TYPE_BYTES = {
    "int8": 1,
    "uint8": 1,
    "char": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "f8e4m3": 1,
    "f8e5m2": 1,
    "half": 2,
    "bfloat16": 2,
    "float16": 2,
    "int32": 4,
    "uint32": 4,
    "int": 4,
    "float": 4,
    "float32": 4,
    "int64": 8,
    "uint64": 8,
    "double": 8,
    "float64": 8,
}


def collective_from_text(text: str) -> str | None:
    """The collective named in a command line or a file name, if any."""
    match = _NAMES.search(text)
    if match is None:
        return None
    key = match.group(1).lower().replace("_", "")
    return _CANONICAL.get(key, key)


def infer_collective(
    columns: list[str],
    rows: list[NcclRow],
    sized: list[tuple[int, NcclRow]],
    ranks: int | None,
) -> str:
    redops = {row.redop for row in rows if row.redop not in (None, "none")}
    roots = {row.root for row in rows if row.root is not None and row.root >= 0}
    if roots:
        return "reduce" if redops else "broadcast"
    ratios = {_ratio(size, row) for size, row in sized} - {None}
    if len(ratios) == 1:
        ratio = ratios.pop()
        if ratio == 1 and redops:
            return "all_reduce"
        if ranks and ranks > 1 and ratio == ranks:
            if redops:
                return "reduce_scatter"
            # Old builds print no redop column for all_gather; newer ones print "none" in it.
            return "all_gather"
    raise BenchLogError(catalogue.nccl_collective_unknown())


def _ratio(size: int, row: NcclRow) -> float | None:
    width = _TYPE_BYTES.get(row.dtype.lower())
    if width is None or row.count <= 0 or size <= 0:
        return None
    return size / (row.count * width)
