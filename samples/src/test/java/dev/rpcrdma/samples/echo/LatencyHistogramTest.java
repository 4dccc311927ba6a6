package dev.rpcrdma.samples.echo;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LatencyHistogramTest {

    @Test
    void percentilesWithinTwoPercentOfExact() {
        Random random = new Random(42);
        long[] values = new long[100_000];
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < values.length; i++) {
            // Log-normal-ish latencies from ~10 us to ~10 ms.
            values[i] = (long) (10_000 * Math.exp(random.nextDouble() * 7));
            h.record(values[i]);
        }
        Arrays.sort(values);
        for (double p : new double[] {1, 50, 90, 99, 99.9, 100}) {
            long exact = values[(int) Math.ceil(p / 100 * values.length) - 1];
            long approx = h.percentile(p);
            assertTrue(Math.abs(approx - exact) <= exact * 0.02, "p" + p + ": " + approx + " vs " + exact);
        }
        assertEquals(values[values.length - 1], h.max());
        assertEquals(values.length, h.count());
        assertEquals(Arrays.stream(values).average().orElseThrow(), h.mean(), 1e-6);
    }

    @Test
    void smallValuesAreExactAndEmptyIsZero() {
        LatencyHistogram h = new LatencyHistogram();
        assertEquals(0, h.percentile(50));
        h.record(5);
        h.record(7);
        h.record(100);
        assertEquals(5, h.percentile(33));
        assertEquals(7, h.percentile(50));
        assertEquals(100, h.percentile(100));
    }

    @Test
    void resetForgetsEveryValue() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(1_000);
        h.record(5_000_000);
        h.reset();
        assertEquals(0, h.count());
        assertEquals(0, h.max());
        assertEquals(0, h.mean());
        assertEquals(0, h.percentile(50));
        h.record(42);
        assertEquals(1, h.count());
        assertEquals(42, h.percentile(100));
        assertEquals(42, h.max());
    }

    @Test
    void aValueBeyondTheRangeCountsAsTheHighestWithTheMaximumAndMeanExact() {
        LatencyHistogram h = new LatencyHistogram();
        long huge = 3 * LatencyHistogram.HIGHEST;
        h.record(huge);
        h.record(-5);
        assertEquals(2, h.count());
        assertEquals(huge, h.max());
        assertEquals(huge / 2.0, h.mean(), 1e-3);
        assertEquals(0, h.percentile(50));
        long top = h.percentile(100);
        assertTrue(Math.abs(top - LatencyHistogram.HIGHEST) <= LatencyHistogram.HIGHEST / 1000, "p100: " + top);
    }
}
