"""The delivery kit: one shell script per rented server, run from cron, uploading with the
contract's kit token; and the reader of what it uploads (its envelope).

All servers run their script at the same minute, so every measured pair runs at once (the same
rule as the RFQ kit: delivered bandwidth is what a server gets while the others also send).
Pairs form a ring over the contract's servers in host-name order: each server sends to the next
and receives from the previous, so every server is measured sending and receiving at once.

The upload is a text envelope: a ``GPK-DELIVERY-KIT 1`` line, ``key: value`` header lines
(host, peer, started, finished, facts), then one ``=== <file>`` section per test holding the
tool's own output unchanged (iperf3 ``-J``, ib_write_bw ``--report_gbits``, nccl-tests
``all_reduce_perf``), which the portal's benchmark parsers read.
"""

from __future__ import annotations

import hmac
import shlex
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from domain.messages import Message

from .models import Contract, ContractServer

KIT_MAGIC = "GPK-DELIVERY-KIT 1"
IPERF_PORT = 5301
IB_PORT = 18715
TEST_SECONDS = 20
CRON = "*/30 * * * *"
MAX_SECTIONS = 16


def contract_for_token(token: str) -> tuple[Contract | None, str]:
    """(the contract whose kit token this is, "") or (None, "invalid" | "expired")."""
    if not token or len(token) > 64:
        return None, "invalid"
    contract = Contract.objects.filter(kit_token=token).first()
    if contract is None or not hmac.compare_digest(contract.kit_token, token):
        return None, "invalid"
    if contract.kit_token_expires_at <= timezone.now():
        return None, "expired"
    return contract, ""


def ring_peer(host: str, hosts: list[str]) -> str | None:
    ordered = sorted(hosts)
    if len(ordered) < 2 or host not in ordered:
        return None
    return ordered[(ordered.index(host) + 1) % len(ordered)]


def _upload_url(request) -> str:  # type: ignore[no-untyped-def]
    return request.build_absolute_uri(reverse("contract-kit-upload"))


def kit_cron_line(contract: Contract, request) -> str:  # type: ignore[no-untyped-def]
    return f"{CRON} sh /opt/gpk/delivery-kit-$(hostname).sh >> /var/log/gpk-delivery.log 2>&1"


def kit_script(contract: Contract, *, host: str, servers: list[ContractServer], request) -> str:  # type: ignore[no-untyped-def]
    peer = ring_peer(host, [s.hostname for s in servers]) or ""
    q = shlex.quote
    head = [
        "#!/bin/sh",
        "# " + _("Delivery kit of contract %(c)s for server %(h)s (all servers run it at the "
                 "same minute).") % {"c": contract.title, "h": host},
        "# " + _("Install: copy to /opt/gpk/ on the server, then add this cron line:"),
        "#   " + kit_cron_line(contract, request),
        "# " + _("Needs iperf3 and curl; ib_write_bw (perftest) when RDMA_DEV is set; "
                 "all_reduce_perf (nccl-tests) runs only when no GPU is busy."),
        "set -u",
        f"PORTAL_URL={q(_upload_url(request))}",
        f"KIT_TOKEN={q(contract.kit_token)}",
        f"HOST={q(host)}",
        f"PEER={q(peer)}",
        f"SECONDS_PER_TEST={TEST_SECONDS}",
    ]  # fmt: skip
    body = r"""
OUT=$(mktemp -d) || exit 1
trap 'rm -rf "$OUT"' EXIT
# servers this host answers on (left running between runs)
pgrep -f "iperf3 -s -p __IPERF__" >/dev/null 2>&1 || iperf3 -s -p __IPERF__ -D
if [ -n "${RDMA_DEV:-}" ] && command -v ib_write_bw >/dev/null 2>&1; then
  ( ib_write_bw -d "$RDMA_DEV" -F --report_gbits -D "$SECONDS_PER_TEST" -q 4 -p __IB__ \
      >/dev/null 2>&1 & )
fi
sleep 5  # the peers start their servers in the same minute
STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
if [ -n "$PEER" ]; then
  iperf3 -c "$PEER" -p __IPERF__ -t "$SECONDS_PER_TEST" -P 4 -J > "$OUT/iperf3.json" 2>&1 &
  if [ -n "${RDMA_DEV:-}" ] && command -v ib_write_bw >/dev/null 2>&1; then
    ib_write_bw -d "$RDMA_DEV" -F --report_gbits -D "$SECONDS_PER_TEST" -q 4 -p __IB__ "$PEER" \
      > "$OUT/ib_write_bw.txt" 2>&1 &
  fi
fi
if command -v nvidia-smi >/dev/null 2>&1 && command -v all_reduce_perf >/dev/null 2>&1; then
  BUSY=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | wc -l)
  if [ "$BUSY" -eq 0 ]; then
    all_reduce_perf -b 256M -e 1G -f 2 -g "$(nvidia-smi -L | wc -l)" \
      > "$OUT/nccl_all_reduce.txt" 2>&1 &
  fi
fi
wait
FINISHED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
{
  echo "__MAGIC__"
  echo "host: $HOST"
  echo "peer: $PEER"
  echo "started: $STARTED"
  echo "finished: $FINISHED"
  echo "kernel: $(uname -r)"
  echo "cpus: $(nproc 2>/dev/null || echo ?)"
  echo "gpus: $(nvidia-smi -L 2>/dev/null | wc -l)"
  for f in "$OUT"/*; do
    [ -f "$f" ] || continue
    echo "=== $(basename "$f")"
    cat "$f"
    echo
  done
} > "$OUT/kit.txt"
curl -sS --max-time 120 -H "Authorization: Kit $KIT_TOKEN" -F "file=@$OUT/kit.txt" "$PORTAL_URL"
echo
"""
    body = (body.replace("__IPERF__", str(IPERF_PORT)).replace("__IB__", str(IB_PORT))
            .replace("__MAGIC__", KIT_MAGIC))  # fmt: skip
    return "\n".join(head) + "\n" + body


class KitEnvelopeError(ValueError):
    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(message.en)


@dataclass
class KitEnvelope:
    host: str
    peer: str
    started: datetime
    finished: datetime
    facts: dict[str, str]
    sections: list[tuple[str, bytes]] = field(default_factory=list)


def _bad(what: str, zh: str) -> KitEnvelopeError:
    return KitEnvelopeError(Message(
        "kit_envelope", f"This is not a delivery-kit upload: {what}.",
        f"这不是交付测试套件的上传文件：{zh}。"))  # fmt: skip


def _when(text: str, key: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise _bad(f"the '{key}' time cannot be read", f"无法读取“{key}”时间") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def read_envelope(data: bytes) -> KitEnvelope:
    """Split a kit upload into its header and its tests' raw outputs."""
    lines = data.split(b"\n")
    if not lines or lines[0].strip().decode("utf-8", "replace") != KIT_MAGIC:
        raise _bad(f"the first line must be '{KIT_MAGIC}'", f"第一行须为“{KIT_MAGIC}”")
    header: dict[str, str] = {}
    i = 1
    while i < len(lines) and not lines[i].startswith(b"=== "):
        text = lines[i].decode("utf-8", "replace")
        if ":" in text:
            key, value = text.split(":", 1)
            header[key.strip()] = value.strip()
        i += 1
    sections: list[tuple[str, bytes]] = []
    current: tuple[str, list[bytes]] | None = None
    for line in lines[i:]:
        if line.startswith(b"=== "):
            if current:
                sections.append((current[0], b"\n".join(current[1]).strip() + b"\n"))
            current = (line[4:].decode("utf-8", "replace").strip()[:80], [])
        elif current:
            current[1].append(line)
    if current:
        sections.append((current[0], b"\n".join(current[1]).strip() + b"\n"))
    if len(sections) > MAX_SECTIONS:
        raise _bad("too many sections", "分段过多")
    for key in ("host", "started", "finished"):
        if not header.get(key):
            raise _bad(f"the '{key}' line is missing", f"缺少“{key}”行")
    facts = {k: v for k, v in header.items() if k not in {"host", "peer", "started", "finished"}}
    return KitEnvelope(header["host"], header.get("peer", ""), _when(header["started"], "started"),
                       _when(header["finished"], "finished"), facts, sections)  # fmt: skip


def envelope_summary(env: KitEnvelope) -> dict[str, Any]:
    return {"host": env.host, "peer": env.peer, "started": env.started.isoformat(),
            "finished": env.finished.isoformat(), "facts": env.facts,
            "files": [name for name, _b in env.sections]}  # fmt: skip
