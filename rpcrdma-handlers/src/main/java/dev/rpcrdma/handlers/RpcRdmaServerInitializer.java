package dev.rpcrdma.handlers;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.handlers.responder.RpcRdmaResponder;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * Pipeline of an ONC RPC server connection over RPC-over-RDMA Version 1: the drop-in counterpart of rpc-codec's
 * {@code TcpRpcServerInitializer}, with the same {@link RpcDispatcher}.
 * <pre>
 *   RdmaChannel -> RpcRdmaResponder -> RpcDispatcher
 * </pre>
 * On each accepted {@link RdmaChannel} it reads the client's RFC 8797 private data (defaults when absent or
 * unrecognisable), sets its own as the accept reply's private data (R bit, send and receive sizes capped by the
 * channel's real {@link RdmaChannelOption#MAX_SEND_SIZE} and {@link RdmaChannelOption#RECEIVE_BUFFER_SIZE}) and
 * negotiates the inline thresholds (RFC 8797 §4.2). The responder reaches the channel only as the
 * {@link RdmaConnection} handed to it here.
 *
 * <p>An accepted channel creates its queue pair and posts its receives when it accepts, after this initializer ran,
 * so each connection is sized here to what this side advertises: receive buffers of
 * {@link RpcRdmaConfig#receiveSize()} and send slots of {@link RpcRdmaConfig#sendSize()}. {@link #configure(ServerBootstrap)} is only needed to give
 * other transports' defaults the same sizes.
 */
@ChannelHandler.Sharable
public final class RpcRdmaServerInitializer extends ChannelInitializer<Channel> {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaServerInitializer.class);

    private final RpcDispatcher dispatcher;
    private final RpcRdmaConfig config;
    private final RpcRdmaStats stats;

    /** With {@link RpcRdmaConfig#DEFAULT}. */
    public RpcRdmaServerInitializer(RpcDispatcher dispatcher) {
        this(dispatcher, RpcRdmaConfig.DEFAULT, new RpcRdmaStats());
    }

    public RpcRdmaServerInitializer(RpcDispatcher dispatcher, RpcRdmaConfig config, RpcRdmaStats stats) {
        this.dispatcher = ObjectUtil.checkNotNull(dispatcher, "dispatcher");
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
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

    @Override
    protected void initChannel(Channel ch) {
        InlineThresholds thresholds = InlineThresholds.DEFAULTS;
        RdmaConnection connection = null;
        if (ch instanceof RdmaChannel) {
            RdmaChannel rdma = (RdmaChannel) ch;
            connection = rdma;
            RpcRdmaPrivateData peer = RpcRdmaPrivateData.parseOrDefaults(rdma.peerPrivateData());
            // Accept-time sizing: the queue pair is created when the channel accepts, after this method.
            int receiveBuffer = config.receiveSize();
            rdma.config().setOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, receiveBuffer);
            rdma.config().setOption(RdmaChannelOption.MAX_SEND_SIZE, config.sendSize());
            RpcRdmaPrivateData local = config.privateData(rdma.maxSendSize(), receiveBuffer);
            rdma.config().setOption(RdmaChannelOption.PRIVATE_DATA, local.encode());
            thresholds = InlineThresholds.negotiate(local, peer);
            logger.debug("{} RPC-over-RDMA thresholds {} (local {}, peer {})", ch, thresholds, local, peer);
        }
        ChannelPipeline p = ch.pipeline();
        p.addLast("rpcRdmaResponder", new RpcRdmaResponder(config, thresholds, connection, stats,
                dispatcher.stats()));
        p.addLast("rpcDispatcher", dispatcher);
    }
}
