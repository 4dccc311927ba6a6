package dev.rpcrdma.examples;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.net.InetSocketAddress;
import java.time.Duration;

/** An ECHO program over TCP (NIO: only rpc-codec and Netty needed): a server, an async and a blocking client. */
public final class TcpEcho {
    static final int PROG = 0x20000099, VERS = 1, ECHO = 1;

    public static void main(String[] args) throws Exception {
        // Server: register procedures; each runs on its connection's event loop.
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, in) -> {
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(in.readDdpOpaque(1 << 20));   // zero-copy
                    call.replySuccess(results);
                });
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats())))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();   // port 0: any free port
            InetSocketAddress address = (InetSocketAddress) server.localAddress();

            // Asynchronous client: many calls in flight on one connection, futures complete on the event loop.
            RpcClient client = RpcClient.of(new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new TcpRpcClientInitializer()).connect(address).sync().channel());
            try {
                client.callNull(PROG, VERS).get();
                XdrPayload echoArgs = client.newPayload();
                echoArgs.writer().writeOpaque(new byte[100_000]);
                byte[] echoed = client.call(PROG, VERS, ECHO, echoArgs, r -> r.readOpaque(1 << 20)).get();
                System.out.println("async client: " + echoed.length + " bytes echoed");
            } finally {
                client.channel().close().sync();
            }

            // Blocking client: one call at a time, the connection's I/O runs on this thread (no hand-off).
            try (BlockingRpcClient blocking = BlockingRpcClient.connect(
                    new Bootstrap().channel(NioSocketChannel.class).handler(new TcpRpcClientInitializer()),
                    NioIoHandler.newFactory(), address, Duration.ofSeconds(10))) {
                XdrPayload echoArgs = blocking.newPayload();
                echoArgs.writer().writeOpaque(new byte[100_000]);
                byte[] echoed = blocking.call(PROG, VERS, ECHO, echoArgs, r -> r.readOpaque(1 << 20));
                System.out.println("blocking client: " + echoed.length + " bytes echoed");
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully().sync();   // without it the event-loop threads keep the JVM alive
        }
    }
}
