"""Every user-facing message of the benchmark-log package, in English and Simplified Chinese.

Codes are stable: the web layer and stored results key on them, so rename a code only with a
data migration. Numbers are formatted here so both languages show the same figures.
"""

from __future__ import annotations

from domain.messages import Message


def _q(text: str, limit: int = 160) -> str:
    """Quote text from a log, shortened so a hostile log cannot flood the UI."""
    clean = " ".join(text.split())
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


# --- errors: the file cannot be read as a benchmark result -------------------------------------


def empty_file() -> Message:
    return Message("empty_file", "The file is empty.", "文件为空。")


def binary_file() -> Message:
    return Message(
        "binary_file",
        "The file is binary data, not the text or JSON output of a benchmark tool.",
        "该文件是二进制数据，不是基准测试工具输出的文本或 JSON。",
    )


def unsupported_tool() -> Message:
    return Message(
        "unsupported_tool",
        "The file is not output of a supported tool (iperf3, perftest ib_*_bw / ib_*_lat, "
        "nccl-tests).",
        "该文件不是受支持工具（iperf3、perftest ib_*_bw / ib_*_lat、nccl-tests）的输出。",
    )


def unsupported_json() -> Message:
    return Message(
        "unsupported_json",
        "The file is JSON but not iperf3 -J output; other JSON formats are not supported.",
        "该文件是 JSON，但不是 iperf3 -J 的输出；暂不支持其他 JSON 格式。",
    )


# Places a unit is read from, as (English, Chinese) phrases for the unit messages.
IPERF_RATE = ("an iperf3 rate", "iperf3 速率")
IPERF_TRANSFER = ("an iperf3 transfer size", "iperf3 传输量")
PERFTEST_BW = ("the perftest bandwidth header", "perftest 带宽表头")
PERFTEST_LAT = ("the perftest latency header", "perftest 延迟表头")
NCCL_TABLE = ("the nccl-tests table header", "nccl-tests 结果表头")


def unknown_units(unit: str, where: tuple[str, str]) -> Message:
    return Message(
        "unknown_units",
        f"Unknown unit “{_q(unit, 40)}” in {where[0]}; the figures cannot be converted without "
        "guessing.",
        f"{where[1]}中的单位“{_q(unit, 40)}”无法识别；不猜测单位就无法换算数值。",
    )


def missing_units(where: tuple[str, str]) -> Message:
    return Message(
        "missing_units",
        f"The log does not state the units of {where[0]}; the figures cannot be converted "
        "without guessing.",
        f"日志没有注明{where[1]}的单位；不猜测单位就无法换算数值。",
    )


def json_malformed(position: str) -> Message:
    return Message(
        "json_malformed",
        f"The JSON is malformed ({_q(position, 80)}) before any test data could be read.",
        f"JSON 格式错误（{_q(position, 80)}），在读到任何测试数据之前就无法继续解析。",
    )


def json_truncated() -> Message:
    return Message(
        "json_truncated",
        "The JSON ends before any test data: the log was cut off too early to use.",
        "JSON 在出现任何测试数据之前就结束了：日志截断过早，无法使用。",
    )


def iperf3_unknown_protocol(protocol: str) -> Message:
    return Message(
        "iperf3_unknown_protocol",
        f"iperf3 protocol “{_q(protocol, 20)}” is not supported (only TCP and UDP).",
        f"不支持 iperf3 协议“{_q(protocol, 20)}”（仅支持 TCP 和 UDP）。",
    )


def no_results(tool: str) -> Message:
    return Message(
        "no_results",
        f"The {tool} log holds no complete result line.",
        f"该 {tool} 日志中没有完整的结果行。",
    )


def perftest_failed(line: str) -> Message:
    return Message(
        "perftest_failed",
        f"perftest did not produce results: “{_q(line)}”.",
        f"perftest 未产生结果：“{_q(line)}”。",
    )


def perftest_unknown_test(title: str) -> Message:
    return Message(
        "perftest_unknown_test",
        f"Unsupported perftest test “{_q(title, 60)}”.",
        f"不支持的 perftest 测试“{_q(title, 60)}”。",
    )


def nccl_collective_unknown() -> Message:
    return Message(
        "nccl_collective_unknown",
        "The nccl-tests collective (all_reduce, all_gather, …) cannot be established from the "
        "file name or its columns.",
        "无法从文件名或列结构确定 nccl-tests 的集合通信类型（all_reduce、all_gather 等）。",
    )


def nccl_failed(line: str) -> Message:
    return Message(
        "nccl_failed",
        f"nccl-tests stopped before printing any result: “{_q(line)}”.",
        f"nccl-tests 在输出任何结果之前已中止：“{_q(line)}”。",
    )


def nccl_ranks_not_joined(lines: int, ranks: int) -> Message:
    return Message(
        "nccl_ranks_not_joined",
        f"The log lists {lines} ranks but only {ranks} distinct rank number(s): each process "
        "ran nccl-tests on its own (a build without MPI support started by mpirun or srun), so "
        "its figures are not those of one collective across the ranks.",
        f"日志列出了 {lines} 个 rank，但只有 {ranks} 个不同的 rank 编号：每个进程各自独立运行了 "
        "nccl-tests（未启用 MPI 支持的构建被 mpirun 或 srun 启动），其数值不是跨这些 rank 的一次"
        "集合通信的结果。",
    )


# --- errors the test itself reported (the log parsed, the run failed) --------------------------


def iperf3_reported_error(text: str) -> Message:
    return Message(
        "iperf3_reported_error",
        f"iperf3 reported an error: “{_q(text)}”. The run failed; its figures do not count.",
        f"iperf3 报告了错误：“{_q(text)}”。该次测试失败，其数值不予采用。",
    )


def iperf3_interrupted(text: str) -> Message:
    return Message(
        "iperf3_interrupted",
        f"The iperf3 run was interrupted (“{_q(text)}”); its summary is incomplete and does "
        "not count.",
        f"iperf3 测试被中断（“{_q(text)}”）；汇总数据不完整，不予采用。",
    )


def nccl_validation_failed(wrong: float) -> Message:
    if wrong <= 0:
        return Message(
            "nccl_validation_failed",
            "nccl-tests reported failed data validation: the run is invalid.",
            "nccl-tests 报告数据校验失败：本次测试无效。",
        )
    return Message(
        "nccl_validation_failed",
        f"nccl-tests found {wrong:g} wrong values: the collective produced bad data and the run "
        "is invalid.",
        f"nccl-tests 检测到 {wrong:g} 个错误值：集合通信结果有误，本次测试无效。",
    )


# --- warnings: the result stands, with a caveat ------------------------------------------------


def truncated_log() -> Message:
    return Message(
        "truncated_log",
        "The log ends abruptly; only its complete part was used.",
        "日志突然结束；仅使用了其中完整的部分。",
    )


def json_damaged(position: str) -> Message:
    return Message(
        "json_damaged",
        f"The JSON is damaged ({_q(position, 80)}); only the data before the damage was used.",
        f"JSON 已损坏（{_q(position, 80)}）；仅使用了损坏位置之前的数据。",
    )


def omitted_intervals(count: int) -> Message:
    return Message(
        "omitted_intervals",
        f"{count} warm-up interval(s) marked omitted (-O) were left out of the series.",
        f"已从时间序列中剔除 {count} 个标记为预热（-O）的区间。",
    )


def zero_length_intervals(count: int) -> Message:
    return Message(
        "zero_length_intervals",
        f"{count} zero-length interval(s) were left out of the series.",
        f"已从时间序列中剔除 {count} 个时长为零的区间。",
    )


def receiver_figures_missing() -> Message:
    return Message(
        "receiver_figures_missing",
        "The log has no receiver-side total, so no throughput is reported (the sender's figure "
        "is shown separately).",
        "日志中没有接收端汇总，因此不报告吞吐量（发送端数值单独列出）。",
    )


def udp_receiver_rate_estimated(lost_percent: float) -> Message:
    return Message(
        "udp_receiver_rate_estimated",
        f"This iperf3 version prints only the sender's UDP rate; the received rate was estimated "
        f"from it and the {lost_percent:.3g}% loss.",
        f"该 iperf3 版本只输出发送端的 UDP 速率；接收速率是按该速率和 {lost_percent:.3g}% 的丢包率"
        "估算的。",
    )


def throughput_from_intervals() -> Message:
    return Message(
        "throughput_from_intervals",
        "The end-of-test summary is missing; the throughput is the mean of the complete intervals.",
        "缺少测试结束时的汇总；吞吐量取各完整区间的平均值。",
    )


def multiple_tests(count: int) -> Message:
    return Message(
        "multiple_tests",
        f"The file holds {count} tests; only the first is reported here.",
        f"该文件包含 {count} 次测试；此处只报告第一次。",
    )


def perftest_client_preferred(count: int) -> Message:
    return Message(
        "perftest_client_preferred",
        f"The file holds {count} perftest reports (server and client); the client's is reported.",
        f"该文件包含 {count} 份 perftest 报告（服务端和客户端）；此处报告客户端的结果。",
    )


def perftest_title_missing() -> Message:
    return Message(
        "perftest_title_missing",
        "Only perftest's result table is in the file, without the test title and settings: "
        "the operation (write, read, send) and the link are unknown.",
        "文件中只有 perftest 的结果表，没有测试标题和参数："
        "操作类型（write、read、send）和链路信息未知。",
    )


def perftest_interleaved() -> Message:
    return Message(
        "perftest_interleaved",
        "Server and client output are interleaved line by line; repeated rows were counted once.",
        "服务端与客户端的输出逐行交错；重复的结果行只计一次。",
    )


def perftest_cpu_frequency() -> Message:
    return Message(
        "perftest_cpu_frequency",
        "perftest warned that the CPU frequency is not at maximum; its timing, and so the "
        "figures, may be off.",
        "perftest 警告 CPU 频率未处于最高值；计时及由此得出的数值可能不准确。",
    )


def perftest_link_type_overridden(device: str) -> Message:
    return Message(
        "perftest_link_type_overridden",
        f"The log says link type IB, but device “{_q(device, 40)}” is a RoCE port "
        "(--force-link); the fabric is taken as RoCE.",
        f"日志显示链路类型为 IB，但设备“{_q(device, 40)}”是 RoCE 端口（使用了 --force-link）；"
        "按 RoCE 处理。",
    )


def perftest_bidirectional() -> Message:
    return Message(
        "perftest_bidirectional",
        "Bidirectional test: the bandwidth is the sum of both directions; compare half of it "
        "with one port's line rate.",
        "双向测试：带宽是两个方向之和；与单端口线速比较时应取其一半。",
    )


def perftest_peak_not_measured() -> Message:
    return Message(
        "perftest_peak_not_measured",
        "BW peak was not measured in this run (duration mode or server side).",
        "本次测试未测量峰值带宽（时长模式或服务端）。",
    )


def latency_without_percentiles() -> Message:
    return Message(
        "latency_without_percentiles",
        "This latency log has no percentile columns (duration mode); P99 is not available.",
        "该延迟日志没有百分位列（时长模式）；无法得到 P99。",
    )


def latency_typical_only() -> Message:
    return Message(
        "latency_typical_only",
        "This perftest version prints only t_min, t_max and t_typical (the median): the log has "
        "no average and no percentiles, so the typical latency is shown and P99 is not available.",
        "该 perftest 版本只输出 t_min、t_max 和 t_typical（中位数）：日志没有平均值和百分位，"
        "因此显示典型延迟，无法得到 P99。",
    )


def nccl_collective_inferred(name: str) -> Message:
    return Message(
        "nccl_collective_inferred",
        f"The collective was inferred as {name} from the table's columns.",
        f"根据结果表的列结构推断集合通信类型为 {name}。",
    )


def nccl_average_recomputed() -> Message:
    return Message(
        "nccl_average_recomputed",
        "The “Avg bus bandwidth” line is missing; it was recomputed from the rows.",
        "缺少“Avg bus bandwidth”行；已根据各行数据重新计算。",
    )


def nccl_average_small_sizes(avg_gbps: float, largest_gbps: float) -> Message:
    return Message(
        "nccl_average_small_sizes",
        f"nccl-tests' average bus bandwidth ({avg_gbps:.1f} Gbit/s) includes small, "
        f"latency-bound sizes; the figure used is the busbw at the largest size, "
        f"{largest_gbps:.1f} Gbit/s (the average is kept as a secondary figure).",
        f"nccl-tests 的平均总线带宽（{avg_gbps:.1f} Gbit/s）包含了受延迟限制的小消息；采用的数值是"
        f"最大消息尺寸下的 busbw，{largest_gbps:.1f} Gbit/s（平均值作为次要数值保留）。",
    )


def nccl_run_stopped(line: str) -> Message:
    return Message(
        "nccl_run_stopped",
        f"nccl-tests stopped with an error (“{_q(line)}”); only the rows printed before it "
        "were used.",
        f"nccl-tests 因错误中止（“{_q(line)}”）；仅使用了此前输出的结果行。",
    )


def nccl_several_series(count: int, chosen: str) -> Message:
    return Message(
        "nccl_several_series",
        f"The table holds {count} series (data types or reduction operations, e.g. -d all); "
        f"the figures are those of {_q(chosen, 40)}.",
        f"结果表包含 {count} 组数据（不同的数据类型或归约操作，例如 -d all）；"
        f"采用的数值来自 {_q(chosen, 40)}。",
    )


def nccl_not_validated() -> Message:
    return Message(
        "nccl_not_validated",
        "nccl-tests ran without data validation (-c 0); wrong results would not have been "
        "detected.",
        "nccl-tests 未进行数据校验（-c 0）；错误的结果不会被发现。",
    )


def skipped_lines(count: int) -> Message:
    return Message(
        "skipped_lines",
        f"{count} line(s) inside the results could not be read and were skipped.",
        f"结果中有 {count} 行无法识别，已跳过。",
    )


def duplicate_sizes(count: int) -> Message:
    return Message(
        "duplicate_sizes",
        f"{count} repeated message-size row(s) were ignored.",
        f"忽略了 {count} 个重复的消息尺寸结果行。",
    )


def parse_failed() -> Message:
    return Message(
        "parse_failed",
        "The log could not be read: its content does not follow the tool's format.",
        "无法读取该日志：其内容不符合该工具的输出格式。",
    )
