package dev.rpcrdma.handlers;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.handlers.backchannel.BackwardMessages;
import dev.rpcrdma.handlers.backchannel.BackwardResponder;
import dev.rpcrdma.handlers.backchannel.BackwardSetup;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.handlers.requester.RequesterSetup;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClientHandler;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.util.internal.ObjectUtil;

import java.time.Duration;

/**
 * Pipeline of an ONC RPC client connection over RPC-over-RDMA Version 1: the drop-in counterpart of rpc-codec's
 * {@code TcpRpcClientInitializer}; obtain the client with {@code RpcClient.of(channel)}.
 * <pre>
 *   RdmaChannel -> RpcRdmaRequester -> RpcClientHandler (-> RpcDispatcher: callbacks, {@link #withCallbacks})
 * </pre>
 * The requester reaches the channel only as the {@link RdmaConnection} handed to it here. Sets the connect request's
 * RFC 8797 private data (R bit, send and receive sizes) and sizes the channel's receive buffers and send slots to
 * exactly what it advertises; thresholds are negotiated when the channel becomes active.
 */
@ChannelHandler.Sharable
public final class RpcRdmaClientInitializer extends ChannelInitializer<Channel> {

    /** Default call timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final RpcStats rpcStats;
    private final RpcRdmaConfig config;
    private final RpcRdmaStats stats;
    private final Duration defaultTimeout;
    /** Null, or the callback programs served on each connection (RFC 8167 backchannel). */
    private final RpcDispatcher callbacks;

    /** Defaults: {@link RpcRdmaConfig#DEFAULT}, 30 s timeout, fresh counters. */
    public RpcRdmaClientInitializer() {
        this(new RpcStats(), RpcRdmaConfig.DEFAULT, new RpcRdmaStats(), DEFAULT_TIMEOUT);
    }

    public RpcRdmaClientInitializer(RpcStats rpcStats, RpcRdmaConfig config, RpcRdmaStats stats,
                                    Duration defaultTimeout) {
        this(rpcStats, config, stats, defaultTimeout, null);
    }

    private RpcRdmaClientInitializer(RpcStats rpcStats, RpcRdmaConfig config, RpcRdmaStats stats,
                                     Duration defaultTimeout, RpcDispatcher callbacks) {
        this.rpcStats = ObjectUtil.checkNotNull(rpcStats, "rpcStats");
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.defaultTimeout = ObjectUtil.checkNotNull(defaultTimeout, "defaultTimeout");
        this.callbacks = callbacks;
    }

    /**
     * The same, serving backward calls (callbacks, RFC 8167) from the server with {@code callbacks} on each
     * connection once its backchannel is enabled ({@code RpcBackchannel.of(channel).enable()}, before telling the
     * server, e.g. before NFSv4.1 CREATE_SESSION with CONN_BACK_CHAN). Each connection keeps
     * {@link RpcRdmaConfig#backwardCredits()} receives posted beyond the forward ones and grants that many backward
     * credits (RFC 8167 §4.3.1); its backchannel carries messages of up to
     * min(inline send, inline receive, 4096) - 28 bytes ({@code RpcBackchannel.maxMessageSize()}).
     */
    public RpcRdmaClientInitializer withCallbacks(RpcDispatcher callbacks) {
        return new RpcRdmaClientInitializer(rpcStats, config, stats, defaultTimeout,
                ObjectUtil.checkNotNull(callbacks, "callbacks"));
    }

    /** RPC counters shared by the connections. */
    public RpcStats rpcStats() {
        return rpcStats;
    }

    /** RPC-over-RDMA counters shared by the connections. */
    public RpcRdmaStats stats() {
        return stats;
    }

    /**
     * Prepares a channel about to connect: sets the connect request's RFC 8797 private data and sizes receive
     * buffers and send slots to exactly what it advertises (RFC 8797 §3.1), keeps receives for the backward calls
     * it grants when {@code callbacks} (RFC 8167 §4.3.1); returns the private data sent.
     */
    static RpcRdmaPrivateData prepareConnecting(Channel ch, RpcRdmaConfig config, boolean callbacks) {
        RpcRdmaPrivateData local = RpcRdmaPrivateData.of(config.remoteInvalidation(), config.sendSize(),
                config.receiveSize());
        if (ch instanceof RdmaChannel) {
            ch.config().setOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, local.receiveSize());
            ch.config().setOption(RdmaChannelOption.MAX_SEND_SIZE, local.sendSize());
            ch.config().setOption(RdmaChannelOption.PRIVATE_DATA, local.encode());
            if (callbacks) {
                int depth = ch.config().getOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH);
                ch.config().setOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, depth + config.backwardCredits());
            }
        }
        return local;
    }

    @Override
    protected void initChannel(Channel ch) {
        RpcRdmaPrivateData local = prepareConnecting(ch, config, callbacks != null);
        RdmaConnection connection = ch instanceof RdmaChannel ? (RdmaChannel) ch : null;
        BackwardResponder service = null;
        if (callbacks != null) {
            service = new BackwardResponder(BackwardSetup.of(config, stats, rpcStats));
            RpcBackchannel.install(ch, RpcBackchannel.Role.CALLBACK_SERVICE, rpcStats,
                    BackwardMessages.maxMessageSize(InlineThresholds.DEFAULTS));
        }
        ChannelPipeline p = ch.pipeline();
        p.addLast("rpcRdmaRequester", new RpcRdmaRequester(RequesterSetup.of(config, stats, rpcStats)
                .withConnection(connection).withNegotiation(local).withCallbacks(service)));
        // A call's declared maximum reply size means what it means over TCP: a larger reply fails the call with
        // RpcReplyTooLargeException, also when it fits inline (the requester turns ERR_CHUNK into the same).
        p.addLast("rpcClient", new RpcClientHandler(rpcStats, defaultTimeout).checkReplySize(true));
        if (callbacks != null) {
            p.addLast("rpcCallbacks", callbacks);
        }
    }
}
