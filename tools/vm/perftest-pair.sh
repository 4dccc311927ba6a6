# Sourced INSIDE the VM by tools/vm/run-perftest and tools/vm/run-benchmarks (not executable on its own).
#
#   perftest_pair TOOL [ARG...]
#
# Runs a perftest tool (ib_send_lat, ib_write_bw, ...) as server and client in this guest over
# $VM_RDMA_DEVICE (rxe0), the client connecting to $VM_RDMA_ADDR (192.0.2.1); prints the client's output and
# sets PERFTEST_FIGURES to its figures line (the line after the "#bytes" header):
#   latency tools:   #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%   (usec)
#   bandwidth tools: #bytes #iterations BW_peak BW_average MsgRate                      (MB/s = 2^20 B/s, Mpps)
# perftest's latency tools time a ping-pong and report HALF the round trip (perftest README: "The latency
# benchmarks measure round-trip time but report half of that as one-way latency"); t_typical is the median.
# Returns 1 (after printing the server's output) when either side fails.

# -x 1: GID index 1 is the RoCE v2 GID of the IPv4 address (RoCE); -R: connect through the RDMA-CM (iWARP); -F: do not fail on CPU-frequency warnings.
# The server may take more than a second to listen on a loaded host: the client retries a refused connection.
# Each side is bounded by `timeout` so that a lost peer cannot hang the VM until its own timeout.
perftest_pair() {
  local tool=$1 dev=${VM_RDMA_DEVICE:-rxe0} addr=${VM_RDMA_ADDR:-192.0.2.1} server attempt ok= conn
  shift
  # iWARP (siw, node type RNIC) has no GIDs to pick and connects only through the RDMA-CM (-R).
  conn=(-x 1)
  grep -q RNIC "/sys/class/infiniband/$dev/node_type" 2>/dev/null && conn=(-R)
  PERFTEST_FIGURES=
  echo
  echo "=== $tool $*"
  timeout 300 "$tool" -d "$dev" "${conn[@]}" -F "$@" >/tmp/perftest-server.out 2>&1 &
  server=$!
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    sleep 1
    if timeout 300 "$tool" -d "$dev" "${conn[@]}" -F "$@" "$addr" >/tmp/perftest-client.out 2>&1; then
      ok=1; break
    fi
    grep -q "Couldn't connect" /tmp/perftest-client.out || break
  done
  cat /tmp/perftest-client.out
  if [ -z "$ok" ]; then
    echo "client of $tool failed"; kill "$server" 2>/dev/null; wait "$server"
    cat /tmp/perftest-server.out; return 1
  fi
  wait "$server" || { echo "server of $tool failed"; cat /tmp/perftest-server.out; return 1; }
  PERFTEST_FIGURES=$(awk '/#bytes/ { getline; print; exit }' /tmp/perftest-client.out)
  [ -n "$PERFTEST_FIGURES" ] || { echo "no figures in the output of $tool"; return 1; }
}
