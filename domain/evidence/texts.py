"""Bilingual sentences saying how an offer's figure was derived from its evidence."""

from __future__ import annotations

from domain.messages import Message

KIND_NAMES = {
    "collective_busbw": ("nccl-tests bus bandwidth", "nccl-tests 总线带宽"),
    "rdma_bw": ("RDMA bandwidth", "RDMA 带宽"),
    "tcp_throughput": ("TCP throughput", "TCP 吞吐"),
    "udp_at_rate": ("UDP at a set rate", "限速 UDP"),
    "rdma_latency": ("RDMA latency", "RDMA 延迟"),
}


def g(value: float) -> str:
    """A rate as people write it: 394, 3,152, 1.89, 0.955."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def one_port_at_a_time(ports: int, per_port: float, tested: int, repeats: int) -> Message:
    again = f", {repeats} tests" if repeats > tested else ""
    again_zh = f"，共 {repeats} 次测试" if repeats > tested else ""
    return Message(
        "evidence.ports_separately",
        f"{ports} ports × {g(per_port)} Gbit/s measured on {tested} port"
        f"{'s one at a time' if tested > 1 else ''}{again}, not tested together",
        f"{ports} 个端口 × {g(per_port)} Gbit/s（实测 {tested} 个端口"
        f"{'，逐个测试' if tested > 1 else ''}{again_zh}，未同时测试）",
    )


def ports_together(
    ports: int, per_port: float, tested: int, total: float, *, declared: bool = False
) -> Message:
    """``declared``: the set rests on the uploader's declaration, not on the logs' clocks."""
    on = DECLARED if declared else ("", "")
    if tested >= ports:
        return Message(
            "evidence.all_ports_together",
            f"{tested} links tested together{on[0]}: {g(total)} Gbit/s in total, "
            f"P5 {g(per_port)} Gbit/s per link",
            f"{tested} 条链路同时测试{on[1]}：合计 {g(total)} Gbit/s，"
            f"每条链路 P5 {g(per_port)} Gbit/s",
        )
    return Message(
        "evidence.some_ports_together",
        f"{ports} ports × {g(per_port)} Gbit/s (P5 per link of {tested} links tested together"
        f"{on[0]}, {g(total)} Gbit/s in total)",
        f"{ports} 个端口 × {g(per_port)} Gbit/s（{tested} 条链路同时测试{on[1]}的每条 P5，"
        f"合计 {g(total)} Gbit/s）",
    )


DECLARED = (
    " (as the uploader declared the run's tests started at the same time; the logs carry no "
    "clock to show it)",
    "（依据上传者声明本次测试同时开始；日志本身没有时钟可以证明）",
)


def ports_unplaced(ports: int, per_port: float, tested: int, tests: int) -> Message:
    """Ports whose logs carry no clock: counted link by link, never as a simultaneous test."""
    again = f", {tests} tests" if tests > tested else ""
    again_zh = f"，共 {tests} 次测试" if tests > tested else ""
    return Message(
        "evidence.ports_unplaced",
        f"{ports} ports × {g(per_port)} Gbit/s measured on {tested} links{again}, counted link by "
        "link, not as a simultaneous test",
        f"{ports} 个端口 × {g(per_port)} Gbit/s（实测 {tested} 条链路{again_zh}，逐条链路计算，"
        "不视为同时测试）",
    )


def unplaced(count: int) -> Message:
    """Untimed logs of a run not declared simultaneous, on two or more links."""
    return Message(
        "evidence.unplaced",
        f"{count} log(s) carry no clock (perftest/nccl-tests/iperf3 text): unplaced — counted "
        "link by link, not as a simultaneous test; declare the run simultaneous or upload logs "
        "with timestamps to show the fabric under full load.",
        f"{count} 份日志没有时钟（perftest/nccl-tests/iperf3 文本）：无法确定时间——逐条链路计算，"
        "不视为同时测试；请声明本次测试同时开始，或上传带时间戳的日志，以展示满载下的网络。",
    )


def declared_set(count: int, links: int) -> Message:
    """Untimed logs taken as one simultaneous set on their run's declaration."""
    return Message(
        "evidence.declared_set",
        f"{count} log(s) carry no clock: their {links} links are taken as one simultaneous test "
        "because the uploader declared the run's tests started at the same time, not because "
        "the logs show it.",
        f"{count} 份日志没有时钟：其 {links} 条链路被视为一次同时测试，依据是上传者声明本次测试"
        "同时开始，而不是日志本身。",
    )


def collective(
    per_rank: float, per_host: int, gpus: int, hosts: int | None, ranks: int | None
) -> Message:
    """The sentence for a collective: as it stands when every GPU of a server took part, else
    scaled from the GPUs (and so NICs) it ran on."""
    where = f"{hosts} hosts" if hosts else "hosts not named"
    where_zh = f"{hosts} 台主机" if hosts else "未列出主机"
    if per_host >= gpus:
        return Message(
            "evidence.collective",
            f"nccl-tests busbw {g(per_rank)} Gbit/s per rank with all {gpus} GPUs of each server "
            f"({where}, {ranks or '?'} ranks): the server's whole network",
            f"nccl-tests 总线带宽每 rank {g(per_rank)} Gbit/s，每台服务器 {gpus} 块 GPU 全部参与"
            f"（{where_zh}，{ranks or '?'} 个 rank）：即整台服务器的网络带宽",
        )
    return Message(
        "evidence.collective_scaled",
        f"nccl-tests busbw {g(per_rank)} Gbit/s per rank on {per_host} of {gpus} GPUs per server "
        f"({where}, {ranks or '?'} ranks), scaled × {g(gpus / per_host)}, not tested together",
        f"nccl-tests 总线带宽每 rank {g(per_rank)} Gbit/s，每台服务器 {gpus} 块 GPU 中仅 "
        f"{per_host} 块参与（{where_zh}，{ranks or '?'} 个 rank），按 × {g(gpus / per_host)} "
        f"推算，未同时测试",
    )


def with_bound(sentence: Message, bound: Message) -> Message:
    return Message(
        sentence.code,
        f"{sentence.en}; bounded by {bound.en}",
        f"{sentence.zh}；受限于：{bound.zh}",
    )


def capped(nominal: float) -> Message:
    return Message(
        "evidence.capped",
        f"Measured above the {g(nominal)} Gbit/s per server the quoted ports can carry: that "
        "figure is used.",
        f"实测值高于报价端口所能承载的每台 {g(nominal)} Gbit/s：按该数值计算。",
    )


def udp_not_capacity(count: int, target: float | None) -> Message:
    rate = f" ({g(target)} Gbit/s set with -b)" if target else ""
    rate_zh = f"（-b 设定 {g(target)} Gbit/s）" if target else ""
    return Message(
        "evidence.udp_not_capacity",
        f"{count} UDP test(s) at a set rate{rate} measure loss and jitter, not capacity: "
        "left out of the bandwidth.",
        f"{count} 个限速 UDP 测试{rate_zh}衡量的是丢包与抖动，不是带宽容量：未计入带宽。",
    )


def latency_not_bandwidth(count: int) -> Message:
    return Message(
        "evidence.latency_not_bandwidth",
        f"{count} latency log(s) do not feed the bandwidth.",
        f"{count} 份延迟日志不计入带宽。",
    )


def one_host(count: int) -> Message:
    return Message(
        "evidence.one_host",
        f"{count} nccl-tests log(s) ran inside one server (NVLink/PCIe, not the network): "
        "left out.",
        f"{count} 份 nccl-tests 日志在单台服务器内运行（NVLink/PCIe，而非网络）：未计入。",
    )


def kind_kept_apart(kind: str, used: str, count: int) -> Message:
    name, name_zh = KIND_NAMES.get(kind, (kind, kind))
    used_en, used_zh = KIND_NAMES.get(used, (used, used))
    return Message(
        "evidence.kind_kept_apart",
        f"{count} {name} log(s) kept apart: kinds are never pooled; the figure comes from "
        f"{used_en}.",
        f"{count} 份{name_zh}日志单独列出：不同类型不合并；数值来自{used_zh}。",
    )


def repeats(count: int, typical: float, worst: float) -> Message:
    return Message(
        "evidence.repeats",
        f"{count} tests one after another on one link are repeats of one measurement: "
        f"typical {g(typical)} Gbit/s, worst {g(worst)} Gbit/s (not summed).",
        f"同一链路上先后进行的 {count} 次测试是同一测量的重复：典型 {g(typical)} Gbit/s，"
        f"最差 {g(worst)} Gbit/s（不相加）。",
    )


def no_capacity() -> Message:
    return Message(
        "evidence.no_capacity",
        "No log measured bandwidth capacity (UDP at a set rate, latency and one-server "
        "collectives do not).",
        "没有日志测得带宽容量（限速 UDP、延迟测试和单台服务器内的集合通信都不算）。",
    )
