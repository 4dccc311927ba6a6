package dev.rpcrdma.samples.callback;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
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

/**
 * The demo's two transports behind one face: TCP (NIO) or RPC-over-RDMA on a fabric. Both set up a server with a
 * backchannel and a client serving callbacks through the initializers' {@code withBackchannel()} /
 * {@code withCallbacks(...)}; the programs never see which one runs. Immutable.
 */
final class DemoTransport {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final RdmaFabric fabric;

    private DemoTransport(RdmaFabric fabric) {
        this.fabric = fabric;
    }

    static DemoTransport tcp() {
        return new DemoTransport(null);
    }

    static DemoTransport rdma(RdmaFabric fabric) {
        return new DemoTransport(fabric);
    }

    String description() {
        return fabric == null ? "tcp" : "rdma (RPC-over-RDMA v1, " + (fabric == RdmaFabric.SOFTWARE
                ? "software fabric, in-process" : "native fabric") + ")";
    }

    EventLoopGroup newGroup() {
        return new MultiThreadIoEventLoopGroup(1, fabric == null ? NioIoHandler.newFactory()
                : RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(fabric)));
    }

    Channel startServer(EventLoopGroup group, RpcDispatcher dispatcher, InetSocketAddress at)
            throws InterruptedException {
        if (fabric == null) {
            return new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new TcpRpcServerInitializer(dispatcher).withBackchannel(TIMEOUT))
                    .bind(at).sync().channel();
        }
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(dispatcher, RpcRdmaConfig.DEFAULT,
                new RpcRdmaStats()).withBackchannel(TIMEOUT);
        return init.configure(new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .childHandler(init)).bind(at).sync().channel();
    }

    Channel connect(EventLoopGroup group, InetSocketAddress server, RpcStats stats, RpcDispatcher callbacks)
            throws InterruptedException {
        if (fabric == null) {
            return new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new TcpRpcClientInitializer(stats, TcpRpcConfig.DEFAULT, TIMEOUT)
                            .withCallbacks(callbacks)).connect(server).sync().channel();
        }
        return new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new RpcRdmaClientInitializer(stats, RpcRdmaConfig.DEFAULT, new RpcRdmaStats(), TIMEOUT)
                        .withCallbacks(callbacks)).connect(server).sync().channel();
    }
}
