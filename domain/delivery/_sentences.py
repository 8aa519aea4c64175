"""The engine's bilingual sentences: what happened, which clause applies, what it pays."""

from __future__ import annotations

from decimal import Decimal

from domain.messages import Message


def money(amount: Decimal, currency: str) -> str:
    return f"{currency} {amount:,.2f}"


def shortfall(
    *,
    host: str,
    start: str,
    end: str,
    tz: str,
    hours: float,
    worst: float,
    mean: float,
    committed: float,
    threshold: float,
    fraction: float,
    credited: bool,
    has_clause: bool,
    min_minutes: float,
    rate_pct: float,
) -> Message:
    head_en = (
        f"{host} delivered {mean:.1f} Gbit/s on average (lowest {worst:.1f}) against "
        f"{committed:g} Gbit/s committed, below the threshold of {fraction:.0%} "
        f"({threshold:.1f} Gbit/s) for {hours:.2f} h, from {start} to {end} ({tz})"
    )
    head_zh = (
        f"{host} 在 {start} 至 {end}（{tz}）期间平均交付 {mean:.1f} Gbit/s（最低 {worst:.1f}），"
        f"承诺 {committed:g} Gbit/s，低于 {fraction:.0%} 阈值（{threshold:.1f} Gbit/s）"
        f"共 {hours:.2f} 小时"
    )
    return _tail(head_en, head_zh, "bandwidth", "带宽", credited, has_clause, min_minutes, rate_pct)


def latency(
    *,
    host: str,
    start: str,
    end: str,
    tz: str,
    hours: float,
    worst: float,
    committed: float,
    credited: bool,
    has_clause: bool,
    min_minutes: float,
    rate_pct: float,
) -> Message:
    head_en = (
        f"{host}'s P99 latency was above the committed {committed:g} µs (highest {worst:.1f} µs) "
        f"for {hours:.2f} h, from {start} to {end} ({tz})"
    )
    head_zh = (
        f"{host} 在 {start} 至 {end}（{tz}）期间 P99 延迟高于承诺的 {committed:g} µs"
        f"（最高 {worst:.1f} µs），共 {hours:.2f} 小时"
    )
    return _tail(head_en, head_zh, "latency", "延迟", credited, has_clause, min_minutes, rate_pct)


def _tail(
    head_en: str,
    head_zh: str,
    what: str,
    what_zh: str,
    credited: bool,
    has_clause: bool,
    min_minutes: float,
    rate_pct: float,
) -> Message:
    if not has_clause:
        return Message(
            f"{what}_episode_no_clause",
            f"{head_en}. The schedule has no {what} clause: shown, not credited.",
            f"{head_zh}。赔付表中没有{what_zh}条款：仅展示，不计赔付。",
        )
    if not credited:
        return Message(
            f"{what}_episode_too_short",
            f"{head_en}. Shorter than the {what} clause's minimum of {min_minutes:g} minutes: "
            f"no credit.",
            f"{head_zh}。短于{what_zh}条款规定的最短 {min_minutes:g} 分钟：不计赔付。",
        )
    return Message(
        f"{what}_episode",
        f"{head_en}. The {what} clause pays {rate_pct:g} % of the month's fee per hour, on this "
        f"server's share of the fee.",
        f"{head_zh}。按{what_zh}条款，每小时赔付月费的 {rate_pct:g}%（按该服务器所占月费份额计）。",
    )


def overrun(
    *,
    kind: str,
    reference: str,
    opened: str,
    tz: str,
    committed_h: float,
    taken_h: float,
    over_h: float,
    ongoing: bool,
    has_clause: bool,
    rate_pct: float,
) -> Message:
    what_zh = "响应" if kind == "response" else "修复"
    ref = f" {reference}" if reference else ""
    state_en = " and is still open" if ongoing else ""
    state_zh = "，且尚未完成" if ongoing else ""
    head_en = (
        f"The {kind} to incident{ref} (ticket opened {opened}, {tz}) took {taken_h:.2f} h"
        f"{state_en}, {over_h:.2f} h beyond the committed {committed_h:g} h"
    )
    head_zh = (
        f"事件{ref}（工单于 {opened} 开启，{tz}）的{what_zh}用时 {taken_h:.2f} 小时{state_zh}，"
        f"超出承诺的 {committed_h:g} 小时 {over_h:.2f} 小时"
    )
    if not has_clause:
        return Message(
            f"{kind}_overrun_no_clause",
            f"{head_en}. The schedule has no {kind} clause: shown, not credited.",
            f"{head_zh}。赔付表中没有{what_zh}超时条款：仅展示，不计赔付。",
        )
    return Message(
        f"{kind}_overrun",
        f"{head_en}. The {kind} clause pays {rate_pct:g} % of the month's fee per hour of overrun.",
        f"{head_zh}。按{what_zh}超时条款，每超时 1 小时赔付月费的 {rate_pct:g}%。",
    )


def availability(
    *,
    month: str,
    availability_pct: float,
    committed_pct: float | None,
    downtime_h: float,
    band: tuple[float, float] | None,
) -> Message:
    committed_en = f" against {committed_pct:g} % committed" if committed_pct is not None else ""
    committed_zh = f"，承诺 {committed_pct:g}%" if committed_pct is not None else ""
    head_en = (
        f"In {month} availability was {availability_pct:.3f} %{committed_en} "
        f"({downtime_h:.2f} h of outage per server, maintenance excluded)"
    )
    head_zh = (
        f"{month} 可用性为 {availability_pct:.3f}%{committed_zh}"
        f"（每台服务器平均停机 {downtime_h:.2f} 小时，不含维护窗口）"
    )
    if band is None:
        return Message(
            "availability_no_band",
            f"{head_en}. No availability band of the schedule is reached: no credit.",
            f"{head_zh}。未达到赔付表中任何可用性档位：不计赔付。",
        )
    return Message(
        "availability_band",
        f'{head_en}. The band "below {band[0]:g} %" applies: {band[1]:g} % of the month\'s fee.',
        f"{head_zh}。适用“低于 {band[0]:g}%”档位：赔付当月费用的 {band[1]:g}%。",
    )


def credit(episode: Message, pct: float, amount: Decimal, currency: str, month: str) -> Message:
    return Message(
        f"credit_{episode.code}",
        f"{episode.en} Credit for {month}: {pct:.3f} % of the fee, {money(amount, currency)}.",
        f"{episode.zh} {month} 赔付：月费的 {pct:.3f}%，即 {money(amount, currency)}。",
    )


def month_summary(
    *,
    month: str,
    availability_pct: float | None,
    breach_h: float,
    inconclusive_h: float,
    no_data_h: float,
    scheduled_h: float,
    uncapped: float,
    capped: float,
    cap: float,
    amount: Decimal,
    currency: str,
    in_progress: bool = False,
) -> Message:
    avail_en = f"availability {availability_pct:.3f} %, " if availability_pct is not None else ""
    avail_zh = f"可用性 {availability_pct:.3f}%，" if availability_pct is not None else ""
    if in_progress:
        # no availability credit until the month ends; other credits are so far
        avail_en = (f"month in progress — availability so far {availability_pct:.3f} % "
                    f"(no availability credit until the month ends), "
                    if availability_pct is not None else "month in progress, ")  # fmt: skip
        avail_zh = (f"本月尚未结束——目前可用性 {availability_pct:.3f}%（月末前不计可用性赔付），"
                    if availability_pct is not None else "本月尚未结束，")  # fmt: skip
    cap_en = f" (capped at {cap:g} %; {uncapped:.3f} % before the cap)" if uncapped > capped else ""
    cap_zh = f"（上限 {cap:g}%，封顶前为 {uncapped:.3f}%）" if uncapped > capped else ""
    return Message(
        "month_summary",
        f"{month}: {avail_en}{scheduled_h:.1f} h judged per server, {breach_h:.1f} h in breach, "
        f"{inconclusive_h:.1f} h of traffic below the threshold (not a proof of shortfall), "
        f"{no_data_h:.1f} h without data (neither compliance nor breach); credits "
        f"{capped:.3f} % of the fee{cap_en}{' so far' if in_progress else ''}: "
        f"{money(amount, currency)}.",
        f"{month}：{avail_zh}每台服务器计入 {scheduled_h:.1f} 小时，违约 {breach_h:.1f} 小时，"
        f"流量低于阈值 {inconclusive_h:.1f} 小时（不足以证明带宽不达标），"
        f"无数据 {no_data_h:.1f} 小时（既不算达标也不算违约）；{'目前' if in_progress else ''}"
        f"赔付为月费的 {capped:.3f}%{cap_zh}："
        f"{money(amount, currency)}。",
    )
