# Per-call system calls of the busiest poster in a `strace -f -o` trace: the thread (TID) with the most write(2)
# calls (ibv_post_send's doorbell on rxe: one per Send) is the event loop; its system calls after its
# (writes - CALLS)-th write, divided by CALLS, are its system calls per round trip, warm (the JIT's and the GC's
# threads are other TIDs). Usage: awk -v calls=N -f loopcount.awk TRACE
$1 ~ /^[0-9]+$/ && $2 !~ /^</ {
    name = $2; sub(/\(.*/, "", name)
    if (name !~ /^[a-z_0-9]+$/) next
    n++; tid[n] = $1; sc[n] = name
    if (name == "write") writes[$1]++
}
END {
    best = ""; max = 0
    for (t in writes) if (writes[t] > max) { max = writes[t]; best = t }
    if (best == "" || max < calls) { print "  (no thread with " calls " writes)"; exit }
    skip = max - calls; seen = 0
    for (i = 1; i <= n; i++) {
        if (tid[i] != best) continue
        if (seen < skip) { if (sc[i] == "write") seen++; continue }
        count[sc[i]]++; total++
    }
    printf "  thread %s (%d writes); per round trip over its last %d:\n", best, max, calls
    for (k in count) printf "  %-20s %6.2f\n", k, count[k] / calls
    printf "  %-20s %6.2f\n", "total", total / calls
}
