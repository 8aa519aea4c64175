"""Bilingual findings of the integrity, re-use and challenge checks (stable codes)."""

from __future__ import annotations

from domain.messages import Message


def _two(first: float, second: float) -> tuple[str, str]:
    """Two figures a finding says differ, with as many decimals as it takes for them to read
    differently (a check that fails on a gap below the usual 3 or 1 decimals would otherwise
    print "222.7 … but … 222.7"), at most 9."""
    decimals = 3 if max(abs(first), abs(second)) < 100 else 1
    while decimals < 9:
        a, b = f"{first:,.{decimals}f}", f"{second:,.{decimals}f}"
        if a != b:
            return a, b
        decimals += 1
    return f"{first:,.{decimals}f}", f"{second:,.{decimals}f}"


def _gap(first: float, second: float) -> str:
    """The relative gap between two figures, as "0.05 %"."""
    base = max(abs(first), abs(second))
    return f"{abs(first - second) / base * 100:.2g} %" if base else "0 %"


def more_findings(count: int) -> Message:
    return Message(
        "integrity.more", f"… and {count} more such finding(s).", f"……另有 {count} 处类似问题。"
    )


def iperf3_interval_rate(
    index: int, start: float, end: float, moved: float, gbps: float, expected: float
) -> Message:
    made, stated = _two(expected, gbps)
    return Message(
        "integrity.iperf3_interval_rate",
        f"Interval {index + 1} ({start:.2f}–{end:.2f} s): {moved:,.0f} bytes make "
        f"{made} Gbit/s, but the log states {stated} Gbit/s ({_gap(expected, gbps)} apart).",
        f"第 {index + 1} 个区间（{start:.2f}–{end:.2f} 秒）：{moved:,.0f} 字节对应 "
        f"{made} Gbit/s，日志却写着 {stated} Gbit/s（相差 {_gap(expected, gbps)}）。",
    )


def iperf3_streams_sum(index: int, summed: float, total: float, streams: int) -> Message:
    added, stated = _two(summed, total)
    return Message(
        "integrity.iperf3_streams_sum",
        f"Interval {index + 1}: the {streams} streams add up to {added} Gbit/s, "
        f"but [SUM] states {stated} Gbit/s.",
        f"第 {index + 1} 个区间：{streams} 条流合计 {added} Gbit/s，[SUM] 却写着 {stated} Gbit/s。",
    )


def iperf3_interval_gap(index: int, end: float, next_start: float) -> Message:
    return Message(
        "integrity.iperf3_interval_gap",
        f"Interval {index + 1} starts at {next_start:.3f} s but the one before ended at "
        f"{end:.3f} s: intervals are missing or were moved.",
        f"第 {index + 1} 个区间从 {next_start:.3f} 秒开始，而上一区间在 {end:.3f} 秒结束："
        "区间缺失或被挪动。",
    )


def iperf3_received_more(sent: float, received: float) -> Message:
    return Message(
        "integrity.iperf3_received_more",
        f"The receiver reports {received:,.0f} bytes, more than the {sent:,.0f} bytes the "
        "sender sent.",
        f"接收端报告 {received:,.0f} 字节，多于发送端发出的 {sent:,.0f} 字节。",
    )


def iperf3_total_rate(received: float, duration: float, gbps: float, expected: float) -> Message:
    return Message(
        "integrity.iperf3_total_rate",
        f"{received:,.0f} bytes in {duration:.2f} s make {_two(expected, gbps)[0]} Gbit/s, but "
        f"the summary states {_two(expected, gbps)[1]} Gbit/s.",
        f"{duration:.2f} 秒内 {received:,.0f} 字节对应 {_two(expected, gbps)[0]} Gbit/s，"
        f"汇总却写着 {_two(expected, gbps)[1]} Gbit/s。",
    )


def iperf3_streams_total(summed: float, total: float, streams: int) -> Message:
    return Message(
        "integrity.iperf3_streams_total",
        f"The {streams} streams' receiver rates add up to {_two(summed, total)[0]} Gbit/s, but "
        f"the summary states {_two(summed, total)[1]} Gbit/s.",
        f"{streams} 条流的接收速率合计 {_two(summed, total)[0]} Gbit/s，"
        f"汇总却写着 {_two(summed, total)[1]} Gbit/s。",
    )


def nccl_algbw(size: int, half: str, time_us: float, algbw: float, expected: float) -> Message:
    zh_half = "非原地" if half == "out-of-place" else "原地"
    return Message(
        "integrity.nccl_algbw",
        f"Size {size:,} B ({half}): {size:,} B in {time_us:g} µs is {expected:.2f} GB/s, "
        f"but algbw states {algbw:.2f} GB/s.",
        f"消息大小 {size:,} B（{zh_half}）：{time_us:g} 微秒传输 {size:,} B "
        f"即 {expected:.2f} GB/s，algbw 却写着 {algbw:.2f} GB/s。",
    )


def nccl_busbw(
    size: int, half: str, algbw: float, busbw: float, expected: float, factor: float, ranks: int
) -> Message:
    zh_half = "非原地" if half == "out-of-place" else "原地"
    return Message(
        "integrity.nccl_busbw",
        f"Size {size:,} B ({half}): busbw should be algbw {algbw:.2f} × {factor:.3f} (for "
        f"{ranks} ranks) = {expected:.2f} GB/s, but the log states {busbw:.2f} GB/s.",
        f"消息大小 {size:,} B（{zh_half}）：busbw 应为 algbw {algbw:.2f} × {factor:.3f}"
        f"（{ranks} 个 rank）= {expected:.2f} GB/s，日志却写着 {busbw:.2f} GB/s。",
    )


def perftest_peak(size: int, peak: float, avg: float) -> Message:
    return Message(
        "integrity.perftest_peak",
        f"Size {size:,} B: the peak {_two(peak, avg)[0]} Gbit/s is below the average "
        f"{_two(peak, avg)[1]} Gbit/s.",
        f"消息大小 {size:,} B：峰值 {_two(peak, avg)[0]} Gbit/s 低于平均值 "
        f"{_two(peak, avg)[1]} Gbit/s。",
    )


def perftest_msgrate(size: int, rate: float, avg: float, expected: float) -> Message:
    made, stated = _two(expected, avg)
    gap = _gap(expected, avg)
    return Message(
        "integrity.perftest_msgrate",
        f"Size {size:,} B: {rate:.6f} Mpps × {size:,} B is {made} Gbit/s, but the "
        f"average bandwidth states {stated} Gbit/s ({gap} apart).",
        f"消息大小 {size:,} B：{rate:.6f} Mpps × {size:,} B 即 {made} Gbit/s，"
        f"平均带宽却写着 {stated} Gbit/s（相差 {gap}）。",
    )


def perftest_latency_order(
    size: int, low_name: str, low: float, high_name: str, high: float
) -> Message:
    return Message(
        "integrity.perftest_latency_order",
        f"Size {size:,} B: the {low_name} latency {low:.2f} µs is above the {high_name} "
        f"{high:.2f} µs.",
        f"消息大小 {size:,} B：{low_name} 延迟 {low:.2f} 微秒高于 {high_name} {high:.2f} 微秒。",
    )


def nccl_ranks_unsettled(listed: int, fits: int | None, why: str) -> Message:
    """The busbw factor cannot be checked: the log does not establish its rank count."""
    if why == "numbers":
        return Message(
            "integrity.nccl_ranks_unchecked",
            f"Bus bandwidth factor not checked: the rank lines number up to more ranks than the "
            f"{listed} they list, so the rank count is not established.",
            f"未检查总线带宽系数：rank 行的编号超过了所列的 {listed} 个，rank 总数无法确定。",
        )
    return Message(
        "integrity.nccl_ranks_unchecked",
        f"Bus bandwidth factor not checked: the log lists {listed} rank lines from several "
        f"processes, but its figures fit {fits} ranks; the listing looks incomplete, so the rank "
        "count is not established.",
        f"未检查总线带宽系数：日志列出来自多个进程的 {listed} 行 rank，但数值符合 {fits} 个 rank；"
        "列表似乎不完整，rank 总数无法确定。",
    )


def nccl_rows_order(size: int, before: int) -> Message:
    return Message(
        "integrity.nccl_rows_order",
        f"Size {size:,} B comes after {before:,} B: nccl-tests prints sizes in ascending order.",
        f"消息大小 {size:,} B 排在 {before:,} B 之后：nccl-tests 按从小到大的顺序打印。",
    )


def nccl_beyond_max(size: int, max_bytes: int) -> Message:
    return Message(
        "integrity.nccl_beyond_max",
        f"Size {size:,} B is beyond the header's maxBytes {max_bytes:,}.",
        f"消息大小 {size:,} B 超出了表头的 maxBytes {max_bytes:,}。",
    )


def iperf3_interval_bytes_total(
    intervals: int, summed: float, sent: float | None, received: float | None
) -> Message:
    sides_en = " or ".join(
        f"{what} {value:,.0f}" for what, value in (("sent", sent), ("received", received)) if value
    )
    sides_zh = "或".join(
        f"{what} {value:,.0f}" for what, value in (("发送", sent), ("接收", received)) if value
    )
    return Message(
        "integrity.iperf3_interval_bytes_total",
        f"The {intervals} intervals add up to {summed:,.0f} bytes, but the summary states "
        f"{sides_en} bytes: the intervals or the summary were edited.",
        f"{intervals} 个区间合计 {summed:,.0f} 字节，而汇总写着{sides_zh} 字节："
        "区间或汇总被改动过。",
    )


def iperf3_interval_mean_rate(
    intervals: int, mean: float, receiver: float | None, sender: float | None
) -> Message:
    stated = [v for v in (receiver, sender) if v]
    shown = " / ".join(f"{v:,.4f}" for v in stated)
    return Message(
        "integrity.iperf3_interval_mean_rate",
        f"The {intervals} intervals average {mean:,.4f} Gbit/s (weighted by their length), but "
        f"the summary states {shown} Gbit/s: the intervals or the summary were edited.",
        f"{intervals} 个区间按时长加权平均为 {mean:,.4f} Gbit/s，而汇总写着 {shown} Gbit/s："
        "区间或汇总被改动过。",
    )


def utc_minute(epoch_s: float) -> str:
    """An epoch time as "2031-06-28 15:31 UTC" (never the raw ISO string)."""
    from datetime import UTC, datetime

    try:
        return datetime.fromtimestamp(epoch_s, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return f"{epoch_s:.0f} s"


def started_after_upload(start_s: float, uploaded_s: float) -> Message:
    start, uploaded = utc_minute(start_s), utc_minute(uploaded_s)
    return Message(
        "integrity.started_after_upload",
        f"The tool's clock says the test started at {start}, after the log was uploaded "
        f"({uploaded}): a log cannot record a test that had not yet run.",
        f"工具自身的时钟显示测试开始于 {start}，晚于日志上传时间（{uploaded}）："
        "日志不可能记录尚未运行的测试。",
    )
