package dev.rpcrdma.oncrpc.client;

import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The clock of call timeouts on real event loops: one daemon thread per JVM counts ticks of at least
 * {@link #TICK_NANOS} while some connection has a call with a deadline, and asks a connection's event loop for a
 * sweep ({@link CallTimeouts#run()}) when the earliest deadline that connection published has come. An event loop
 * then pays nothing per call for its timeouts: no clock read (a call's deadline is a tick number, read from a
 * field), no scheduled task in the loop (Netty's loop reads the clock on every iteration while it has one, twice
 * more before it sleeps), no system call; a connection is woken for a sweep at most once per timeout period.
 *
 * <p>Ticks are counted, not derived from the clock: each one comes at least {@link #TICK_NANOS} after the one before
 * it, so a call registered at tick {@code k} whose deadline is tick {@code k + ceil(timeout / tick) + 1} never
 * times out early (the first tick after it may come at once), and at most about two ticks late while the thread
 * gets a CPU (later if it is starved: a call is then late, never early). The thread parks without a deadline while
 * no connection has one published, and a connection that publishes one wakes it.
 */
final class TimeoutSweeper {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(TimeoutSweeper.class);

    /** Shortest time between two ticks. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final TimeoutSweeper INSTANCE = new TimeoutSweeper(System::nanoTime, TICK_NANOS, true);

    /** The connections that ever had a call with a deadline and are not closed. */
    private final Set<CallTimeouts> registered = ConcurrentHashMap.newKeySet();
    private final LongSupplier clock;
    private final long tickNanos;
    private final boolean startThread;
    /** Ticks counted; written by the sweeper thread only. */
    private volatile long tick;
    /** True while the thread parks without a deadline (no connection published one). */
    private volatile boolean idle;
    private volatile Thread thread;
    /** When the last tick was counted (clock); sweeper thread only. */
    private long lastTickNanos;

    TimeoutSweeper(LongSupplier clock, long tickNanos, boolean startThread) {
        this.clock = ObjectUtil.checkNotNull(clock, "clock");
        this.tickNanos = ObjectUtil.checkPositive(tickNanos, "tickNanos");
        this.startThread = startThread;
        lastTickNanos = clock.getAsLong();
    }

    static TimeoutSweeper instance() {
        return INSTANCE;
    }

    /** The current tick: a call's deadline is a tick number. */
    long tick() {
        return tick;
    }

    /** Ticks a call of {@code timeoutNanos} waits: it never times out before {@code timeoutNanos} passed. */
    long ticksFor(long timeoutNanos) {
        return (Math.max(0, timeoutNanos) + tickNanos - 1) / tickNanos + 1;
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
                    LockSupport.parkNanos(this, tickNanos);
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
     * One pass: counts a tick if at least a tick's time passed since the last one, then asks every connection whose
     * published deadline has come for a sweep. Returns whether some connection has a deadline published (keep
     * ticking). Package-private for tests, which drive it with their own clock.
     */
    boolean pass() {
        long now = clock.getAsLong();
        if (now - lastTickNanos >= tickNanos) {
            lastTickNanos = now;
            tick++;
        }
        long t = tick;
        boolean any = false;
        for (CallTimeouts c : registered) {
            long deadline = c.publishedDeadline();
            if (deadline != CallTimeouts.NONE) {
                any = true;
                if (t - deadline >= 0) {
                    c.requestSweep();
                }
            }
        }
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
