package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.backchannel.BackwardRequester;
import dev.rpcrdma.handlers.binding.UpperLayerBinding;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcStats;
import io.netty.util.internal.ObjectUtil;

/**
 * What one {@link RpcRdmaResponder} is made of: the side's {@link RpcRdmaConfig}, the negotiated thresholds, its
 * counters, and the connection's parts (the RDMA connection, a backchannel, the message form). Immutable;
 * {@code with*} methods return copies.
 */
public final class ResponderSetup {

    final RpcRdmaConfig config;
    final InlineThresholds thresholds;
    final RpcRdmaStats stats;
    final RpcStats rpcStats;
    final RdmaConnection connection;
    final BackwardRequester backward;
    final ByteFraming framing;

    private ResponderSetup(RpcRdmaConfig config, InlineThresholds thresholds, RpcRdmaStats stats, RpcStats rpcStats,
                           RdmaConnection connection, BackwardRequester backward, ByteFraming framing) {
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.thresholds = ObjectUtil.checkNotNull(thresholds, "thresholds");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.rpcStats = ObjectUtil.checkNotNull(rpcStats, "rpcStats");
        this.connection = connection;
        this.backward = backward;
        this.framing = framing;
        if (framing != null && backward != null && backward.framing() != framing) {
            throw new IllegalArgumentException("the backward caller hands backward replies up in another form ("
                    + backward.framing() + ") than the responder (" + framing + "): make it with "
                    + "BackwardSetup.withFraming(framing)");
        }
    }

    /**
     * A responder with {@code config}, the negotiated {@code thresholds} (this side's send threshold is
     * server-to-client) and these counters: no RDMA connection (inline messages only), no backchannel, RPC
     * messages.
     */
    public static ResponderSetup of(RpcRdmaConfig config, InlineThresholds thresholds, RpcRdmaStats stats,
                                    RpcStats rpcStats) {
        return new ResponderSetup(config, thresholds, stats, rpcStats, null, null, null);
    }

    /**
     * Over this RDMA connection (null: a channel that is not RDMA; no chunks, grants bounded by the configuration
     * only).
     */
    public ResponderSetup withConnection(RdmaConnection connection) {
        return new ResponderSetup(config, thresholds, stats, rpcStats, connection, backward, framing);
    }

    /**
     * Making backward calls (RFC 8167) through {@code backward} (null: none), on a connection whose
     * {@code RpcBackchannel} is installed in the CALLER role. In byte framing the caller is made with the same
     * framing ({@code BackwardSetup.withFraming}); another one is refused.
     */
    public ResponderSetup withBackward(BackwardRequester backward) {
        return new ResponderSetup(config, thresholds, stats, rpcStats, connection, backward, framing);
    }

    /**
     * In byte framing (null: RPC messages): each received RPC call goes up as one {@code ByteBuf} holding the whole
     * message (reader index 0, Read chunks spliced in at their positions, a Long Call from position zero), and each
     * reply, or backward call, comes down as one {@code ByteBuf} holding a whole message (record marks taken off
     * when {@code framing} says so), its DDP-eligible items located by the framing's {@link UpperLayerBinding} for
     * the call's Write chunks. Backward replies go up as {@code ByteBuf}s too.
     */
    public ResponderSetup withFraming(ByteFraming framing) {
        return new ResponderSetup(config, thresholds, stats, rpcStats, connection, backward, framing);
    }

    public RpcRdmaConfig config() {
        return config;
    }

    @Override
    public String toString() {
        return "ResponderSetup(" + config + ", thresholds=" + thresholds + ", connection=" + connection
                + ", backchannel=" + (backward != null) + ", " + (framing != null ? framing : "RPC messages") + ')';
    }
}
