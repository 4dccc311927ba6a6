package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bridge over Netty TCP (NIO) with record marking. */
class TcpOncRpcBridgeTest extends OncRpcBridgeSuite {
    EventLoopGroup group;

    @BeforeEach
    void startLoop() {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @Override
    Channel bind(ChannelHandler childHandler) throws Exception {
        return new ServerBootstrap().group(group).channel(NioServerSocketChannel.class).childHandler(childHandler)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
    }

    @Override
    Channel connect(SocketAddress to, ChannelHandler handler) throws Exception {
        return new Bootstrap().group(group).channel(NioSocketChannel.class).handler(handler).connect(to).sync()
                .channel();
    }

    @Override
    ChannelHandler initializer(OncRpcBridge bridge) {
        return bridge.tcp();
    }

    @Override
    ChannelHandler nativeClient() {
        return new TcpRpcClientInitializer();
    }

    @Override
    void shutdown() throws Exception {
        assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(TIMEOUT, TimeUnit.SECONDS));
    }
}
