package dev.rpcrdma.oncrpc.server;

import io.netty.util.internal.ObjectUtil;

import java.time.Duration;

/**
 * The limits a server puts on its clients, applied by the server initializers of both transports
 * ({@code TcpRpcServerInitializer}, {@code RpcRdmaServerInitializer}) through one {@link RpcServerGuard} per
 * initializer. Immutable; the defaults ({@link #DEFAULT}) are safe for an exposed server:
 * <ul>
 *   <li>{@link #maxConnections()} (1024): a connection beyond it is closed at once (logged, counted in
 *       {@link RpcServerGuard#refusedConnections()}).</li>
 *   <li>{@link #maxCallsInFlight()} (128) per connection over a byte stream: beyond it the connection stops reading
 *       (calls already decoded wait in order) until replies go out. Over RPC-over-RDMA the credit grant bounds the
 *       calls in flight instead (RFC 8166 §3.3: at most {@code RpcRdmaConfig.maxGrant()}, and a peer exceeding it
 *       is refused by the responder), so this limit is not applied there.</li>
 *   <li>{@link #idleTimeout()} (5 minutes): a connection with no read nor write for that long and no call in
 *       progress is closed (logged, counted in {@link RpcServerGuard#idleConnectionsClosed()}), found idle at most
 *       an eighth of the time later (reads and writes are counted, not stamped with the clock); zero disables it.</li>
 * </ul>
 * The largest message is the transport's own limit: {@code TcpRpcConfig.maxRecordSize()} (RFC 5531 §11, 1 MiB by
 * default: a larger record closes the connection) and {@code RpcRdmaConfig.maxMessageSize()} (a chunk total beyond
 * it is answered with ERR_CHUNK, RFC 8166 §4.5.2).
 *
 * @param maxConnections   connections accepted at once by one initializer
 * @param maxCallsInFlight calls dispatched and not yet answered on one byte-stream connection
 * @param idleTimeout      how long a connection may stay idle; {@link Duration#ZERO} for ever
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
