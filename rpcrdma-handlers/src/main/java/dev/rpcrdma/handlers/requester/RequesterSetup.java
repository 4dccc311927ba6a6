package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.backchannel.BackwardResponder;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.oncrpc.RpcStats;
import io.netty.util.internal.ObjectUtil;

/**
 * What one {@link RpcRdmaRequester} is made of: the side's {@link RpcRdmaConfig}, its counters, and the connection's
 * parts (the RDMA connection, how thresholds are reached, a callback service, the message form). Immutable;
 * {@code with*} methods return copies.
 */
public final class RequesterSetup {

    final RpcRdmaConfig config;
    final RpcRdmaStats stats;
    final RpcStats rpcStats;
    final RdmaConnection connection;
    final RpcRdmaPrivateData local;
    final InlineThresholds thresholds;
    final BackwardResponder callbacks;
    final ByteFraming framing;

    private RequesterSetup(RpcRdmaConfig config, RpcRdmaStats stats, RpcStats rpcStats, RdmaConnection connection,
                           RpcRdmaPrivateData local, InlineThresholds thresholds, BackwardResponder callbacks,
                           ByteFraming framing) {
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.rpcStats = ObjectUtil.checkNotNull(rpcStats, "rpcStats");
        this.connection = connection;
        this.local = ObjectUtil.checkNotNull(local, "local");
        this.thresholds = thresholds;
        this.callbacks = callbacks;
        this.framing = framing;
        if (framing != null && callbacks != null && callbacks.framing() != framing) {
            throw new IllegalArgumentException("the callback service hands backward calls up in another form ("
                    + callbacks.framing() + ") than the requester (" + framing + "): make it with "
                    + "BackwardSetup.withFraming(framing)");
        }
    }

    /**
     * A requester with {@code config} and these counters: no RDMA connection (inline messages only), thresholds
     * negotiated from RFC 8797 defaults, no callback service, RPC messages.
     */
    public static RequesterSetup of(RpcRdmaConfig config, RpcRdmaStats stats, RpcStats rpcStats) {
        return new RequesterSetup(config, stats, rpcStats, null, RpcRdmaPrivateData.DEFAULTS, null, null, null);
    }

    /**
     * Over this RDMA connection (null: a channel that is not RDMA, inline messages only, the peer's private data
     * taken as the defaults).
     */
    public RequesterSetup withConnection(RdmaConnection connection) {
        return new RequesterSetup(config, stats, rpcStats, connection, local, thresholds, callbacks, framing);
    }

    /**
     * Thresholds negotiated when the channel becomes active: {@code local} is the private data this side sent, the
     * peer's is read from {@link RdmaConnection#peerPrivateData()} (RFC 8797 §5.1 defaults when absent or
     * unrecognisable).
     */
    public RequesterSetup withNegotiation(RpcRdmaPrivateData local) {
        return new RequesterSetup(config, stats, rpcStats, connection, local, null, callbacks, framing);
    }

    /** Fixed thresholds, no negotiation (e.g. over an {@code EmbeddedChannel} with a fake connection). */
    public RequesterSetup withThresholds(InlineThresholds thresholds) {
        return new RequesterSetup(config, stats, rpcStats, connection, RpcRdmaPrivateData.DEFAULTS,
                ObjectUtil.checkNotNull(thresholds, "thresholds"), callbacks, framing);
    }

    /**
     * Serving backward calls (RFC 8167) through {@code callbacks} (null: none), on a connection whose
     * {@code RpcBackchannel} is installed in the CALLBACK_SERVICE role. In byte framing the service is made with the
     * same framing ({@code BackwardSetup.withFraming}); another one is refused.
     */
    public RequesterSetup withCallbacks(BackwardResponder callbacks) {
        return new RequesterSetup(config, stats, rpcStats, connection, local, thresholds, callbacks, framing);
    }

    /**
     * In byte framing (null: RPC messages): calls are written, and replies (and backward calls) handed up, as
     * {@code ByteBuf}s each holding one whole RPC message (reader index 0); backward replies are written as such
     * too. A call's DDP-eligible argument items, located by the framing's binding, go into Read chunks when the call
     * does not fit inline (else it is a Long Call); it offers a Reply chunk of {@link RpcRdmaConfig#maxReplySize()}
     * when its reply may not fit inline, and no Write chunk. Calls that fail in the transport (RDMA_ERROR, a Send
     * that cannot be built) are reported as {@code RpcCallFailedEvent}s.
     */
    public RequesterSetup withFraming(ByteFraming framing) {
        return new RequesterSetup(config, stats, rpcStats, connection, local, thresholds, callbacks, framing);
    }

    public RpcRdmaConfig config() {
        return config;
    }

    @Override
    public String toString() {
        return "RequesterSetup(" + config + ", connection=" + connection + ", "
                + (thresholds != null ? "thresholds=" + thresholds : "local=" + local) + ", callbacks="
                + (callbacks != null) + ", " + (framing != null ? framing : "RPC messages") + ')';
    }
}
