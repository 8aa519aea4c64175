"""The benchmark kit an RFQ prescribes: exact commands for N concurrent pairs and upload steps.

Suppliers run the same commands, so their logs are comparable and parse with the portal's own
parsers (iperf3 ``-J`` JSON, perftest ``--report_gbits`` text).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.utils.translation import gettext as _

BASE_PORT = 5201


@dataclass(frozen=True)
class KitStep:
    tool: str
    title: str
    server_commands: tuple[str, ...]
    client_commands: tuple[str, ...]
    files: tuple[str, ...]


@dataclass(frozen=True)
class BenchmarkKit:
    pairs: int
    duration_s: int
    steps: tuple[KitStep, ...]
    instructions: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "pairs": self.pairs,
            "duration_s": self.duration_s,
            "steps": [asdict(step) for step in self.steps],
            "instructions": list(self.instructions),
        }

    def as_text(self) -> str:
        lines: list[str] = []
        for step in self.steps:
            lines += [f"# {step.title}", "# " + _("On each server host:")]
            lines += list(step.server_commands)
            lines += ["# " + _("On each client host, all pairs at the same time:")]
            lines += list(step.client_commands) + ["wait", ""]
        lines += ["# " + line for line in self.instructions]
        return "\n".join(lines) + "\n"


def _iperf3(pairs: int, duration: int) -> KitStep:
    servers = tuple(f"iperf3 -s -p {BASE_PORT + i} -1 &" for i in range(pairs))
    files = tuple(f"pair{i + 1}_iperf3.json" for i in range(pairs))
    clients = tuple(
        f"iperf3 -c <server{i + 1}> -p {BASE_PORT + i} -t {duration} -i 1 -P 4 -J > {files[i]} &"
        for i in range(pairs)
    )
    return KitStep("iperf3", _("TCP throughput (iperf3)"), servers, clients, files)


def _ib_write_bw(pairs: int, duration: int) -> KitStep:
    common = f"-d <rdma_dev> -F --report_gbits -D {duration} -q 4"
    files = tuple(f"pair{i + 1}_ib_write_bw.txt" for i in range(pairs))
    servers = tuple(f"ib_write_bw {common} -p {18515 + i} &" for i in range(pairs))
    clients = tuple(
        f"ib_write_bw {common} -p {18515 + i} <server{i + 1}> > {files[i]} &" for i in range(pairs)
    )
    return KitStep("ib_write_bw", _("RDMA bandwidth (ib_write_bw)"), servers, clients, files)


def _ib_write_lat(pairs: int) -> KitStep:
    common = "-d <rdma_dev> -F -n 100000"
    files = tuple(f"pair{i + 1}_ib_write_lat.txt" for i in range(pairs))
    servers = tuple(f"ib_write_lat {common} -p {18615 + i} &" for i in range(pairs))
    clients = tuple(
        f"ib_write_lat {common} -p {18615 + i} <server{i + 1}> > {files[i]} &" for i in range(pairs)
    )
    return KitStep("ib_write_lat", _("RDMA latency (ib_write_lat)"), servers, clients, files)


def benchmark_kit(*, pairs: int, duration_s: int, evidence: list[str]) -> BenchmarkKit:
    """The kit for the RFQ's required evidence, in a fixed order."""
    steps: list[KitStep] = []
    if "iperf3" in evidence:
        steps.append(_iperf3(pairs, duration_s))
    if "ib_write_bw" in evidence:
        steps.append(_ib_write_bw(pairs, duration_s))
    if "ib_write_lat" in evidence:
        steps.append(_ib_write_lat(pairs))
    instructions = (
        _("Use %(n)s distinct pairs of the offered nodes, one port per pair, all at once.")
        % {"n": pairs},
        _("Replace <serverN> with the N-th server's address and <rdma_dev> with the RDMA device."),
        _("Keep every output file unchanged; zip them (or upload them one by one) on your answer "
          "page, or POST them to /api/v1/supplier/answers/<id>/logs/ as field 'file'."),
        _("The portal parses and judges the logs as it does the team's own."),
    )  # fmt: skip
    return BenchmarkKit(pairs, duration_s, tuple(steps), instructions)


def rfq_kit(rfq) -> BenchmarkKit:  # type: ignore[no-untyped-def]
    return benchmark_kit(
        pairs=rfq.kit_pairs, duration_s=rfq.kit_duration_s, evidence=list(rfq.required_evidence)
    )
