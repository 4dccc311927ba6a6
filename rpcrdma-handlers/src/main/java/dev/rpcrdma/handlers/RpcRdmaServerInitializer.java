package dev.rpcrdma.handlers;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.handlers.backchannel.BackwardRequester;
import dev.rpcrdma.handlers.backchannel.BackwardSetup;
import dev.rpcrdma.handlers.backchannel.BackwardMessages;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.handlers.responder.ResponderSetup;
import dev.rpcrdma.handlers.responder.RpcRdmaResponder;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.client.RpcClientHandler;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcServerGuard;
import dev.rpcrdma.oncrpc.server.RpcServerLimits;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.time.Duration;

/**
 * Pipeline of an ONC RPC server connection over RPC-over-RDMA Version 1, the drop-in counterpart of rpc-codec's
 * {@code TcpRpcServerInitializer} with the same {@link RpcDispatcher}:
 * <pre>
 *   RdmaChannel -> RpcRdmaResponder -> RpcDispatcher (-> RpcClientHandler: backward calls, {@link #withBackchannel})
 * </pre>
 * Each accepted channel is negotiated (RFC 8797 §4.2) and sized to this side's {@link RpcRdmaConfig} before it
 * accepts (its queue pair is created then); {@link RpcServerLimits} bound its connections and idle time through
 * {@link #guard()} (its idle timer last in the pipeline, so the responder is first and its inline replies go straight
 * into the channel's send queue), the credit grant its calls in flight (RFC 8166 §3.3.1).
 */
@ChannelHandler.Sharable
public final class RpcRdmaServerInitializer extends ChannelInitializer<Channel> {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaServerInitializer.class);

    private final RpcDispatcher dispatcher;
    private final RpcRdmaConfig config;
    private final RpcRdmaStats stats;
    /** Null, or the default timeout of backward calls (a backchannel is set up). */
    private final Duration backchannelTimeout;
    private final RpcServerGuard guard;

    /** With {@link RpcRdmaConfig#DEFAULT}. */
    public RpcRdmaServerInitializer(RpcDispatcher dispatcher) {
        this(dispatcher, RpcRdmaConfig.DEFAULT, new RpcRdmaStats());
    }

    public RpcRdmaServerInitializer(RpcDispatcher dispatcher, RpcRdmaConfig config, RpcRdmaStats stats) {
        this(dispatcher, config, stats, null, new RpcServerGuard(RpcServerLimits.DEFAULT));
    }

    private RpcRdmaServerInitializer(RpcDispatcher dispatcher, RpcRdmaConfig config, RpcRdmaStats stats,
                                     Duration backchannelTimeout, RpcServerGuard guard) {
        this.guard = guard;
        this.dispatcher = ObjectUtil.checkNotNull(dispatcher, "dispatcher");
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.backchannelTimeout = backchannelTimeout;
    }

    /**
     * The same, with a backchannel on each connection (RFC 8167, {@code RpcBackchannel} in the CALLER role):
     * procedures call the client back through {@code RpcCallContext.callback()} once the backchannel is enabled
     * (when the client signalled it, e.g. NFSv4.1 CREATE_SESSION with CONN_BACK_CHAN); an {@link RpcClientHandler}
     * behind the dispatcher takes the replies. Each connection keeps {@link RpcRdmaConfig#backwardCredits()}
     * receives for backward replies, left out of the forward grant (RFC 8167 §4.3.2), and
     * never has more backward calls outstanding than that or than the client's backward grant; backward messages
     * are inline, at most min(inline send, inline receive, 4096) - 28 bytes ({@code RpcBackchannel.maxMessageSize()}).
     * Backward calls time out after {@code timeout} unless their options say otherwise.
     */
    public RpcRdmaServerInitializer withBackchannel(Duration timeout) {
        return new RpcRdmaServerInitializer(dispatcher, config, stats, ObjectUtil.checkNotNull(timeout, "timeout"),
                guard);
    }

    /** {@link #withBackchannel(Duration)} with a 30 s timeout. */
    public RpcRdmaServerInitializer withBackchannel() {
        return withBackchannel(RpcRdmaClientInitializer.DEFAULT_TIMEOUT);
    }

    /** The same with {@code limits} (and a new {@link RpcServerGuard} counting for them). */
    public RpcRdmaServerInitializer withLimits(RpcServerLimits limits) {
        return new RpcRdmaServerInitializer(dispatcher, config, stats, backchannelTimeout, new RpcServerGuard(limits));
    }

    /** The connection and idle limits applied and their counters, shared by this initializer's connections. */
    public RpcServerGuard guard() {
        return guard;
    }

    /** Counters shared by the connections. */
    public RpcRdmaStats stats() {
        return stats;
    }

    /** Sets the child options that size receive buffers and send slots to this configuration; returns {@code b}. */
    public ServerBootstrap configure(ServerBootstrap b) {
        return b.childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, config.receiveSize())
                .childOption(RdmaChannelOption.MAX_SEND_SIZE, config.sendSize());
    }

    /**
     * Prepares an accepted channel for RPC-over-RDMA before its queue pair exists: reads the client's RFC 8797
     * private data, sizes receive buffers and send slots to {@code config}, sets this side's private data for the
     * accept reply, keeps receives for backward replies when {@code backchannel}, and returns the negotiated
     * thresholds ({@link InlineThresholds#DEFAULTS} on a channel that is not RDMA).
     */
    static InlineThresholds prepareAccepted(Channel ch, RpcRdmaConfig config, boolean backchannel) {
        if (!(ch instanceof RdmaChannel)) {
            return InlineThresholds.DEFAULTS;
        }
        RdmaChannel rdma = (RdmaChannel) ch;
        RpcRdmaPrivateData peer = RpcRdmaPrivateData.parseOrDefaults(rdma.peerPrivateData());
        // Accept-time sizing: the queue pair is created when the channel accepts, after this method.
        int receiveBuffer = config.receiveSize();
        rdma.config().setOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, receiveBuffer);
        rdma.config().setOption(RdmaChannelOption.MAX_SEND_SIZE, config.sendSize());
        RpcRdmaPrivateData local = config.privateData(rdma.maxSendSize(), receiveBuffer);
        rdma.config().setOption(RdmaChannelOption.PRIVATE_DATA, local.encode());
        InlineThresholds thresholds = InlineThresholds.negotiate(local, peer);
        logger.debug("{} RPC-over-RDMA thresholds {} (local {}, peer {})", ch, thresholds, local, peer);
        if (backchannel) {
            // Receives for the replies to backward calls, beyond the forward calls' (RFC 8167 §4.3.2).
            int depth = rdma.config().getOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH);
            rdma.config().setOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, depth + config.backwardCredits());
        }
        return thresholds;
    }

    @Override
    protected void initChannel(Channel ch) {
        if (!guard.admit(ch)) {
            return;
        }
        InlineThresholds thresholds = prepareAccepted(ch, config, backchannelTimeout != null);
        RdmaConnection connection = ch instanceof RdmaChannel ? (RdmaChannel) ch : null;
        BackwardRequester backward = null;
        if (backchannelTimeout != null) {
            backward = new BackwardRequester(BackwardSetup.of(config, stats, dispatcher.stats()));
            RpcBackchannel.install(ch, RpcBackchannel.Role.CALLER, dispatcher.stats(),
                    BackwardMessages.maxMessageSize(thresholds));
        }
        ChannelPipeline p = ch.pipeline();
        RpcRdmaResponder responder = new RpcRdmaResponder(ResponderSetup.of(config, thresholds, stats,
                dispatcher.stats()).withConnection(connection).withBackward(backward));
        p.addLast("rpcRdmaResponder", responder);
        p.addLast("rpcDispatcher", dispatcher);
        if (backchannelTimeout != null) {
            p.addLast("rpcBackchannel", new RpcClientHandler(dispatcher.stats(), backchannelTimeout));
        }
        // The responder counts the connection's use and calls itself: an idle timeout and no limiter (the calls in
        // flight are bounded by credits), nothing between it and the dispatcher, no hop per call. The timer goes
        // last: with the responder first, the channel hands each receive straight to it and its replies take the
        // channel's direct send lane.
        guard.install(p, responder);
    }
}
