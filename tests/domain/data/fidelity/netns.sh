#!/bin/sh
# Two network namespaces joined by a veth pair, each side shaped to 1 Gbit/s with tbf.
# usage: netns.sh up | down     (run as root; touches nothing outside the two namespaces)
set -e
C=parsers_c; S=parsers_s
case "$1" in
up)
  ip netns add $C; ip netns add $S
  ip link add pvc netns $C type veth peer name pvs netns $S
  ip -n $C addr add 10.77.0.1/24 dev pvc; ip -n $S addr add 10.77.0.2/24 dev pvs
  ip -n $C link set pvc up; ip -n $S link set pvs up
  ip -n $C link set lo up; ip -n $S link set lo up
  tc -n $C qdisc add dev pvc root tbf rate 1gbit burst 256kb latency 20ms
  tc -n $S qdisc add dev pvs root tbf rate 1gbit burst 256kb latency 20ms
  ;;
down)
  ip netns del $C || true; ip netns del $S || true
  ;;
esac
