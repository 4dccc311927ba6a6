package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One service ({@link EchoService}, written only against rpc-codec) and one client code path, served over TCP and
 * over RPC-over-RDMA: the only differences are the event-loop factory, the channel classes and the initializers.
 */
class DropInTransportTest {

    private EventLoopGroup group;
    private Channel server;
    private Channel client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close().sync();
        }
        if (server != null) {
            server.close().sync();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "rdma"})
    void theSameServiceRunsOverTcpAndRdma(String transport) throws Exception {
        boolean rdma = transport.equals("rdma");
        // The three things that change:
        IoHandlerFactory factory = rdma
                ? RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(SoftwareFabric.instance()))
                : NioIoHandler.newFactory();
        Class<? extends ServerChannel> serverClass = rdma ? RdmaServerChannel.class : NioServerSocketChannel.class;
        Class<? extends Channel> clientClass = rdma ? RdmaChannel.class : NioSocketChannel.class;
        RpcDispatcher dispatcher = new RpcDispatcher(EchoService.registry(), new RpcStats());
        ChannelInitializer<Channel> serverInit = rdma ? new RpcRdmaServerInitializer(dispatcher)
                : new TcpRpcServerInitializer(dispatcher);
        ChannelInitializer<Channel> clientInit = rdma ? new RpcRdmaClientInitializer()
                : new TcpRpcClientInitializer();

        // Everything else is identical.
        group = new MultiThreadIoEventLoopGroup(2, factory);
        server = new ServerBootstrap().group(group).channel(serverClass).childHandler(serverInit)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        client = new Bootstrap().group(group).channel(clientClass).handler(clientInit)
                .connect(server.localAddress()).sync().channel();
        RpcClient rpc = RpcClient.of(client);
        rpc.callNull(EchoService.PROG, EchoService.VERS).get(30, TimeUnit.SECONDS);
        for (int size : new int[] {0, 100, 5000, 200000}) {
            byte[] data = EchoService.pattern(size, size);
            XdrPayload args = rpc.newPayload();
            args.writeDdpOpaque(rpc.alloc().buffer(size).writeBytes(data));
            byte[] echoed = rpc.call(EchoService.PROG, EchoService.VERS, EchoService.ECHO, args, EchoService::readDdpBytes, CallOptions.DEFAULT.withReplyHints(size, size + 512)).get(30, TimeUnit.SECONDS);
            assertArrayEquals(data, echoed, transport + " size " + size);
        }
        assertEquals(0, dispatcher.stats().malformedMessages());
    }

    /**
     * {@link BlockingRpcClient} (the caller's thread runs the connection's I/O on a Netty {@code ManualIoEventLoop})
     * over both transports: the RDMA event-loop machinery (completion queues, CM events, credits, chunks) is driven
     * by the calling thread exactly as by a {@code MultiThreadIoEventLoopGroup} thread.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "rdma"})
    void theBlockingClientRunsOverTcpAndRdma(String transport) throws Exception {
        boolean rdma = transport.equals("rdma");
        IoHandlerFactory factory = rdma
                ? RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(SoftwareFabric.instance()))
                : NioIoHandler.newFactory();
        RpcDispatcher dispatcher = new RpcDispatcher(EchoService.registry(), new RpcStats());
        group = new MultiThreadIoEventLoopGroup(1, factory);
        server = new ServerBootstrap().group(group)
                .channel(rdma ? RdmaServerChannel.class : NioServerSocketChannel.class)
                .childHandler(rdma ? new RpcRdmaServerInitializer(dispatcher) : new TcpRpcServerInitializer(dispatcher))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        Bootstrap bootstrap = new Bootstrap().channel(rdma ? RdmaChannel.class : NioSocketChannel.class)
                .handler(rdma ? new RpcRdmaClientInitializer() : new TcpRpcClientInitializer());
        try (BlockingRpcClient rpc = BlockingRpcClient.connect(bootstrap, factory, server.localAddress(),
                Duration.ofSeconds(30))) {
            rpc.callNull(EchoService.PROG, EchoService.VERS);
            for (int size : new int[] {0, 100, 5000, 200000}) {
                byte[] data = EchoService.pattern(size, size + 1);
                XdrPayload args = rpc.newPayload();
                args.writeDdpOpaque(rpc.channel().alloc().buffer(size).writeBytes(data));
                byte[] echoed = rpc.call(EchoService.PROG, EchoService.VERS, EchoService.ECHO, args, EchoService::readDdpBytes, CallOptions.DEFAULT.withReplyHints(size, size + 512));
                assertArrayEquals(data, echoed, transport + " size " + size);
            }
        }
        assertEquals(0, dispatcher.stats().malformedMessages());
    }
}
