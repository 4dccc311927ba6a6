package dev.rpcrdma.samples.callback;

import java.util.Arrays;

/**
 * Round-trip times of one kind of call, in nanoseconds, kept exactly (the demo makes at most a few hundred thousand
 * calls) and summarised as count, p50, p99 and max in microseconds. Not thread-safe: one recording thread each.
 */
final class Latencies {
    private long[] nanos = new long[1024];
    private int count;
    private long failures;

    void record(long elapsedNanos) {
        if (count == nanos.length) {
            nanos = Arrays.copyOf(nanos, count * 2);
        }
        nanos[count++] = elapsedNanos;
    }

    void failed() {
        failures++;
    }

    int count() {
        return count;
    }

    long failures() {
        return failures;
    }

    /** The {@code q} quantile (0..1) in microseconds; 0 with no samples. */
    double quantileMicros(double q) {
        if (count == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(nanos, count);
        Arrays.sort(sorted);
        int i = (int) Math.min(count - 1, Math.max(0, Math.ceil(q * count) - 1));
        return sorted[i] / 1000.0;
    }

    String summary() {
        return String.format("%8d calls  p50 %8.1f µs  p99 %8.1f µs  max %8.1f µs%s", count, quantileMicros(0.5),
                quantileMicros(0.99), quantileMicros(1.0), failures == 0 ? "" : "  " + failures + " FAILED");
    }
}
