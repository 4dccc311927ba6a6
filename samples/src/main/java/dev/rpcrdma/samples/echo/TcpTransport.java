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
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;

import java.time.Duration;

/** ONC RPC over TCP with RFC 5531 §11 record marking, on Netty's epoll, io_uring or NIO transport. */
final class TcpTransport implements EchoTransport {

    /** Records up to the largest echo plus headers; 1 MiB fragments. */
    static final TcpRpcConfig CONFIG = new TcpRpcConfig(EchoProgram.MAX_DATA + 4096,
            TcpRpcConfig.DEFAULT_MAX_FRAGMENT_SIZE);

    /** The event loops: {@code epoll}, {@code io_uring} or {@code nio}. */
    private final String io;

    /** {@code io}: {@code auto} (epoll when available), {@code epoll}, {@code io_uring} or {@code nio}. */
    TcpTransport(String io) {
        switch (io) {
            case "nio":
                this.io = io;
                break;
            case "epoll":
                if (!Epoll.isAvailable()) {
                    throw new UserError("the native epoll transport is unavailable here ("
                            + Epoll.unavailabilityCause().getMessage() + "): use --io nio");
                }
                this.io = io;
                break;
            case "io_uring":
                if (!IoUring.isAvailable()) {
                    throw new UserError("the io_uring transport is unavailable here ("
                            + IoUring.unavailabilityCause().getMessage() + "): use --io epoll or nio");
                }
                this.io = io;
                break;
            default:
                this.io = Epoll.isAvailable() ? "epoll" : "nio";
        }
    }

    @Override
    public String description() {
        return "tcp (" + io + ")";
    }

    @Override
    public EventLoopGroup newGroup(int threads) {
        IoHandlerFactory factory;
        switch (io) {
            case "epoll": factory = EpollIoHandler.newFactory(); break;
            case "io_uring": factory = IoUringIoHandler.newFactory(); break;
            default: factory = NioIoHandler.newFactory();
        }
        return new MultiThreadIoEventLoopGroup(threads, factory);
    }

    private Class<? extends ServerChannel> serverChannel() {
        switch (io) {
            case "epoll": return EpollServerSocketChannel.class;
            case "io_uring": return IoUringServerSocketChannel.class;
            default: return NioServerSocketChannel.class;
        }
    }

    private Class<? extends Channel> channel() {
        switch (io) {
            case "epoll": return EpollSocketChannel.class;
            case "io_uring": return IoUringSocketChannel.class;
            default: return NioSocketChannel.class;
        }
    }

    @Override
    public ServerBootstrap serverBootstrap(EventLoopGroup group, RpcDispatcher dispatcher) {
        return new ServerBootstrap().group(group)
                .channel(serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new TcpRpcServerInitializer(dispatcher, CONFIG));
    }

    @Override
    public Bootstrap clientBootstrap(EventLoopGroup group, RpcStats stats, Duration callTimeout) {
        return new Bootstrap().group(group)
                .channel(channel())
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
