package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bridge suite over RPC-over-RDMA (byte framing with the backchannel) on one fabric. */
abstract class RdmaOncRpcBridgeSuite extends OncRpcBridgeSuite {
    EventLoopGroup group;

    /** The fabric under test, from the permutation source. */
    final TestFabric testFabric;

    RdmaOncRpcBridgeSuite(TestFabric testFabric) {
        this.testFabric = testFabric;
    }

    Fabric fabric() {
        return testFabric.fabric();
    }

    /** The address servers listen on. */
    InetAddress address() {
        return testFabric.address();
    }

    @BeforeEach
    void startLoop() {
        testFabric.setUp(getClass().getSimpleName());
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric())));
    }

    @Override
    Channel bind(ChannelHandler childHandler) throws Exception {
        return new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(childHandler)
                .bind(new InetSocketAddress(address(), 0)).sync().channel();
    }

    @Override
    Channel connect(SocketAddress to, ChannelHandler handler) throws Exception {
        return new Bootstrap().group(group).channel(RdmaChannel.class).handler(handler).connect(to).sync().channel();
    }

    @Override
    ChannelHandler initializer(OncRpcBridge bridge) {
        return bridge.rdma();
    }

    @Override
    ChannelHandler nativeClient() {
        return new RpcRdmaClientInitializer();
    }

    @Override
    void shutdown() throws Exception {
        try {
            if (group != null) {
                assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(TIMEOUT, TimeUnit.SECONDS));
            }
        } finally {
            testFabric.tearDown();
        }
    }
}
