package dev.rpcrdma.examples;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.net.InetSocketAddress;
import java.time.Duration;

/** The same ECHO program over RPC-over-RDMA: TcpEcho with the three TCP pieces swapped, plus the reply size. */
public final class RdmaEcho {
    static final int PROG = 0x20000099, VERS = 1, ECHO = 1;

    public static void main(String[] args) throws Exception {
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, in) -> {
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(in.readDdpOpaque(1 << 20));   // zero-copy; RDMA Write when it can
                    call.replySuccess(results);
                });
        // RdmaFabric.NATIVE drives a real device (libibverbs, e.g. Soft-RoCE) and needs its interface's address;
        // SOFTWARE is the in-process device model: it reaches only this JVM.
        IoHandlerFactory rdma = RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.SOFTWARE));
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(rdma);
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(new RpcRdmaServerInitializer(new RpcDispatcher(registry, new RpcStats())))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            InetSocketAddress address = (InetSocketAddress) server.localAddress();

            RpcClient client = RpcClient.of(new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer()).connect(address).sync().channel());
            try {
                client.callNull(PROG, VERS).get();
                XdrPayload echoArgs = client.newPayload();
                echoArgs.writer().writeOpaque(new byte[100_000]);   // > inline: sent as a Long Call (RDMA Read)
                // The 100 000-byte reply exceeds the inline threshold: it comes back in a Reply chunk the client
                // offers by itself (up to RpcRdmaConfig.withMaxReplySize, 1 MiB by default), read as over TCP.
                byte[] echoed = client.call(PROG, VERS, ECHO, echoArgs, r -> r.readOpaque(1 << 20)).get();
                System.out.println("async client: " + echoed.length + " bytes echoed");
            } finally {
                client.channel().close().sync();
            }

            try (BlockingRpcClient blocking = BlockingRpcClient.connect(
                    new Bootstrap().channel(RdmaChannel.class).handler(new RpcRdmaClientInitializer()),
                    rdma, address, Duration.ofSeconds(10))) {
                XdrPayload echoArgs = blocking.newPayload();
                echoArgs.writer().writeOpaque(new byte[100_000]);
                byte[] echoed = blocking.call(PROG, VERS, ECHO, echoArgs, r -> r.readOpaque(1 << 20));
                System.out.println("blocking client: " + echoed.length + " bytes echoed");
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }
}
