package dev.rpcrdma.samples.nfs4;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** {@link Nfs4Conformance} over TCP. */
class Nfs4ConformanceTcpTest extends Nfs4Conformance {
    private EventLoopGroup group;

    @Override
    Nfs4Server startServer() throws Exception {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        return Nfs4Server.start("--port", "0", "--address", "127.0.0.1", "--lease", "10", "--threads", "2");
    }

    @Override
    Nfs4TestClient connect(String owner) throws Exception {
        return Nfs4TestClient.connect(group, new InetSocketAddress("127.0.0.1", server.tcpAddress().getPort()), owner);
    }

    @Override
    void stopTransport() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
