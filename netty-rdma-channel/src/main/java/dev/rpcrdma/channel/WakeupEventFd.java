package dev.rpcrdma.channel;

import dev.rpcrdma.channel.unix.Libc;
import io.netty.channel.unix.FileDescriptor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The eventfd that wakes an {@link RdmaIoHandler} sleeping in {@code epoll_wait}, as {@code EpollIoHandler}'s: written
 * only while the loop is announced asleep, and closed by whoever ends last, the loop or a concurrent writer.
 */
final class WakeupEventFd {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaIoHandler.class);
    private static final long AWAKE = -1L;
    /** {@link #nextWakeupNanos} while the loop waits (any value but {@link #AWAKE}). */
    private static final long ASLEEP = Long.MAX_VALUE;
    private static final int CLOSING = 1 << 30;

    private final FileDescriptor fd = Libc.newEventFd();
    private final AtomicLong nextWakeupNanos = new AtomicLong(AWAKE);
    /**
     * Threads inside {@link #wakeup()}'s eventfd write, plus {@link #CLOSING} once {@link #close()} wants the fd
     * closed: whoever brings the count of writers to zero with that bit set closes it, so no write can hit a closed
     * (or reused) fd number and the loop never waits for another thread.
     */
    private final AtomicInteger writers = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    int intValue() {
        return fd.intValue();
    }

    /**
     * The loop is about to wait: a wake-up from now on writes the eventfd. Only awake or not matters (a task scheduled
     * from another thread comes through execute(), which wakes the loop), so no deadline is kept.
     */
    void sleeping() {
        nextWakeupNanos.set(ASLEEP);
    }

    /** The loop is back from its wait. */
    void awake() {
        nextWakeupNanos.lazySet(AWAKE);
    }

    /** The loop read the eventfd after it was written. */
    void consume() {
        Libc.eventFdRead(fd.intValue());
    }

    /** From another thread: writes the eventfd if the loop is asleep and the fd is not closing. */
    void wakeup() {
        int w = writers.incrementAndGet();
        try {
            if ((w & CLOSING) == 0 && nextWakeupNanos.getAndSet(AWAKE) != AWAKE) {
                Libc.eventFdWrite(fd.intValue(), 1L);
            }
        } finally {
            if (writers.decrementAndGet() == CLOSING) {
                closeFd();
            }
        }
    }

    /**
     * The loop is destroyed: no new write starts, and the last writer under way (or this thread, if there is none)
     * closes the eventfd.
     */
    void close() {
        if (writers.getAndAdd(CLOSING) == 0) {
            closeFd();
        }
    }

    private void closeFd() {
        if (closed.compareAndSet(false, true)) {
            try {
                fd.close();
            } catch (IOException e) {
                logger.debug("failed to close the wakeup eventfd", e);
            }
        }
    }
}
