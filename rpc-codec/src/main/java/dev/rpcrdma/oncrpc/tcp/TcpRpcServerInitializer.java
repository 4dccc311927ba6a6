package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.client.RpcClientHandler;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcServerGuard;
import dev.rpcrdma.oncrpc.server.RpcServerLimits;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.util.internal.ObjectUtil;

import java.time.Duration;

/**
 * Pipeline of an ONC RPC server connection over a byte stream (TCP on NIO or epoll; also AF_UNIX): record
 * marking, message codec, then the transport-agnostic {@link RpcDispatcher}.
 * <pre>
 *   RecordMarkingDecoder -> RpcMessageDecoder -> RpcDispatcher
 *   RecordMarkingEncoder &lt;- RpcMessageEncoder &lt;-               (-&gt; RpcClientHandler: backward calls)
 * </pre>
 * With {@link #withBackchannel()} the server can call clients back on their connections (NFSv4.1 style).
 * {@link RpcServerLimits} (the defaults, or {@link #withLimits}) bound the connections, the calls in flight per
 * connection (reading pauses beyond it) and the idle time, through {@link #guard()}.
 * Use as the child handler of a {@code ServerBootstrap}.
 */
@ChannelHandler.Sharable
public final class TcpRpcServerInitializer extends ChannelInitializer<Channel> {

    private final RpcDispatcher dispatcher;
    private final TcpRpcConfig config;
    /** Null, or the default timeout of backward calls (a backchannel is set up). */
    private final Duration backchannelTimeout;
    private final RpcServerGuard guard;

    /** With default record and fragment sizes. */
    public TcpRpcServerInitializer(RpcDispatcher dispatcher) {
        this(dispatcher, TcpRpcConfig.DEFAULT);
    }

    /** With the given record and fragment sizes. */
    public TcpRpcServerInitializer(RpcDispatcher dispatcher, TcpRpcConfig config) {
        this(dispatcher, config, null, new RpcServerGuard(RpcServerLimits.DEFAULT));
    }

    private TcpRpcServerInitializer(RpcDispatcher dispatcher, TcpRpcConfig config, Duration backchannelTimeout,
                                    RpcServerGuard guard) {
        this.dispatcher = ObjectUtil.checkNotNull(dispatcher, "dispatcher");
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.backchannelTimeout = backchannelTimeout;
        this.guard = guard;
    }

    /** The same with {@code limits} (and a new {@link RpcServerGuard} counting for them). */
    public TcpRpcServerInitializer withLimits(RpcServerLimits limits) {
        return new TcpRpcServerInitializer(dispatcher, config, backchannelTimeout, new RpcServerGuard(limits));
    }

    /** The limits applied and their counters, shared by this initializer's connections. */
    public RpcServerGuard guard() {
        return guard;
    }

    /**
     * The same, with a backchannel on each connection ({@link RpcBackchannel.Role#CALLER}): procedures call the
     * client back through {@code RpcCallContext.callback()} once the backchannel is enabled; an
     * {@link RpcClientHandler} behind the dispatcher takes the replies. Backward calls time out after
     * {@code timeout} unless their options say otherwise.
     */
    public TcpRpcServerInitializer withBackchannel(Duration timeout) {
        return new TcpRpcServerInitializer(dispatcher, config, ObjectUtil.checkNotNull(timeout, "timeout"), guard);
    }

    /** {@link #withBackchannel(Duration)} with a 30 s timeout. */
    public TcpRpcServerInitializer withBackchannel() {
        return withBackchannel(TcpRpcClientInitializer.DEFAULT_TIMEOUT);
    }

    @Override
    protected void initChannel(Channel ch) {
        if (!guard.admit(ch)) {
            return;
        }
        ChannelPipeline p = ch.pipeline();
        p.addLast("recordDecoder", new RecordMarkingDecoder(config.maxRecordSize(), dispatcher.stats()));
        p.addLast("recordEncoder", new RecordMarkingEncoder(config.maxFragmentSize()));
        p.addLast("rpcDecoder", new RpcMessageDecoder(dispatcher.stats()));
        p.addLast("rpcEncoder", new RpcMessageEncoder());
        guard.install(p, true);
        p.addLast("rpcDispatcher", dispatcher);
        if (backchannelTimeout != null) {
            RpcBackchannel.install(ch, RpcBackchannel.Role.CALLER, dispatcher.stats(), config.maxRecordSize());
            p.addLast("rpcBackchannel", new RpcClientHandler(dispatcher.stats(), backchannelTimeout));
        }
    }
}
