"""The benchmark kit an RFQ prescribes: exact commands for N concurrent pairs and upload steps.

Suppliers run the same commands, so their logs are comparable and parse with the portal's own
parsers (iperf3 ``-J`` JSON, perftest ``--report_gbits`` text). An invited supplier's kit also
carries a challenge token per test (domain/evidence/tokens.py): iperf3 writes it into its JSON
(``--title``, ``--extra-data``), perftest runs are wrapped in an echoed token line and UTC
``date`` lines before and after, so the upload can be tied to this RFQ, supplier, test and time.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.utils.translation import gettext as _

from benchmarks.trust import challenge_secret
from domain.evidence import tokens as evidence_tokens

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


_DATE = 'date -u +"GPK-DATE %Y-%m-%dT%H:%M:%SZ"'


def _wrapped(command: str, token: str | None, file: str) -> str:
    """A client command writing ``file``; with a token, framed by the token and date lines."""
    if token is None:
        return f"{command} > {file} &"
    return f'( echo "GPK-TOKEN {token}"; {_DATE}; {command}; {_DATE} ) > {file} 2>&1 &'


def _iperf3(pairs: int, duration: int, token: str | None) -> KitStep:
    servers = tuple(f"iperf3 -s -p {BASE_PORT + i} -1 &" for i in range(pairs))
    files = tuple(f"pair{i + 1}_iperf3.json" for i in range(pairs))
    mark = f" --title {token} --extra-data {token}" if token else ""
    clients = tuple(
        f"iperf3 -c <server{i + 1}> -p {BASE_PORT + i} -t {duration} -i 1 -P 4 -J{mark} "
        f"> {files[i]} &"
        for i in range(pairs)
    )
    return KitStep("iperf3", _("TCP throughput (iperf3)"), servers, clients, files)


def _ib_write_bw(pairs: int, duration: int, token: str | None) -> KitStep:
    common = f"-d <rdma_dev> -F --report_gbits -D {duration} -q 4"
    files = tuple(f"pair{i + 1}_ib_write_bw.txt" for i in range(pairs))
    servers = tuple(f"ib_write_bw {common} -p {18515 + i} &" for i in range(pairs))
    clients = tuple(
        _wrapped(f"ib_write_bw {common} -p {18515 + i} <server{i + 1}>", token, files[i])
        for i in range(pairs)
    )
    return KitStep("ib_write_bw", _("RDMA bandwidth (ib_write_bw)"), servers, clients, files)


def _ib_write_lat(pairs: int, token: str | None) -> KitStep:
    common = "-d <rdma_dev> -F -n 100000"
    files = tuple(f"pair{i + 1}_ib_write_lat.txt" for i in range(pairs))
    servers = tuple(f"ib_write_lat {common} -p {18615 + i} &" for i in range(pairs))
    clients = tuple(
        _wrapped(f"ib_write_lat {common} -p {18615 + i} <server{i + 1}>", token, files[i])
        for i in range(pairs)
    )
    return KitStep("ib_write_lat", _("RDMA latency (ib_write_lat)"), servers, clients, files)


def benchmark_kit(
    *, pairs: int, duration_s: int, evidence: list[str], tokens: dict[str, str] | None = None
) -> BenchmarkKit:
    """The kit for the RFQ's required evidence, in a fixed order; ``tokens`` maps a test to the
    supplier's challenge token (the team's own view of the kit has none)."""
    tokens = tokens or {}
    steps: list[KitStep] = []
    if "iperf3" in evidence:
        steps.append(_iperf3(pairs, duration_s, tokens.get("iperf3")))
    if "ib_write_bw" in evidence:
        steps.append(_ib_write_bw(pairs, duration_s, tokens.get("ib_write_bw")))
    if "ib_write_lat" in evidence:
        steps.append(_ib_write_lat(pairs, tokens.get("ib_write_lat")))
    instructions = (
        _("Use %(n)s distinct pairs of the offered nodes, one port per pair, all at once.")
        % {"n": pairs},
        _("Replace <serverN> with the N-th server's address and <rdma_dev> with the RDMA device."),
        _("Keep every output file unchanged; zip them (or upload them one by one) on your answer "
          "page, or POST them to /api/v1/supplier/answers/<id>/logs/ as field 'file'."),
        _("The portal parses and judges the logs as it does the team's own."),
    )  # fmt: skip
    if tokens:
        instructions += (
            _("The GPK tokens in these commands are yours alone and tie each log to this RFQ: "
              "run the commands as they are, after publication and before the deadline; a log "
              "without its token, or with another supplier's, counts as supplied, unverified."),
        )  # fmt: skip
    return BenchmarkKit(pairs, duration_s, tuple(steps), instructions)


KIT_TESTS = ("iperf3", "ib_write_bw", "ib_write_lat")


def invitation_tokens(rfq_id: int, invitation_id: int) -> dict[str, str]:
    """The invited supplier's challenge token for each test of the kit."""
    secret = challenge_secret()
    return {t: evidence_tokens.issue(secret, rfq_id, invitation_id, t) for t in KIT_TESTS}


def rfq_kit(rfq, invitation_id: int | None = None) -> BenchmarkKit:  # type: ignore[no-untyped-def]
    """The RFQ's kit; an invited supplier's (its invitation's id) carries its tokens."""
    return benchmark_kit(
        pairs=rfq.kit_pairs,
        duration_s=rfq.kit_duration_s,
        evidence=list(rfq.required_evidence),
        tokens=invitation_tokens(rfq.pk, invitation_id) if invitation_id else None,
    )
