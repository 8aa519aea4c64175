#!/bin/sh
# Record real iperf3 logs between network namespaces for the evidence tests
# (tests/domain/data/recorded/). Needs root, ip, tc and iperf3. Traffic stays inside the
# namespaces this script creates (prefix evid), which it removes at the end.
set -eu
OUT=${1:-tests/domain/data/recorded}
mkdir -p "$OUT"
pairs="0 1 2 3 4"
cleanup() { for i in $pairs; do ip netns del "evida$i" 2>/dev/null || true; ip netns del "evidb$i" 2>/dev/null || true; done; }
trap cleanup EXIT
cleanup
for i in $pairs; do
  ip netns add "evida$i"; ip netns add "evidb$i"
  ip link add "evva$i" type veth peer name "evvb$i"
  ip link set "evva$i" netns "evida$i"; ip link set "evvb$i" netns "evidb$i"
  ip -n "evida$i" addr add "10.77.$i.1/24" dev "evva$i"
  ip -n "evidb$i" addr add "10.77.$i.2/24" dev "evvb$i"
  for n in a b; do ip -n "evid$n$i" link set lo up; ip -n "evid$n$i" link set "evv$n$i" up; done
  # Shape the client side: pair 0 to 2 Gbit/s, pairs 1-4 to 1 Gbit/s each.
  rate=1gbit; [ "$i" = 0 ] && rate=2gbit
  ip netns exec "evida$i" tc qdisc add dev "evva$i" root tbf rate "$rate" burst 256kb latency 50ms
  ip netns exec "evidb$i" iperf3 -s -D -1 >/dev/null 2>&1 || true
done
sleep 1
# Three tests one after another on pair 0 (each server above serves one test: restart it).
for k in 1 2 3; do
  ip netns exec evidb0 iperf3 -s -D -1 >/dev/null 2>&1 || true; sleep 0.5
  ip netns exec evida0 iperf3 -c 10.77.0.2 -t 5 -J > "$OUT/sequential_pair0_run$k.json"
  sleep 1
done
# Four tests at the same time on four distinct pairs.
for i in 1 2 3 4; do ip netns exec "evida$i" iperf3 -c "10.77.$i.2" -t 6 -J > "$OUT/simultaneous_pair$i.json" & done
wait
# UDP at a rate set with -b (500 Mbit/s) on pair 0.
ip netns exec evidb0 iperf3 -s -D -1 >/dev/null 2>&1 || true; sleep 0.5
ip netns exec evida0 iperf3 -c 10.77.0.2 -u -b 500M -t 5 -J > "$OUT/udp_b500M_pair0.json"
