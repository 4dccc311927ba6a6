package dev.rpcrdma.oncrpc.tcp;

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
 * Pipeline of an ONC RPC client connection over a byte stream (TCP on NIO or epoll; also AF_UNIX, e.g.
 * rpcbind's {@code /run/rpcbind.sock}): record marking, message codec, then the transport-agnostic
 * {@link RpcClientHandler}. Obtain the client with {@link dev.rpcrdma.oncrpc.client.RpcClient#of}.
 */
@ChannelHandler.Sharable
public final class TcpRpcClientInitializer extends ChannelInitializer<Channel> {

    /** Default call timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final RpcStats stats;
    private final TcpRpcConfig config;
    private final Duration defaultTimeout;
    /** Null, or the callback programs served on each connection. */
    private final RpcDispatcher callbacks;

    /** Defaults: {@link TcpRpcConfig#DEFAULT}, 30 s timeout, fresh counters. */
    public TcpRpcClientInitializer() {
        this(new RpcStats(), TcpRpcConfig.DEFAULT, DEFAULT_TIMEOUT);
    }

    /** With shared counters, sizes and a default call timeout. */
    public TcpRpcClientInitializer(RpcStats stats, TcpRpcConfig config, Duration defaultTimeout) {
        this(stats, config, defaultTimeout, null);
    }

    private TcpRpcClientInitializer(RpcStats stats, TcpRpcConfig config, Duration defaultTimeout,
                                    RpcDispatcher callbacks) {
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.defaultTimeout = ObjectUtil.checkNotNull(defaultTimeout, "defaultTimeout");
        this.callbacks = callbacks;
    }

    /**
     * The same, serving backward calls (callbacks) from the server on each connection with {@code callbacks}
     * ({@link RpcBackchannel.Role#CALLBACK_SERVICE}) once the connection's backchannel is enabled
     * ({@code RpcBackchannel.of(channel).enable()}, before telling the server, e.g. before NFSv4.1 CREATE_SESSION).
     */
    public TcpRpcClientInitializer withCallbacks(RpcDispatcher callbacks) {
        return new TcpRpcClientInitializer(stats, config, defaultTimeout,
                ObjectUtil.checkNotNull(callbacks, "callbacks"));
    }

    /** The counters shared by the connections this initializer sets up. */
    public RpcStats stats() {
        return stats;
    }

    @Override
    protected void initChannel(Channel ch) {
        ChannelPipeline p = ch.pipeline();
        p.addLast("recordDecoder", new RecordMarkingDecoder(config.maxRecordSize(), stats));
        p.addLast("recordEncoder", new RecordMarkingEncoder(config.maxFragmentSize()));
        p.addLast("rpcDecoder", new RpcMessageDecoder(stats));
        p.addLast("rpcEncoder", new RpcMessageEncoder());
        p.addLast("rpcClient", new RpcClientHandler(stats, defaultTimeout).checkReplySize(true));
        if (callbacks != null) {
            RpcBackchannel.install(ch, RpcBackchannel.Role.CALLBACK_SERVICE, stats, config.maxRecordSize());
            p.addLast("rpcCallbacks", callbacks);
        }
    }
}
