"""Messages of the derived checks (verdicts, concurrent runs) and of archive reading."""

from __future__ import annotations

from domain.messages import Message


def _pct(ratio: float) -> str:
    return f"{ratio * 100:.1f}%"


# --- verdict reasons ---------------------------------------------------------------------------


def verdict_result_error(text_en: str, text_zh: str) -> Message:
    return Message(
        "verdict_result_error",
        f"The test failed, so it proves nothing: {text_en}",
        f"测试失败，无法作为证据：{text_zh}",
    )


def verdict_no_line_rate() -> Message:
    return Message(
        "verdict_no_line_rate",
        "No port line rate is known, so the throughput cannot be judged against it.",
        "未知端口线速，无法据此评判吞吐量。",
    )


def verdict_no_throughput() -> Message:
    return Message(
        "verdict_no_throughput",
        "The log holds no receiver-side throughput to judge.",
        "日志中没有可供评判的接收端吞吐量。",
    )


def verdict_efficiency(ratio: float, minimum: float, *, tail: bool = False) -> Message:
    en, zh = _figure(tail)
    return Message(
        "verdict_efficiency_low",
        f"{en[0].upper()}{en[1:]} reaches {_pct(ratio)} of line rate; at least "
        f"{_pct(minimum)} is expected.",
        f"{zh}为线速的 {_pct(ratio)}；预期至少达到 {_pct(minimum)}。",
    )


def verdict_unstable(cv: float, maximum: float) -> Message:
    return Message(
        "verdict_unstable",
        f"Throughput varies over time: coefficient of variation {_pct(cv)} (limit "
        f"{_pct(maximum)}).",
        f"吞吐量随时间波动：变异系数 {_pct(cv)}（上限 {_pct(maximum)}）。",
    )


def verdict_long_dip(seconds: float, limit: float) -> Message:
    return Message(
        "verdict_long_dip",
        f"Throughput stayed below 90% of its median for {seconds:.0f} s in a row (limit "
        f"{limit:.0f} s).",
        f"吞吐量连续 {seconds:.0f} 秒低于中位数的 90%（上限 {limit:.0f} 秒）。",
    )


_FABRIC_NAMES = {"ib": "InfiniBand", "roce": "RoCE", "tcp": "TCP"}


def verdict_p99_high(p99_us: float, limit_us: float, fabric: str) -> Message:
    fabric = _FABRIC_NAMES.get(fabric, fabric)
    return Message(
        "verdict_p99_high",
        f"P99 latency {p99_us:.2f} µs exceeds the {limit_us:.2f} µs limit for {fabric}.",
        f"P99 延迟 {p99_us:.2f} µs 超过 {fabric} 的上限 {limit_us:.2f} µs。",
    )


def verdict_no_p99() -> Message:
    return Message(
        "verdict_no_p99",
        "The latency log has no P99 column, so tail latency cannot be judged.",
        "延迟日志中没有 P99 列，无法评判尾延迟。",
    )


def verdict_loss_high(lost_percent: float, limit: float) -> Message:
    return Message(
        "verdict_loss_high",
        f"UDP loss is {lost_percent:.3g}% (limit {limit:.3g}%).",
        f"UDP 丢包率为 {lost_percent:.3g}%（上限 {limit:.3g}%）。",
    )


def verdict_truncated() -> Message:
    return Message(
        "verdict_truncated",
        "The log is truncated; the verdict rests on its complete part only.",
        "日志不完整；结论仅基于其中完整的部分。",
    )


def _figure(tail: bool) -> tuple[str, str]:
    """What a verdict judged: one log's throughput, or a run's tail (P5 of its intervals)."""
    if tail:
        return (
            "the run's P5 throughput (95% of its intervals were faster)",
            "本批测试的 P5 吞吐量（95% 的区间高于此值）",
        )
    return ("throughput", "吞吐量")


def verdict_pass(ratio: float | None, *, tail: bool = False) -> Message:
    if ratio is None:
        return Message("verdict_pass", "All checks passed.", "所有检查均通过。")
    en, zh = _figure(tail)
    return Message(
        "verdict_pass",
        f"All checks passed; {en} reaches {_pct(ratio)} of line rate.",
        f"所有检查均通过；{zh}达到线速的 {_pct(ratio)}。",
    )


def verdict_one_host(ranks: int | None) -> Message:
    count = f"{ranks} ranks" if ranks else "Its ranks"
    count_zh = f"{ranks} 个进程" if ranks else "所有进程"
    return Message(
        "verdict_one_host",
        f"{count} ran on one host, so this collective used the links inside the server "
        "(NVLink, xGMI or PCIe), not the network between nodes: it is not compared with the "
        "port line rate and does not count as the network's measured bandwidth.",
        f"{count_zh}均在同一台主机上运行，该集合通信走的是服务器内部链路（NVLink、xGMI 或 "
        "PCIe），而非节点间网络：不与端口线速比较，也不计为网络实测带宽。",
    )


def verdict_bandwidth_part(reason: Message) -> Message:
    """A reason of a run's bandwidth verdict, named as such beside its latency logs'."""
    return Message("verdict_bandwidth_part", f"Bandwidth: {reason.en}", f"带宽：{reason.zh}")


def verdict_latency_part(file: str, reason: Message) -> Message:
    """A reason of one latency log, carried into its run's verdict."""
    return Message(
        "verdict_latency_part", f"Latency ({file}): {reason.en}", f"延迟（{file}）：{reason.zh}"
    )


def verdict_no_network_figure() -> Message:
    return Message(
        "verdict_no_network_figure",
        "No log measured the network between nodes; the run notes say why.",
        "没有日志测得节点间网络的数值；原因见本批测试的说明。",
    )


# --- concurrent runs ---------------------------------------------------------------------------


def run_excluded(count: int) -> Message:
    return Message(
        "run_excluded",
        f"{count} log(s) were left out of the run summary: failed test or no receiver figure.",
        f"有 {count} 份日志未计入汇总：测试失败或缺少接收端数值。",
    )


def run_not_concurrent() -> Message:
    return Message(
        "run_not_concurrent",
        "The logs' time windows do not all overlap: these pairs did not run at the same time, "
        "so their sum is not a concurrent aggregate.",
        "各日志的时间窗口并不完全重叠：这些节点对并非同时运行，其总和不能视为并发聚合带宽。",
    )


def run_without_intervals(count: int) -> Message:
    return Message(
        "run_without_intervals",
        f"{count} pair(s) report no per-interval series; each counts once with its overall "
        "figure in the tail percentiles.",
        f"有 {count} 个节点对没有逐区间数据；在尾部百分位计算中各以其总体数值计一次。",
    )


def run_one_host(count: int) -> Message:
    return Message(
        "run_one_host",
        f"{count} collective log(s) ran on one host (links inside the server, not the network) "
        "and are left out of the run's network figures.",
        f"有 {count} 份集合通信日志在单台主机内运行（服务器内部链路，而非网络），"
        "未计入本批测试的网络数值。",
    )


def run_mixed_kinds() -> Message:
    return Message(
        "run_mixed_kinds",
        "The run mixes link tests and collective (nccl-tests) results; their figures are not "
        "comparable.",
        "该批结果混合了链路测试与集合通信（nccl-tests）结果，数值不可比。",
    )


# --- archives ----------------------------------------------------------------------------------


def archive_invalid() -> Message:
    return Message(
        "archive_invalid",
        "The file is not a readable ZIP archive.",
        "该文件不是可读取的 ZIP 压缩包。",
    )


def archive_unsafe_path(name: str) -> Message:
    shown = name[:120]
    return Message(
        "archive_unsafe_path",
        f"The archive member “{shown}” has an absolute or parent-directory path; the archive "
        "was refused.",
        f"压缩包成员“{shown}”使用了绝对路径或上级目录路径；已拒绝该压缩包。",
    )


def archive_symlink(name: str) -> Message:
    shown = name[:120]
    return Message(
        "archive_symlink",
        f"The archive member “{shown}” is a symbolic link; the archive was refused.",
        f"压缩包成员“{shown}”是符号链接；已拒绝该压缩包。",
    )


def archive_encrypted(name: str) -> Message:
    shown = name[:120]
    return Message(
        "archive_encrypted",
        f"The archive member “{shown}” is encrypted and cannot be read.",
        f"压缩包成员“{shown}”已加密，无法读取。",
    )


def archive_too_many_members(limit: int) -> Message:
    return Message(
        "archive_too_many_members",
        f"The archive holds more than {limit} files; the archive was refused.",
        f"压缩包内文件超过 {limit} 个；已拒绝该压缩包。",
    )


def archive_too_large(limit: int) -> Message:
    mib = limit / (1024 * 1024)
    return Message(
        "archive_too_large",
        f"The archive unpacks to more than {mib:.0f} MiB; the archive was refused.",
        f"压缩包解压后超过 {mib:.0f} MiB；已拒绝该压缩包。",
    )


def archive_ratio(name: str, limit: float) -> Message:
    shown = name[:120]
    return Message(
        "archive_ratio",
        f"The archive member “{shown}” expands more than {limit:.0f}-fold (a compression "
        "bomb); the archive was refused.",
        f"压缩包成员“{shown}”解压膨胀超过 {limit:.0f} 倍（疑似压缩炸弹）；已拒绝该压缩包。",
    )


def archive_member_damaged(name: str) -> Message:
    shown = name[:120]
    return Message(
        "archive_member_damaged",
        f"The archive member “{shown}” is damaged (checksum or compression error).",
        f"压缩包成员“{shown}”已损坏（校验或解压错误）。",
    )
