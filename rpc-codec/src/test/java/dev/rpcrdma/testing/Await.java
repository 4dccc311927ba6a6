package dev.rpcrdma.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waiting in tests for something another thread does: polls a condition until it holds, failing after a bound
 * generous enough for a loaded 2-core machine or the QEMU VM. Never a timing assertion: the bound only ends a wait
 * that would otherwise hang.
 */
public final class Await {
    /** The default bound. */
    public static final Duration DEFAULT = Duration.ofSeconds(20);

    private Await() {
    }

    /** Waits until {@code condition} holds, at most {@link #DEFAULT}; fails with {@code what} otherwise. */
    public static void until(BooleanSupplier condition, String what) throws InterruptedException {
        until(condition, DEFAULT, what);
    }

    /** Waits until {@code condition} holds, at most {@code bound}; fails with {@code what} otherwise. */
    public static void until(BooleanSupplier condition, Duration bound, String what) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + bound + ": " + what);
            }
            Thread.sleep(1);
        }
    }
}
