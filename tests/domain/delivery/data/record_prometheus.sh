#!/bin/sh
# Records real Prometheus answers from a node_exporter on 127.0.0.1 (Debian packages `prometheus`
# and `prometheus-node-exporter`), for the delivery ingest tests. Runs both on free, non-default
# ports bound to 127.0.0.1 for about seven minutes, stops node_exporter for ~30 s in the middle
# (its own request counter restarts from zero and `up` drops to 0), saves the answers here and
# stops everything it started.
#   usage: sh tests/domain/delivery/data/record_prometheus.sh [seconds]
set -eu
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
SECS=${1:-420}
NE_PORT=19100
PROM_PORT=19090
cat > "$WORK/prometheus.yml" <<YML
global:
  scrape_interval: 5s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:$NE_PORT"]
YML
start_ne() {
  prometheus-node-exporter --web.listen-address=127.0.0.1:$NE_PORT \
    --collector.disable-defaults --collector.netdev > "$WORK/ne.log" 2>&1 &
  echo $! > "$WORK/ne.pid"
}
start_ne
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address=127.0.0.1:$PROM_PORT > "$WORK/prom.log" 2>&1 &
PROM_PID=$!
trap 'kill $(cat "$WORK/ne.pid") 2>/dev/null || true; kill $PROM_PID 2>/dev/null || true' EXIT
T0=$(date +%s)
HALF=$((SECS / 2))
# Some traffic through the loopback and the exporter while it runs.
while [ $(( $(date +%s) - T0 )) -lt "$HALF" ]; do
  curl -s "http://127.0.0.1:$NE_PORT/metrics" > /dev/null || true; sleep 1
done
kill "$(cat "$WORK/ne.pid")"; sleep 30; start_ne
while [ $(( $(date +%s) - T0 )) -lt "$SECS" ]; do
  curl -s "http://127.0.0.1:$NE_PORT/metrics" > /dev/null || true; sleep 1
done
sleep 6
T1=$(date +%s)
API="http://127.0.0.1:$PROM_PORT/api/v1"
q() { curl -s -G "$API/$1" --data-urlencode "query=$2" "$@" ; }
curl -s -G "$API/query_range" \
  --data-urlencode 'query={__name__=~"node_network_(transmit|receive)_bytes_total|up"}' \
  --data-urlencode "start=$T0" --data-urlencode "end=$T1" --data-urlencode "step=5" \
  > "$OUT/prom_node_exporter_range.json"
RAW='promhttp_metric_handler_requests_total{code="200"}'
curl -s -G "$API/query" --data-urlencode "query=$RAW[10m]" --data-urlencode "time=$T1" \
  > "$OUT/prom_counter_raw.json"
curl -s -G "$API/query" --data-urlencode "query=increase($RAW[10m])" --data-urlencode "time=$T1" \
  > "$OUT/prom_counter_increase.json"
curl -s -G "$API/query" --data-urlencode "query=resets($RAW[10m])" --data-urlencode "time=$T1" \
  > "$OUT/prom_counter_resets.json"
# An error answer: more than 11,000 points per series.
curl -s -G "$API/query_range" --data-urlencode "query=up" --data-urlencode "start=0" \
  --data-urlencode "end=$T1" --data-urlencode "step=1" > "$OUT/prom_error_too_many_points.json"
prometheus --version 2>&1 | head -1 > "$OUT/prom_versions.txt"
prometheus-node-exporter --version 2>&1 | head -1 >> "$OUT/prom_versions.txt"
echo "recorded $T0..$T1" >> "$OUT/prom_versions.txt"
