package dev.rpcrdma.benchmarks.tcp;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.samples.echo.EchoProgram;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Our stack: rpc-codec's dispatcher over Netty TCP (NIO or epoll), called with the asynchronous {@link RpcClient}
 * (connections on a shared client event-loop group) or with {@link BlockingRpcClient} (each connection's I/O on
 * its calling thread).
 */
final class RpcCodecStack implements TcpRpcLoad.Stack {

    private final boolean epoll;
    private final boolean blocking;
    private final EventLoopGroup serverGroup;
    private final EventLoopGroup clientGroup;
    private final Channel server;

    RpcCodecStack(boolean epoll, boolean blocking) throws InterruptedException {
        this.epoll = epoll;
        this.blocking = blocking;
        serverGroup = new MultiThreadIoEventLoopGroup(2,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        clientGroup = new MultiThreadIoEventLoopGroup(2,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        // The samples' echo program: same numbers (0x2004F001 v1, NULL and ECHO), zero-copy echo.
        RpcProgramRegistry registry = EchoProgram.register(new RpcProgramRegistry());
        server = new ServerBootstrap().group(serverGroup)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats())))
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    @Override
    public String name() {
        return (blocking ? "ours-blocking" : "ours") + (epoll ? "(epoll)" : "(nio)");
    }

    @Override
    public TcpRpcLoad.Caller connect() throws Exception {
        if (blocking) {
            return connectBlocking();
        }
        Channel ch = new Bootstrap().group(clientGroup)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer(new RpcStats(), TcpRpcConfig.DEFAULT, Duration.ofSeconds(30)))
                .connect(server.localAddress()).sync().channel();
        RpcClient client = RpcClient.of(ch);
        return new TcpRpcLoad.Caller() {
            @Override
            public void callNull() throws Exception {
                client.callNull(TcpRpcLoad.PROG, TcpRpcLoad.VERS).get(30, TimeUnit.SECONDS);
            }

            @Override
            public byte[] echo(byte[] data) throws Exception {
                XdrPayload args = client.newPayload();
                args.writer().writeOpaque(data);
                return client.call(TcpRpcLoad.PROG, TcpRpcLoad.VERS, TcpRpcLoad.PROC_ECHO, args,
                        r -> r.readOpaque(1 << 20)).get(30, TimeUnit.SECONDS);
            }

            @Override
            public void shutdown() throws InterruptedException {
                ch.close().sync();
            }
        };
    }

    private TcpRpcLoad.Caller connectBlocking() throws IOException {
        Bootstrap bootstrap = new Bootstrap()
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer(new RpcStats(), TcpRpcConfig.DEFAULT, Duration.ofSeconds(30)));
        BlockingRpcClient client = BlockingRpcClient.connect(bootstrap,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory(), server.localAddress(),
                Duration.ofSeconds(10));
        return new TcpRpcLoad.Caller() {
            @Override
            public void callNull() throws Exception {
                client.callNull(TcpRpcLoad.PROG, TcpRpcLoad.VERS);
            }

            @Override
            public byte[] echo(byte[] data) throws Exception {
                XdrPayload args = client.newPayload();
                args.writer().writeOpaque(data);
                return client.call(TcpRpcLoad.PROG, TcpRpcLoad.VERS, TcpRpcLoad.PROC_ECHO, args,
                        r -> r.readOpaque(1 << 20));
            }

            @Override
            public void shutdown() {
                client.close();
            }
        };
    }

    @Override
    public void shutdown() throws InterruptedException {
        server.close().sync();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
