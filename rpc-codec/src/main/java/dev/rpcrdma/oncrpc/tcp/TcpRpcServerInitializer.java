package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.util.internal.ObjectUtil;

/**
 * Pipeline of an ONC RPC server connection over a byte stream (TCP on NIO or epoll; also AF_UNIX): record
 * marking, message codec, then the transport-agnostic {@link RpcDispatcher}.
 * <pre>
 *   RecordMarkingDecoder -> RpcMessageDecoder -> RpcDispatcher
 *   RecordMarkingEncoder <- RpcMessageEncoder <-
 * </pre>
 * Use as the child handler of a {@code ServerBootstrap}.
 */
@ChannelHandler.Sharable
public final class TcpRpcServerInitializer extends ChannelInitializer<Channel> {

    private final RpcDispatcher dispatcher;
    private final TcpRpcConfig config;

    /** With default record and fragment sizes. */
    public TcpRpcServerInitializer(RpcDispatcher dispatcher) {
        this(dispatcher, TcpRpcConfig.DEFAULT);
    }

    /** With the given record and fragment sizes. */
    public TcpRpcServerInitializer(RpcDispatcher dispatcher, TcpRpcConfig config) {
        this.dispatcher = ObjectUtil.checkNotNull(dispatcher, "dispatcher");
        this.config = ObjectUtil.checkNotNull(config, "config");
    }

    @Override
    protected void initChannel(Channel ch) {
        ChannelPipeline p = ch.pipeline();
        p.addLast("recordDecoder", new RecordMarkingDecoder(config.maxRecordSize(), dispatcher.stats()));
        p.addLast("recordEncoder", new RecordMarkingEncoder(config.maxFragmentSize()));
        p.addLast("rpcDecoder", new RpcMessageDecoder(dispatcher.stats()));
        p.addLast("rpcEncoder", new RpcMessageEncoder());
        p.addLast("rpcDispatcher", dispatcher);
    }
}
