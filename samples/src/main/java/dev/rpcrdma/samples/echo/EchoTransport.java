package dev.rpcrdma.samples.echo;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One way of carrying ONC RPC: the event loops, the channel types and the pipelines of server and client
 * connections. The echo program, server and client never look past this interface.
 */
interface EchoTransport {

    /** What is in use, for humans: e.g. {@code tcp (epoll)} or {@code rdma (software fabric)}. */
    String description();

    /** Something the user should know about the choice (e.g. a fallback), or null. */
    default String note() {
        return null;
    }

    /** Something the user should know about listening on {@code address} (e.g. unreachable), or null. */
    default String listenNote(InetSocketAddress address) {
        return null;
    }

    /** What a server on this transport offers its clients, for its start line: e.g. inline sizes and credits. */
    String advertised();

    /** Transport-level errors of the server connections, e.g. {@code 2 RDMA_ERROR sent}; 0 when none. */
    default long serverErrors() {
        return 0;
    }

    /** New event loops for this transport. */
    EventLoopGroup newGroup(int threads);

    /** A server bootstrap whose connections dispatch to {@code dispatcher}. */
    ServerBootstrap serverBootstrap(EventLoopGroup group, RpcDispatcher dispatcher);

    /** A client bootstrap whose connections end with an {@code RpcClientHandler}. */
    Bootstrap clientBootstrap(EventLoopGroup group, RpcStats stats, Duration callTimeout);

    /** What a connected client channel negotiated with its server, one line. */
    String negotiated(Channel client);

    /** Transport counters of the client connections, one line; null when there is nothing to count. */
    String counters();

    /** Picks the transport the options ask for; a {@link UserError} when it cannot be used here. */
    static EchoTransport select(EchoOptions options) {
        return options.transport == EchoOptions.Transport.TCP ? new TcpTransport(options.io)
                : new RdmaTransport(options);
    }
}
