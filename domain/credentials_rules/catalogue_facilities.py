"""Severity and wording of the findings on certifications, data centres, networks and SLA."""

from __future__ import annotations

from domain.credentials import Severity

_C, _W, _I = Severity.CRITICAL, Severity.WARNING, Severity.INFO

FACILITY_CATALOGUE: dict[str, tuple[Severity, str, str]] = {
    # certifications
    "certificate_details_missing": (
        _W,
        "{name} is claimed without a certificate number or certification body, so it cannot be "
        "checked. Ask for the certificate and verify it on the CNCA certification information "
        "platform (全国认证认可信息公共服务平台).",
        "声称持有{name}，但未提供证书编号或认证机构，无法核查。"
        "请索取证书，并在全国认证认可信息公共服务平台查验。",
    ),
    "certificate_validity_unknown": (
        _I,
        "The expiry date of {name} is not recorded; take it from the certificate.",
        "未登记{name}的有效期，请按证书录入。",
    ),
    "certificate_expired": (
        _I,
        "{name} expired on {until}.",
        "{name}已于 {until} 过期。",
    ),
    "iso27001_missing": (
        _W,
        "No ISO 27001 (information security) certificate is on file. Your training data and "
        "models sit on the vendor's machines: ask for the certificate or their security controls.",
        "未登记 ISO 27001（信息安全管理）证书。训练数据和模型将存放在供应商机器上，"
        "请索取证书或其安全管理措施说明。",
    ),
    "iso27001_expired": (
        _C,
        "{name} (ISO 27001) expired on {until}: information security is no longer certified. Ask "
        "for the renewed certificate.",
        "{name}（ISO 27001）已于 {until} 过期，信息安全管理不再受认证，请索取换发后的证书。",
    ),
    "iso27001_expiring": (
        _W,
        "{name} (ISO 27001) expires on {until}, in {days} days; ask for the surveillance or "
        "recertification audit date.",
        "{name}（ISO 27001）将于 {until} 到期（还剩 {days} 天），请询问监督审核或再认证时间。",
    ),
    "iso9001_missing": (
        _I,
        "No ISO 9001 (quality management) certificate is on file.",
        "未登记 ISO 9001（质量管理体系）证书。",
    ),
    "iso9001_expired": (
        _W,
        "{name} (ISO 9001) expired on {until}; ask for the renewed certificate.",
        "{name}（ISO 9001）已于 {until} 过期，请索取换发后的证书。",
    ),
    "iso9001_expiring": (
        _I,
        "{name} (ISO 9001) expires on {until}, in {days} days.",
        "{name}（ISO 9001）将于 {until} 到期（还剩 {days} 天）。",
    ),
    "certification_unverified": (
        _I,
        "Certificate {name} is only claimed; verify it on the CNCA certification information "
        "platform.",
        "证书“{name}”仅为声称，请在全国认证认可信息公共服务平台查验。",
    ),
    "certification_rejected": (
        _C,
        "A reviewer rejected certificate {name}: it is fake, expired or belongs to someone else.",
        "证书“{name}”已被审核驳回：证书虚假、过期或不属于该供应商。",
    ),
    # data centres
    "data_centre_re_leased": (
        _C,
        "{name} is re-leased from a third party (转租). The re-leaser controls neither the "
        "bandwidth nor repair response; ask who operates the room and get their commitments in "
        "the contract, or prefer a licensed self-operated data centre.",
        "{name}为转租第三方机房，转租方既不掌控带宽也不掌控故障响应。请问清实际运营方并将其承诺写入"
        "合同，或优先选择持牌自营机房。",
    ),
    "data_centre_leased": (
        _I,
        "{name} is leased space in someone else's data centre; ask who handles power, cooling and "
        "network faults and how fast.",
        "{name}为租用他人机房空间，请问清供电、制冷和网络故障由谁处理、响应多快。",
    ),
    "data_centre_ownership_unknown": (
        _W,
        "It is unknown whether {name} is self-operated or re-leased. Ask for the data-centre "
        "operator's name and the vendor's contract with it.",
        "{name}是自营还是转租尚不清楚，请索取机房运营方名称及供应商与其签订的合同。",
    ),
    "data_centre_province_unknown": (
        _I,
        "The province of {name} is not recorded, so licence coverage cannot be checked.",
        "未登记{name}所在省份，无法核对许可证覆盖范围。",
    ),
    "data_centre_power_unknown": (
        _I,
        "Power per rack at {name} is unknown; 8-GPU A100/H100 servers need about 6.5–10.2 kW "
        "each at full load. Ask for the contracted kW per rack.",
        "{name}单机柜功率未知；8 卡 A100/H100 服务器满载约需 6.5–10.2 kW。请询问合同约定的"
        "单机柜功率。",
    ),
    "data_centre_power_low": (
        _W,
        "Racks at {name} supply {kw:g} kW, below {min_kw:g} kW: not even one 8-GPU H100 server "
        "(about 10.2 kW) runs at full load. Ask for high-power racks or fewer servers per rack.",
        "{name}单机柜功率为 {kw:g} kW，低于 {min_kw:g} kW，连一台 8 卡 H100 服务器（约 10.2 kW）"
        "都无法满载运行。请要求高功率机柜或减少每柜服务器数量。",
    ),
    "data_centre_unverified": (
        _I,
        "Data centre {name} is only claimed; visit it or ask for the operator contract and "
        "photos.",
        "机房“{name}”仅为声称，请实地考察或索取机房运营合同及现场照片。",
    ),
    "data_centre_rejected": (
        _C,
        "A reviewer rejected data centre {name}: the vendor does not have it as described.",
        "机房“{name}”已被审核驳回：供应商并不具备所述机房。",
    ),
    # networks
    "network_profile_missing": (
        _W,
        "Nothing is known about the training network at {name}: ask for the fabric (IB/RoCE), "
        "NIC speed, topology and lossless settings before comparing prices.",
        "{name}的训练网络信息空缺，比价前请问清组网方式（IB/RoCE）、网卡速率、拓扑和无损配置。",
    ),
    "network_unverified": (
        _I,
        "The network of {name} is only claimed; verify it with ib_write_bw / iperf3 runs across "
        "many server pairs at once during the trial.",
        "“{name}”的网络配置仅为声称，请在测试期用 ib_write_bw / iperf3 做多节点并发测试验证。",
    ),
    "network_rejected": (
        _C,
        "A reviewer rejected the network of {name}: the benchmarks or inspection contradicted it.",
        "“{name}”的网络配置已被审核驳回：实测或核查结果与之不符。",
    ),
    "roce_without_pfc": (
        _C,
        "RoCE runs without PFC (priority flow control): under synchronized bursts (TCP incast) "
        "the switches drop packets and throughput collapses. Ask for PFC to be enabled.",
        "RoCE 网络未启用 PFC（优先级流控），同步突发流量（TCP Incast）时交换机丢包，"
        "吞吐断崖式下降。请要求启用 PFC。",
    ),
    "roce_pfc_unknown": (
        _W,
        "It is unknown whether PFC is enabled on the RoCE network; without it RoCE collapses "
        "under congestion. Ask for the switch configuration.",
        "不清楚 RoCE 网络是否启用 PFC，未启用时拥塞下性能会崩溃。请索取交换机配置。",
    ),
    "roce_without_ecn": (
        _C,
        "RoCE runs without ECN (explicit congestion notification): senders are never told to "
        "slow down, so congestion turns into pauses and loss. Ask for ECN to be enabled.",
        "RoCE 网络未启用 ECN（显式拥塞通知），发送端无法及时降速，拥塞会导致暂停和丢包。"
        "请要求启用 ECN。",
    ),
    "roce_ecn_unknown": (
        _W,
        "It is unknown whether ECN is enabled on the RoCE network. Ask for the switch "
        "configuration.",
        "不清楚 RoCE 网络是否启用 ECN，请索取交换机配置。",
    ),
    "roce_without_dcqcn": (
        _W,
        "RoCE runs without DCQCN congestion control; ask which congestion control is used and who "
        "tunes its parameters.",
        "RoCE 网络未启用 DCQCN 拥塞控制，请问清采用何种拥塞控制、由谁调参。",
    ),
    "roce_dcqcn_unknown": (
        _I,
        "It is unknown whether DCQCN (or another congestion control) runs on the RoCE network; ask "
        "who tunes the congestion-control parameters.",
        "不清楚 RoCE 网络是否启用 DCQCN 等拥塞控制，请询问拥塞控制参数由谁调优。",
    ),
    "network_fabric_unknown": (
        _W,
        "The network fabric '{fabric}' is not InfiniBand, RoCE or TCP; ask what it is.",
        "网络类型“{fabric}”不属于 InfiniBand、RoCE 或 TCP，请问清具体方案。",
    ),
    "network_tcp_only": (
        _W,
        "Nodes talk over plain TCP/Ethernet without RDMA: gradient sync will be slow for "
        "multi-node training. Ask for RoCE or InfiniBand.",
        "节点间仅为普通 TCP/以太网，无 RDMA，多机训练时梯度同步会很慢。请要求 RoCE 或 InfiniBand。",
    ),
    "network_three_tier": (
        _W,
        "The network is a traditional three-tier design, which bottlenecks east-west traffic "
        "between GPU servers. Ask for a spine-leaf fabric.",
        "网络采用传统三层架构，GPU 服务器间横向流量易形成瓶颈。请要求 Spine-Leaf 架构。",
    ),
    "network_topology_unknown": (
        _I,
        "The network topology is unknown; ask whether it is spine-leaf.",
        "网络拓扑未知，请问清是否为 Spine-Leaf 架构。",
    ),
    "network_mgmt_not_separated": (
        _W,
        "Management and training traffic share one network, so monitoring and storage traffic "
        "disturb gradient sync. Ask for separate management and business networks.",
        "管理网与业务（训练）网未隔离，监控和存储流量会干扰梯度同步。请要求管理网和业务网分离。",
    ),
    "network_mgmt_unknown": (
        _I,
        "It is unknown whether the management network is separate from the training network.",
        "不清楚管理网是否与训练业务网隔离。",
    ),
    "network_nic_unknown": (
        _I,
        "The server NIC speed is unknown; ask for port speed and NICs per server (not the data "
        "centre's Internet exit bandwidth).",
        "服务器网卡速率未知，请询问端口速率及每台网卡数量（而非机房出口带宽）。",
    ),
    "network_nic_below_training_floor": (
        _C,
        "Servers connect at {gbps:g}G, below the {floor:g}G floor for multi-node training: "
        "good for inference only, training will stall in communication.",
        "服务器网卡仅 {gbps:g}G，低于多机训练 {floor:g}G 的底线，只适合推理，训练会卡在通信阶段。",
    ),
    "network_nic_below_8gpu": (
        _W,
        "Servers connect at {gbps:g}G; 8-GPU A100/H100 training servers should get "
        "{recommended:g}G or more per server.",
        "服务器网卡为 {gbps:g}G；8 卡 A100/H100 训练机建议每台 {recommended:g}G 起步。",
    ),
    "cross_site_links_missing": (
        _W,
        "The vendor uses {sites} sites but no dedicated cross-site links are confirmed; training "
        "across sites would ride on shared links. Ask for dedicated lines and their bandwidth.",
        "供应商使用 {sites} 个机房，但未确认机房间有专线互联，跨机房训练将走共享链路。"
        "请索取专线及其带宽说明。",
    ),
    # SLA
    "sla_missing": (
        _W,
        "There is no SLA: bandwidth, availability, response and replacement times are promises "
        "only. Ask for a written SLA before signing.",
        "没有 SLA，带宽、可用性、响应和更换时间都只是口头承诺。签约前请索取书面 SLA。",
    ),
    "sla_unverified": (
        _I,
        "The SLA terms are only claimed; check them against the draft contract.",
        "SLA 条款仅为声称，请对照合同草案核实。",
    ),
    "sla_rejected": (
        _C,
        "A reviewer rejected the SLA: the contract does not contain what was claimed.",
        "SLA 已被审核驳回：合同中并无所称条款。",
    ),
    "sla_bandwidth_not_in_contract": (
        _W,
        "The inter-node bandwidth is not written into the contract, so a shortfall cannot be "
        "claimed. Ask for the bandwidth figures in the contract.",
        "节点间带宽未写入合同，带宽不达标时无从追责。请要求将带宽指标写入合同。",
    ),
    "sla_bandwidth_unknown": (
        _I,
        "It is unknown whether the bandwidth is written into the contract.",
        "不清楚带宽是否写入合同。",
    ),
    "sla_no_compensation": (
        _W,
        "The contract has no compensation when bandwidth or availability is missed (超额赔付 / "
        "达标补偿). Ask for a compensation clause.",
        "合同中没有带宽或可用性不达标时的补偿条款（超额赔付 / 达标补偿），请要求增加。",
    ),
    "sla_compensation_unknown": (
        _I,
        "It is unknown whether the contract compensates missed bandwidth or availability.",
        "不清楚合同是否约定不达标补偿。",
    ),
    "sla_availability_unknown": (
        _I,
        "No availability figure is given; ask for the committed availability (99.9% or better).",
        "未给出可用性指标，请索取承诺的可用性（不低于 99.9%）。",
    ),
    "sla_availability_low": (
        _W,
        "The SLA promises {value:g}% availability, below {minimum:g}%: each outage also costs "
        "the restart from the last checkpoint.",
        "SLA 承诺可用性 {value:g}%，低于 {minimum:g}%；每次中断还要从最近的 checkpoint 重新开始。",
    ),
    "sla_hw_replacement_unknown": (
        _I,
        "The hardware replacement time is not stated; ask for it in hours.",
        "未约定硬件更换时限，请要求以小时为单位写明。",
    ),
    "sla_hw_replacement_slow": (
        _W,
        "Failed hardware is replaced within {hours:g} h, slower than {max:g} h: a dead GPU "
        "server idles the whole job meanwhile. Ask for on-site spares.",
        "硬件更换时限为 {hours:g} 小时，超过 {max:g} 小时，期间坏掉的 GPU 服务器会拖停整个任务。"
        "请要求现场备件。",
    ),
    "sla_response_unknown": (
        _I,
        "The fault response time is not stated; ask for a response within the hour.",
        "未约定故障响应时间，请要求一小时内响应。",
    ),
    "sla_response_slow": (
        _W,
        "Faults get a response within {minutes} minutes, slower than {max} minutes; training is "
        "down while nobody responds.",
        "故障响应时间为 {minutes} 分钟，超过 {max} 分钟，无人响应期间训练处于中断状态。",
    ),
}
