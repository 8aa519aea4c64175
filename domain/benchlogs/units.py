"""Unit conversions, each tied to what the tool's source prints (see corpus FORMATS.md).

Nothing here guesses: an unknown label raises, so a log with odd units never turns into a
plausible-looking wrong number.
"""

from __future__ import annotations

from domain.benchlogs import catalogue
from domain.benchlogs.errors import BenchLogError

# iperf3 src/units.c: bit rates use decimal prefixes (KILO_RATE_UNIT = 1000) ...
_IPERF_BIT_RATE_GBPS = {
    "bits/sec": 1e-9,
    "Kbits/sec": 1e-6,
    "Mbits/sec": 1e-3,
    "Gbits/sec": 1.0,
    "Tbits/sec": 1e3,
}
# ... while byte quantities, including -f K/M/G byte rates, use binary ones (KILO_UNIT = 1024).
_IPERF_BYTES = {
    "Bytes": 1.0,
    "KBytes": 1024.0,
    "MBytes": 1024.0**2,
    "GBytes": 1024.0**3,
    "TBytes": 1024.0**4,
}

# perftest_parameters.c: format_factor is 0x100000 for "MB/sec" (really MiB/s) and 125e6 for
# "Gb/sec" (SI Gbit/s); later releases relabel the former "MiB/sec".
_MIB_PER_S_IN_GBPS = 1024 * 1024 * 8 / 1e9
_PERFTEST_BW_GBPS = {
    "MB/sec": _MIB_PER_S_IN_GBPS,
    "MiB/sec": _MIB_PER_S_IN_GBPS,
    "Gb/sec": 1.0,
}

# nccl-tests computes GB/s as bytes / 1e9 / seconds.
NCCL_GBYTES_TO_GBPS = 8.0


def iperf_rate_factor(unit: str) -> float:
    """Gbit/s per unit of an iperf3 rate label such as ``Mbits/sec`` or ``MBytes/sec``."""
    if unit in _IPERF_BIT_RATE_GBPS:
        return _IPERF_BIT_RATE_GBPS[unit]
    if unit.endswith("/sec") and unit[:-4] in _IPERF_BYTES:
        return _IPERF_BYTES[unit[:-4]] * 8 / 1e9
    raise BenchLogError(catalogue.unknown_units(unit, catalogue.IPERF_RATE))


def iperf_bytes_factor(unit: str) -> float:
    """Bytes per unit of an iperf3 transfer label such as ``GBytes``."""
    if unit in _IPERF_BYTES:
        return _IPERF_BYTES[unit]
    raise BenchLogError(catalogue.unknown_units(unit, catalogue.IPERF_TRANSFER))


def perftest_bw_factor(unit: str) -> float:
    """Gbit/s per unit of a perftest bandwidth header label (``MB/sec``, ``Gb/sec``)."""
    if unit in _PERFTEST_BW_GBPS:
        return _PERFTEST_BW_GBPS[unit]
    raise BenchLogError(catalogue.unknown_units(unit, catalogue.PERFTEST_BW))


def bps_to_gbps(bits_per_second: float) -> float:
    return bits_per_second / 1e9
