package dev.rpcrdma.channel.fabric.software;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * The engine thread of a software fabric, its "NIC": executes work requests and delivers CM events one task at a
 * time in submission order ({@link #execute}), or after a delay ({@link #schedule}, the RNR timer), allocating
 * nothing per task but a timer entry. The daemon thread runs while the fabric has users ({@link #retain()}) or work,
 * and a later task starts a new one.
 */
final class SoftEngine {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(SoftEngine.class);

    private final Object lock = new Object();
    private final ArrayDeque<Runnable> ready = new ArrayDeque<>(64);
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long timerSequence;
    private boolean sleeping;
    private final String threadName;
    /** The engine thread, or null when none runs. Guarded by {@code lock}. */
    private Thread thread;
    /** Users that keep the thread alive while idle. Guarded by {@code lock}. */
    private int users;

    SoftEngine(String threadName) {
        this.threadName = threadName;
    }

    /** A user (an event loop) keeps the engine thread alive until it {@linkplain #release() releases} it. */
    void retain() {
        synchronized (lock) {
            users++;
        }
    }

    /**
     * Undoes one {@link #retain()}; after the last, the thread ends once it has run what is left, and the caller
     * waits up to a second for it (unless the caller is the engine thread itself).
     */
    void release() {
        Thread ending = null;
        synchronized (lock) {
            if (users == 0) {
                throw new IllegalStateException("released more often than retained");
            }
            if (--users == 0 && thread != null) {
                ending = thread;
                if (sleeping) {
                    lock.notify();
                }
            }
        }
        if (ending != null && ending != Thread.currentThread()) {
            try {
                ending.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether an engine thread runs (tests). */
    boolean isRunning() {
        synchronized (lock) {
            return thread != null;
        }
    }

    /** Starts the thread if none runs. Under {@code lock}. */
    private void ensureRunning() {
        if (thread == null) {
            Thread t = new Thread(this::loop, threadName);
            t.setDaemon(true);
            thread = t;
            t.start();
        }
    }

    /** Runs {@code task} on the engine thread after the tasks submitted before it. */
    void execute(Runnable task) {
        synchronized (lock) {
            ready.add(task);
            if (sleeping) {
                lock.notify();
            }
            ensureRunning();
        }
    }

    /** Runs {@code task} on the engine thread once {@code delayMillis} ms have passed. */
    void schedule(Runnable task, long delayMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
        synchronized (lock) {
            timers.add(new Timer(deadline, timerSequence++, task));
            if (sleeping) {
                lock.notify();
            }
            ensureRunning();
        }
    }

    private void loop() {
        for (;;) {
            Runnable task;
            try {
                task = take();
            } catch (InterruptedException e) {
                logger.debug("software fabric engine interrupted; ignoring");
                continue;
            }
            if (task == null) {
                return;
            }
            try {
                task.run();
            } catch (Throwable t) {
                logger.warn("software fabric engine task failed", t);
            }
        }
    }

    /** The next task to run, waiting for it; null when the thread is to end. */
    private Runnable take() throws InterruptedException {
        synchronized (lock) {
            for (;;) {
                long now = System.nanoTime();
                Timer due;
                while ((due = timers.peek()) != null && due.deadline - now <= 0) {
                    timers.poll();
                    ready.add(due.task);
                }
                Runnable task = ready.poll();
                if (task != null) {
                    return task;
                }
                if (due == null && users == 0) {
                    thread = null;   // nothing left to do and nobody to wait for: this thread ends
                    return null;
                }
                sleeping = true;
                try {
                    if (due == null) {
                        lock.wait();
                    } else {
                        long nanos = due.deadline - now;
                        lock.wait(TimeUnit.NANOSECONDS.toMillis(nanos), (int) (nanos % 1_000_000));
                    }
                } finally {
                    sleeping = false;
                }
            }
        }
    }

    /** A delayed task; ties (same deadline) run in scheduling order. */
    private static final class Timer implements Comparable<Timer> {
        final long deadline;
        final long sequence;
        final Runnable task;

        Timer(long deadline, long sequence, Runnable task) {
            this.deadline = deadline;
            this.sequence = sequence;
            this.task = task;
        }

        @Override
        public int compareTo(Timer o) {
            long d = deadline - o.deadline;
            if (d != 0) {
                return d < 0 ? -1 : 1;
            }
            return Long.compare(sequence, o.sequence);
        }
    }
}
