"""The delivery engine: a contract's terms and what was measured → episodes, credits, deadlines.

Rules in words (and their sources) in ``docs/DELIVERY.md``; in short:

- months are calendar months in the contract's time zone, clipped to the term; a month's fee is
  prorated when the term covers part of it;
- availability: host-hours of outage (incidents; an incident without hosts is every host) net of
  maintenance, over host-hours scheduled (in term, net of maintenance); the worst band reached
  pays;
- bandwidth: a window is *below* when a saturating measurement (the kit) delivered less than the
  threshold × the committed figure, *met* when any measurement reached it, *inconclusive* when only
  traffic counters saw less (an idle job is not a shortfall), *no data* otherwise; maintenance time
  is neither. Consecutive below windows of one host form an episode; an episode that lasts at
  least the minimum duration earns the clause's % per hour for its whole duration, on the host's
  share of the fee;
- latency: the same with "P99 above the committed figure";
- response / repair: each hour beyond the committed time, from the ticket's opening;
- the month's credits are capped at ``cap_pct`` of its fee; every credit's claim deadline is its
  episode's end + ``claim_window_days``, passed or not at ``now``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo

from domain.delivery import _sentences as say
from domain.delivery._timeline import (
    Interval,
    Month,
    local_text,
    merge,
    month_of,
    months,
    overlap,
    plus_days,
    subtract,
    utc,
)
from domain.delivery.report import (
    AVAILABILITY,
    BANDWIDTH,
    LATENCY,
    REPAIR,
    RESPONSE,
    Credit,
    DeliveryReport,
    Episode,
    MonthReport,
    TimelinePoint,
    TrackRecord,
    report_from_dict,
    report_to_dict,
)
from domain.delivery.terms import ContractTerms, OverrunClause, terms_problems
from domain.delivery.windows import Window
from domain.messages import Message

__all__ = [
    "Credit",
    "DeliveryReport",
    "Episode",
    "Incident",
    "MonthReport",
    "TimelinePoint",
    "TrackRecord",
    "evaluate",
    "report_from_dict",
    "report_to_dict",
    "track_record",
]


@dataclass(frozen=True)
class Incident:
    """An outage and its ticket (aware datetimes).

    ``end`` None: still going on (counted until ``now``). ``hosts`` empty: every contract host.
    ``opened_at`` is when the ticket was opened (default: the outage's start); ``responded_at`` /
    ``repaired_at`` None: not yet (an overrun then runs until ``now``).
    """

    start: datetime
    end: datetime | None
    hosts: tuple[str, ...] = ()
    opened_at: datetime | None = None
    responded_at: datetime | None = None
    repaired_at: datetime | None = None
    reference: str = ""


CENT = Decimal("0.01")
_EPS = 1e-6

# Per-window statuses for the month's hours.
MET, BELOW, INCONCLUSIVE, NO_DATA = "met", "below", "inconclusive", "no_data"


@dataclass
class _Cell:
    """One host in one window, clipped to the judged span, with what is known about it."""

    host: str
    start: float
    end: float
    net_s: float
    delivered: float | None
    saturating: bool
    coverage: float
    p99: float | None
    bandwidth: str = NO_DATA
    latency_above: bool | None = None


@dataclass
class _Ctx:
    terms: ContractTerms
    tz: ZoneInfo
    now: float
    t0: float
    t1: float
    n_hosts: int
    maintenance: list[Interval]
    months: list[Month]
    fees: dict[str, Decimal]
    episodes: list[Episode] = field(default_factory=list)
    credits: list[Credit] = field(default_factory=list)
    notes: list[Message] = field(default_factory=list)


def _cent(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _context(terms: ContractTerms, now: datetime) -> _Ctx:
    tz = ZoneInfo(terms.tz)
    t0 = terms.term_start.timestamp()
    t1 = min(terms.term_end.timestamp(), now.timestamp())
    month_list = months(t0, terms.term_end.timestamp(), now.timestamp(), tz)
    fees = {}
    for m in month_list:
        share = Decimal(str((m.term_end - m.term_start) / (m.full_end - m.full_start)))
        fees[m.label] = _cent(terms.monthly_fee * share)
    maint = merge((w.start.timestamp(), w.end.timestamp()) for w in terms.maintenance)
    return _Ctx(terms, tz, now.timestamp(), t0, t1, len(terms.hosts), maint, month_list, fees)


# --- windows → cells ---


def _cells(ctx: _Ctx, windows: Sequence[Window]) -> dict[str, list[_Cell]]:
    hosts = set(ctx.terms.hosts)
    grouped: dict[tuple[str, float, float], list[Window]] = defaultdict(list)
    strangers: set[str] = set()
    for w in windows:
        if w.host not in hosts:
            strangers.add(w.host)
            continue
        grouped[(w.host, w.start.timestamp(), w.end.timestamp())].append(w)
    if strangers:
        ctx.notes.append(
            Message(
                "windows_unknown_hosts",
                f"Measurements of {len(strangers)} host(s) not in the contract were ignored: "
                f"{', '.join(sorted(strangers)[:10])}.",
                f"忽略了 {len(strangers)} 台不在合同中的主机的测量："
                f"{', '.join(sorted(strangers)[:10])}。",
            )
        )
    out: dict[str, list[_Cell]] = defaultdict(list)
    for (host, start, end), ws in sorted(grouped.items()):
        a, b = max(start, ctx.t0), min(end, ctx.t1)
        if b <= a:
            continue
        net = (b - a) - overlap(a, b, ctx.maintenance)
        if net <= _EPS:
            continue
        cell = _judge(ctx, host, a, b, net, ws)
        out[host].append(cell)
    return out


def _judge(ctx: _Ctx, host: str, a: float, b: float, net: float, ws: list[Window]) -> _Cell:
    """What one host's window shows.

    A kit result below the threshold in a window whose counters carried at least the threshold is
    not a shortfall: the job was using the links while the kit ran, and the counters prove the
    capacity. So with both, the delivered figure is the larger of the kit's mean and the traffic.
    """
    sat = [w.delivered_gbps for w in ws if w.saturating and w.delivered_gbps is not None]
    traffic = [w.delivered_gbps for w in ws if not w.saturating and w.delivered_gbps is not None]
    lat = [w.p99_latency_us for w in ws if w.p99_latency_us is not None]
    delivered: float | None = None
    if sat:
        delivered = max([sum(sat) / len(sat), *traffic])
        coverage = 1.0
    elif traffic:
        delivered = max(traffic)
        coverage = max(min(w.coverage, 1.0) for w in ws if w.delivered_gbps is not None)
    else:
        coverage = 1.0 if lat else 0.0
    cell = _Cell(host, a, b, net, delivered, bool(sat), coverage, max(lat) if lat else None)
    committed = ctx.terms.commitment.bandwidth_gbps_per_server
    if delivered is not None and committed is not None:
        clause = ctx.terms.schedule.bandwidth
        threshold = committed * (clause.threshold_fraction if clause else 1.0)
        if delivered >= threshold:
            cell.bandwidth = MET
        else:
            cell.bandwidth = BELOW if sat else INCONCLUSIVE
    elif delivered is not None:
        cell.bandwidth = MET  # nothing committed to fall short of
    committed_lat = ctx.terms.commitment.p99_latency_us
    if committed_lat is not None and cell.p99 is not None:
        cell.latency_above = cell.p99 > committed_lat
    return cell


def _status(cell: _Cell) -> str:
    """The window's status for the month's hours: a breach on either figure is a breach; else
    what bandwidth showed; a window where only latency was measured (and met) is met."""
    if cell.bandwidth == BELOW or cell.latency_above:
        return BELOW
    if cell.bandwidth != NO_DATA:
        return cell.bandwidth
    return MET if cell.latency_above is False else NO_DATA


# --- episodes ---


def _runs(cells: list[_Cell], bad: str) -> list[list[_Cell]]:
    """Runs of consecutive (adjacent in time) cells that are bad in the sense ``bad``."""
    runs: list[list[_Cell]] = []
    current: list[_Cell] = []
    for cell in cells:
        is_bad = cell.bandwidth == BELOW if bad == BANDWIDTH else cell.latency_above is True
        if is_bad and current and abs(cell.start - current[-1].end) < _EPS:
            current.append(cell)
        elif is_bad:
            if current:
                runs.append(current)
            current = [cell]
        else:
            if current:
                runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def _deadline(ctx: _Ctx, end: float) -> tuple[datetime, bool]:
    deadline = plus_days(end, ctx.terms.schedule.claim_window_days)
    return deadline, deadline.timestamp() < ctx.now


def _window_episodes(ctx: _Ctx, cells: dict[str, list[_Cell]], kind: str) -> None:
    schedule, commitment = ctx.terms.schedule, ctx.terms.commitment
    clause = schedule.bandwidth if kind == BANDWIDTH else schedule.latency
    committed = (
        commitment.bandwidth_gbps_per_server if kind == BANDWIDTH else commitment.p99_latency_us
    )
    if committed is None:
        return
    min_minutes = clause.min_duration_minutes if clause else 0.0
    rate = clause.credit_pct_per_hour if clause else 0.0
    for host in sorted(cells):
        for run in _runs(cells[host], kind):
            hours = sum(c.net_s for c in run) / 3600.0
            credited = clause is not None and hours * 60.0 >= min_minutes - _EPS
            breach = hours * 60.0 >= min_minutes - _EPS
            start, end = run[0].start, run[-1].end
            figures = [c.delivered if kind == BANDWIDTH else c.p99 for c in run]
            values = [f for f in figures if f is not None]
            worst = min(values) if kind == BANDWIDTH else max(values)
            mean = sum(f * c.net_s for f, c in zip(values, run, strict=True)) / sum(
                c.net_s for c in run
            )
            sentence = _window_sentence(ctx, kind, host, run, hours, worst, mean, credited)
            deadline, passed = _deadline(ctx, end)
            episode = Episode(
                kind=kind,
                host=host,
                start=utc(start),
                end=utc(end),
                duration_h=hours,
                committed=committed,
                worst=worst,
                mean=mean,
                unit="Gbit/s" if kind == BANDWIDTH else "µs",
                credited=credited,
                claim_deadline=deadline,
                claim_deadline_passed=passed,
                sentence=sentence,
                breach=breach,
            )
            ctx.episodes.append(episode)
            if credited:
                _credit_by_month(ctx, episode, run, rate)


def _window_sentence(
    ctx: _Ctx,
    kind: str,
    host: str,
    run: list[_Cell],
    hours: float,
    worst: float,
    mean: float,
    credited: bool,
) -> Message:
    start, end = local_text(run[0].start, ctx.tz), local_text(run[-1].end, ctx.tz)
    commitment, schedule = ctx.terms.commitment, ctx.terms.schedule
    if kind == BANDWIDTH:
        committed = commitment.bandwidth_gbps_per_server or 0.0
        bw = schedule.bandwidth
        fraction = bw.threshold_fraction if bw else 1.0
        return say.shortfall(
            host=host,
            start=start,
            end=end,
            tz=ctx.terms.tz,
            hours=hours,
            worst=worst,
            mean=mean,
            committed=committed,
            threshold=committed * fraction,
            fraction=fraction,
            credited=credited,
            has_clause=bw is not None,
            min_minutes=bw.min_duration_minutes if bw else 0.0,
            rate_pct=bw.credit_pct_per_hour if bw else 0.0,
        )
    lat = schedule.latency
    return say.latency(
        host=host,
        start=start,
        end=end,
        tz=ctx.terms.tz,
        hours=hours,
        worst=worst,
        committed=commitment.p99_latency_us or 0.0,
        credited=credited,
        has_clause=lat is not None,
        min_minutes=lat.min_duration_minutes if lat else 0.0,
        rate_pct=lat.credit_pct_per_hour if lat else 0.0,
    )


def _credit_by_month(ctx: _Ctx, episode: Episode, run: list[_Cell], rate: float) -> None:
    """The clause's % per hour on this server's share of the fee, split by calendar month."""
    hours: dict[str, float] = defaultdict(float)
    for cell in run:
        month = month_of(cell.start, ctx.months)
        if month is not None:
            hours[month.label] += cell.net_s / 3600.0
    for label, h in sorted(hours.items()):
        _add_credit(ctx, episode, label, rate * h / ctx.n_hosts)


def _add_credit(ctx: _Ctx, episode: Episode, label: str, pct: float) -> None:
    fee = ctx.fees[label]
    amount = _cent(fee * Decimal(str(pct)) / 100)
    ctx.credits.append(
        Credit(
            clause=episode.kind,
            month=label,
            episode_index=len(ctx.episodes) - 1,
            credit_pct=pct,
            credit_amount=amount,
            currency=ctx.terms.currency,
            claim_deadline=episode.claim_deadline,
            claim_deadline_passed=episode.claim_deadline_passed,
            sentence=say.credit(episode.sentence, pct, amount, ctx.terms.currency, label),
        )
    )


# --- incidents: availability and overruns ---


def _downtime(ctx: _Ctx, incidents: Sequence[Incident]) -> dict[str, list[Interval]]:
    """Per host, the merged outage intervals in the judged span, maintenance removed."""
    raw: dict[str, list[Interval]] = defaultdict(list)
    hosts = set(ctx.terms.hosts)
    for inc in incidents:
        start = max(inc.start.timestamp(), ctx.t0)
        end = min(inc.end.timestamp() if inc.end else ctx.now, ctx.t1)
        if end <= start:
            continue
        for host in [h for h in inc.hosts if h in hosts] if inc.hosts else ctx.terms.hosts:
            raw[host].append((start, end))
    return {h: subtract(merge(iv), ctx.maintenance) for h, iv in raw.items()}


def _availability(ctx: _Ctx, month: Month, down: dict[str, list[Interval]]) -> tuple[float, float]:
    """(scheduled seconds per server, downtime seconds per server) of the month."""
    scheduled = (month.end - month.start) - overlap(month.start, month.end, ctx.maintenance)
    lost = sum(overlap(month.start, month.end, iv) for iv in down.values())
    return scheduled, lost / ctx.n_hosts


def _in_progress(ctx: _Ctx, month: Month) -> bool:
    """The month (as far as the term covers it) has not ended at ``now``."""
    return ctx.now < min(month.full_end, ctx.terms.term_end.timestamp())


def _availability_episode(ctx: _Ctx, month: Month, scheduled: float, lost: float) -> float | None:
    if scheduled <= _EPS:
        return None
    # Rounded to a millionth of a percent so that a month exactly at a band's edge is judged as
    # written (99.9 is not "below 99.9" because of a float's last bit).
    pct = round(100.0 * (1.0 - lost / scheduled), 6)
    if _in_progress(ctx, month):
        # Availability is a whole month's figure: the rest of the month can only raise it, so a
        # band reached so far is no credit yet (the month's sentence says "month in progress").
        return pct
    committed = ctx.terms.commitment.availability_pct
    reached = [b for b in ctx.terms.schedule.availability_bands if pct < b.below_pct]
    band = max(reached, key=lambda b: b.credit_pct) if reached else None
    if band is None and (committed is None or pct >= committed):
        return pct
    end = min(month.full_end, ctx.terms.term_end.timestamp())
    deadline, passed = _deadline(ctx, end)
    episode = Episode(
        kind=AVAILABILITY,
        host="",
        start=utc(month.start),
        end=utc(end),
        duration_h=lost / 3600.0,
        committed=committed,
        worst=pct,
        mean=pct,
        unit="%",
        credited=band is not None,
        claim_deadline=deadline,
        claim_deadline_passed=passed,
        sentence=say.availability(
            month=month.label,
            availability_pct=pct,
            committed_pct=committed,
            downtime_h=lost / 3600.0,
            band=None if band is None else (band.below_pct, band.credit_pct),
        ),
        breach=committed is not None and pct < committed or band is not None,
    )
    ctx.episodes.append(episode)
    if band is not None:
        _add_credit(ctx, episode, month.label, band.credit_pct)
    return pct


def _overruns(ctx: _Ctx, incidents: Sequence[Incident]) -> None:
    commitment = ctx.terms.commitment
    clauses: dict[str, OverrunClause] = {o.kind: o for o in ctx.terms.schedule.overruns}
    for inc in sorted(incidents, key=lambda i: i.start):
        opened = (inc.opened_at or inc.start).timestamp()
        for kind, committed_h, done in (
            (
                RESPONSE,
                None if commitment.response_minutes is None else commitment.response_minutes / 60,
                inc.responded_at,
            ),
            (REPAIR, commitment.repair_hours, inc.repaired_at),
        ):
            if committed_h is None or opened > ctx.now:
                continue
            finish = done.timestamp() if done else ctx.now
            over_h = (finish - opened) / 3600.0 - committed_h
            if over_h <= _EPS:
                continue
            clause = clauses.get(kind)
            over_start = opened + committed_h * 3600.0
            deadline, passed = _deadline(ctx, finish)
            rate = clause.credit_pct_per_hour if clause else 0.0
            episode = Episode(
                kind=kind,
                host=",".join(inc.hosts),
                start=utc(over_start),
                end=utc(finish),
                duration_h=over_h,
                committed=committed_h,
                worst=(finish - opened) / 3600.0,
                mean=None,
                unit="h",
                credited=clause is not None,
                claim_deadline=deadline,
                claim_deadline_passed=passed,
                sentence=say.overrun(
                    kind=kind,
                    reference=inc.reference,
                    opened=local_text(opened, ctx.tz),
                    tz=ctx.terms.tz,
                    committed_h=committed_h,
                    taken_h=(finish - opened) / 3600.0,
                    over_h=over_h,
                    ongoing=done is None,
                    has_clause=clause is not None,
                    rate_pct=rate,
                ),
                reference=inc.reference,
            )
            ctx.episodes.append(episode)
            month = month_of(over_start, ctx.months)
            if clause is not None and month is not None:
                _add_credit(ctx, episode, month.label, rate * over_h)


# --- months, timeline, totals ---


def _hours(ctx: _Ctx, month: Month, cells: dict[str, list[_Cell]]) -> dict[str, float]:
    """Per-server hours of the month by status (breach also covers latency excess)."""
    total = {MET: 0.0, BELOW: 0.0, INCONCLUSIVE: 0.0}
    for host_cells in cells.values():
        for c in host_cells:
            if not (month.start <= c.start < month.end):
                continue
            status = _status(c)
            if status == NO_DATA:
                continue
            share = c.coverage if not c.saturating and c.p99 is None else 1.0
            # A monitoring window counts for the share of it that was covered; the rest is no data.
            total[status] += c.net_s * share
    return {k: v / ctx.n_hosts / 3600.0 for k, v in total.items()}


def _month_report(
    ctx: _Ctx, month: Month, cells: dict[str, list[_Cell]], down: dict[str, list[Interval]]
) -> MonthReport:
    scheduled, lost = _availability(ctx, month, down)
    availability = _availability_episode(ctx, month, scheduled, lost)
    hours = _hours(ctx, month, cells)
    scheduled_h = scheduled / 3600.0
    no_data_h = max(0.0, scheduled_h - sum(hours.values()))
    credits = [c for c in ctx.credits if c.month == month.label]
    uncapped = sum(c.credit_pct for c in credits)
    cap = ctx.terms.schedule.cap_pct
    fee = ctx.fees[month.label]
    cap_amount = _cent(fee * Decimal(str(cap)) / 100)
    amount = min(sum((c.credit_amount for c in credits), Decimal(0)), cap_amount)
    claimable = min(
        sum((c.credit_amount for c in credits if not c.claim_deadline_passed), Decimal(0)),
        cap_amount,
    )
    delivered = [
        (c.delivered, c.net_s)
        for cs in cells.values()
        for c in cs
        if month.start <= c.start < month.end and c.delivered is not None
    ]
    weight = sum(w for _, w in delivered)
    in_progress = _in_progress(ctx, month)
    return MonthReport(
        month=month.label,
        start=utc(month.start),
        end=utc(month.end),
        fee_amount=fee,
        scheduled_h=scheduled_h,
        maintenance_h=overlap(month.start, month.end, ctx.maintenance) / 3600.0,
        downtime_h=lost / 3600.0,
        availability_pct=availability,
        compliant_h=hours[MET],
        breach_h=hours[BELOW],
        inconclusive_h=hours[INCONCLUSIVE],
        no_data_h=no_data_h,
        delivered_gbps_mean=sum(d * w for d, w in delivered) / weight if weight else None,
        credits_pct_uncapped=uncapped,
        credits_pct=min(uncapped, cap),
        cap_applied=uncapped > cap,
        credit_amount=amount,
        claimable_amount=claimable,
        sentence=say.month_summary(
            month=month.label,
            availability_pct=availability,
            breach_h=hours[BELOW],
            inconclusive_h=hours[INCONCLUSIVE],
            no_data_h=no_data_h,
            scheduled_h=scheduled_h,
            uncapped=uncapped,
            capped=min(uncapped, cap),
            cap=cap,
            amount=amount,
            currency=ctx.terms.currency,
            in_progress=in_progress,
        ),
        in_progress=in_progress,
    )


def _timeline(ctx: _Ctx, cells: dict[str, list[_Cell]]) -> tuple[TimelinePoint, ...]:
    by_start: dict[tuple[float, float], list[_Cell]] = defaultdict(list)
    for cs in cells.values():
        for c in cs:
            by_start[(c.start, c.end)].append(c)
    points = []
    for (start, end), cs in sorted(by_start.items()):
        figures = [c.delivered for c in cs if c.delivered is not None]
        latencies = [c.p99 for c in cs if c.p99 is not None]
        measured = sum(1 for c in cs if c.delivered is not None or c.p99 is not None)
        points.append(
            TimelinePoint(
                start=utc(start),
                end=utc(end),
                delivered_gbps_min=min(figures) if figures else None,
                delivered_gbps_mean=sum(figures) / len(figures) if figures else None,
                p99_latency_us_max=max(latencies) if latencies else None,
                hosts_measured=measured,
                hosts_below=sum(1 for c in cs if c.bandwidth == BELOW or c.latency_above),
                hosts_no_data=ctx.n_hosts - measured,
                hosts_inconclusive=sum(1 for c in cs if c.bandwidth == INCONCLUSIVE),
            )
        )
    return tuple(points)


def _delivered_ratio(ctx: _Ctx, cells: dict[str, list[_Cell]]) -> tuple[float, float | None]:
    """Server-hours with a saturating measurement, and delivered ÷ committed over them (each
    window counted at most at 100 %)."""
    committed = ctx.terms.commitment.bandwidth_gbps_per_server
    pairs = [
        (c.delivered, c.net_s)
        for cs in cells.values()
        for c in cs
        if c.saturating and c.delivered is not None
    ]
    hours = sum(w for _, w in pairs) / 3600.0
    if not pairs or committed is None:
        return hours, None
    weight = sum(w for _, w in pairs)
    return hours, sum(min(d / committed, 1.0) * w for d, w in pairs) / weight


def evaluate(
    terms: ContractTerms,
    windows: Sequence[Window],
    incidents: Sequence[Incident],
    *,
    now: datetime,
) -> DeliveryReport:
    """Judge a contract's delivery up to ``now`` (the part of the term after ``now`` is ignored).

    ``windows`` may mix monitoring and kit windows of the same grid (see ``windows``); windows of
    hosts not in the contract are ignored (and said). Raises ``ValueError`` when
    ``terms_problems`` finds anything (the caller validates first and shows those messages).
    """
    problems = terms_problems(terms)
    if problems:
        raise ValueError("; ".join(m.en for m in problems))
    ctx = _context(terms, now)
    cells = _cells(ctx, windows)
    _window_episodes(ctx, cells, BANDWIDTH)
    _window_episodes(ctx, cells, LATENCY)
    _overruns(ctx, incidents)
    down = _downtime(ctx, incidents)
    month_reports = tuple(_month_report(ctx, m, cells, down) for m in ctx.months)
    if not windows:
        ctx.notes.append(
            Message(
                "no_measurements",
                "No delivery measurement yet: every hour counts as without data.",
                "尚无交付测量数据：所有时段均计为无数据。",
            )
        )
    measured_h, ratio = _delivered_ratio(ctx, cells)
    return DeliveryReport(
        currency=terms.currency,
        commitment=terms.commitment,
        computed_at=now,
        months=month_reports,
        episodes=tuple(ctx.episodes),
        credits=tuple(ctx.credits),
        timeline=_timeline(ctx, cells),
        notes=tuple(ctx.notes),
        measured_h=measured_h,
        delivered_ratio=ratio,
        breaches=sum(1 for e in ctx.episodes if e.breach),
        credit_amount=sum((m.credit_amount for m in month_reports), Decimal(0)),
        claimable_amount=sum((m.claimable_amount for m in month_reports), Decimal(0)),
    )


def track_record(reports: Iterable[DeliveryReport]) -> TrackRecord:
    """A vendor's standing over its contracts' stored reports (see ``TrackRecord``)."""
    contracts = 0
    measured = weighted = 0.0
    breaches = 0
    amounts: dict[str, Decimal] = defaultdict(Decimal)
    for r in reports:
        contracts += 1
        breaches += r.breaches
        amounts[r.currency] += r.credit_amount
        if r.delivered_ratio is not None and r.measured_h > 0:
            measured += r.measured_h
            weighted += r.delivered_ratio * r.measured_h
    ratio = weighted / measured if measured > 0 else None
    ratio_en = f"{ratio:.1%} of the committed bandwidth" if ratio is not None else "no measurement"
    ratio_zh = f"承诺带宽的 {ratio:.1%}" if ratio is not None else "暂无测量"
    return TrackRecord(
        contracts=contracts,
        measured_h=measured,
        delivered_ratio=ratio,
        breaches=breaches,
        credit_amounts=tuple(sorted(amounts.items())),
        sentence=Message(
            "track_record",
            f"Over {contracts} contract(s) and {measured:.0f} measured server-hours: delivered "
            f"{ratio_en}, {breaches} breach(es).",
            f"共 {contracts} 份合同、{measured:.0f} 个已测服务器小时：交付{ratio_zh}，"
            f"违约 {breaches} 次。",
        ),
    )
