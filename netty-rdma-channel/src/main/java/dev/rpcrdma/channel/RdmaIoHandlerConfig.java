package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.Fabric;
import io.netty.util.internal.ObjectUtil;

/**
 * Configuration of an {@link RdmaIoHandler}: the fabric, the busy-poll time (how long an idle loop keeps polling
 * completion queues before it arms notification and sleeps; 0 = never spin) and the per-channel poll budget.
 */
public final class RdmaIoHandlerConfig {
    private Fabric fabric;
    private long busyPollNanos;
    private int completionBatch = 32;
    private int maxEvents = 128;

    /**
     * The fabric's SPI implementation (when unset, the one {@link RdmaFabric#select()} chooses: native unless
     * {@code -Ddev.rpcrdma.fabric} says otherwise). The fabric SPI is internal: applications choose with
     * {@link #fabric(RdmaFabric)}.
     *
     * @throws IllegalStateException when unset and the native fabric is not available here
     */
    public Fabric fabric() {
        return fabric != null ? fabric : RdmaFabric.selectSpi();
    }

    /**
     * Runs the channels on {@code fabric}.
     *
     * @throws IllegalStateException for {@link RdmaFabric#NATIVE} when it is not available here
     */
    public RdmaIoHandlerConfig fabric(RdmaFabric fabric) {
        this.fabric = ObjectUtil.checkNotNull(fabric, "fabric").spi();
        return this;
    }

    /** Runs the channels on an implementation of the internal fabric SPI (for tests and fabric implementers). */
    public RdmaIoHandlerConfig fabric(Fabric fabric) {
        this.fabric = ObjectUtil.checkNotNull(fabric, "fabric");
        return this;
    }

    public long busyPollNanos() {
        return busyPollNanos;
    }

    /**
     * How long an idle loop keeps polling its completion queues before it arms notification and sleeps (0, the
     * default: never spin). While spinning with every channel hot it makes no system call besides the posts and
     * looks at its fds (RDMA-CM events, wakeups) about once a millisecond. Costs a core per spinning loop.
     */
    public RdmaIoHandlerConfig busyPollNanos(long busyPollNanos) {
        this.busyPollNanos = ObjectUtil.checkPositiveOrZero(busyPollNanos, "busyPollNanos");
        return this;
    }

    /** Most completions processed from one channel's queue per poll round of the loop (its fairness budget). */
    public int completionBatch() {
        return completionBatch;
    }

    public RdmaIoHandlerConfig completionBatch(int completionBatch) {
        this.completionBatch = ObjectUtil.checkPositive(completionBatch, "completionBatch");
        return this;
    }

    /** Most fds reported by one {@code epoll_wait}. */
    public int maxEvents() {
        return maxEvents;
    }

    public RdmaIoHandlerConfig maxEvents(int maxEvents) {
        this.maxEvents = ObjectUtil.checkPositive(maxEvents, "maxEvents");
        return this;
    }

    RdmaIoHandlerConfig copy() {
        RdmaIoHandlerConfig c = new RdmaIoHandlerConfig();
        c.fabric = fabric();
        c.busyPollNanos = busyPollNanos;
        c.completionBatch = completionBatch;
        c.maxEvents = maxEvents;
        return c;
    }
}
