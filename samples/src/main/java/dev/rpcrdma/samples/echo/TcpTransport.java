package dev.rpcrdma.samples.echo;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.time.Duration;

/** ONC RPC over TCP with RFC 5531 §11 record marking, on Netty's epoll or NIO transport. */
final class TcpTransport implements EchoTransport {

    /** Records up to the largest echo plus headers; 1 MiB fragments. */
    static final TcpRpcConfig CONFIG = new TcpRpcConfig(EchoProgram.MAX_DATA + 4096,
            TcpRpcConfig.DEFAULT_MAX_FRAGMENT_SIZE);

    private final boolean epoll;

    /** {@code io}: {@code auto} (epoll when available), {@code epoll} or {@code nio}. */
    TcpTransport(String io) {
        switch (io) {
            case "nio":
                epoll = false;
                break;
            case "epoll":
                if (!Epoll.isAvailable()) {
                    throw new UserError("the native epoll transport is unavailable here ("
                            + Epoll.unavailabilityCause().getMessage() + "): use --io nio");
                }
                epoll = true;
                break;
            default:
                epoll = Epoll.isAvailable();
        }
    }

    @Override
    public String description() {
        return epoll ? "tcp (epoll)" : "tcp (nio)";
    }

    @Override
    public EventLoopGroup newGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, epoll ? EpollIoHandler.newFactory()
                : NioIoHandler.newFactory());
    }

    @Override
    public ServerBootstrap serverBootstrap(EventLoopGroup group, RpcDispatcher dispatcher) {
        return new ServerBootstrap().group(group)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new TcpRpcServerInitializer(dispatcher, CONFIG));
    }

    @Override
    public Bootstrap clientBootstrap(EventLoopGroup group, RpcStats stats, Duration callTimeout) {
        return new Bootstrap().group(group)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        callTimeout.toMillis()))
                .handler(new TcpRpcClientInitializer(stats, CONFIG, callTimeout));
    }

    @Override
    public String advertised() {
        return "record marking, fragments up to " + (CONFIG.maxFragmentSize() >> 10) + " KiB, records up to "
                + (CONFIG.maxRecordSize() >> 10) + " KiB";
    }

    @Override
    public String negotiated(Channel client) {
        return advertised() + " (nothing to negotiate over TCP)";
    }

    @Override
    public String counters() {
        return null;
    }
}
