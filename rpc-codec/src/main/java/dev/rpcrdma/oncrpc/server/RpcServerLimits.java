package dev.rpcrdma.oncrpc.server;

import io.netty.util.internal.ObjectUtil;

import java.time.Duration;

/**
 * The limits a server puts on its clients, applied by the server initializers of both transports through one
 * {@link RpcServerGuard} per initializer. Immutable; the defaults ({@link #DEFAULT}) are safe for an exposed server.
 * The largest message is the transport's own limit ({@code TcpRpcConfig.maxRecordSize()},
 * {@code RpcRdmaConfig.maxMessageSize()}).
 *
 * @param maxConnections   connections accepted at once by one initializer (1024); one beyond is closed at once,
 *                         logged and counted in {@link RpcServerGuard#refusedConnections()}
 * @param maxCallsInFlight calls dispatched and not yet answered on one byte-stream connection (128); beyond it the
 *                         connection stops reading until replies go out. Over RPC-over-RDMA the credit grant bounds
 *                         the calls in flight instead (RFC 8166 §3.3), so this limit is not applied there
 * @param idleTimeout      how long a connection with no read, no write and no call in progress may stay (5
 *                         minutes; {@link Duration#ZERO} for ever); it is then closed, logged and counted in
 *                         {@link RpcServerGuard#idleConnectionsClosed()}, found idle at most an eighth later
 */
public record RpcServerLimits(int maxConnections, int maxCallsInFlight, Duration idleTimeout) {

    /** 1024 connections, 128 calls in flight per connection, 5 minutes idle. */
    public static final RpcServerLimits DEFAULT = new RpcServerLimits(1024, 128, Duration.ofMinutes(5));

    public RpcServerLimits {
        ObjectUtil.checkPositive(maxConnections, "maxConnections");
        ObjectUtil.checkPositive(maxCallsInFlight, "maxCallsInFlight");
        ObjectUtil.checkNotNull(idleTimeout, "idleTimeout");
        if (idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout: " + idleTimeout + " (expected: >= 0)");
        }
    }

    public RpcServerLimits withMaxConnections(int n) {
        return new RpcServerLimits(n, maxCallsInFlight, idleTimeout);
    }

    public RpcServerLimits withMaxCallsInFlight(int n) {
        return new RpcServerLimits(maxConnections, n, idleTimeout);
    }

    public RpcServerLimits withIdleTimeout(Duration timeout) {
        return new RpcServerLimits(maxConnections, maxCallsInFlight, timeout);
    }
}
