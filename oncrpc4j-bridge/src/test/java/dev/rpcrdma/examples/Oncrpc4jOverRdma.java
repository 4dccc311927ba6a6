package dev.rpcrdma.examples;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.oncrpc4j.OncRpcBridge;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrInt;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** oncrpc4j services (what OncRpcSvcBuilder.withRpcService takes) served over RPC-over-RDMA by the bridge. */
public final class Oncrpc4jOverRdma {
    static final int PROG = 0x20000099, VERS = 1, SQUARE = 1;

    public static void main(String[] args) throws Exception {
        RpcDispatchable square = call -> {          // an oncrpc4j program, unchanged
            XdrInt x = new XdrInt();
            call.retrieveCall(x);
            call.reply(new XdrInt(x.intValue() * x.intValue()));
        };
        Map<OncRpcProgram, RpcDispatchable> services = Map.of(new OncRpcProgram(PROG, VERS), square);
        ExecutorService executor = Executors.newFixedThreadPool(4);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.SOFTWARE)));
        try {
            // Over Netty TCP: .channel(NioServerSocketChannel.class).childHandler(bridge.tcp())
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(OncRpcBridge.of(services, executor).rdma())
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();

            // oncrpc4j's own client call, on a bridged RDMA connection.
            Channel client = new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(OncRpcBridge.of(Map.of(), executor).rdma()).connect(server.localAddress()).sync()
                    .channel();
            XdrInt result = new XdrInt();
            new RpcCall(PROG, VERS, new RpcAuthTypeNone(), OncRpcBridge.transport(client))
                    .call(SQUARE, new XdrInt(12), result);
            System.out.println("oncrpc4j over RDMA: 12 squared is " + result.intValue());
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully().sync();
            executor.shutdown();
        }
    }
}
