package dev.rpcrdma.samples.echo;

import org.HdrHistogram.ConcurrentHistogram;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Round-trip times in nanoseconds: an HdrHistogram {@link ConcurrentHistogram} (3 significant digits: under 0.1 %
 * error, exact below 2048 ns; it grows to any value) with the exact maximum and mean kept beside it. Thread-safe:
 * calls complete on several event loops.
 */
final class LatencyHistogram {

    private final ConcurrentHistogram histogram = new ConcurrentHistogram(3);
    private final LongAdder sum = new LongAdder();
    private final AtomicLong max = new AtomicLong();

    /** Records one value (negative values count as 0). */
    void record(long nanos) {
        long v = Math.max(0, nanos);
        histogram.recordValue(v);
        sum.add(v);
        max.accumulateAndGet(v, Math::max);
    }

    /** Number of recorded values. */
    long count() {
        return histogram.getTotalCount();
    }

    /** Largest recorded value, exact. */
    long max() {
        return max.get();
    }

    /** Mean, exact. */
    double mean() {
        long n = count();
        return n == 0 ? 0 : (double) sum.sum() / n;
    }

    /** The value at {@code percentile} (0-100] (HdrHistogram's), never above the exact maximum. 0 when empty. */
    long percentile(double percentile) {
        if (count() == 0) {
            return 0;
        }
        return Math.min(histogram.getValueAtPercentile(percentile), max.get());
    }
}
