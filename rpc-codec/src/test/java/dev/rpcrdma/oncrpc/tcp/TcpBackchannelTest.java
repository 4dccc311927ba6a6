package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.testing.BackchannelSuite;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The backchannel suite over TCP: the server calls back on the connection the client made. */
class TcpBackchannelTest extends BackchannelSuite {
    private final List<Channel> children = new CopyOnWriteArrayList<>();

    @Override
    protected EventLoopGroup newGroup() {
        return new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @Override
    protected Channel startServer(RpcDispatcher dispatcher) throws Exception {
        TcpRpcServerInitializer init = new TcpRpcServerInitializer(dispatcher).withBackchannel();
        return new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        children.add(ch);
                        ch.pipeline().addLast(init);
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
    }

    @Override
    protected Channel connect(SocketAddress server, RpcStats stats, RpcDispatcher callbacks) throws Exception {
        TcpRpcClientInitializer init = new TcpRpcClientInitializer(stats, TcpRpcConfig.DEFAULT,
                TcpRpcClientInitializer.DEFAULT_TIMEOUT);
        return new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(callbacks == null ? init : init.withCallbacks(callbacks)).connect(server).sync().channel();
    }

    @Override
    protected int expectedMaxBackwardMessage() {
        return TcpRpcConfig.DEFAULT.maxRecordSize();
    }

    @Override
    protected List<Channel> serverChildren() {
        return children;
    }
}
