package dev.rpcrdma.oncrpc;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.netty.util.internal.ObjectUtil;

/**
 * Backward-direction RPC on one connection: the server calls the client back on the connection the client made, as
 * NFSv4.1 does (RFC 5661 §2.10.3.1; over RPC-over-RDMA RFC 8167). A transport's initializer installs it in one of
 * two {@link Role}s; nothing crosses until the upper layer {@link #enable() enables} it (RFC 8167 §6).
 * Thread-safe: read and enabled from any thread.
 */
public final class RpcBackchannel {
    private static final AttributeKey<RpcBackchannel> KEY = AttributeKey.valueOf(RpcBackchannel.class, "backchannel");

    /** Which end of the backchannel this connection is. */
    public enum Role {
        /**
         * A client connection that serves backward calls: they are dispatched to the callback programs registered on
         * the initializer once the backchannel is enabled; before, they are logged, counted as
         * {@link RpcStats#backwardDrops()} and dropped (the peer may not call back before it was told it may).
         */
        CALLBACK_SERVICE,
        /**
         * A server connection that makes backward calls: a procedure's
         * {@link dev.rpcrdma.oncrpc.server.RpcCallContext#callback()} calls the client back with the ordinary client
         * API; a call made before the backchannel is enabled (when the client signalled it, e.g. NFSv4.1
         * CREATE_SESSION with CONN_BACK_CHAN or BIND_CONN_TO_SESSION) fails with
         * {@link dev.rpcrdma.oncrpc.client.RpcBackchannelException} and nothing is sent.
         */
        CALLER
    }

    private final Channel channel;
    private final Role role;
    private final RpcStats stats;
    private volatile boolean enabled;
    private volatile int maxMessageSize;

    private RpcBackchannel(Channel channel, Role role, RpcStats stats, int maxMessageSize) {
        this.channel = channel;
        this.role = role;
        this.stats = stats;
        this.maxMessageSize = maxMessageSize;
    }

    /**
     * Installs backward-direction RPC on {@code channel} (transports' initializers do this); {@code maxMessageSize}
     * is a first bound that the transport may lower once it negotiated ({@link #maxMessageSize(int)}).
     */
    public static RpcBackchannel install(Channel channel, Role role, RpcStats stats, int maxMessageSize) {
        ObjectUtil.checkNotNull(channel, "channel");
        ObjectUtil.checkNotNull(role, "role");
        ObjectUtil.checkNotNull(stats, "stats");
        ObjectUtil.checkPositive(maxMessageSize, "maxMessageSize");
        RpcBackchannel b = new RpcBackchannel(channel, role, stats, maxMessageSize);
        if (channel.attr(KEY).setIfAbsent(b) != null) {
            throw new IllegalStateException("a backchannel is already installed on " + channel);
        }
        return b;
    }

    /** The backchannel of {@code channel}, or null if its initializer set up none. */
    public static RpcBackchannel of(Channel channel) {
        return channel.attr(KEY).get();
    }

    /** The connection. */
    public Channel channel() {
        return channel;
    }

    public Role role() {
        return role;
    }

    /** The counters (backward calls, replies, drops). */
    public RpcStats stats() {
        return stats;
    }

    /** Whether the upper layer enabled backward calls on this connection. */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Enables backward calls on this connection: on a client, after it is ready to serve them and before it tells
     * the server (e.g. before sending CREATE_SESSION with CONN_BACK_CHAN); on a server, when the client told it so.
     * A transport that queued backward calls sends them now (it hears of it through {@link #ENABLED}). Idempotent.
     */
    public RpcBackchannel enable() {
        if (!enabled) {
            enabled = true;
            channel.pipeline().fireUserEventTriggered(ENABLED);
        }
        return this;
    }

    /**
     * The largest backward RPC message (call or reply, transport header excluded) this connection carries: over
     * RPC-over-RDMA, where backward messages are inline only, min(inline send, inline receive, 4096) - 28, what
     * NFSv4.1 puts in CREATE_SESSION's back-channel attributes; over TCP the record size limit.
     */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** The transport lowers (or sets) the largest backward message once it knows its negotiated sizes. */
    public void maxMessageSize(int bytes) {
        maxMessageSize = ObjectUtil.checkPositive(bytes, "bytes");
    }

    /** The user event fired through the pipeline when the backchannel is enabled. */
    public static final Object ENABLED = new Object() {
        @Override
        public String toString() {
            return "RpcBackchannel.ENABLED";
        }
    };

    @Override
    public String toString() {
        return "RpcBackchannel(" + role + (enabled ? ", enabled, " : ", not enabled, ") + "max " + maxMessageSize
                + " B, " + channel + ')';
    }
}
