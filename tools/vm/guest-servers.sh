# Sourced inside the VM by run-icount and run-dropin: the servers and C clients their cases run.
# Needs: $out (the run's folder, $VM_WORK), $JAR, $jvm_opts, $ADDR; sets server_pid.

# start_server [echo|framing|bridge|echo-tcp|framing-tcp|bridge-tcp] [PORT] [CPUS]: the echo sample's server
# (EchoCommand server, --transport rdma, or tcp for echo-tcp; default port 20049) or a benchmarks DropInServer of that
# kind (default port 20051), pinned to CPUS (default 0: taskset -c); returns once it says it listens.
start_server() {
  local kind=${1:-echo} port=${2:-} cpus=${3:-0} log main
  log=$out/server_$kind.log
  case $kind in
    echo|echo-tcp)
      local t=rdma; [ "$kind" = echo ] || t=tcp
      main=(dev.rpcrdma.samples.echo.EchoCommand server --transport "$t" --address "$ADDR" --port "${port:-20049}") ;;
    *) main=(dev.rpcrdma.benchmarks.vm.DropInServer "$kind" "$ADDR" "${port:-20051}") ;;
  esac
  # shellcheck disable=SC2086
  taskset -c "$cpus" java $jvm_opts -XX:ErrorFile="$out/hs_err_server_%p.log" -cp "$JAR" "${main[@]}" >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 900); do
    grep -q '^echo server:\|^drop-in server:' "$log" 2>/dev/null && return 0
    kill -0 $server_pid 2>/dev/null || break
    sleep 0.2
  done
  echo "$kind server did not start"; cat "$log"; return 1
}

# compile_c_clients [tirpc]: rdma_null_requester into $out (sets c_requester), and with "tirpc" tirpc_null_load
# (libtirpc-dev; sets tirpc_load); both from benchmarks/src/main/c.
compile_c_clients() {
  c_requester=$out/rdma_null_requester
  gcc -O2 -Wall -o "$c_requester" "$REPO/benchmarks/src/main/c/rdma_null_requester.c" -lrdmacm -libverbs \
    || { echo "cannot compile rdma_null_requester.c (librdmacm-dev, libibverbs-dev)"; return 1; }
  [ "${1:-}" = tirpc ] || return 0
  tirpc_load=$out/tirpc_null_load
  gcc -O2 -Wall -I/usr/include/tirpc -o "$tirpc_load" "$REPO/benchmarks/src/main/c/tirpc_null_load.c" -ltirpc \
    || { echo "cannot compile tirpc_null_load.c (libtirpc-dev)"; return 1; }
}
