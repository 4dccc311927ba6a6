package dev.rpcrdma.benchmarks.vm;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A closed-loop driver: keeps {@code inFlight} operations outstanding, issuing the next one from the completion
 * of the previous (on whichever thread completed it, usually the client's event loop, so no extra thread hop is
 * measured). Runs a warm-up phase, then a measured phase bounded by time and by count, and records every
 * measured round trip.
 */
final class ClosedLoop {

    /** One measured phase: round-trip times in nanoseconds and the wall time of the phase. */
    static final class Result {
        final long[] nanos;
        final long elapsedNanos;

        Result(long[] nanos, long elapsedNanos) {
            this.nanos = nanos;
            this.elapsedNanos = elapsedNanos;
        }

        int count() {
            return nanos.length;
        }

        /** The {@code q}-quantile (0..1) in microseconds (nearest rank). */
        double quantileMicros(double q) {
            int i = (int) Math.min(nanos.length - 1, Math.max(0, Math.ceil(q * nanos.length) - 1));
            return nanos[i] / 1000.0;
        }

        double meanMicros() {
            double sum = 0;
            for (long n : nanos) {
                sum += n;
            }
            return nanos.length == 0 ? 0 : sum / nanos.length / 1000.0;
        }

        /**
         * From {@code n + 1} send stamps as {@link PingPong} records them (round trip {@code i} =
         * {@code stamps[i + 1] - stamps[i]}, perftest's way); {@code stamps} is overwritten.
         */
        static Result fromStamps(long[] stamps, int n) {
            long elapsed = stamps[n] - stamps[0];
            for (int i = 0; i < n; i++) {
                stamps[i] = stamps[i + 1] - stamps[i];
            }
            long[] measured = Arrays.copyOf(stamps, n);
            Arrays.sort(measured);
            return new Result(measured, elapsed);
        }

        double opsPerSecond() {
            return nanos.length / (elapsedNanos / 1e9);
        }
    }

    private final Supplier<CompletableFuture<?>> operation;
    private final int inFlight;

    /** {@code operation} starts one operation and returns its completion (failing if the result was wrong). */
    ClosedLoop(Supplier<CompletableFuture<?>> operation, int inFlight) {
        this.operation = operation;
        this.inFlight = inFlight;
    }

    /** Warms up for {@code warmupSeconds}, then measures for {@code seconds} or {@code maxCount} operations. */
    Result run(double warmupSeconds, double seconds, int maxCount) throws Exception {
        phase((long) (warmupSeconds * 1e9), Integer.MAX_VALUE, null);
        long[] samples = new long[maxCount];
        long t0 = System.nanoTime();
        int n = phase((long) (seconds * 1e9), maxCount, samples);
        long elapsed = System.nanoTime() - t0;
        long[] measured = Arrays.copyOf(samples, n);
        Arrays.sort(measured);
        return new Result(measured, elapsed);
    }

    /**
     * One operation at a time from the calling thread, which blocks on each completion before starting the next:
     * every round trip includes the hand-off to the event loop and the wake-up of this thread (what a blocking
     * application sees). Warm-up, then a measured phase, as {@link #run}.
     */
    static Result blocking(Supplier<CompletableFuture<?>> operation, double warmupSeconds, double seconds,
                           int maxCount) throws Exception {
        return direct(() -> operation.get().get(2, TimeUnit.MINUTES), warmupSeconds, seconds, maxCount);
    }

    /** A synchronous operation (e.g. a {@code BlockingRpcClient} call). */
    interface SyncOperation {
        void run() throws Exception;
    }

    /**
     * One synchronous operation at a time on the calling thread (e.g. {@code BlockingRpcClient}, which runs its
     * connection's I/O on this thread: no hand-off). Warm-up, then a measured phase, as {@link #run}.
     */
    static Result direct(SyncOperation operation, double warmupSeconds, double seconds, int maxCount)
            throws Exception {
        long warmEnd = System.nanoTime() + (long) (warmupSeconds * 1e9);
        while (System.nanoTime() - warmEnd < 0) {
            operation.run();
        }
        long[] samples = new long[maxCount];
        int n = 0;
        long t0 = System.nanoTime();
        long deadline = t0 + (long) (seconds * 1e9);
        long start = t0;
        while (n < maxCount) {
            operation.run();
            long end = System.nanoTime();
            samples[n++] = end - start;
            if (end - deadline >= 0) {
                break;
            }
            start = end;
        }
        long elapsed = System.nanoTime() - t0;
        long[] measured = Arrays.copyOf(samples, n);
        Arrays.sort(measured);
        return new Result(measured, elapsed);
    }

    /** Runs until the time is up or {@code maxCount} completed; returns how many completed. */
    private int phase(long durationNanos, int maxCount, long[] samples) throws Exception {
        long deadline = System.nanoTime() + durationNanos;
        CountDownLatch done = new CountDownLatch(inFlight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int[] completed = {0};
        Object lock = new Object();
        Runnable[] issue = new Runnable[1];
        issue[0] = () -> {
            long start = System.nanoTime();
            CompletableFuture<?> f;
            try {
                f = operation.get();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
                done.countDown();
                return;
            }
            f.whenComplete((v, cause) -> {
                long end = System.nanoTime();
                if (cause != null) {
                    failure.compareAndSet(null, cause);
                    done.countDown();
                    return;
                }
                boolean more;
                synchronized (lock) {
                    int i = completed[0];
                    if (i < maxCount) {
                        if (samples != null) {
                            samples[i] = end - start;
                        }
                        completed[0] = i + 1;
                    }
                    more = completed[0] < maxCount && end < deadline && failure.get() == null;
                }
                if (more) {
                    issue[0].run();
                } else {
                    done.countDown();
                }
            });
        };
        for (int i = 0; i < inFlight; i++) {
            issue[0].run();
        }
        if (!done.await(durationNanos / 1_000_000 + 120_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("operations did not finish within two minutes after the deadline");
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an operation failed: " + failure.get(), failure.get());
        }
        synchronized (lock) {
            return Math.min(completed[0], maxCount);
        }
    }
}
