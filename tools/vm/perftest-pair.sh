# Sourced INSIDE the VM by tools/vm/run-perftest, run-benchmarks and run-provider-figures, and by tools/qualify on any
# host with an RDMA device (not executable on its own).
#
#   perftest_pair TOOL [ARG...]
#
# Runs a perftest tool (ib_send_lat, ib_write_bw, ...) as server and client in this guest over
# $VM_RDMA_DEVICE (rxe0), the client connecting to $VM_RDMA_ADDR (192.0.2.1); prints the client's output and
# sets PERFTEST_CONNECT to how it connected (-R, -x N or GID 0) and PERFTEST_FIGURES to its figures line (the line
# after the "#bytes" header):
#   latency tools:   #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%   (usec)
#   bandwidth tools: #bytes #iterations BW_peak BW_average MsgRate                      (MB/s = 2^20 B/s, Mpps)
# perftest's latency tools time a ping-pong and report HALF the round trip (perftest README: "The latency
# benchmarks measure round-trip time but report half of that as one-way latency"); t_typical is the median.
# Returns 1 (after printing the server's output) when either side fails.

# RoCE: -x N, the GID index of the address's RoCE v2 GID (::ffff:a.b.c.d; rxe0 in the VM: 1), looked up in sysfs;
# InfiniBand: perftest's default GID 0; iWARP: -R, connect through the RDMA-CM. -F: do not fail on CPU-frequency warnings.
# The server may take more than a second to listen on a loaded host: the client retries a refused connection.
# Each side is bounded by `timeout` (PERFTEST_TIMEOUT seconds, default 300) so that a lost peer cannot hang the VM
# until its own timeout.

# perftest_roce_gid DEV ADDRESS: sets PERFTEST_GID to the index of ADDRESS's RoCE v2 GID on port 1 of DEV and
# PERFTEST_GID_FOUND to 1, or (sysfs does not say) to 1 and 0.
perftest_roce_gid() {
  local p=/sys/class/infiniband/$1/ports/1 want f i
  want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$2" | tr . ' '))
  for f in "$p"/gids/*; do
    i=${f##*/}
    if [ "$(cat "$f" 2>/dev/null)" = "$want" ] && [ "$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ]; then
      PERFTEST_GID=$i PERFTEST_GID_FOUND=1; return
    fi
  done
  PERFTEST_GID=1 PERFTEST_GID_FOUND=0
}
perftest_pair() {
  local tool=$1 dev=${VM_RDMA_DEVICE:-rxe0} addr=${VM_RDMA_ADDR:-192.0.2.1} server attempt ok= conn
  shift
  # iWARP (siw, node type RNIC) has no GIDs to pick and connects only through the RDMA-CM (-R).
  if grep -q RNIC "/sys/class/infiniband/$dev/node_type" 2>/dev/null; then
    conn=(-R)
  elif [ "$(cat "/sys/class/infiniband/$dev/ports/1/link_layer" 2>/dev/null)" = Ethernet ]; then
    perftest_roce_gid "$dev" "$addr"
    conn=(-x "$PERFTEST_GID")
  else
    conn=()
  fi
  PERFTEST_CONNECT=${conn[*]:-GID 0}
  [ "${conn[0]:-}" != -x ] || PERFTEST_CONNECT+=" ($([ "$PERFTEST_GID_FOUND" = 1 ] && echo "the RoCE v2 GID of $addr" \
    || echo "no RoCE v2 GID of $addr in sysfs: index 1 assumed"))"
  PERFTEST_FIGURES=
  echo
  echo "=== $tool $*"
  timeout -k 5 "${PERFTEST_TIMEOUT:-300}" "$tool" -d "$dev" "${conn[@]}" -F "$@" >/tmp/perftest-server.out 2>&1 &
  server=$!
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    sleep 1
    if timeout -k 5 "${PERFTEST_TIMEOUT:-300}" "$tool" -d "$dev" "${conn[@]}" -F "$@" "$addr" >/tmp/perftest-client.out 2>&1; then
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
