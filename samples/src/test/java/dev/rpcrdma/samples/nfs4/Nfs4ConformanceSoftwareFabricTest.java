package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * {@link Nfs4Conformance} over RPC-over-RDMA on the in-process software fabric: the callbacks (and their
 * credentials) go over the RDMA backchannel (RFC 8167), READ data in Write chunks.
 */
class Nfs4ConformanceSoftwareFabricTest extends Nfs4Conformance {
    private EventLoopGroup group;

    @Override
    Nfs4Server startServer() throws Exception {
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(SoftwareFabric.instance())));
        return Nfs4Server.start("--transport", "rdma", "--rdma-port", "0", "--address", "127.0.0.1",
                "--fabric", "software", "--lease", "10");
    }

    @Override
    Nfs4TestClient connect(String owner) throws Exception {
        return Nfs4TestClient.connectRdma(group, new InetSocketAddress("127.0.0.1", server.rdmaAddress().getPort()),
                owner);
    }

    @Override
    void stopTransport() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
