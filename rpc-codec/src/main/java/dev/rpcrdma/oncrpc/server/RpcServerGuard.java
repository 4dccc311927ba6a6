package dev.rpcrdma.oncrpc.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Applies {@link RpcServerLimits} to the connections of one server initializer and counts what it refused: the
 * shared connection count (admitted in the initializer, released when the channel closes), and per connection an
 * {@link RpcIdleTimeout} (all-idle, as Netty's {@code IdleStateHandler}) plus an {@link RpcCallLimiter}, or only an idle
 * timeout reading a transport handler's own counts ({@link RpcConnectionUse}). Thread-safe:
 * connections on every event loop share it.
 */
public final class RpcServerGuard {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcServerGuard.class);

    private final RpcServerLimits limits;
    private final AtomicInteger connections = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    private final LongAdder idleClosed = new LongAdder();
    private final LongAdder readPauses = new LongAdder();

    public RpcServerGuard(RpcServerLimits limits) {
        this.limits = ObjectUtil.checkNotNull(limits, "limits");
    }

    public RpcServerLimits limits() {
        return limits;
    }

    /** Connections admitted and not closed yet. */
    public int connections() {
        return connections.get();
    }

    /** Connections closed at once because {@link RpcServerLimits#maxConnections()} were open. */
    public long refusedConnections() {
        return refused.sum();
    }

    /** Connections closed after {@link RpcServerLimits#idleTimeout()} without traffic. */
    public long idleConnectionsClosed() {
        return idleClosed.sum();
    }

    /** Times a connection stopped reading at {@link RpcServerLimits#maxCallsInFlight()}. */
    public long readPauses() {
        return readPauses.sum();
    }

    /**
     * Called by an initializer for each new connection: admits it (released when it closes) and returns true, or,
     * at the maximum, logs, counts, closes it at once and returns false (the caller adds no handler then).
     */
    public boolean admit(Channel ch) {
        int n = connections.incrementAndGet();
        if (n > limits.maxConnections()) {
            connections.decrementAndGet();
            refused.increment();
            logger.warn("{} refused: {} connections open, the maximum (RpcServerLimits.maxConnections)", ch,
                    limits.maxConnections());
            ch.close();
            return false;
        }
        ch.closeFuture().addListener(f -> connections.decrementAndGet());
        return true;
    }

    /**
     * Adds the idle-timeout handler first in {@code p} and the {@link RpcCallLimiter} named {@code "rpcLimiter"}
     * last (just before the dispatcher is added); {@code limitCalls} false (RPC-over-RDMA, bounded by credits) keeps
     * the limiter to idle handling.
     */
    public void install(ChannelPipeline p, boolean limitCalls) {
        long idle = limits.idleTimeout().toMillis();
        if (idle > 0) {
            p.addFirst("rpcIdle", new RpcIdleTimeout(TimeUnit.MILLISECONDS.toNanos(idle)));
        }
        p.addLast("rpcLimiter", new RpcCallLimiter(this, limitCalls ? limits.maxCallsInFlight() : Integer.MAX_VALUE));
    }

    /**
     * For a transport handler that counts its connection's use and its calls in progress itself ({@code use}; the
     * calls in flight bounded by the transport, e.g. RPC-over-RDMA's credits): adds only an idle timeout, last in
     * {@code p} (install it once the pipeline is complete), that closes the connection (logged, counted in
     * {@link #idleConnectionsClosed()}) once it has been idle for {@link RpcServerLimits#idleTimeout()} with no call in
     * progress. Unlike {@link #install(ChannelPipeline, boolean)} nothing in the pipeline sees each message: no hop
     * per call. Last, so that the transport handler stays first, next to the channel, which may then hand it each
     * receive and take its Sends without the pipeline's generic path; its close passes the handlers before it, none
     * of which intercepts a close.
     */
    public void install(ChannelPipeline p, RpcConnectionUse use) {
        ObjectUtil.checkNotNull(use, "use");
        long idle = limits.idleTimeout().toMillis();
        if (idle > 0) {
            p.addLast("rpcIdle", new RpcIdleClose(TimeUnit.MILLISECONDS.toNanos(idle), this, use));
        }
    }

    void recordIdleClose() {
        idleClosed.increment();
    }

    void recordReadPause() {
        readPauses.increment();
    }

    @Override
    public String toString() {
        return "RpcServerGuard(" + limits + ", connections=" + connections() + ", refused=" + refusedConnections()
                + ", idleClosed=" + idleConnectionsClosed() + ", readPauses=" + readPauses() + ')';
    }
}
