"""Messages about how a log was read as its tool meant it, in English and Chinese.

Kept apart from ``catalogue`` so that module stays small; the same rules apply: stable codes,
numbers formatted here so both languages show the same figures.
"""

from __future__ import annotations

from domain.messages import Message


def repeated_intervals(count: int) -> Message:
    return Message(
        "repeated_intervals",
        f"{count} interval(s) printed twice (iperf3 repeats the last interval when the server "
        "stops) were counted once.",
        f"{count} 个区间被重复输出（服务端停止时 iperf3 会重复最后一个区间），已只计一次。",
    )


def server_stopped(text: str) -> Message:
    shown = " ".join(text.split())[:160]
    return Message(
        "server_stopped",
        f"The server process reported \u201c{shown}\u201d: the test may have ended before its "
        "planned duration.",
        f"服务端进程报告\u201c{shown}\u201d：该测试可能在计划时长之前就已结束。",
    )


def bidir_one_direction(
    direction: str, forward_gbps: float | None, reverse_gbps: float | None
) -> Message:
    names = {
        "forward": ("client→server", "客户端→服务端"),
        "reverse": ("server→client", "服务端→客户端"),
    }
    en, zh = names.get(direction, (direction, direction))

    def shown(value: float | None, missing: str) -> str:
        return missing if value is None else f"{value:.3f}"

    return Message(
        "bidir_one_direction",
        f"Bidirectional test: each direction is kept separately (client→server "
        f"{shown(forward_gbps, 'not in this log')}, server→client "
        f"{shown(reverse_gbps, 'not in this log')} Gbit/s); the throughput is one direction, "
        f"{en}, the lower one, so it compares with one port's line rate.",
        f"双向测试：两个方向分别保留（客户端→服务端 {shown(forward_gbps, '日志中没有')}，"
        f"服务端→客户端 {shown(reverse_gbps, '日志中没有')} Gbit/s）；吞吐量取单个方向（{zh}，"
        "较低的方向），以便与单个端口的线速比较。",
    )


def perftest_bidir_halved() -> Message:
    return Message(
        "perftest_bidir_halved",
        "perftest -b prints the sum of both directions; the throughput is half of it (one "
        "direction, assuming both carried the same), the printed sum is kept as the bidirectional "
        "total.",
        "perftest -b 输出的是两个方向之和；吞吐量取其一半（单方向，假定两个方向相同），"
        "原始总和作为双向合计保留。",
    )


def udp_receiver_series(lost_percent: float | None) -> Message:
    shown = "unknown" if lost_percent is None else f"{lost_percent:.3g}%"
    shown_zh = "未知" if lost_percent is None else f"{lost_percent:.3g}%"
    return Message(
        "udp_receiver_series",
        f"UDP: the client's intervals are its sending rate; the interval series is the "
        f"server's, what the receiver got (loss {shown}).",
        f"UDP：客户端的区间数据是发送速率；时间序列采用服务端即接收端实际收到的数据"
        f"（丢包率 {shown_zh}）。",
    )


def udp_series_scaled(lost_percent: float | None) -> Message:
    shown = "unknown" if lost_percent is None else f"{lost_percent:.3g}%"
    shown_zh = "未知" if lost_percent is None else f"{lost_percent:.3g}%"
    return Message(
        "udp_series_scaled",
        f"UDP: the client's intervals are its sending rate; each was scaled by the share of the "
        f"data that arrived (loss {shown}) to estimate what the receiver got. The server's own "
        "log (or --get-server-output) gives the receiver's intervals exactly.",
        f"UDP：客户端的区间数据是发送速率；已按实际到达的数据比例（丢包率 {shown_zh}）缩放，"
        "以估算接收端收到的数据。服务端自己的日志（或 --get-server-output）"
        "可给出准确的接收端区间。",
    )


def warmup_dropped(logs: int, intervals: int, seconds: float) -> Message:
    return Message(
        "warmup_dropped",
        f"TCP warm-up left out of the pooled figures: {intervals} interval(s) in {logs} log(s)"
        f"{f', {seconds:.2f} s' if seconds else ''} (iperf3 -O intervals, or a first interval "
        "below 80% of the median of the rest: slow start).",
        f"已从汇总数据中剔除 TCP 预热：{logs} 个日志中的 {intervals} 个区间"
        f"{f'，{seconds:.2f} 秒' if seconds else ''}（iperf3 -O 标记的区间，或低于其余区间中位数 "
        "80% 的第一个区间：慢启动）。",
    )
