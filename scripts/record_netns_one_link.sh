#!/bin/sh
# Record real iperf3 logs of several tests sharing ONE link at the same time (the usual way to
# fill a fast link: one iperf3 process before 3.16 runs on one core), for the evidence tests
# (tests/domain/data/recorded/). Needs root, ip, tc and iperf3. Traffic stays inside the two
# namespaces this script creates (prefix evidl), which it removes at the end.
#   four clients at once on ports 5401-5404 over one veth shaped to 1 Gbit/s;
#   three clients at once on ports 5411-5413 over the same link, started a second apart.
set -eu
OUT=${1:-tests/domain/data/recorded}
mkdir -p "$OUT"
cleanup() { ip netns del evidla 2>/dev/null || true; ip netns del evidlb 2>/dev/null || true; }
trap cleanup EXIT
cleanup
ip netns add evidla; ip netns add evidlb
ip link add evlva type veth peer name evlvb
ip link set evlva netns evidla; ip link set evlvb netns evidlb
ip -n evidla addr add 10.78.0.1/24 dev evlva
ip -n evidlb addr add 10.78.0.2/24 dev evlvb
for n in a b; do ip -n "evidl$n" link set lo up; ip -n "evidl$n" link set "evlv$n" up; done
ip netns exec evidla tc qdisc add dev evlva root tbf rate 1gbit burst 256kb latency 50ms
for p in 5401 5402 5403 5404 5411 5412 5413; do
  ip netns exec evidlb iperf3 -s -D -1 -p "$p" >/dev/null 2>&1
done
sleep 1
for p in 5401 5402 5403 5404; do
  ip netns exec evidla iperf3 -c 10.78.0.2 -p "$p" -t 6 -J > "$OUT/one_link_port$p.json" &
done
wait
sleep 1
for p in 5411 5412 5413; do
  ip netns exec evidla iperf3 -c 10.78.0.2 -p "$p" -t 8 -J > "$OUT/one_link_staggered_port$p.json" &
  sleep 1
done
wait
