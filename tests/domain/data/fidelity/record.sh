#!/bin/sh
# Record the iperf3 logs of this folder between the namespaces made by netns.sh (see SOURCES.md).
# usage: ./netns.sh up && ./record.sh && ./netns.sh down
set -u
C="ip netns exec parsers_c"; S="ip netns exec parsers_s"; H=10.77.0.2
cd "$(dirname "$0")"

one_server() {  # one-off server whose stdout+stderr go to $1
  $S iperf3 -s -1 -p 5201 > "$1" 2>&1 &
  SERVER=$!; sleep 0.5
}

one_server server_tcp_P4.txt
$C iperf3 -c $H -p 5201 -t 30 -P 4 > tcp_P4_30s.txt 2>&1; wait $SERVER
one_server /dev/null
$C iperf3 -c $H -p 5201 -t 30 -P 4 -J > tcp_P4_30s.json 2>&1; wait $SERVER
one_server server_tcp_bidir.txt
$C iperf3 -c $H -p 5201 -t 10 --bidir > tcp_bidir.txt 2>&1; wait $SERVER
one_server /dev/null
$C iperf3 -c $H -p 5201 -t 10 --bidir -J > tcp_bidir.json 2>&1; wait $SERVER
one_server server_udp_1500M.txt
$C iperf3 -c $H -p 5201 -t 10 -u -b 1500M > udp_1500M.txt 2>&1; wait $SERVER
one_server /dev/null
$C iperf3 -c $H -p 5201 -t 10 -u -b 1500M -J > udp_1500M.json 2>&1; wait $SERVER
one_server /dev/null
$C iperf3 -c $H -p 5201 -t 10 -O 2 > tcp_omit2.txt 2>&1; wait $SERVER
one_server /dev/null
$C iperf3 -c $H -p 5201 -t 10 -O 2 -J > tcp_omit2.json 2>&1; wait $SERVER

# A server stopped with SIGTERM 6.5 s into a 20 s test (a long-running server, not -1).
for kind in txt json; do
  $S iperf3 -s -p 5201 > "server_killed_$kind.txt" 2>&1 &
  SERVER=$!; sleep 0.5
  if [ $kind = json ]; then FLAG=-J; else FLAG=; fi
  $C iperf3 -c $H -p 5201 -t 20 $FLAG > "tcp_server_killed.$kind" 2>&1 &
  CLIENT=$!; sleep 6.5; kill -TERM $SERVER; wait $CLIENT; wait $SERVER
done

# -P 4 with the client sharing CPU 0 with a busy loop (60 s, then 30 s at -i 0.1): an attempt to
# make stream and [SUM] interval times print differently. iperf3 3.12 stamps all streams at once,
# so neither run shows it (see SOURCES.md); the two logs still test the block grouping.
one_server /dev/null
taskset -c 0 sh -c 'while :; do :; done' &
HOG=$!
$C taskset -c 0 iperf3 -c $H -p 5201 -t 60 -P 4 > tcp_P4_loaded.txt 2>&1; wait $SERVER
kill $HOG
taskset -c 0 sh -c 'while :; do :; done' &
HOG=$!
one_server /dev/null
$C taskset -c 0 iperf3 -c $H -p 5201 -t 30 -i 0.1 -P 4 > tcp_P4_loaded_i01.txt 2>&1; wait $SERVER
kill $HOG
