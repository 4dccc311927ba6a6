package dev.rpcrdma.oncrpc.tcp;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.Assumptions;

/** The Netty TCP transports the RPC stack is tested on. */
public enum TestTransport {
    NIO,
    EPOLL;

    /** Skips the calling test loudly if this transport is not usable here. */
    public void assumeAvailable() {
        if (this == EPOLL) {
            Assumptions.assumeTrue(Epoll.isAvailable(),
                    () -> "SKIPPED: native epoll transport unavailable: " + Epoll.unavailabilityCause());
        }
    }

    /** IO handler factory for a {@code MultiThreadIoEventLoopGroup}. */
    public IoHandlerFactory ioHandlerFactory() {
        return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    /** Server channel class. */
    public Class<? extends ServerChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** Client channel class. */
    public Class<? extends SocketChannel> clientChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
