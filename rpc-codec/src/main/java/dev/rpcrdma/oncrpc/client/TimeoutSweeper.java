package dev.rpcrdma.oncrpc.client;

import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The clock of call timeouts on real event loops: one daemon thread per JVM counts ticks of {@link #TICK_NANOS} and
 * asks a connection's loop for a sweep ({@link CallTimeouts#run()}) when the earliest deadline it published has
 * come, so a loop pays no clock read, scheduled task or system call per call. The package documentation has the
 * tick arithmetic.
 */
final class TimeoutSweeper {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(TimeoutSweeper.class);

    /** The length of a tick. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The longest jump: one pass counts at most this many ticks, and the thread sleeps at most this long. */
    static final int MAX_JUMP = 100;
    /** The jump is at most this fraction of the shortest timeout in use (the most it makes a call late by). */
    static final int JUMP_FRACTION = 16;

    private static final TimeoutSweeper INSTANCE = new TimeoutSweeper(System::nanoTime, TICK_NANOS, true);

    /** The connections that ever had a call with a deadline and are not closed. */
    private final Set<CallTimeouts> registered = ConcurrentHashMap.newKeySet();
    private final LongSupplier clock;
    private final long tickNanos;
    private final boolean startThread;
    /** The tick and the jump, packed ({@link #tickOf}, {@link #jumpOf}); written by passes only. */
    private volatile long state = pack(0, 1);
    /** The shortest timeout in ticks any call used (it only shrinks); any thread. */
    private final AtomicLong shortestTimeout = new AtomicLong(Long.MAX_VALUE);
    /** True while the thread parks without a deadline (no connection published one). */
    private volatile boolean idle;
    private volatile Thread thread;
    /** Where the counted ticks stand on the clock; sweeper thread only. */
    private long lastTickNanos;
    /** How long the thread sleeps after the last pass, in ticks; sweeper thread only. */
    private long sleepTicks = 1;

    TimeoutSweeper(LongSupplier clock, long tickNanos, boolean startThread) {
        this.clock = ObjectUtil.checkNotNull(clock, "clock");
        this.tickNanos = ObjectUtil.checkPositive(tickNanos, "tickNanos");
        this.startThread = startThread;
        lastTickNanos = clock.getAsLong();
    }

    static TimeoutSweeper instance() {
        return INSTANCE;
    }

    private static long pack(long tick, long jump) {
        return tick << 16 | jump;
    }

    /** The tick of a {@link #clock()} value: a call's deadline counts from it. */
    static long tickOf(long clock) {
        return clock >>> 16;
    }

    /** The jump of a {@link #clock()} value: the most ticks the next pass may count at once. */
    static long jumpOf(long clock) {
        return clock & 0xFFFF;
    }

    /** The current tick and jump, packed, read at once: a call's deadline is its tick + its ticks + the jump. */
    long clock() {
        return state;
    }

    /** The current tick. */
    long tick() {
        return tickOf(state);
    }

    /** Whole ticks in {@code timeoutNanos}, rounded up. */
    long ticksFor(long timeoutNanos) {
        return (Math.max(0, timeoutNanos) + tickNanos - 1) / tickNanos;
    }

    /**
     * A connection makes calls with a timeout of {@code ticks} ticks (told once per distinct timeout): a timeout
     * shorter than any before shortens the jump, and wakes the thread to plan its sleep again. Any thread.
     */
    void timeoutInUse(long ticks) {
        long shortest;
        while (ticks < (shortest = shortestTimeout.get())) {
            if (shortestTimeout.compareAndSet(shortest, ticks)) {
                Thread t = thread;
                if (t != null && jumpFor(ticks) < jumpOf(state)) {
                    LockSupport.unpark(t);
                }
                return;
            }
        }
    }

    private static long jumpFor(long shortestTicks) {
        return Math.max(1, Math.min(MAX_JUMP, shortestTicks / JUMP_FRACTION));
    }

    /** {@code timeouts} takes part from now on (until {@link #unregister}); any thread. */
    void register(CallTimeouts timeouts) {
        registered.add(timeouts);
        if (startThread && thread == null) {
            startOnce();
        }
    }

    void unregister(CallTimeouts timeouts) {
        registered.remove(timeouts);
    }

    /** Connections registered (for tests). */
    int registeredCount() {
        return registered.size();
    }

    /** How many ticks the thread sleeps after the last pass (for tests). */
    long sleepTicks() {
        return sleepTicks;
    }

    /**
     * A connection published a deadline where it had none: wakes the thread if it parks without a deadline. The
     * deadline is written (volatile) before {@link #idle} is read, and the thread sets {@link #idle} before it looks at
     * the deadlines once more, so one of the two sees the other.
     */
    void published() {
        if (idle) {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    private synchronized void startOnce() {
        if (thread != null) {
            return;
        }
        Thread t = new Thread(this::loop, "rpc-call-timeouts");
        t.setDaemon(true);
        // One thread for the JVM's lifetime: it must not pin the class loader of whichever caller started it (a
        // redeployed application's), as Netty's own global threads do not.
        t.setContextClassLoader(null);
        thread = t;
        t.start();
    }

    private void loop() {
        for (;;) {
            try {
                if (pass()) {
                    LockSupport.parkNanos(this, sleepTicks * tickNanos);
                } else {
                    idle = true;
                    if (!anyPublished()) {
                        LockSupport.park(this);
                    }
                    idle = false;
                }
            } catch (Throwable t) {
                // A bug here must not end every connection's timeouts: the next pass tries again.
                logger.warn("call-timeout sweep failed", t);
                LockSupport.parkNanos(this, tickNanos);
            }
        }
    }

    /**
     * One pass: counts the ticks that passed since the last counted one, at most the jump published with the current
     * tick (a starved thread counts fewer: calls are late, never early); publishes the new tick with the jump for
     * the next pass; asks every connection whose published deadline has come for a sweep; and plans the sleep until
     * the next pass (the jump, or less when a published deadline is nearer). Returns whether some connection has a
     * deadline published (keep ticking). Package-private for tests, which drive it with their own clock.
     */
    boolean pass() {
        long now = clock.getAsLong();
        long s = state;
        long tick = tickOf(s);
        long elapsed = (now - lastTickNanos) / tickNanos;
        if (elapsed > 0) {
            long jump = jumpOf(s);
            if (elapsed > jump) {
                elapsed = jump;
                lastTickNanos = now; // the ticks past the jump are not counted: late, never early
            } else {
                lastTickNanos += elapsed * tickNanos;
            }
            tick += elapsed;
        }
        long nextJump = jumpFor(shortestTimeout.get());
        state = pack(tick, nextJump);
        boolean any = false;
        long nearest = nextJump;
        for (CallTimeouts c : registered) {
            long deadline = c.publishedDeadline();
            if (deadline != CallTimeouts.NONE) {
                any = true;
                long left = deadline - tick;
                if (left <= 0) {
                    c.requestSweep();
                } else if (left < nearest) {
                    nearest = left;
                }
            }
        }
        sleepTicks = nearest;
        return any;
    }

    private boolean anyPublished() {
        for (CallTimeouts c : registered) {
            if (c.publishedDeadline() != CallTimeouts.NONE) {
                return true;
            }
        }
        return false;
    }
}
