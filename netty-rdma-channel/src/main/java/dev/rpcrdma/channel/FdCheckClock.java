package dev.rpcrdma.channel;

import java.util.concurrent.TimeUnit;

/**
 * When an {@link RdmaIoHandler} that keeps finding work looks at its fds (RDMA-CM events): at most every
 * {@value #FD_CHECK_INTERVAL_MICROS} µs, the clock read once in {@value #ROUNDS_PER_CLOCK_READ} rounds
 * ({@code System.nanoTime()} is a system call where the clocksource has no vDSO). Loop thread.
 */
final class FdCheckClock {
    /** Longest time a loop whose channels are all hot goes without looking at its fds (RDMA-CM events). */
    static final long FD_CHECK_INTERVAL_MICROS = 1000;
    private static final long FD_CHECK_INTERVAL_NANOS = TimeUnit.MICROSECONDS.toNanos(FD_CHECK_INTERVAL_MICROS);
    /** Rounds of the loop (busy-poll spins, or runs that found work) between two reads of the clock. */
    static final int ROUNDS_PER_CLOCK_READ = 32;

    /**
     * When the fds were last looked at ({@code System.nanoTime()}), as of the last clock read: a look at the fds
     * sets {@link #looked} instead of reading the clock (one clock read less per wake-up), and the next clock read
     * takes its time as the look's.
     */
    private long lastCheck = System.nanoTime();
    private boolean looked;
    private int roundsSinceClockRead;

    /** The loop looked at its fds. */
    void looked() {
        looked = true;
    }

    /** One round that found work: whether the fds are due (the clock read once in {@value #ROUNDS_PER_CLOCK_READ}). */
    boolean dueThisRound() {
        if (++roundsSinceClockRead < ROUNDS_PER_CLOCK_READ) {
            return false;
        }
        roundsSinceClockRead = 0;
        return due(System.nanoTime());
    }

    /**
     * Whether the fds are due for a look at clock reading {@code now}: at least {@value #FD_CHECK_INTERVAL_MICROS} µs
     * since the last. A look since the previous clock read counts as made at {@code now} (the loop does not read the
     * clock per wake-up, so it knows that time only to within {@value #ROUNDS_PER_CLOCK_READ} rounds).
     */
    boolean due(long now) {
        if (looked) {
            looked = false;
            lastCheck = now;
            return false;
        }
        return now - lastCheck >= FD_CHECK_INTERVAL_NANOS;
    }
}
