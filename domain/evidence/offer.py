"""The one rule turning all of an offer's evidence into its per-server bandwidth (DOMAIN.md §9).

- A multi-host collective is the strongest evidence: NCCL drove every NIC of every server it ran
  on. With every GPU of a server in the test, the bus bandwidth per rank is already the server's
  whole network figure (a ring crossing servers runs one channel per NIC, so each rank's busbw is
  the sum over the server's NICs; NCCL maintainers in NVIDIA/nccl#412): it is the figure as it
  stands. A test with fewer ranks per host drove that many NICs; its figure is scaled to the
  server's GPUs and counts as not tested together. Kind ``collective``.
- Otherwise one link kind is used (RDMA bandwidth before TCP throughput; kinds are never pooled):
  per-port results are scaled by the ports the offer has, and bounded by every set of ports that
  ran at the same time (its per-port P5 × ports). The lowest of these is the figure (kind
  ``link``: per-server NIC capacity the model treats exactly as the nominal NICs × rate, fabric
  efficiency included).
- Repeats of one link give the typical figure and the worst; they are never summed.
- UDP at a set rate is never capacity; latency never feeds bandwidth; a one-server collective
  measures NVLink/PCIe, not the network.

Logs without a clock on distinct links are *unplaced* (``sets.py``): counted link by link like
ports tested one at a time, never as a simultaneous set, unless their test run is declared
simultaneous by its uploader; the sentence then says the set rests on that declaration.

Uncertainty: ``low``…``high`` spans the repeats (worst to best) and the set's P5…P50; ports not
tested together widen the low end by ``NOT_TOGETHER_MARGIN`` × the share of ports not covered by
one simultaneous test. That margin is this project's assumption (ports of one server share PCIe
switches, the host's memory bandwidth and the leaf uplinks, which a one-port test cannot see), not
a published figure; docs/EVIDENCE.md says so.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from domain.benchlogs.measures import percentile
from domain.evidence import texts
from domain.evidence.linkrates import achievable_gbps
from domain.evidence.scope import (
    COLLECTIVE_BUSBW,
    ONE_HOST,
    RDMA_BANDWIDTH,
    RDMA_LATENCY,
    TCP_THROUGHPUT,
    UDP_AT_RATE,
    Evidence,
)
from domain.evidence.sets import ConcurrentSet, Grouped, Repeats, group
from domain.messages import Message

NOT_TOGETHER_MARGIN = 0.10
LINK_KINDS = (RDMA_BANDWIDTH, TCP_THROUGHPUT)

# What the model treats the figure as (the Offer contract of domain/ranking/inputs.py).
LINK = "link"
COLLECTIVE = "collective"


@dataclass(frozen=True)
class OfferPorts:
    """The offer's network as quoted: NICs per server, line rate per NIC, GPUs per server."""

    ports: int
    port_gbps: float
    gpus_per_server: int
    gpu: str = ""  # the offer's GPU (a key of the GPU table, e.g. "H100-SXM"), when known
    fabric: str = ""  # ib, roce or tcp, when known

    @property
    def nominal_gbps(self) -> float:
        return self.ports * self.port_gbps

    @property
    def achievable_gbps(self) -> float:
        """What the offer's ports can carry per server (``linkrates.achievable_gbps``): the
        most a claim is worth and the most evidence is credited. Without a fabric, nominal."""
        if not self.fabric:
            return self.nominal_gbps
        return self.ports * achievable_gbps(self.fabric, self.port_gbps)


@dataclass(frozen=True)
class OfferFigure:
    """An offer's per-server figure (Gbit/s), its range and how it was derived."""

    gbps: float  # typical: the figure the offer is priced at
    low_gbps: float
    high_gbps: float
    kind: str  # LINK or COLLECTIVE (model contract)
    evidence_kind: str  # COLLECTIVE_BUSBW, RDMA_BANDWIDTH or TCP_THROUGHPUT
    ports: int
    ports_tested: int
    tested_together: bool
    explanation: Message
    notes: tuple[Message, ...] = ()
    capped: bool = False
    worst_gbps: float | None = None  # the lowest test's figure, scaled like ``gbps``
    # Logs without a clock on two or more links of runs not declared simultaneous: counted link
    # by link (``sets.Grouped.unplaced``); the figure's sentence says so.
    unplaced: int = 0
    # The simultaneous set the figure rests on was taken on its run's declaration, not on clocks.
    together_declared: bool = False

    @property
    def typical_gbps(self) -> float:
        return self.gbps


@dataclass(frozen=True)
class _Candidate:
    gbps: float
    low: float
    high: float
    tested: int
    together: bool
    sentence: Message
    worst: float = 0.0
    declared: bool = False


def derive(evidence: Sequence[Evidence], offer: OfferPorts) -> OfferFigure | None:
    """The offer's per-server figure from all its evidence; None when nothing measured capacity."""
    notes = _left_out(evidence)
    usable = [e for e in evidence if e.counts_as_capacity]
    kinds = {e.kind for e in usable}
    if COLLECTIVE_BUSBW in kinds:
        chosen = COLLECTIVE_BUSBW
        # A collective drives the whole server: two are never one set, declared or not.
        candidate = _collective(group(chosen, usable, honour_declaration=False), offer)
        unplaced = 0
    else:
        chosen = next((k for k in LINK_KINDS if k in kinds), "")
        if not chosen:
            return None
        grouped = group(chosen, usable)
        candidate = _links(grouped, offer)
        unplaced = len(grouped.unplaced) if grouped.unplaced_matters else 0
    for kind in sorted(kinds - {chosen}):
        notes.append(texts.kind_kept_apart(kind, chosen, sum(e.kind == kind for e in usable)))
    figure = OfferFigure(
        gbps=candidate.gbps,
        low_gbps=min(candidate.low, candidate.gbps),
        high_gbps=max(candidate.high, candidate.gbps),
        kind=COLLECTIVE if chosen == COLLECTIVE_BUSBW else LINK,
        evidence_kind=chosen,
        ports=offer.ports,
        ports_tested=candidate.tested,
        tested_together=candidate.together,
        explanation=candidate.sentence,
        notes=tuple(notes),
        worst_gbps=min(candidate.worst or candidate.gbps, candidate.gbps),
        unplaced=unplaced,
        together_declared=candidate.together and candidate.declared,
    )
    return _cap(figure, offer.achievable_gbps)


def _collective(grouped: Grouped, offer: OfferPorts) -> _Candidate:
    """The largest collective (most ranks); its repeats give typical, worst and best."""
    runs = sorted(grouped.repeats, key=lambda r: (r.logs[0].ranks or 0, r.typical_gbps))
    biggest = runs[-1]
    first = biggest.logs[0]
    gpus = offer.gpus_per_server
    per_host = _ranks_per_host(first.hosts, first.ranks, gpus)
    scale = gpus / per_host
    # NICs a test with fewer ranks per host left idle widen the low end like untested ports.
    margin = _margin(offer.ports, min(offer.ports, per_host)) if per_host < gpus else 0.0
    return _Candidate(
        gbps=biggest.typical_gbps * scale,
        low=biggest.worst_gbps * scale * (1 - margin),
        high=biggest.best_gbps * scale,
        tested=offer.ports if per_host >= gpus else min(offer.ports, per_host),
        together=per_host >= gpus,
        sentence=texts.collective(biggest.typical_gbps, per_host, gpus, first.hosts, first.ranks),
        worst=biggest.worst_gbps * scale,
    )


def _ranks_per_host(hosts: int | None, ranks: int | None, gpus: int) -> int:
    """Ranks the collective ran on each host: every GPU of the server unless the log says less."""
    if hosts and ranks and ranks >= hosts:
        return max(1, min(gpus, ranks // hosts))
    return gpus


def _links(grouped: Grouped, offer: OfferPorts) -> _Candidate:
    """Separate per-port tests scaled to the offer's ports, bounded by each simultaneous set."""
    candidates = [_from_set(s, offer.ports) for s in grouped.sets]
    if grouped.repeats:
        candidates.append(
            _from_separate(grouped.repeats, offer.ports, unplaced=grouped.unplaced_matters)
        )
    binding = min(candidates, key=lambda c: c.gbps)
    others = [c for c in candidates if c is not binding]
    sentence = binding.sentence
    strongest = max(candidates, key=lambda c: (c.together, c.tested))
    if strongest is not binding and strongest.gbps > binding.gbps:
        sentence = texts.with_bound(strongest.sentence, binding.sentence)
    return replace(
        binding,
        low=min([binding.low, *(c.low for c in others)]),
        worst=min([binding.worst, *(c.worst for c in others)]),
        sentence=sentence,
    )


def _from_set(found: ConcurrentSet, ports: int) -> _Candidate:
    per_port = found.tail_gbps or 0.0
    median = percentile(found.pooled, 0.5) or per_port
    tested = min(found.links, ports)
    margin = _margin(ports, tested)
    return _Candidate(
        gbps=per_port * ports,
        low=per_port * ports * (1 - margin),
        high=median * ports,
        tested=found.links,
        together=True,
        sentence=texts.ports_together(
            ports, per_port, found.links, found.aggregate_gbps, declared=found.declared
        ),
        worst=min(found.figures) * ports if found.figures else per_port * ports,
        declared=found.declared,
    )


def _from_separate(repeats: Sequence[Repeats], ports: int, *, unplaced: bool = False) -> _Candidate:
    """Ports tested one at a time (or unplaced: no clock says when): the typical port (median
    of each port's typical figure)."""
    per_port = float(statistics.median(r.typical_gbps for r in repeats))
    worst = min(r.worst_gbps for r in repeats)
    best = max(r.best_gbps for r in repeats)
    tests = sum(len(r.logs) for r in repeats)
    margin = _margin(ports, 1)
    return _Candidate(
        gbps=per_port * ports,
        low=worst * ports * (1 - margin),
        high=best * ports,
        tested=len(repeats),
        together=False,
        sentence=(
            texts.ports_unplaced(ports, per_port, len(repeats), tests)
            if unplaced
            else texts.one_port_at_a_time(ports, per_port, len(repeats), tests)
        ),
        worst=worst * ports,
    )


def _margin(ports: int, together: int) -> float:
    """The share of the offer's ports no simultaneous test covered, times the margin."""
    if ports <= 0:
        return 0.0
    return NOT_TOGETHER_MARGIN * max(0, ports - together) / ports


def credited_gbps(offer: OfferPorts, figure: OfferFigure | None) -> float:
    """The per-server bandwidth an offer is credited: a claim at what its ports can carry
    (data rate after line encoding, less headers: ``OfferPorts.achievable_gbps``), admitted
    evidence at what it measured, never more than the claim. So clean evidence never costs more
    than its twin's claim, except by its own shortfall below the achievable rate."""
    ceiling = offer.achievable_gbps
    if figure is None:
        return ceiling
    return min(figure.gbps, ceiling) if ceiling > 0 else figure.gbps


def _cap(figure: OfferFigure, nominal: float) -> OfferFigure:
    """Evidence cannot show more than the offer's ports carry: figures above are capped."""
    if nominal <= 0:
        return figure
    if figure.gbps <= nominal:
        return replace(figure, high_gbps=min(figure.high_gbps, nominal))
    return replace(
        figure,
        gbps=nominal,
        worst_gbps=min(figure.worst_gbps or nominal, nominal),
        low_gbps=min(figure.low_gbps, nominal),
        high_gbps=nominal,
        capped=True,
        notes=(*figure.notes, texts.capped(nominal)),
    )


def _left_out(evidence: Sequence[Evidence]) -> list[Message]:
    notes = []
    udp = [e for e in evidence if e.kind == UDP_AT_RATE]
    if udp:
        targets = {e.target_gbps for e in udp}
        notes.append(texts.udp_not_capacity(len(udp), targets.pop() if len(targets) == 1 else None))
    latency = sum(e.kind == RDMA_LATENCY for e in evidence)
    if latency:
        notes.append(texts.latency_not_bandwidth(latency))
    inside = sum(e.scope == ONE_HOST for e in evidence)
    if inside:
        notes.append(texts.one_host(inside))
    return notes
