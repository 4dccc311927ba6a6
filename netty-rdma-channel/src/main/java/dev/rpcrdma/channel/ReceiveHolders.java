package dev.rpcrdma.channel;

import io.netty.util.concurrent.ThreadAwareExecutor;

import java.util.Arrays;

/**
 * An event loop's free {@link RdmaReceive} holders: taken when a receive is fired and given back by the release that
 * ends it, on the loop thread, with no thread-local lookup (Netty's {@code Recycler} made one per take and per give).
 * A receive ended on another thread is left to the garbage collector. Event-loop confined.
 */
final class ReceiveHolders {
    /** At most this many free holders are kept (as Netty's {@code Recycler} keeps at most 4096 per thread). */
    static final int MAX_FREE = 4096;

    private final ThreadAwareExecutor loop;
    private RdmaReceive[] free = new RdmaReceive[16];
    private int count;

    ReceiveHolders(ThreadAwareExecutor loop) {
        this.loop = loop;
    }

    /** The loop these holders belong to. */
    ThreadAwareExecutor loop() {
        return loop;
    }

    /** A free holder, or a new one (bound to this loop) when none is free. Loop thread only. */
    RdmaReceive take() {
        int n = count;
        if (n == 0) {
            return RdmaReceive.pooled(this);
        }
        RdmaReceive r = free[--n];
        free[n] = null;
        count = n;
        return r;
    }

    /** Keeps the ended holder {@code r} for a next receive if called on the loop thread and there is room. */
    void giveBack(RdmaReceive r) {
        if (!loop.isExecutorThread(Thread.currentThread())) {
            return;
        }
        int n = count;
        if (n == free.length) {
            if (n == MAX_FREE) {
                return;
            }
            free = Arrays.copyOf(free, n * 2);
        }
        free[n] = r;
        count = n + 1;
    }

    /** Free holders (for tests). */
    int free() {
        return count;
    }
}
