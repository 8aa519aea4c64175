"""The benchmark kit an RFQ prescribes: exact commands for N concurrent pairs and upload steps.

Suppliers run the same commands, so their logs are comparable and parse with the portal's own
parsers (iperf3 ``-J`` JSON, perftest ``--report_gbits`` text, nccl-tests' table). An invited
supplier's kit also carries a challenge token per test (domain/evidence/tokens.py) and the test
parameters that token derives (message size and iterations, iperf3 block size, seconds and
ports, nccl-tests' byte range and iterations), so a log run without these commands does not
match its challenge: iperf3 writes the token into its JSON (``--title``, ``--extra-data``);
perftest and nccl-tests runs are wrapped in an echoed token line and UTC ``date`` lines.

``kit_script`` writes one bash script per host role (server, client, nccl) that runs every test
with those parameters, records the host's facts (``GPK-HOST`` line: host name, NIC GUIDs from
``ibv_devinfo`` / ``ibstat``, MACs from ``ip link``, GPU UUIDs from ``nvidia-smi -L``) into
each log and uploads the logs through the supplier API.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.utils.translation import gettext as _

from benchmarks.trust import challenge_secret
from domain.evidence import tokens as evidence_tokens
from domain.evidence.tokens import KitParameters, expected_parameters

BASE_PORT = 5201
ROLES = ("server", "client", "nccl")


@dataclass(frozen=True)
class KitStep:
    tool: str
    title: str
    server_commands: tuple[str, ...]
    client_commands: tuple[str, ...]
    files: tuple[str, ...]
    parameters: str = ""  # the token-derived flags, as the tool's own (empty without a token)


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


def _derived(token: str | None, duration: int) -> KitParameters | None:
    return expected_parameters(token, duration_s=duration) if token else None


def _iperf3_flags(p: KitParameters | None, duration: int) -> tuple[int, str]:
    """The first server port and the client's flags."""
    if p is None:
        return BASE_PORT, f"-t {duration}"
    return p.port, f"-t {p.seconds} -l {p.blksize}"


def _iperf3(pairs: int, duration: int, token: str | None) -> KitStep:
    p = _derived(token, duration)
    port, flags = _iperf3_flags(p, duration)
    servers = tuple(f"iperf3 -s -p {port + i} -1 &" for i in range(pairs))
    files = tuple(f"pair{i + 1}_iperf3.json" for i in range(pairs))
    mark = f" --title {token} --extra-data {token}" if token else ""
    clients = tuple(
        f"iperf3 -c <server{i + 1}> -p {port + i} {flags} -i 1 -P 4 -J{mark} > {files[i]} &"
        for i in range(pairs)
    )
    return KitStep("iperf3", _("TCP throughput (iperf3)"), servers, clients, files,
                   p.flags() if p else "")  # fmt: skip


def _perftest_flags(tool: str, p: KitParameters | None, duration: int) -> tuple[int, str]:
    if tool == "ib_write_lat":
        if p is None:
            return 18615, "-d <rdma_dev> -F -n 100000"
        return p.port, f"-d <rdma_dev> -F -s {p.message_bytes} -n {p.iterations}"
    if p is None:
        return 18515, f"-d <rdma_dev> -F --report_gbits -D {duration} -q 4"
    return p.port, f"-d <rdma_dev> -F --report_gbits -q 4 -s {p.message_bytes} -n {p.iterations}"


def _perftest(tool: str, title: str, pairs: int, duration: int, token: str | None) -> KitStep:
    p = _derived(token, duration)
    port, common = _perftest_flags(tool, p, duration)
    files = tuple(f"pair{i + 1}_{tool}.txt" for i in range(pairs))
    servers = tuple(f"{tool} {common} -p {port + i} &" for i in range(pairs))
    clients = tuple(
        _wrapped(f"{tool} {common} -p {port + i} <server{i + 1}>", token, files[i])
        for i in range(pairs)
    )
    return KitStep(tool, title, servers, clients, files, p.flags() if p else "")


def _nccl_flags(p: KitParameters | None) -> str:
    if p is None:
        return "-b 8 -e 8G -f 2 -g 1"
    return f"-b {p.message_bytes} -e {p.max_bytes} -f 2 -g 1 -n {p.iterations}"


def _nccl(token: str | None) -> KitStep:
    p = _derived(token, 0)
    run = f"mpirun --hostfile <hostfile> -np <ranks> all_reduce_perf {_nccl_flags(p)}"
    file = "nccl_all_reduce.txt"
    return KitStep("nccl", _("Collective bandwidth across the servers (nccl-tests all_reduce)"),
                   (), (_wrapped(run, token, file),), (file,), p.flags() if p else "")  # fmt: skip


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
        steps.append(_perftest("ib_write_bw", _("RDMA bandwidth (ib_write_bw)"), pairs,
                               duration_s, tokens.get("ib_write_bw")))  # fmt: skip
    if "ib_write_lat" in evidence:
        steps.append(_perftest("ib_write_lat", _("RDMA latency (ib_write_lat)"), pairs,
                               duration_s, tokens.get("ib_write_lat")))  # fmt: skip
    if "nccl" in evidence:
        steps.append(_nccl(tokens.get("nccl")))
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
            _("Each token also sets its test's message sizes, iteration counts and ports: a log "
              "that ran with other parameters does not match its token and is not kit-verified."),
            _("The scripts per host role below run every test with these parameters, record the "
              "host's name, NIC GUIDs or MACs and GPU UUIDs into each log and upload it; the "
              "hosts must be those of your answer's host list."),
        )  # fmt: skip
    return BenchmarkKit(pairs, duration_s, tuple(steps), instructions)


KIT_TESTS = ("iperf3", "ib_write_bw", "ib_write_lat", "nccl")


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


# ---------------------------------------------------------------------------------------------
# Scripts per host role. Written with placeholders (@NAME@) rather than str.format, so the
# shell's own braces stay as they are; every value put in is a number, a token or a URL the
# portal made (never a supplier's text).

_HEAD = r"""#!/usr/bin/env bash
# Benchmark kit of RFQ @RFQ@, host role: @ROLE@. Generated by the portal for one invited
# supplier: the GPK tokens below are yours alone, and each sets its test's parameters.
# Usage: @USAGE@
# Environment: GPK_API_TOKEN (your API token: the logs are uploaded when it is set),
#   GPK_ANSWER (your answer's id, @ANSWER_HINT@), GPK_RDMA_DEV (RDMA device, default mlx5_0),
#   GPK_PORTAL (default @PORTAL@), GPK_OUT (output folder).
set -uo pipefail
PORTAL="${GPK_PORTAL:-@PORTAL@}"
ANSWER="${GPK_ANSWER:-@ANSWER@}"
RDMA_DEV="${GPK_RDMA_DEV:-mlx5_0}"
PAIRS=@PAIRS@
OUT="${GPK_OUT:-gpk-rfq@RFQ@-$(hostname)}"
mkdir -p "$OUT"

# This host's facts, one line: its name, NIC GUIDs (ibv_devinfo, ibstat), MACs (ip link) and
# GPU UUIDs (nvidia-smi -L). The portal checks them against your answer's host list.
gpk_host_facts() {
  local guids macs gpus line
  guids=$({ ibv_devinfo 2>/dev/null | awk '$1 == "node_guid:" {print $2}'
            ibstat 2>/dev/null | awk '/Port GUID:/ {print $3}'; } | sort -u | paste -sd, -)
  macs=$(ip -o link 2>/dev/null \
    | awk '{for (i = 1; i < NF; i++) if ($i == "link/ether") print $(i + 1)}' \
    | sort -u | paste -sd, -)
  gpus=$(nvidia-smi -L 2>/dev/null | sed -n 's/.*UUID: \(GPU-[0-9a-fA-F-]*\).*/\1/p' \
    | paste -sd, -)
  line="GPK-HOST host=$(hostname)"
  if [ -n "$guids" ]; then line="$line guid=$guids"; fi
  if [ -n "$macs" ]; then line="$line mac=$macs"; fi
  if [ -n "$gpus" ]; then line="$line gpu=$gpus"; fi
  printf '%s\n' "$line"
}

gpk_date() { date -u +"GPK-DATE %Y-%m-%dT%H:%M:%SZ"; }

gpk_upload() {
  if [ -z "${GPK_API_TOKEN:-}" ] || [ -z "$ANSWER" ]; then
    echo "Not uploaded (set GPK_API_TOKEN and GPK_ANSWER): upload $1 on your answer page." >&2
    return 0
  fi
  if curl -fsS -H "Authorization: Token $GPK_API_TOKEN" -F "file=@$1" \
      "$PORTAL/api/v1/supplier/answers/$ANSWER/logs/" > /dev/null; then
    echo "Uploaded $1"
  else
    echo "Upload of $1 failed: upload it on your answer page." >&2
  fi
}

gpk_pair() {
  case "$1" in ''|*[!0-9]*) echo "The pair number must be 1 to $PAIRS." >&2; exit 2 ;; esac
  if [ "$1" -lt 1 ] || [ "$1" -gt "$PAIRS" ]; then
    echo "The pair number must be 1 to $PAIRS." >&2; exit 2
  fi
}
"""

_SERVER = r"""
# Starts the servers of one pair (or of every pair) and waits for the client's tests.
WHICH="${1:-all}"
FIRST=1
LAST=$PAIRS
if [ "$WHICH" != all ]; then gpk_pair "$WHICH"; FIRST=$WHICH; LAST=$WHICH; fi
gpk_host_facts | tee "$OUT/server_host_facts.txt"
echo "List this host (and the line above) in your answer's host list."
for PAIR in $(seq "$FIRST" "$LAST"); do
  I=$((PAIR - 1))
@BODY@
done
wait
"""

_CLIENT = r"""
# Runs every test of one pair against its server, one after another, and uploads each log.
gpk_pair "${1:-}"
PAIR=$1
SERVER="${2:?Give the server address of pair $PAIR as the second argument.}"
I=$((PAIR - 1))
@BODY@
"""

_NCCL = r"""
# Runs nccl-tests' all_reduce across the hosts of HOSTFILE (Open MPI), then uploads the log.
HOSTFILE="${1:?Give the MPI host file (one offered server per line) as the first argument.}"
GPUS="${2:-8}"
MPIRUN="${GPK_MPIRUN:-mpirun}"
HOSTS=$(grep -cv '^[[:space:]]*$' "$HOSTFILE")
F="$OUT/nccl_all_reduce.txt"
{
  echo "GPK-TOKEN @TOKEN@"
  gpk_date
  "$MPIRUN" --hostfile "$HOSTFILE" -np "$HOSTS" -npernode 1 \
    bash -c "$(declare -f gpk_host_facts); gpk_host_facts"
  "$MPIRUN" --hostfile "$HOSTFILE" -np $((HOSTS * GPUS)) -npernode "$GPUS" \
    all_reduce_perf @FLAGS@
  gpk_date
} > "$F" 2>&1
gpk_upload "$F"
"""


def _server_body(tokens: dict[str, str], duration: int, evidence: list[str]) -> list[str]:
    lines: list[str] = []
    if "iperf3" in evidence and "iperf3" in tokens:
        port, _flags = _iperf3_flags(_derived(tokens["iperf3"], duration), duration)
        lines.append(
            f'  iperf3 -s -p $(({port} + I)) -1 > "$OUT/server_pair${{PAIR}}_iperf3.txt" 2>&1 &'
        )
    for tool in ("ib_write_bw", "ib_write_lat"):
        if tool in evidence and tool in tokens:
            port, common = _perftest_flags(tool, _derived(tokens[tool], duration), duration)
            common = common.replace("<rdma_dev>", '"$RDMA_DEV"')
            out = f'"$OUT/server_pair${{PAIR}}_{tool}.txt"'
            lines.append(f"  {tool} {common} -p $(({port} + I)) > {out} 2>&1 &")
    return lines or ["  :"]


def _client_body(tokens: dict[str, str], duration: int, evidence: list[str]) -> list[str]:
    lines: list[str] = []
    if "iperf3" in evidence and "iperf3" in tokens:
        token = tokens["iperf3"]
        port, flags = _iperf3_flags(_derived(token, duration), duration)
        lines += [
            'F="$OUT/pair${PAIR}_iperf3.json"',
            f'iperf3 -c "$SERVER" -p $(({port} + I)) {flags} -i 1 -P 4 -J --title {token} \\',
            f'  --extra-data "{token} $(gpk_host_facts)" > "$F"',
            'gpk_upload "$F"',
        ]
    for tool in ("ib_write_bw", "ib_write_lat"):
        if tool in evidence and tool in tokens:
            token = tokens[tool]
            port, common = _perftest_flags(tool, _derived(token, duration), duration)
            common = common.replace("<rdma_dev>", '"$RDMA_DEV"')
            lines += [
                f'F="$OUT/pair${{PAIR}}_{tool}.txt"',
                f'{{ echo "GPK-TOKEN {token}"; gpk_date; gpk_host_facts',
                f'  {tool} {common} -p $(({port} + I)) "$SERVER"',
                '  gpk_date; } > "$F" 2>&1',
                'gpk_upload "$F"',
            ]
    return lines or [":"]


def kit_script(
    *,
    role: str,
    rfq_id: int,
    pairs: int,
    duration_s: int,
    evidence: list[str],
    tokens: dict[str, str],
    portal: str,
    answer_id: int | None,
) -> str:
    """The bash script of one host role (``ROLES``) for one invited supplier's kit."""
    if role not in ROLES:
        raise ValueError(role)
    usage = {
        "server": "bash server.sh [PAIR]   (on each server host; no PAIR: every pair)",
        "client": "bash client.sh PAIR SERVER_ADDRESS   (on the client host of that pair)",
        "nccl": "bash nccl.sh HOSTFILE [GPUS_PER_HOST]   (on one host of the MPI job)",
    }[role]
    if role == "server":
        body = _SERVER.replace("@BODY@", "\n".join(_server_body(tokens, duration_s, evidence)))
    elif role == "client":
        body = _CLIENT.replace("@BODY@", "\n".join(_client_body(tokens, duration_s, evidence)))
    else:
        token = tokens.get("nccl", "")
        body = _NCCL.replace("@TOKEN@", token).replace(
            "@FLAGS@", _nccl_flags(_derived(token, 0) if token else None)
        )
    head = (
        _HEAD.replace("@USAGE@", usage)
        .replace("@ANSWER_HINT@", "set here" if answer_id else "shown once you submit it")
        .replace("@ANSWER@", str(answer_id or ""))
        .replace("@PAIRS@", str(int(pairs)))
        .replace("@PORTAL@", portal.rstrip("/"))
        .replace("@ROLE@", role)
        .replace("@RFQ@", str(int(rfq_id)))
    )
    return head + body


def rfq_kit_script(
    rfq, invitation_id: int, *, role: str, portal: str, answer_id: int | None
) -> str:  # type: ignore[no-untyped-def]
    """The invited supplier's script for ``role`` (every test of the kit, with its tokens)."""
    return kit_script(
        role=role, rfq_id=rfq.pk, pairs=rfq.kit_pairs, duration_s=rfq.kit_duration_s,
        evidence=list(rfq.required_evidence), tokens=invitation_tokens(rfq.pk, invitation_id),
        portal=portal, answer_id=answer_id,
    )  # fmt: skip
