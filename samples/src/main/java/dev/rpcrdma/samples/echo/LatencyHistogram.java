package dev.rpcrdma.samples.echo;

import org.HdrHistogram.ConcurrentHistogram;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Round-trip times in nanoseconds: an HdrHistogram {@link ConcurrentHistogram} (3 significant digits: under 0.1 %
 * error, exact below 2048 ns) with the exact maximum and mean kept beside it. Thread-safe: calls complete on several
 * event loops.
 *
 * <p>Its range is fixed, 1 ns to {@link #HIGHEST} (one hour; a longer value counts as one hour in the percentiles,
 * the maximum and the mean stay exact), so that recording never resizes it: an auto-resizing histogram grows by
 * catching the {@link ArrayIndexOutOfBoundsException} of its first values beyond its range, a JIT trap that
 * deoptimizes the recording path and its callers.
 */
final class LatencyHistogram {

    /** The largest value the percentiles tell apart, in nanoseconds: one hour. */
    static final long HIGHEST = 3_600_000_000_000L;

    private final ConcurrentHistogram histogram = new ConcurrentHistogram(1, HIGHEST, 3);
    private final LongAdder sum = new LongAdder();
    private final AtomicLong max = new AtomicLong();

    /** Records one value (negative values count as 0, values over {@link #HIGHEST} as {@link #HIGHEST}). */
    void record(long nanos) {
        long v = Math.max(0, nanos);
        histogram.recordValue(Math.min(v, HIGHEST));
        sum.add(v);
        max.accumulateAndGet(v, Math::max);
    }

    /** Forgets every value; not while values are being recorded. */
    void reset() {
        histogram.reset();
        sum.reset();
        max.set(0);
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
