package dev.rpcrdma.handlers;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.handlers.backchannel.BackwardRequester;
import dev.rpcrdma.handlers.backchannel.BackwardMessages;
import dev.rpcrdma.handlers.backchannel.BackwardResponder;
import dev.rpcrdma.handlers.backchannel.BackwardSetup;
import dev.rpcrdma.handlers.binding.UpperLayerBinding;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.handlers.requester.RequesterSetup;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.handlers.responder.ResponderSetup;
import dev.rpcrdma.handlers.responder.RpcRdmaResponder;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.util.internal.ObjectUtil;

import java.util.function.Consumer;

/**
 * RPC-over-RDMA as a framing, the counterpart of TCP's record marking (RFC 5531 §11) for a pipeline built for TCP:
 * an existing ONC RPC stack keeps its codec and handlers, which read and write one whole RPC message per
 * {@code ByteBuf}, and swaps only its framing handler for {@link #responder(Channel)} or {@link #requester(Channel)};
 * credits, chunks (through the {@link UpperLayerBinding}), RDMA_ERROR, RFC 8797 negotiation and the backchannel
 * happen below it. Inbound messages may be slices of receive buffers (keep no view after releasing); outbound ones
 * carry record marks when {@link ByteFraming#withRecordMarks(boolean)} says so. Immutable; serves any number of
 * channels.
 */
public final class RpcRdmaFraming {

    private final RpcRdmaConfig config;
    private final ByteFraming framing;
    private final RpcRdmaStats stats;
    private final RpcStats rpcStats;
    private final boolean backchannel;

    private RpcRdmaFraming(RpcRdmaConfig config, ByteFraming framing, RpcRdmaStats stats, RpcStats rpcStats,
                           boolean backchannel) {
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.framing = ObjectUtil.checkNotNull(framing, "framing");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.rpcStats = ObjectUtil.checkNotNull(rpcStats, "rpcStats");
        this.backchannel = backchannel;
    }

    /** Byte framing with {@code config}, no binding, no record marks, no backchannel, fresh counters. */
    public static RpcRdmaFraming of(RpcRdmaConfig config) {
        return new RpcRdmaFraming(config, ByteFraming.DEFAULT, new RpcRdmaStats(), new RpcStats(), false);
    }

    /** With this upper-layer binding, e.g. {@link UpperLayerBinding#nfs()} for an NFS server (RFC 8267). */
    public RpcRdmaFraming withBinding(UpperLayerBinding binding) {
        return new RpcRdmaFraming(config, framing.withBinding(binding), stats, rpcStats, backchannel);
    }

    /**
     * Whether outbound messages carry TCP record marks to take off (the pipeline's response stage or direct
     * writes add them, as Hadoop's {@code RpcTcpResponseStage} and {@code Nfs3Utils.writeChannel} do).
     */
    public RpcRdmaFraming withRecordMarks(boolean recordMarked) {
        return new RpcRdmaFraming(config, framing.withRecordMarks(recordMarked), stats, rpcStats, backchannel);
    }

    /** With inbound messages handed up as heap copies or not: {@link ByteFraming#withCopiedInbound(boolean)}. */
    public RpcRdmaFraming withCopiedInbound(boolean copyInbound) {
        return new RpcRdmaFraming(config, framing.withCopiedInbound(copyInbound), stats, rpcStats, backchannel);
    }

    /**
     * With the backchannel (RFC 8167) on each connection, enabled from the start: a server may write RPC calls on
     * the connection (backward calls, e.g. NFSv4.1 CB_COMPOUND) and receives their replies as {@code ByteBuf}s; a
     * client receives backward calls as {@code ByteBuf}s and writes their replies. Backward messages are inline, at
     * most min(inline send, inline receive, 4096) - 28 bytes; credits and receives as
     * {@link RpcRdmaConfig#backwardCredits()} says. Matching replies to calls and timeouts are the stack's.
     */
    public RpcRdmaFraming withBackchannel() {
        return new RpcRdmaFraming(config, framing, stats, rpcStats, true);
    }

    /** With these counters. */
    public RpcRdmaFraming withStats(RpcRdmaStats stats, RpcStats rpcStats) {
        return new RpcRdmaFraming(config, framing, stats, rpcStats, backchannel);
    }

    public RpcRdmaConfig config() {
        return config;
    }

    public ByteFraming framing() {
        return framing;
    }

    /** RPC-over-RDMA counters shared by the connections. */
    public RpcRdmaStats stats() {
        return stats;
    }

    /** RPC counters (malformed messages, backchannel) shared by the connections. */
    public RpcStats rpcStats() {
        return rpcStats;
    }

    /**
     * The framing handler of an accepted server channel, to add first in its pipeline from the server's
     * {@code initChannel} (it prepares the channel's RFC 8797 private data and sizes before the accept completes).
     */
    public ChannelHandler responder(Channel ch) {
        InlineThresholds thresholds = RpcRdmaServerInitializer.prepareAccepted(ch, config, backchannel);
        RdmaConnection connection = ch instanceof RdmaChannel ? (RdmaChannel) ch : null;
        BackwardRequester backward = null;
        if (backchannel) {
            backward = new BackwardRequester(BackwardSetup.of(config, stats, rpcStats).withFraming(framing));
            RpcBackchannel.install(ch, RpcBackchannel.Role.CALLER, rpcStats,
                    BackwardMessages.maxMessageSize(thresholds)).enable();
        }
        return new RpcRdmaResponder(ResponderSetup.of(config, thresholds, stats, rpcStats).withConnection(connection)
                .withBackward(backward).withFraming(framing));
    }

    /** The framing handler of a client channel, to add first in its pipeline before it connects. */
    public ChannelHandler requester(Channel ch) {
        RpcRdmaPrivateData local = RpcRdmaClientInitializer.prepareConnecting(ch, config, backchannel);
        RdmaConnection connection = ch instanceof RdmaChannel ? (RdmaChannel) ch : null;
        BackwardResponder callbacks = null;
        if (backchannel) {
            callbacks = new BackwardResponder(BackwardSetup.of(config, stats, rpcStats).withFraming(framing));
            RpcBackchannel.install(ch, RpcBackchannel.Role.CALLBACK_SERVICE, rpcStats,
                    BackwardMessages.maxMessageSize(InlineThresholds.DEFAULTS)).enable();
        }
        return new RpcRdmaRequester(RequesterSetup.of(config, stats, rpcStats).withConnection(connection)
                .withNegotiation(local).withCallbacks(callbacks).withFraming(framing));
    }

    /**
     * A server initializer: {@link #responder(Channel)} at once, and what {@code upper} adds (the stack's handlers)
     * once the connection is established. An accepted TCP channel is already active when its initializer runs; an
     * accepted RDMA channel becomes active only after the accept, which needs the framing's private data first.
     * Handlers that set themselves up in {@code handlerAdded} only on an active channel (an {@code IdleStateHandler}
     * whose subclass overrides {@code channelActive}, as Hadoop's portmap does) therefore see the same channel
     * state as over TCP: they are added when the channel is active, then get {@code channelActive}.
     */
    public ChannelInitializer<Channel> server(Consumer<ChannelPipeline> upper) {
        ObjectUtil.checkNotNull(upper, "upper");
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast("rpcRdmaFraming", responder(ch));
                if (ch.isActive()) {
                    upper.accept(ch.pipeline());
                } else {
                    ch.pipeline().addLast("rpcRdmaUpper", new UpperOnActive(upper));
                }
            }
        };
    }

    /** Adds the upper handlers when the channel becomes active, then lets them see {@code channelActive}. */
    private static final class UpperOnActive extends ChannelInboundHandlerAdapter {
        private final Consumer<ChannelPipeline> upper;

        UpperOnActive(Consumer<ChannelPipeline> upper) {
            this.upper = upper;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            upper.accept(ctx.pipeline());
            ctx.pipeline().remove(this);
            ctx.fireChannelActive();
        }
    }

    /** A client initializer: {@link #requester(Channel)}, then what {@code upper} adds (the stack's handlers). */
    public ChannelInitializer<Channel> client(Consumer<ChannelPipeline> upper) {
        ObjectUtil.checkNotNull(upper, "upper");
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast("rpcRdmaFraming", requester(ch));
                upper.accept(ch.pipeline());
            }
        };
    }

    @Override
    public String toString() {
        return "RpcRdmaFraming(" + config + ", " + framing + ", backchannel=" + backchannel + ')';
    }
}
