#!/bin/sh
# Record the contracts demo's evidence (contracts/demo_data/): real iperf3 runs over a veth
# link between two network namespaces, shaped with tc to the full rate and to a reduced rate,
# and a real Prometheus query_range answer of a node_exporter watching that link during the
# runs. Needs root, ip, tc, iperf3, curl, prometheus and prometheus-node-exporter. Traffic stays
# inside the namespaces this script creates (prefix dlv), which it removes at the end; Prometheus
# and node_exporter run inside the first namespace on its own 127.0.0.1 and are stopped.
set -eu
OUT=${1:-contracts/demo_data}
FULL=${FULL:-2gbit}
REDUCED=${REDUCED:-1200mbit}
mkdir -p "$OUT"
WORK=$(mktemp -d)
cleanup() {
  for pid in $(cat "$WORK"/*.pid 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
  sleep 1
  ip netns del dlva 2>/dev/null || true; ip netns del dlvb 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
ip netns del dlva 2>/dev/null || true; ip netns del dlvb 2>/dev/null || true
ip netns add dlva; ip netns add dlvb
ip link add dlv0 type veth peer name dlv1
ip link set dlv0 netns dlva; ip link set dlv1 netns dlvb
ip -n dlva addr add 10.78.0.1/24 dev dlv0; ip -n dlvb addr add 10.78.0.2/24 dev dlv1
for n in a b; do ip -n "dlv$n" link set lo up; done
ip -n dlva link set dlv0 up; ip -n dlvb link set dlv1 up

# node_exporter and Prometheus inside dlva, scraping every 5 s
cat > "$WORK/prometheus.yml" <<YML
global: {scrape_interval: 5s}
scrape_configs:
  - job_name: node
    static_configs: [{targets: ["127.0.0.1:19100"], labels: {host: "gpu-01"}}]
YML
ip netns exec dlva prometheus-node-exporter --web.listen-address=127.0.0.1:19100 \
  --collector.disable-defaults --collector.netdev >/dev/null 2>&1 &
echo $! > "$WORK/ne.pid"
ip netns exec dlva prometheus --config.file="$WORK/prometheus.yml" \
  --storage.tsdb.path="$WORK/tsdb" --web.listen-address=127.0.0.1:19090 >/dev/null 2>&1 &
echo $! > "$WORK/prom.pid"
sleep 8
T0=$(date -u +%s)

run() {  # $1 rate, $2 file
  ip netns exec dlva tc qdisc replace dev dlv0 root tbf rate "$1" burst 512kb latency 50ms
  ip netns exec dlvb iperf3 -s -D -1 >/dev/null 2>&1 || true
  sleep 0.5
  ip netns exec dlva iperf3 -c 10.78.0.2 -t 10 -P 4 -J > "$OUT/$2"
  sleep 5
}
run "$FULL" kit_full_1.json
run "$FULL" kit_full_2.json
run "$FULL" kit_full_3.json
run "$REDUCED" kit_reduced_1.json
run "$REDUCED" kit_reduced_2.json
sleep 10
T1=$(date -u +%s)
ip netns exec dlva curl -s "http://127.0.0.1:19090/api/v1/query_range" \
  --data-urlencode 'query={__name__=~"node_network_transmit_bytes_total|node_network_receive_bytes_total|up",device=~"dlv0|",job="node"}' \
  --data-urlencode "start=$T0" --data-urlencode "end=$T1" --data-urlencode "step=5s" \
  > "$OUT/prometheus_gpu-01.json"
ip netns exec dlva prometheus --version 2>&1 | head -1 > "$OUT/recorded_with.txt"
iperf3 --version | head -1 >> "$OUT/recorded_with.txt"
echo "full=$FULL reduced=$REDUCED recorded=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$OUT/recorded_with.txt"
